// k8s-binpack: Kubernetes bin packing as a container placer (ALGORITHMS.md 6.4):
// MostAllocated over CPU and memory (kube-scheduler NodeResourcesFit with the MostAllocated
// strategy), pods one at a time as in k8s-spread, ties to the lowest node id.
#include <limits>

#include "hetsched/placement/container_draft.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

using placement_internal::ContainerDraft;
using placement_internal::DraftScorer;

class BinpackScorer : public DraftScorer {
 public:
  double Score(const ContainerDraft& d, ContainerRole role, NodeId n) const override {
    return placement_internal::MostAllocated(d, n, d.request(role));
  }
  double Bound(const ContainerDraft& d, ContainerRole role, const NodeSummary& s) const override {
    return placement_internal::MostAllocatedBound(s, d.request(role));
  }
};

Result<std::unique_ptr<Placer>> MakeBinpack(const Options& /*options*/) {
  return std::unique_ptr<Placer>(
      std::make_unique<placement_internal::ScoringContainerPlacer>("k8s-binpack", std::make_unique<BinpackScorer>()));
}

const MethodInfo kBinpackInfo{"k8s-binpack", "containers: Kubernetes bin packing, MostAllocated (CPU, memory)",
                              "[CLASSIC] kube-scheduler NodeResourcesFit MostAllocated; baseline of DLTAP (ALGORITHMS.md 6.4)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kK8sBinpackRegistered, kBinpackInfo, MakeBinpack)

}  // namespace hetsched
