// First fit: lowest-id nodes first. The job goes on one node (the lowest-id one of the type with
// room for all of it) when it can; otherwise it takes the free devices of the type's nodes in id
// order. Candidate types are tried in CandidateTypes order; the first with enough free devices
// wins. Cost: O(log N) per node touched, plus the devices placed.
#include <algorithm>

#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class FirstFitPlacer : public Placer {
 public:
  std::string_view name() const override { return "first-fit"; }

  bool Place(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out) override {
    const int n = request.num_devices;
    CandidateTypes(request, state, &types_);
    for (DeviceTypeId t : types_) {
      if (state.free_of_type(t) < n) continue;
      const size_t first_out = out->size();
      const NodeId single = state.FirstNodeWithFree(t, n);
      if (single >= 0) {
        state.AppendFreeDevices(single, out);
        out->resize(first_out + static_cast<size_t>(n));
        return true;
      }
      // No node holds the whole job: walk the nodes with free devices in id order, each found in
      // O(log N) from the segment tree; every step yields at least one device.
      const std::vector<NodeId>& nodes = state.nodes_of_type(t);
      int pos = 0;
      while (static_cast<int>(out->size() - first_out) < n) {
        const NodeId node = state.FirstNodeWithFree(t, 1, pos);
        if (node < 0) break;  // unreachable while free_of_type(t) >= n
        state.AppendFreeDevices(node, out);
        // nodes_of_type is in id order: the node's position by binary search.
        pos = static_cast<int>(std::lower_bound(nodes.begin(), nodes.end(), node) - nodes.begin()) + 1;
      }
      if (static_cast<int>(out->size() - first_out) >= n) {
        out->resize(first_out + static_cast<size_t>(n));
        return true;
      }
      out->resize(first_out);
    }
    return false;
  }

 private:
  std::vector<DeviceTypeId> types_;  // scratch, reused between calls
};

Result<std::unique_ptr<Placer>> MakeFirstFit(const Options& /*options*/) {
  return std::unique_ptr<Placer>(std::make_unique<FirstFitPlacer>());
}

const MethodInfo kFirstFitInfo{"first-fit", "lowest-id node that holds the whole job, else lowest-id free devices",
                               "[CLASSIC] first fit (e.g. Slurm's default linear node selection)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kFirstFitRegistered, kFirstFitInfo, MakeFirstFit)

}  // namespace hetsched
