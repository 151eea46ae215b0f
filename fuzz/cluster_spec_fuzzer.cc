// Fuzzes the cluster spec reader (YAML, and JSON as its subset). An accepted cluster must pass
// its own Validate() and have at least one device.
#include "fuzz_common.h"
#include "hetsched/model/cluster.h"
#include "hetsched/model/device.h"
#include "hetsched/model/link.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hetsched;
  Result<Cluster> cluster = ParseClusterSpec(fuzz::AsText(data, size), "fuzz.yaml", DeviceCatalog::BuiltIn(),
                                             LinkCatalog::BuiltIn());
  fuzz::CheckMessage(cluster.status());
  if (cluster.ok()) {
    fuzz::Check(cluster->Validate().ok(), "an accepted cluster validates");
    fuzz::Check(cluster->num_devices() > 0, "an accepted cluster has devices");
  }
  return 0;
}
