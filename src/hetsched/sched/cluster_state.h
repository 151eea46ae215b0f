// Who holds which device now. Owned by the back end (simulator or Slurm agent), read by policies
// and placers through SchedContext. Every query a placer needs is O(log N) or O(devices per
// node): no per-decision scan of the whole cluster.
#pragma once

#include <map>
#include <span>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/container.h"
#include "hetsched/model/job.h"
#include "hetsched/sched/node_resource_index.h"
#include "hetsched/util/ordered_bit_set.h"
#include "hetsched/util/status.h"

namespace hetsched {

inline constexpr JobId kNoJob = -1;

class ClusterState {
 public:
  explicit ClusterState(const Cluster& cluster);

  const Cluster& cluster() const { return *cluster_; }
  int total_free() const { return total_free_; }
  int free_of_type(DeviceTypeId t) const { return free_per_type_[static_cast<size_t>(t)]; }
  int free_on_node(NodeId n) const { return free_per_node_[static_cast<size_t>(n)]; }
  JobId owner(DeviceId d) const { return owner_[static_cast<size_t>(d)]; }
  bool is_free(DeviceId d) const { return owner(d) == kNoJob; }
  // Space sharing (docs/space_sharing.md): the second job co-located on a held device, or kNoJob.
  // A shared device is not free and takes no third job.
  JobId guest(DeviceId d) const { return guests_.empty() ? kNoJob : guests_[static_cast<size_t>(d)]; }
  bool holds(JobId job, DeviceId d) const { return owner(d) == job || guest(d) == job; }
  int shared_devices() const { return shared_devices_; }

  // Free devices of node `n`, in local-index order, appended to `out`. O(devices per node).
  void AppendFreeDevices(NodeId n, std::vector<DeviceId>* out) const;

  // Nodes of type `t`, in node-id order (the order first-fit scans).
  const std::vector<NodeId>& nodes_of_type(DeviceTypeId t) const { return nodes_of_type_[static_cast<size_t>(t)]; }
  // Lowest-id node of type `t` with at least `min_free` free devices and id position >= `from_pos`
  // in nodes_of_type(t); returns -1 if none. O(log N).
  NodeId FirstNodeWithFree(DeviceTypeId t, int min_free, int from_pos = 0) const;
  // Node of type `t` with the fewest free devices that is still >= min_free (best fit); ties go to
  // the lowest id. -1 if none. O(devices per node + log N).
  NodeId BestFitNode(DeviceTypeId t, int min_free) const;
  // Nodes of type `t` with free devices, most free first (ties: lowest id), at most `limit` of
  // them, appended to `out`. O(limit * log N).
  void AppendNodesByMostFree(DeviceTypeId t, int limit, std::vector<NodeId>* out) const;

  // Marks devices as held by `job`. Fails (and changes nothing) if any is already held: this is
  // the double-booking invariant, checked on every allocation.
  Status Allocate(JobId job, std::span<const DeviceId> devices);
  // Co-locates `job` on devices each held by one other job and no guest (space sharing): the
  // free counts do not change. Fails (and changes nothing) otherwise.
  Status AllocateShared(JobId job, std::span<const DeviceId> devices);
  // Frees devices held by `job` (as owner or guest). Fails if any is not held by `job`. A device
  // whose owner leaves while a guest stays passes to the guest and stays busy.
  Status Release(JobId job, std::span<const DeviceId> devices);

