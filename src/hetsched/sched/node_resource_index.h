// An index over every node's free container resources (CPU millicores, memory bytes, free
// accelerators) for placers of container jobs: a segment tree in node-id order whose inner
// entries summarise their subtree (maxima of the free amounts and of the free/used fractions,
// the node types present). A search filters by a container's request and maximises a placer's
// score by branch and bound: a subtree is skipped when it cannot hold the request or when the
// scorer's upper bound for it cannot beat the best node found so far. Updates are O(log N).
// Owned by ClusterState, which keeps it current; placers read it through ClusterState.
#pragma once

#include <cstdint>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/container.h"

namespace hetsched {

// Summary of a set of nodes (one node at a leaf). Fractions are of the node's own capacity; a
// resource with zero capacity counts as fully used (free fraction 0, used fraction 1).
struct NodeSummary {
  int64_t max_free_cpu = -1;       // millicores
  int64_t max_free_memory = -1;    // bytes
  int max_free_gpus = -1;
  double max_free_cpu_frac = 0, max_free_memory_frac = 0;
  double max_used_cpu_frac = 0, max_used_memory_frac = 0;
  double max_inv_cpu = 0, max_inv_memory = 0;  // 1 / capacity (0 for zero capacity)
  double min_inv_cpu = 0, min_inv_memory = 0;
  // Range of (used CPU fraction - used memory fraction), for balance bounds.
  double min_used_diff = 0, max_used_diff = 0;
  uint64_t type_mask = 0;          // bit t: a node of device type t (types >= 64 share bit 63)
};

// A placer's node score. Bound() must be >= Score(n) for every node n the summary covers that
// can hold the request; return +infinity to disable pruning.
class NodeScorer {
 public:
  virtual ~NodeScorer() = default;
  virtual double Bound(const NodeSummary& summary) const = 0;
  virtual double Score(NodeId node) const = 0;  // -infinity: never choose this node
};

uint64_t DeviceTypeBit(DeviceTypeId t);

class NodeResourceIndex {
 public:
  NodeResourceIndex() = default;
  explicit NodeResourceIndex(int num_nodes);

  // Sets node `n`'s leaf. O(log N).
  void Set(NodeId n, const NodeSummary& leaf);
  const NodeSummary& leaf(NodeId n) const { return tree_[leaves_ + static_cast<size_t>(n)]; }

  // The node with the highest score among those that can hold `request` (and, when
  // request.gpus > 0, whose device type is in `gpu_types`), ties to the lowest id; -1 if none
  // (or none scores above -infinity). A subtree whose bound exceeds the best score found by no
  // more than 1e-12 is pruned (rounding between a bound and a score computed differently).
  NodeId Best(const ContainerRequest& request, uint64_t gpu_types, const NodeScorer& scorer) const;

  // Whether the summary admits a node that can hold `request`.
  static bool MayHold(const NodeSummary& s, const ContainerRequest& request, uint64_t gpu_types);

 private:
  static NodeSummary Merge(const NodeSummary& a, const NodeSummary& b);
  size_t leaves_ = 0;
  int num_nodes_ = 0;
  std::vector<NodeSummary> tree_;
};

}  // namespace hetsched
