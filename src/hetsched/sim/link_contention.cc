#include "hetsched/sim/link_contention.h"

#include <algorithm>
#include <string>

namespace hetsched::sim_internal {

LinkContention::LinkContention(const Cluster& cluster, bool modelled)
    : modelled_(modelled), capacities_(LinkCapacities::Of(cluster)) {
  nic_flows_.assign(static_cast<size_t>(cluster.num_nodes()), 0);
  nic_jobs_.assign(static_cast<size_t>(cluster.num_nodes()), {});
  uplink_flows_.assign(cluster.racks().size(), 0);
  uplink_jobs_.assign(cluster.racks().size(), {});
}

void LinkContention::Reset(size_t num_jobs) {
  std::fill(nic_flows_.begin(), nic_flows_.end(), 0);
  std::fill(uplink_flows_.begin(), uplink_flows_.end(), 0);
  for (auto& jobs : nic_jobs_) jobs.clear();
  for (auto& jobs : uplink_jobs_) jobs = {};
  marks_.clear();  // by run slot: grows with the simulator's slots
  listed_.clear();
  deferred_.assign(num_jobs, kNone);
  deferred_queue_.clear();
  defer_ = false;
}

LinkLoad LinkContention::Load() const {
  LinkLoad load;
  if (modelled_) {
    load.nic_flows = &nic_flows_;
    load.uplink_flows = &uplink_flows_;
    load.capacities = &capacities_;
  }
  return load;
}

// Lists `other` (once per change) and marks it as the change of a link from `before` to `after`
// per flow meets it; `bound`: the link's speed is unknown to it (a NIC without a figure).
void LinkContention::Meet(const LinkEntry& other, double before, double after, bool bound) {
  ChangeMark& mark = marks_[static_cast<size_t>(other.slot)];
  if ((mark.flags & kListed) == 0) listed_.push_back(other);
  mark.flags |= kListed;
  if (!modelled_) return;  // every estimate is recomputed (RetimeListed)
  if (bound) {
    mark.flags |= kLinkBound;
  } else {
    MeetChangedLink(other.key, before, after, &mark);
  }
}

void LinkContention::Register(const ActiveRun& run, JobId id, int32_t slot, int delta) {
  listed_.clear();
  const LinkEntry self{UplinkKey(run), static_cast<int32_t>(id), slot};
  // The lists' entries are the cold part (a cache miss each at a million jobs): fetch them all
  // at once rather than one after another in the walk below.
  for (NodeId node : run.nics) __builtin_prefetch(nic_jobs_[static_cast<size_t>(node)].data());
  for (NodeId node : run.nics) {
    const size_t n = static_cast<size_t>(node);
    nic_flows_[n] += delta;
    std::vector<LinkEntry>& jobs = nic_jobs_[n];
    if (delta > 0) {
      jobs.push_back(self);
    } else {
      jobs.erase(std::find_if(jobs.begin(), jobs.end(), [&](const LinkEntry& e) { return e.id == self.id; }));
    }
    // Every job on the NIC is re-timed; MeetChangedLink says whether its estimate is recomputed
    // (a NIC without a figure: always).
    const double capacity = capacities_.nic_Bps[n];
    const double before = PerFlowShare(capacity, nic_flows_[n] - delta);
    const double after = PerFlowShare(capacity, nic_flows_[n]);
    for (const LinkEntry& other : jobs) {
      if (other.id != self.id) Meet(other, before, after, capacity < 0);
    }
  }
  for (RackId r : run.uplinks) {
    const size_t rack = static_cast<size_t>(r);
    uplink_flows_[rack] += delta;
    // A rack without a declared uplink has full bisection: no one's speed depends on its flows.
    const double capacity = capacities_.uplink_Bps[rack];
    if (capacity < 0) continue;
    FlatSet<LinkEntry>& jobs = uplink_jobs_[rack];
    if (delta > 0) {
      jobs.insert(self);
    } else {
      jobs.erase(self);
    }
    if (!modelled_) continue;  // the load is not modelled: no speed changes
    // A job whose slowest link is slower than the uplink's share before and after (another link)
    // keeps its speed, and is not met.
    const double before = PerFlowShare(capacity, uplink_flows_[rack] - delta);
    const double after = PerFlowShare(capacity, uplink_flows_[rack]);
    const double busier = std::min(before, after);
    for (auto it = jobs.rbegin(); it != jobs.rend() && !(it->key < busier); ++it) {
      if (it->id != self.id) Meet(*it, before, after, false);
    }
  }
}

void LinkContention::RetimeListed(Retimer retime) {
  // Each job once, in the order met (re-times of distinct jobs at one instant commute: each reads
  // the load this change left and writes only its own speed, keys and completion).
  for (const LinkEntry& entry : listed_) {
    // Its estimate stands unless a changed link it crosses is or becomes its slowest (marked by
    // Register), or the load is not modelled at all (then it is recomputed, as always). A job
    // whose links are counted keeps its estimate while its key stands; deferred, that is decided
    // at the flush, after the call's other changes (FlushOne).
    const JobId other = entry.id;
    ChangeMark& mark = marks_[static_cast<size_t>(entry.slot)];
    const bool counted = mark.ties != kTiesUnknown;
    const bool survives = modelled_ && (counted ? KeyStands(mark) : (mark.flags & kLinkBound) == 0);
    mark.flags = 0;
    if (!defer_) {
      retime(other, survives);
    } else if (deferred_[static_cast<size_t>(other)] != kRecompute) {  // else recomputed anyway
      DeferRetime(other, counted || survives);
    }
  }
  listed_.clear();
}

void LinkContention::DeferRetime(JobId id, bool estimate_survives) {
  uint8_t& mark = deferred_[static_cast<size_t>(id)];
  if (mark == kRecompute) return;  // recomputed at the flush whatever else changes
  if (mark == kNone) deferred_queue_.push_back(id);
  // Until then its estimate is the one of the load before this change (none of the earlier
  // changes altered it), so the test is the one an immediate re-time would make.
  mark = estimate_survives ? kKeepEstimate : kRecompute;
}

void LinkContention::FlushOne(JobId id, int32_t slot, Retimer retime) {
  uint8_t& mark = deferred_[static_cast<size_t>(id)];
  const bool kept = mark == kKeepEstimate;
  mark = kNone;
  if (slot < 0) return;  // stopped or held since it was listed
  const ChangeMark& counts = marks_[static_cast<size_t>(slot)];
  retime(id, counts.ties != kTiesUnknown ? KeyStands(counts) : kept);
}

void LinkContention::Flush(FunctionRef<int32_t(JobId)> slot_of, Retimer retime) {
  defer_ = false;
  for (JobId id : deferred_queue_) {
    if (deferred_[static_cast<size_t>(id)] != kNone) FlushOne(id, slot_of(id), retime);
  }
  deferred_queue_.clear();
}

void LinkContention::MeetChangedLink(double key, double before, double after, ChangeMark* mark) {
  // Slower elsewhere before and after the change: the link is neither at nor below its key.
  if (key < std::min(before, after)) return;
  if (mark->ties == kTiesUnknown) {
    mark->flags |= kLinkBound;
    return;
  }
  if (before == key) {
    --mark->ties;
  } else if (before < key) {
    --mark->below;
  }
  if (after == key) {
    ++mark->ties;
  } else if (after < key) {
    ++mark->below;
  }
}

uint8_t LinkContention::CountTies(const ActiveRun& run) const {
  const double key = run.estimate.ring_path_Bps;
  // Only a ring whose slowest bandwidth PathOverNodes found over the prepared nodes (the NICs it
  // crosses, plus their racks' uplinks where it crosses racks) has a key this can count.
  if (!modelled_ || !(key > 0) || run.nics.empty() || !run.prepared.split || run.prepared.nodes.empty() ||
      run.plan.parallelism != Parallelism::kDataRing || !run.plan.containers.empty() ||
      run.nics.size() + run.uplinks.size() >= kTiesUnknown) {
    return kTiesUnknown;
  }
  int ties = 0;
  for (NodeId node : run.nics) {
    const size_t n = static_cast<size_t>(node);
    const double capacity = capacities_.nic_Bps[n];
    if (capacity >= 0 && PerFlowShare(capacity, nic_flows_[n]) == key) ++ties;
  }
  if (run.prepared.crosses_racks) {
    for (RackId r : run.uplinks) {
      const size_t rack = static_cast<size_t>(r);
      const double capacity = capacities_.uplink_Bps[rack];
      if (capacity >= 0 && PerFlowShare(capacity, uplink_flows_[rack]) == key) ++ties;
    }
  }
  return static_cast<uint8_t>(ties);
}

void LinkContention::Rekeyed(const ActiveRun& run, JobId id, int32_t slot, double old_key) {
  ChangeMark& counted = marks_[static_cast<size_t>(slot)];
  counted.ties = CountTies(run);
  counted.below = 0;  // its key is the least share of its links
  const double key = UplinkKey(run);
  if (key == old_key) return;
  const auto id32 = static_cast<int32_t>(id);
  for (RackId r : run.uplinks) {
    FlatSet<LinkEntry>& jobs = uplink_jobs_[static_cast<size_t>(r)];
    if (jobs.erase({old_key, id32, slot}) > 0) jobs.insert({key, id32, slot});
  }
  for (NodeId node : run.nics) {
    for (LinkEntry& entry : nic_jobs_[static_cast<size_t>(node)]) {
      if (entry.id == id32) entry.key = key;
    }
  }
}

Status LinkContention::Audit(const std::vector<ActiveRun>& slots,
                             FunctionRef<Status(const std::string&)> broken) const {
  std::vector<int> nic_flows(nic_flows_.size(), 0), uplink_flows(uplink_flows_.size(), 0);
  std::vector<size_t> uplink_listed(uplink_jobs_.size(), 0);
  for (size_t slot = 0; slot < slots.size(); ++slot) {
    const ActiveRun& run = slots[slot];
    if (run.job < 0 || run.idle) continue;
    const auto id = static_cast<int32_t>(run.job);
    const LinkEntry self{UplinkKey(run), id, static_cast<int32_t>(slot)};
    // The ties kept since its last estimate are those of the current load.
    const ChangeMark& counts = marks_[slot];
    if (modelled_ && !run.nics.empty() && (counts.ties != CountTies(run) || counts.below != 0)) {
      return broken("job " + std::to_string(id) + "'s counted links");
    }
    for (NodeId node : run.nics) {
      ++nic_flows[static_cast<size_t>(node)];
      const auto& listed = nic_jobs_[static_cast<size_t>(node)];
      if (std::find_if(listed.begin(), listed.end(), [&](const LinkEntry& e) {
            return e.key == self.key && e.id == self.id && e.slot == self.slot;
          }) == listed.end()) {
        return broken("NIC list");
      }
    }
    for (RackId r : run.uplinks) {
      const size_t rack = static_cast<size_t>(r);
      ++uplink_flows[rack];
      if (capacities_.uplink_Bps[rack] < 0) continue;
      ++uplink_listed[rack];
      const auto at = std::lower_bound(uplink_jobs_[rack].begin(), uplink_jobs_[rack].end(), self);
      if (at == uplink_jobs_[rack].end() || at->key != self.key || at->id != self.id || at->slot != self.slot) {
        return broken("uplink list");
      }
    }
  }
  if (nic_flows != nic_flows_ || uplink_flows != uplink_flows_) return broken("flow counts");
  for (size_t n = 0; n < nic_jobs_.size(); ++n) {
    if (nic_jobs_[n].size() != static_cast<size_t>(nic_flows[n])) return broken("NIC list size");
  }
  for (size_t r = 0; r < uplink_jobs_.size(); ++r) {
    if (uplink_jobs_[r].size() != uplink_listed[r]) return broken("uplink list size");
  }
  return Status::Ok();
}

}  // namespace hetsched::sim_internal