  // ---- Containers of parameter-server jobs (DLTAP). ----
  // A node's container capacity is its CPU cores (as millicores) and host memory; its GPUs are
  // its free accelerators (a CPU-only node has none). Plain device jobs hold devices only.
  int64_t cpu_capacity(NodeId n) const { return cpu_capacity_[static_cast<size_t>(n)]; }
  int64_t memory_capacity(NodeId n) const { return memory_capacity_[static_cast<size_t>(n)]; }
  int64_t cpu_free(NodeId n) const { return cpu_capacity(n) - cpu_used_[static_cast<size_t>(n)]; }
  int64_t memory_free(NodeId n) const { return memory_capacity(n) - memory_used_[static_cast<size_t>(n)]; }
  int gpus_free(NodeId n) const;
  int containers_on_node(NodeId n) const { return containers_on_node_[static_cast<size_t>(n)]; }
  // Brought up to date here: nodes changed since the last call are re-summarised now (device-only
  // runs never ask, so their starts and stops do not pay for the index).
  const NodeResourceIndex& resource_index() const {
    FlushResourceLeaves();
    return index_;
  }
  // Places `containers` of `job`: allocates their devices and reserves their CPU and memory.
  // Fails (and changes nothing) if a device is held or not on the container's node, if the job
  // already holds containers, or if any node would be over-committed in CPU, memory or GPUs:
  // the over-commitment invariant, checked on every allocation.
  Status AllocateContainers(JobId job, std::span<const ContainerPlacement> containers);
  // Releases every container of `job`. Fails if it holds none.
  Status ReleaseContainers(JobId job);
  // The containers `job` holds (empty if none).
  std::span<const ContainerPlacement> containers_of(JobId job) const;

  // Full consistency check (O(devices + containers)); used by tests and the simulator's
  // invariant audit: counters agree with owners, no node over-committed in any resource,
  // indexes up to date.
  Status CheckConsistency() const;

 private:
  // Marks node n's free count changed: its entries in max_tree_ and buckets_ are brought up to
  // date by the next query that reads them (FlushNodes). A time-slicing policy frees and takes the
  // same node's devices many times between two queries (tiresias-gandiva asks none: it picks its
  // own devices), and each change paid the tree's walk and two bucket moves.
  void UpdateNode(NodeId n) {
    UpdateResourceLeaf(n);
    if (node_stale_[static_cast<size_t>(n)]) return;
    node_stale_[static_cast<size_t>(n)] = true;
    stale_nodes_.push_back(n);
  }
  void FlushNodes() const {
    if (!stale_nodes_.empty()) FlushStaleNodes();
  }
  void FlushStaleNodes() const;
  // Marks node n's leaf of index_ out of date (FlushResourceLeaves recomputes it).
  void UpdateResourceLeaf(NodeId n) {
    if (leaf_stale_[static_cast<size_t>(n)]) return;
    leaf_stale_[static_cast<size_t>(n)] = true;
    stale_leaves_.push_back(n);
  }
  void FlushResourceLeaves() const;
  NodeSummary ResourceLeaf(NodeId n) const;

  const Cluster* cluster_;
  std::vector<JobId> owner_;
  std::vector<JobId> guests_;  // by device; empty until the first shared allocation
  int shared_devices_ = 0;
  std::vector<int> free_per_node_;
  std::vector<int> free_per_type_;
  int total_free_ = 0;
  std::vector<std::vector<NodeId>> nodes_of_type_;
  std::vector<int> pos_in_type_;                 // node -> index in nodes_of_type_[type]
  // Both indexes below are current once FlushNodes has run (every reader calls it first).
  mutable std::vector<std::vector<int>> max_tree_;  // per type: segment tree of free counts (max)
  std::vector<size_t> tree_size_;                   // per type: leaves (power of two)
  // per type, per free count: the node positions (in nodes_of_type_) with that many devices
  // free, in order, for best fit / most free.
  mutable std::vector<std::vector<OrderedBitSet>> buckets_;
  // Nodes whose free count changed since the last FlushNodes, once each.
  mutable std::vector<bool> node_stale_;
  mutable std::vector<NodeId> stale_nodes_;
  // Container resources, by node, and the containers held, by job.
  std::vector<int64_t> cpu_capacity_, memory_capacity_, cpu_used_, memory_used_;
  std::vector<int> containers_on_node_;
  std::map<JobId, std::vector<ContainerPlacement>> containers_;
  // The index over container resources, its leaves recomputed lazily (resource_index()): the
  // nodes whose leaf is out of date, once each.
  mutable NodeResourceIndex index_;
  mutable std::vector<bool> leaf_stale_;
  mutable std::vector<NodeId> stale_leaves_;
};

}  // namespace hetsched
