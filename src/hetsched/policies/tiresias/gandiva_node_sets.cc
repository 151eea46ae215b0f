// Line numbers are of SymbioticLab/Tiresias @ 959f9b0, simulator/cluster.py.
#include "hetsched/policies/tiresias/gandiva_node_sets.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <memory>

namespace hetsched {

GandivaNodeSets::GandivaNodeSets(const Cluster& cluster) : cluster_(cluster) {
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
    if (cluster.node(n).num_devices <= 0) continue;
    free_nodes_.push_back(n);
    total_devices_ += cluster.node(n).num_devices;
  }
}

int GandivaNodeSets::jobs() const {
  int n = 0;
  for (const auto& [g, list] : lists_) {
    for (const auto& set : list) n += static_cast<int>(set->jobs.size());
  }
  return n;
}

bool GandivaNodeSets::has_node_sets() const {
  return std::any_of(lists_.begin(), lists_.end(), [](const auto& entry) { return !entry.second.empty(); });
}

int GandivaNodeSets::MostDevicesFor(JobId id, CanUse can_use) const {
  std::map<DeviceTypeId, int> per_type;
  for (NodeId n = 0; n < cluster_.num_nodes(); ++n) {
    const Node& node = cluster_.node(n);
    if (node.num_devices > 0 && can_use(id, node.device_type)) per_type[node.device_type] += node.num_devices;
  }
  int most = 0;
  for (const auto& [type, devices] : per_type) most = std::max(most, devices);
  return most;
}

bool GandivaNodeSets::TakeNodes(int g, FunctionRef<bool(DeviceTypeId)> type_ok, NodeOk node_ok,
                                NodeSet* out) {
  std::vector<DeviceTypeId>& tried = tried_;  // scratch: no allocation per call
  std::vector<size_t>& picked = picked_;
  tried.clear();
  for (size_t i = 0; i < free_nodes_.size(); ++i) {
    const DeviceTypeId type = cluster_.node(free_nodes_[i]).device_type;
    if (std::find(tried.begin(), tried.end(), type) != tried.end() || !type_ok(type) ||
        !node_ok(free_nodes_[i]))
      continue;
    tried.push_back(type);
    picked.clear();
    int devices = 0;
    for (size_t j = i; j < free_nodes_.size() && devices < g; ++j) {
      const Node& node = cluster_.node(free_nodes_[j]);
      if (node.device_type != type || !node_ok(free_nodes_[j])) continue;
      picked.push_back(j);
      devices += node.num_devices;
    }
    if (devices < g) continue;
    out->type = type;
    for (size_t j : picked) {
      const Node& node = cluster_.node(free_nodes_[j]);
      out->nodes.push_back(free_nodes_[j]);
      for (int d = 0; d < node.num_devices; ++d) out->devices.push_back(node.first_device + d);
    }
    for (auto it = picked.rbegin(); it != picked.rend(); ++it) {
      free_nodes_.erase(free_nodes_.begin() + static_cast<std::ptrdiff_t>(*it));
    }
    out->capacity = devices / g;  // int(num_node * num_gpu_p_node / num_gpu), cluster.py:230, 313
    out->generation = ++generations_;
    return true;
  }
  return false;
}

int GandivaNodeSets::FirstUsable(const NodeSetList& list, JobId id, CanUse can_use) {
  for (size_t k = 0; k < list.size(); ++k) {
    if (can_use(id, list[k]->type)) return static_cast<int>(k);
  }
  return -1;
}

void GandivaNodeSets::SortByUtil(NodeSetList& list) {
  // The peer's sort is stable. Its lists are in order but for the one or two node sets a call
  // changed, so a stable insertion sort (each node set out of order rotated to its place, after
  // the equal ones before it) gives stable_sort's order while moving only those: sorting the node
  // sets, three vectors each, in place moved every one O(log n) times, a quarter of a 2,000-job run.
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (it == list.begin() || !((*it)->util < (*(it - 1))->util)) continue;
    const auto to = std::upper_bound(list.begin(), it, (*it)->util,
                                     [](int util, const NodeSet* set) { return util < set->util; });
    std::rotate(to, it, it + 1);
  }
}

void GandivaNodeSets::RaiseInOrder(NodeSetList& list, size_t k) {
  // The node sets after k with a lower util (all equal to its old one) move before it: where the
  // stable sort of the list puts it.
  size_t j = k + 1;
  while (j < list.size() && list[j]->util < list[k]->util) ++j;
  if (j > k + 1) {
    std::rotate(list.begin() + static_cast<std::ptrdiff_t>(k),
                list.begin() + static_cast<std::ptrdiff_t>(k + 1),
                list.begin() + static_cast<std::ptrdiff_t>(j));
  }
}

bool GandivaNodeSets::JoinFirst(NodeSetList& list, JobId id, CanUse can_use, bool sorted) {
  const int k = FirstUsable(list, id, can_use);
  if (k < 0) return false;
  NodeSet& set = *list[static_cast<size_t>(k)];
  set.util += 1;
  set.jobs.push_back(id);
  if (sorted) {
    RaiseInOrder(list, static_cast<size_t>(k));
  } else {
    SortByUtil(list);
  }
  return true;
}

