// Pack (consolidate, best fit): the node of the type with the fewest free devices that still
// holds the whole job; when no node does, the fewest nodes, most-free first. Over candidate
// types, the one where the job spans the fewest nodes wins (ties: CandidateTypes order).
// Cost: O(log N + devices per node) per type for the single-node case, O(n log N) otherwise.
#include <limits>

#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class PackPlacer : public Placer {
 public:
  std::string_view name() const override { return "pack"; }

  bool Place(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out) override {
    const int n = request.num_devices;
    int best_span = std::numeric_limits<int>::max();
    best_.clear();
    for (DeviceTypeId t : CandidateTypes(request, state)) {
      if (state.free_of_type(t) < n) continue;
      const NodeId single = state.BestFitNode(t, n);
      if (single >= 0) {
        best_.clear();
        state.AppendFreeDevices(single, &best_);
        best_.resize(static_cast<size_t>(n));
        best_span = 1;
        break;  // one node is the least any type can do
      }
      // The n most-free nodes always hold n devices when free_of_type >= n (each has >= 1).
      nodes_.clear();
      state.AppendNodesByMostFree(t, n, &nodes_);
      devices_.clear();
      int span = 0;
      for (NodeId node : nodes_) {
        if (static_cast<int>(devices_.size()) >= n) break;
        state.AppendFreeDevices(node, &devices_);
        ++span;
      }
      if (static_cast<int>(devices_.size()) < n || span >= best_span) continue;
      devices_.resize(static_cast<size_t>(n));
      best_.swap(devices_);
      best_span = span;
    }
    if (best_.empty()) return false;
    out->insert(out->end(), best_.begin(), best_.end());
    return true;
  }

 private:
  std::vector<NodeId> nodes_;  // scratch, reused between calls
  std::vector<DeviceId> devices_;
  std::vector<DeviceId> best_;
};

Result<std::unique_ptr<Placer>> MakePack(const Options& /*options*/) {
  return std::unique_ptr<Placer>(std::make_unique<PackPlacer>());
}

const MethodInfo kPackInfo{"pack", "consolidate: best-fit node, else the fewest most-free nodes, type with the fewest nodes",
                           "[CLASSIC] best-fit bin packing / consolidation (e.g. Tiresias and Gandiva consolidated placement)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kPackRegistered, kPackInfo, MakePack)

}  // namespace hetsched
