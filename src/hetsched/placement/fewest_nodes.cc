#include "hetsched/placement/fewest_nodes.h"

#include <limits>

namespace hetsched {

bool FewestNodesPlacer::Place(const PlacementRequest& request, const ClusterState& state,
                              std::vector<DeviceId>* out) {
  const int n = request.num_devices;
  int best_span = std::numeric_limits<int>::max();
  best_.clear();
  CandidateTypes(request, state, &types_);
  for (DeviceTypeId t : types_) {
    if (state.free_of_type(t) < n) continue;
    const NodeId single = state.BestFitNode(t, n);
    if (single >= 0) {
      best_.clear();
      state.AppendFreeDevices(single, &best_);
      best_.resize(static_cast<size_t>(n));
      break;  // one node is the least any type can do
    }
    devices_.clear();
    const int span = Spread(t, n, best_span, state, &nodes_, &devices_);
    if (span <= 0 || span >= best_span) continue;
    best_.swap(devices_);
    best_span = span;
  }
  if (best_.empty()) return false;
  out->insert(out->end(), best_.begin(), best_.end());
  return true;
}

}  // namespace hetsched
