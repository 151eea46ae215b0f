// The per-node counts Tiresias' simulator keeps for its `random` and `crandom` placement schemes
// (SymbioticLab/Tiresias @ 959f9b0, simulator/node.py, cluster.py:907-1371, 1448-1490): free GPUs
// and free CPU cores of each node, taken by a placement and given back when the job ends, entry by
// entry as the peer records them (one node each: a worker's GPU and 2 cores, a parameter server's
// 4 cores). A release adds to a node's free counts, each capped at the node's size, and a capped
// one stops the job's release there (node.py:67-102, switch.py:232-244, cluster.py:1483-1490).
// With what the two schemes record a job gives back exactly what it took, node by node (crandom
// takes 6 cores a worker and records 2 for it and 4 for a server put on a worker's node, the
// servers' nodes being a permutation of the workers'), so the cap never binds; it is kept as the
// peer has it. The counts are the ledger's own, not ClusterState's: a node's free GPUs here never
// exceed its free devices there while only this placer starts jobs.
//
// The ledger learns that a job ended from the cluster state: at each Sync, a job whose first
// device it no longer holds is released, jobs in the order they were placed (the peer releases the
// jobs ending at one time in the order they started, jobs.py `add_job_end_event`).
#pragma once

#include <vector>

#include "hetsched/sched/cluster_state.h"

namespace hetsched {

class TiresiasNodeLedger {
 public:
  // One placement of a job on one node, as the peer records it (cluster.py:1043-1084).
  struct Entry {
    NodeId node = 0;
    int gpus = 0;
    int cores = 0;
  };

  explicit TiresiasNodeLedger(int cores_per_node) : cores_per_node_(cores_per_node) {}

  // Starts over on a new cluster (every node free), else releases the jobs that no longer hold
  // the first device they were placed on. Cost: O(jobs placed and not yet released).
  void Sync(const ClusterState& state);

  int free_gpus(NodeId n) const { return free_gpus_[static_cast<size_t>(n)]; }
  int free_cores(NodeId n) const { return free_cores_[static_cast<size_t>(n)]; }
  // REQUIRES: gpus <= free_gpus(n), cores <= free_cores(n) (the peer checks before it takes).
  void Take(NodeId n, int gpus, int cores);
  // Gives back with the peer's cap at the node's size; false when a count was capped.
  bool GiveBack(NodeId n, int gpus, int cores);

  // Records job `id`, started on devices whose first is `first_device`, with its entries in the
  // peer's release order (workers, then servers).
  void Record(JobId id, DeviceId first_device, std::vector<Entry> entries);

  // Appends, for each node of `nodes` in order, one free device of ClusterState's not yet in
  // `out` from `first` on; false (out trimmed back to `first`) when a node has none left.
  static bool TakeDevices(const ClusterState& state, const std::vector<NodeId>& nodes, size_t first,
                          std::vector<DeviceId>* out);

 private:
  struct Placed {
    JobId job = kNoJob;
    DeviceId first_device = 0;
    std::vector<Entry> entries;
  };

  int cores_per_node_;
  const Cluster* cluster_ = nullptr;
  int num_nodes_ = 0;
  std::vector<int> free_gpus_;
  std::vector<int> free_cores_;
  std::vector<Placed> placed_;  // in the order placed
};

}  // namespace hetsched