GandivaNodeSets::NodeSet* GandivaNodeSets::NewNodeSet() {
  if (spare_.empty()) return owned_.emplace_back(std::make_unique<NodeSet>()).get();
  NodeSet* set = spare_.back();
  spare_.pop_back();
  set->nodes.clear();
  set->devices.clear();
  set->jobs.clear();
  set->type = kNoDeviceType;
  set->capacity = 0;
  set->util = 0;
  return set;
}

void GandivaNodeSets::Release(NodeSet& set) {
  free_nodes_.insert(free_nodes_.end(), set.nodes.begin(), set.nodes.end());
  set.nodes.clear();
  set.devices.clear();
}

bool GandivaNodeSets::Place(JobId id, int g, CanUse can_use, NodeOk node_ok) {
  NodeSetList& list = lists_[g];
  // An existing node set with room (206-219): the first is taken out, and put back at
  // the end, sorted only if it took the job.
  int k = FirstUsable(list, id, can_use);
  if (k >= 0) {
    std::rotate(list.begin() + k, list.begin() + k + 1, list.end());  // to the end of the list
    NodeSet& set = *list.back();
    const bool room = set.util + 1 < set.capacity;
    if (room) {
      set.util += 1;
      set.jobs.push_back(id);
    }
    if (room) {
      SortByUtil(list);
      return true;
    }
  }
  // A new node set (221-243).
  NodeSet* fresh = NewNodeSet();
  if (TakeNodes(
          g, [&](DeviceTypeId type) { return can_use(id, type); }, node_ok, fresh)) {
    fresh->util = 1;
    fresh->jobs.push_back(id);
    list.push_back(fresh);
    SortByUtil(list);
    return true;
  }
  spare_.push_back(fresh);
  // Time slicing on the first node set listed (245-254): taken out, put back at the end, sorted.
  k = FirstUsable(list, id, can_use);
  if (k < 0) return false;
  std::rotate(list.begin() + k, list.begin() + k + 1, list.end());
  list.back()->util += 1;
  list.back()->jobs.push_back(id);
  SortByUtil(list);
  return true;
}

// gandiva_node_set_expand (296-342).
void GandivaNodeSets::Expand(int g, NodeSetList& list, int count, CanUse can_use, NodeOk node_ok,
                             std::vector<JobId>* orphans) {
  int i = 0;  // the peer's `i`, which its inner loop reuses (305-320)
  for (int k = 1; k <= count; ++k) {
    i = k;
    NodeSet* fresh = NewNodeSet();
    if (!TakeNodes(
            g, [](DeviceTypeId) { return true; }, node_ok, fresh)) {
      // Nothing changed, so every later k fails too: the peer's `i` ends at count.
      spare_.push_back(fresh);
      i = count;
      break;
    }
    i = static_cast<int>(fresh->nodes.size()) - 1;
    list.push_back(fresh);  // util 0, no jobs, not sorted
  }
  if (i <= 0) return;
  moved_.clear();  // re-arrangement: every job, in list order, to the least loaded (323-338)
  for (auto& set : list) {
    if (set->jobs.empty()) continue;
    moved_.insert(moved_.end(), set->jobs.begin(), set->jobs.end());
    set->jobs.clear();
    set->util = 0;
  }
  RejoinMoved(list, can_use, orphans);
}

// gandiva_node_set_shrink (261-294).
void GandivaNodeSets::Shrink(NodeSetList& list, int count, CanUse can_use, std::vector<JobId>* orphans) {
  if (static_cast<int>(list.size()) <= count) count = static_cast<int>(list.size()) - 1;
  moved_.clear();
  for (int k = 0; k < count; ++k) {  // the first `count` node sets, one after the other
    NodeSet& set = *list[static_cast<size_t>(k)];
    moved_.insert(moved_.end(), set.jobs.begin(), set.jobs.end());
    Release(set);
  }
  for (int k = 0; k < count; ++k) spare_.push_back(list[static_cast<size_t>(k)]);
  if (count > 0) list.erase(list.begin(), list.begin() + count);
  RejoinMoved(list, can_use, orphans);
}

void GandivaNodeSets::RejoinMoved(NodeSetList& list, CanUse can_use, std::vector<JobId>* orphans) {
  if (RejoinEvenly(list, can_use, orphans)) return;
  // The first join sorts the whole list (it may be out of order: Place and Expand append node
  // sets unsorted); each later one finds it sorted but for the node set it raised.
  bool sorted = false;
  for (JobId id : moved_) {
    if (JoinFirst(list, id, can_use, sorted)) {
      sorted = true;
    } else {
      orphans->push_back(id);
    }
  }
}

