// Pack (consolidate, best fit): the node of the type with the fewest free devices that still
// holds the whole job; when no node does, the fewest nodes, most-free first. Over candidate
// types, the one where the job spans the fewest nodes wins (ties: CandidateTypes order).
// Cost: O(log N + devices per node) per type for the single-node case, O(n log N) otherwise.
#include "hetsched/placement/fewest_nodes.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class PackPlacer : public FewestNodesPlacer {
 public:
  std::string_view name() const override { return "pack"; }

 protected:
  // The n most-free nodes always hold n devices when free_of_type >= n (each has >= 1).
  int Spread(DeviceTypeId t, int n, int best_span, const ClusterState& state, std::vector<NodeId>* nodes,
             std::vector<DeviceId>* devices) override {
    nodes->clear();
    state.AppendNodesByMostFree(t, n, nodes);
    int span = 0;
    for (NodeId node : *nodes) {
      if (static_cast<int>(devices->size()) >= n || span >= best_span) break;
      state.AppendFreeDevices(node, devices);
      ++span;
    }
    if (static_cast<int>(devices->size()) < n) return 0;
    devices->resize(static_cast<size_t>(n));
    return span;
  }
};

Result<std::unique_ptr<Placer>> MakePack(const Options& /*options*/) {
  return std::unique_ptr<Placer>(std::make_unique<PackPlacer>());
}

const MethodInfo kPackInfo{"pack", "consolidate: best-fit node, else the fewest most-free nodes, type with the fewest nodes",
                           "[CLASSIC] best-fit bin packing / consolidation (e.g. Tiresias and Gandiva consolidated placement)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kPackRegistered, kPackInfo, MakePack)

}  // namespace hetsched
