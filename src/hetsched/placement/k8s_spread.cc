// k8s-spread: the Kubernetes default scheduler's spreading as a container placer, the main
// baseline of DLTAP (ALGORITHMS.md 6.4): LeastAllocated + BalancedAllocation, weight 1 each, over
// CPU and memory (kube-scheduler's NodeResourcesFit and NodeResourcesBalancedAllocation
// defaults). Pods one at a time in creation order (servers, then workers, as the TensorFlow
// operators create them), each on the best-scoring node that fits its CPU, memory and GPU
// request after the pods placed before it; ties go to the lowest node id (the real scheduler
// breaks them at random). Device jobs: the most-free nodes of the type.
// Cost per container: the resource index's branch and bound plus a scan of the nodes this job
// already uses.
#include <limits>

#include "hetsched/placement/container_draft.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

using placement_internal::ContainerDraft;
using placement_internal::DraftScorer;

class SpreadScorer : public DraftScorer {
 public:
  double Score(const ContainerDraft& d, ContainerRole role, NodeId n) const override {
    const ContainerRequest& r = d.request(role);
    return placement_internal::LeastAllocated(d, n, r) + placement_internal::Balanced(d, n, r);
  }
  double Bound(const ContainerDraft& d, ContainerRole role, const NodeSummary& s) const override {
    const ContainerRequest& r = d.request(role);
    return placement_internal::LeastAllocatedBound(s, r) + placement_internal::BalancedBound(s, r);
  }
};

Result<std::unique_ptr<Placer>> MakeK8sSpread(const Options& /*options*/) {
  return std::unique_ptr<Placer>(
      std::make_unique<placement_internal::ScoringContainerPlacer>("k8s-spread", std::make_unique<SpreadScorer>()));
}

const MethodInfo kK8sSpreadInfo{"k8s-spread", "containers: Kubernetes default scoring, LeastAllocated + BalancedAllocation (CPU, memory)",
                             "[CLASSIC] kube-scheduler NodeResourcesFit LeastAllocated + NodeResourcesBalancedAllocation; baseline of DLTAP (ALGORITHMS.md 6.4)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kK8sSpreadRegistered, kK8sSpreadInfo, MakeK8sSpread)

}  // namespace hetsched
