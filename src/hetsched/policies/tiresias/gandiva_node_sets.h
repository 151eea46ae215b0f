// The node sets of Tiresias' simulator's `gandiva` scheduler (SymbioticLab/Tiresias @ 959f9b0,
// simulator/cluster.py:156-495, driven by run_sim.py:211-270; docs/policies.md, "tiresias-gandiva"):
// the cluster-side state of `--schedule=gandiva --scheme=gandiva`, with no clock and no back end, so
// that tests can work it by hand.
//
// The cluster's nodes are free (`free_nodes`, in node order at the start, cluster.py:156-166) or
// belong to one node set. A node set serves jobs of one GPU count g: it holds the fewest free nodes
// that have g devices (ceil(g / GPUs a node) in the peer), runs its first
// capacity = floor(devices / g) jobs at once and time-slices the others. Node sets are listed per g
// (`node_g`, cluster.py:37-52), each list ascending by `util` (stable), and the lists are visited
// in ascending g (the peer's dict order under Python 3: 1, 2, 4, 8, 12, 16, 24, 32, 64). Every
// model's `mem_util` is 1 (models.py:24), so a job's util is 1 and a node set's `util` counts the
// jobs added to it since it was made or last re-arranged (ends do not lower it: cluster.py:452-457).
//
// [SRC] Place (gandiva_placement, cluster.py:172-258), Adjust (gandiva_node_set_adjust, 345-390,
// with _expand 296-342 and _shrink 261-294) and EndStep (the bookkeeping of time_slicing_execute,
// 392-495) as written, including what looks unintended:
//  - Place's first test is util + 1 < capacity (strict): a node set takes a job that way only while
//    it has two or more free places (a 4-GPU node runs 3 one-GPU jobs before a new node set is made);
//    a job that fails it sends that node set to the end of the list unsorted (cluster.py:206-219),
//    and when no node set can be made it joins the first node set then listed (245-254), whatever
//    its load.
//  - Expand's node-set loop reuses `i` as its inner loop variable (cluster.py:305-320): when the last
//    node set it makes has one node, i ends at 0 and the re-arrangement (323-338) is skipped, so the
//    new node sets stay empty and EndStep releases them.
//  - Shrink never takes a list's last node set (cluster.py:271-272), and Adjust counts only jobs in
//    node sets (not pending ones) as demand.
// [REC] for what the peer's cluster cannot have (one GPU type, nodes all alike, no type
// restrictions, no node out of service): a node set takes free nodes in service, of one type (the
// first type, in free-list order, with enough free devices; for a job, one it may use); a job joins
// the first listed node set of a type it may use where the peer takes the first; a job that a
// shrink or re-arrangement leaves with no node set it may use goes back to the pending list
// (orphans). Any GPU count has its list (the peer stops at one not in its nine, cluster.py:179-181:
// a NameError on `print_fn`).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/sched/job_status.h"
#include "hetsched/util/function_ref.h"

namespace hetsched {

class GandivaNodeSets {
 public:
  struct NodeSet {
    std::vector<NodeId> nodes;
    std::vector<DeviceId> devices;  // its nodes' devices, in node order
    DeviceTypeId type = kNoDeviceType;
    int capacity = 0;         // jobs run at once: floor(devices / g)
    int util = 0;             // the peer's `util` (see the file comment)
    std::vector<JobId> jobs;  // the peer's order: the first min(size, capacity) run
    // Set anew each time the node set takes nodes (a freed node set is reused with others): while
    // it is unchanged, so are `devices`, and a job started on one of its slots is still there.
    uint64_t generation = 0;
  };
  // A GPU count's node sets, in the peer's order, by pointer (owned by GandivaNodeSets): the many
  // reorderings (a sort after each job a re-arrangement moves) move pointers, not node sets.
  using NodeSetList = std::vector<NodeSet*>;
  // Whether job `id` may run on devices of `type`.
  using CanUse = FunctionRef<bool(JobId, DeviceTypeId)>;
  // Whether free node `n` may go into a node set now (in the peer every free node may; a back end
  // may hold some out of service, e.g. a node down).
  using NodeOk = FunctionRef<bool(NodeId)>;

  // Every node of `cluster` with devices is free, in node-id order (the peer's switch-major order).
  explicit GandivaNodeSets(const Cluster& cluster);

