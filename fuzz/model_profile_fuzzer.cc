// Fuzzes the layer-profile reader (JSON). An accepted model has layers and forward FLOPs.
#include "fuzz_common.h"
#include "hetsched/model/model_profile_file.h"
#include "hetsched/model/model_zoo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hetsched;
  Result<ModelProfile> model = ParseModelProfile(fuzz::AsText(data, size), "fuzz.json");
  fuzz::CheckMessage(model.status());
  if (model.ok()) {
    fuzz::Check(!model->layers.empty(), "an accepted model has layers");
    fuzz::Check(model->total_fwd_flops_per_sample() > 0, "an accepted model has forward FLOPs");
    fuzz::Check(model->default_batch_size >= 1, "an accepted model has a batch size >= 1");
  }
  return 0;
}