bool GandivaNodeSets::RejoinEvenly(NodeSetList& list, CanUse can_use, std::vector<JobId>* orphans) {
  if (list.empty()) return false;
  const int util = list.front()->util;
  const DeviceTypeId type = list.front()->type;
  for (const NodeSet* set : list) {
    if (set->util != util || set->type != type) return false;
  }
  // Each join takes the list's first node set (the least loaded, all usable) and moves it before
  // the first with its new util or more (JoinFirst: the stable sort). From k node sets of one util
  // in order O, the k joins of a pass take O[0], O[1], ..., O[k - 1], each then put behind those
  // not yet raised and before those raised already, so the pass leaves them in O's reverse order,
  // one util more: the next pass walks that. After m joins, R = m % k into pass P = m / k, the
  // list is that pass's order O_P from R on, then O_P[R - 1], ..., O_P[0] (the R raised, util one
  // more than the others). O(jobs + node sets), where the joins one by one moved a node set each.
  const size_t k = list.size();
  size_t m = 0;
  for (JobId id : moved_) {
    if (!can_use(id, type)) {
      orphans->push_back(id);
      continue;
    }
    const size_t pass = m / k, r = m % k;
    list[pass % 2 == 0 ? r : k - 1 - r]->jobs.push_back(id);
    ++m;
  }
  const size_t passes = m / k, rest = m % k;
  if (passes % 2 == 1) std::reverse(list.begin(), list.end());  // O_P
  for (size_t i = 0; i < k; ++i) list[i]->util = util + static_cast<int>(passes) + (i < rest ? 1 : 0);
  std::reverse(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(rest));
  std::rotate(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(rest), list.end());
  return true;
}

void GandivaNodeSets::Adjust(CanUse can_use, NodeOk node_ok, std::vector<JobId>* orphans) {
  // Demand (jobs x g) and occupied devices per g, all taken before any change (353-368), in the
  // order of lists_ (a list is never added while this runs: Expand and Shrink keep to their own).
  std::vector<std::pair<long long, long long>>& demand_occupied = demand_occupied_;
  demand_occupied.clear();
  long long total_demand = 0;
  for (const auto& [g, list] : lists_) {
    long long jobs = 0, occupied = 0;
    for (const auto& set : list) {
      jobs += static_cast<long long>(set->jobs.size());
      occupied += static_cast<long long>(set->devices.size());
    }
    demand_occupied.emplace_back(jobs * g, occupied);
    total_demand += jobs * g;
  }
  if (total_demand == 0) return;
  size_t at = 0;
  for (auto& [g, list] : lists_) {
    const auto [demand, occupied] = demand_occupied[at++];
    if (demand == 0) continue;
    // int(math.floor((demand / total) * num_gpu)), in doubles as the peer (375).
    const auto plan = static_cast<long long>(
        std::floor(static_cast<double>(demand) / static_cast<double>(total_demand) * total_devices_));
    const long long target = plan < demand ? plan : demand;
    const long long diff = target - occupied;
    if (diff > 0) {
      Expand(g, list, static_cast<int>((diff + g - 1) / g), can_use, node_ok, orphans);
    } else if (diff < 0) {
      Shrink(list, static_cast<int>((-diff + g - 1) / g), can_use, orphans);
    }
  }
}

bool GandivaNodeSets::Remove(JobId id) {
  for (auto& [g, list] : lists_) {
    for (auto& set : list) {
      const auto it = std::find(set->jobs.begin(), set->jobs.end(), id);
      if (it == set->jobs.end()) continue;
      set->jobs.erase(it);
      return true;
    }
  }
  return false;
}

bool GandivaNodeSets::EndStep(bool switch_slices, FunctionRef<bool(JobId)> ended,
                              std::vector<JobId>* ended_jobs) {
  bool released = false;
  for (auto& [g, list] : lists_) {
    for (auto& set_ptr : list) {
      NodeSet& set = *set_ptr;
      const size_t running = std::min(set.jobs.size(), static_cast<size_t>(set.capacity));
      // Only running jobs progress, so only they can end (the peer tests them alone, 451-457).
      const size_t before = ended_jobs->size();
      for (JobId id : set.jobs) {
        if (ended(id)) ended_jobs->push_back(id);
      }
      if (switch_slices && set.jobs.size() > running) {  // 462-472
        std::rotate(set.jobs.begin(), set.jobs.begin() + static_cast<std::ptrdiff_t>(running),
                    set.jobs.end());
      }
      for (size_t e = before; e < ended_jobs->size(); ++e) {  // 474-479
        set.jobs.erase(std::find(set.jobs.begin(), set.jobs.end(), (*ended_jobs)[e]));
      }
      if (set.jobs.empty()) {  // 481-486
        Release(set);
        released = true;
      }
    }
    // The freed node sets leave the list (kept for reuse), the others keep their order.
    size_t kept = 0;
    for (NodeSet* set : list) {
      if (set->nodes.empty()) {
        spare_.push_back(set);
      } else {
        list[kept++] = set;
      }
    }
    list.resize(kept);
  }
  return released;
}

}  // namespace hetsched