  // gandiva_placement: puts job `id` (of `g` GPUs) into a node set; false (nothing changed but the
  // order of g's list, as in the peer) when there is none to join and too few free nodes to make
  // one. Cost: O(node sets of g x log) plus O(free nodes) for a new node set.
  bool Place(JobId id, int g, CanUse can_use, NodeOk node_ok);
  // gandiva_node_set_adjust: re-sizes each g's node sets towards its share of the cluster's devices
  // (floor(demand_g / demand x devices), at most demand_g = jobs x g). Jobs left with no node set
  // they may use are appended to `orphans`. Cost: O(jobs + node sets x log).
  void Adjust(CanUse can_use, NodeOk node_ok, std::vector<JobId>* orphans);
  // time_slicing_execute's bookkeeping: in each node set, when `switch_slices` and it has more jobs
  // than run at once, the running ones move to the end of its list (in order); then the jobs for
  // which `ended` holds leave it (appended to `ended_jobs`) and a node set left empty frees its
  // nodes (to the end of the free list). Returns whether a node set was freed (the peer's
  // node_release). Cost: O(jobs in node sets).
  bool EndStep(bool switch_slices, FunctionRef<bool(JobId)> ended, std::vector<JobId>* ended_jobs);

  // Takes job `id` out of its node set, as an end would (a node set left empty is freed by the
  // next EndStep); false when it is in none. Cost: O(jobs in node sets).
  bool Remove(JobId id);

  // The node sets of each GPU count, ascending g; each list in the peer's order. A node set's
  // address stays valid while this object lives (a freed one is kept for reuse).
  const std::map<int, NodeSetList>& lists() const { return lists_; }
  const std::vector<NodeId>& free_nodes() const { return free_nodes_; }
  // Jobs in node sets, and whether any node set exists.
  int jobs() const;
  bool has_node_sets() const;
  // The most devices one node set of a type `id` may use can hold (that type's devices in nodes).
  int MostDevicesFor(JobId id, CanUse can_use) const;

 private:
  // Takes the fewest free nodes (in free-list order, those `node_ok`) of one type that hold `g`
  // devices: the first type, in free-list order, that has enough and `type_ok`. False when none has.
  bool TakeNodes(int g, FunctionRef<bool(DeviceTypeId)> type_ok, NodeOk node_ok, NodeSet* out);
  // Index of the first node set in `list` that job `id` may use; -1 when none.
  static int FirstUsable(const NodeSetList& list, JobId id, CanUse can_use);
  // Adds `id` to the first node set of `list` it may use (util + 1), then sorts the list (stable);
  // false when it may use none. `sorted`: the list was in order before, so only that node set
  // moves (RaiseInOrder), O(list) with no full pass.
  static bool JoinFirst(NodeSetList& list, JobId id, CanUse can_use, bool sorted);
  // Stable sort by util (the peer's list.sort), moving only the node sets out of order.
  static void SortByUtil(NodeSetList& list);
  // REQUIRES: `list` is sorted but for list[k], whose util just rose: moves it to its stable place.
  static void RaiseInOrder(NodeSetList& list, size_t k);
  // Each job of moved_, in order, joins the first node set of `list` it may use (JoinFirst); those
  // that may use none are appended to `orphans`.
  void RejoinMoved(NodeSetList& list, CanUse can_use, std::vector<JobId>* orphans);
  // RejoinMoved's outcome in closed form where every node set of `list` has one util and one type
  // (an expansion's re-arrangement: every job may join every node set, which then take them in
  // turn); false, with nothing changed, where they have not.
  bool RejoinEvenly(NodeSetList& list, CanUse can_use, std::vector<JobId>* orphans);
  void Release(NodeSet& set);
  // An empty node set: one of spare_ (node sets made and freed, kept with their storage: the
  // peer's re-sizing makes and frees some at most steps), else a new one in owned_.
  NodeSet* NewNodeSet();
  void Expand(int g, NodeSetList& list, int count, CanUse can_use, NodeOk node_ok,
              std::vector<JobId>* orphans);
  void Shrink(NodeSetList& list, int count, CanUse can_use, std::vector<JobId>* orphans);

  const Cluster& cluster_;
  int total_devices_ = 0;                        // the peer's CLUSTER.num_gpu
  std::vector<NodeId> free_nodes_;               // the peer's free_nodes, in its order
  std::map<int, NodeSetList> lists_;             // node_g
  uint64_t generations_ = 0;                     // the last NodeSet::generation given
  std::vector<std::pair<long long, long long>> demand_occupied_;  // scratch of Adjust
  std::vector<JobId> moved_;                     // scratch of Expand and Shrink
  std::vector<std::unique_ptr<NodeSet>> owned_;  // every node set made: listed, or in spare_
  std::vector<NodeSet*> spare_;
  std::vector<DeviceTypeId> tried_;  // scratch of TakeNodes
  std::vector<size_t> picked_;
};

}  // namespace hetsched
