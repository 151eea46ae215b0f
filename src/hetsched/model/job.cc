#include "hetsched/model/job.h"

#include <algorithm>

#include "hetsched/util/text.h"

namespace hetsched {

std::string_view ParallelismName(Parallelism p) {
  switch (p) {
    case Parallelism::kSingle: return "single";
    case Parallelism::kDataRing: return "ring";
    case Parallelism::kDataPS: return "ps";
    case Parallelism::kPipeline: return "pipeline";
  }
  return "unknown";
}

std::optional<Parallelism> ParseParallelism(std::string_view name) {
  const std::string key = ToLower(Trim(name));
  for (Parallelism p : {Parallelism::kSingle, Parallelism::kDataRing, Parallelism::kDataPS,
                        Parallelism::kPipeline}) {
    if (key == ParallelismName(p)) return p;
  }
  return std::nullopt;
}

// An empty list means "any accelerator type". JobSpec carries no catalog, so whether a type is
// a CPU node is the caller's check (DeviceType::is_cpu); an explicit list is taken literally and
// may name a CPU node type.
bool JobSpec::AllowsType(DeviceTypeId t, const DeviceCatalog& catalog) const {
  if (t < 0 || t >= catalog.size()) return false;
  if (allowed_types.empty()) return !catalog.type(t).is_cpu;
  return std::find(allowed_types.begin(), allowed_types.end(), t) != allowed_types.end();
}

}  // namespace hetsched

namespace hetsched {

std::string_view ContainerRoleName(ContainerRole role) {
  return role == ContainerRole::kParameterServer ? "ps" : "worker";
}

}  // namespace hetsched
