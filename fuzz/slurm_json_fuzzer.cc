// Fuzzes the readers of Slurm's JSON outputs (`sinfo --json`, `squeue --json`).
#include "fuzz_common.h"
#include "hetsched/slurm/slurm_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hetsched;
  const std::string_view text = fuzz::AsText(data, size);
  fuzz::CheckMessage(slurm::ParseSinfoJson(text, "sinfo").status());
  fuzz::CheckMessage(slurm::ParseSqueueJson(text, "squeue").status());
  return 0;
}
