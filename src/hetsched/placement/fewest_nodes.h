// Skeleton of the placers that minimise the number of nodes a job spans (`pack`, `gadget-ring`):
// over the request's candidate types, the best-fit node that holds the whole job wins at once
// (one node is the least any type can do); otherwise each type's multi-node spread, as the
// subclass builds it, competes on span (ties: CandidateTypes order).
// Cost: O(log N + devices per node) per type for the single-node case; the spread's own cost
// otherwise (O(n log N) for both users). No cluster scan.
#ifndef HETSCHED_PLACEMENT_FEWEST_NODES_H_
#define HETSCHED_PLACEMENT_FEWEST_NODES_H_

#include <vector>

#include "hetsched/sched/placer.h"

namespace hetsched {

class FewestNodesPlacer : public Placer {
 public:
  bool Place(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out) final;

 protected:
  // Spreads n devices of type t (free_of_type(t) >= n, no single node holds them) over several
  // nodes: fills *devices with exactly n devices and returns the number of nodes used, or returns
  // 0 when the type cannot do better than `best_span` nodes (*devices then does not matter).
  // `nodes` is scratch space.
  virtual int Spread(DeviceTypeId t, int n, int best_span, const ClusterState& state,
                     std::vector<NodeId>* nodes, std::vector<DeviceId>* devices) = 0;

 private:
  // Scratch, reused between calls.
  std::vector<DeviceTypeId> types_;
  std::vector<NodeId> nodes_;
  std::vector<DeviceId> devices_;
  std::vector<DeviceId> best_;
};

}  // namespace hetsched

#endif  // HETSCHED_PLACEMENT_FEWEST_NODES_H_
