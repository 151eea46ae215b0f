// Internal to sim/: link contention. The running jobs' flows on the NICs and rack uplinks they
// cross, the load the performance model sees (Load), and which jobs a start or a stop can slow
// down or speed up, with whether each one's estimate stands.
//
// The contract is two calls. Change(job, +1 or -1) applies a start or a stop and re-times the
// jobs it can affect, each through the Retimer it is given: at once, or, between Defer() and
// Flush() (a scheduling call under way), once each at Flush, when the call's starts and stops
// are all known. Exact either way: a re-time at an unchanged time and load changes nothing, so
// re-timing a job once after several changes gives what re-timing it after each would (progress
// re-based at the same instant, the estimate of the final load).
//
// A job's estimate stands unless a changed link it crosses is or becomes its slowest. For a data
// ring whose slowest per-flow bandwidth K is known (its key, UplinkKey), the contention counts
// how many of its links give one flow exactly K (`ties`) and less than K (`below`): K stands,
// and with it the estimate, exactly while below == 0 and ties > 0, whatever changed in between
// (most of the estimates re-timing asked for came out unchanged: docs/PERFORMANCE.md, session
// 19). Other jobs are marked link-bound when a changed link is or becomes their slowest, or is
// of unknown speed to them. Updates cost O(links of the job + jobs met on them).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/perf/iteration_model.h"
#include "hetsched/sim/run_state.h"
#include "hetsched/util/flat_set.h"
#include "hetsched/util/function_ref.h"
#include "hetsched/util/status.h"

namespace hetsched::sim_internal {

class LinkContention {
 public:
  // Re-times the running job `id`; `estimate_stands`: its estimate is exactly what the current
  // load gives (only its progress and completion are re-based at now).
  using Retimer = FunctionRef<void(JobId id, bool estimate_stands)>;

  // `modelled`: whether the load slows jobs (SimOptions::contention). Unmodelled, every job met
  // on a changed NIC is still re-timed with its estimate recomputed (it then ignores the load).
  LinkContention(const Cluster& cluster, bool modelled);
  // Empties every link, for a run of `num_jobs` jobs (ids 0..num_jobs-1).
  void Reset(size_t num_jobs);
  // A new run slot (the simulator's slots only grow).
  void AddSlot() { marks_.emplace_back(); }

  // The link load the performance model sees now (empty when the load is not modelled).
  LinkLoad Load() const;

  // Call 1: adds (+1) or removes (-1) the flows of `run` (job `id` in `slot`) on its NICs and
  // uplinks and lists the jobs it can slow or speed up: every job sharing one of its NICs, and the
  // jobs sharing one of its uplinks whose slowest link that uplink is or becomes (each once, in
  // the order met). Then RetimeListed re-times them (the caller re-times a started job itself in
  // between: its own estimate is of the load with its flows).
  void Register(const ActiveRun& run, JobId id, int32_t slot, int delta);
  void RetimeListed(Retimer retime);
  // Call 2: re-times after each Register from now on are deferred until Flush, which runs each
  // deferred job's once (`slot_of` gives its run slot, or -1 where it has stopped or is held).
  void Defer() { defer_ = true; }
  void Flush(FunctionRef<int32_t(JobId)> slot_of, Retimer retime);
  // A job whose deferred re-time is pending (job_status shows it re-timed: FlushOne).
  bool Deferred(JobId id) const { return deferred_[static_cast<size_t>(id)] != kNone; }
  void FlushOne(JobId id, int32_t slot, Retimer retime);
  // The job stopped or is held: no speed left to re-time.
  void Undefer(JobId id) { deferred_[static_cast<size_t>(id)] = kNone; }

  // After the job's estimate was recomputed: its key was `old_key` and is UplinkKey(run) now
  // (its list entries follow), and its ties are counted afresh.
  void Rekeyed(const ActiveRun& run, JobId id, int32_t slot, double old_key);

  // A job's place among the jobs crossing a link: its ring's per-flow bandwidth on its slowest
  // link (IterationEstimate::ring_path_Bps), infinite where that is not known (other plans: such
  // a job is re-timed at every change of its uplinks).
  static double UplinkKey(const ActiveRun& run) {
    return run.estimate.ring_path_Bps > 0 ? run.estimate.ring_path_Bps : std::numeric_limits<double>::infinity();
  }

  // Checks the bookkeeping against the running jobs (the occupied slots of `slots` that are not
  // held): each counted once on each of its links and listed there under its key, its counted
  // ties those of the current load, and nothing else counted or listed. `broken(what)` makes the
  // error.
  Status Audit(const std::vector<ActiveRun>& slots, FunctionRef<Status(const std::string&)> broken) const;

 private:
  // ChangeMark::flags, set by Register and cleared as RetimeListed takes the job: kListed, in the
  // change's list already; kLinkBound, its estimate is to be recomputed.
  enum : uint8_t { kListed = 1, kLinkBound = 2 };
  // A deferred re-time: none / its estimate exact / to recompute.
  enum : uint8_t { kNone = 0, kKeepEstimate = 1, kRecompute = 2 };

  // The job's mark met on a changed link with its key and the link's per-flow share before and
  // after the change: its counts follow, or (not counted) kLinkBound where the link is or becomes
  // its slowest.
  static void MeetChangedLink(double key, double before, double after, ChangeMark* mark);
  static bool KeyStands(const ChangeMark& mark) { return mark.below == 0 && mark.ties > 0; }
  // ChangeMark::ties of a running job under the current load; kTiesUnknown where its key is not
  // its ring's slowest bandwidth (other plans) or not known, or where it has so many links that a
  // count could pass 254.
  uint8_t CountTies(const ActiveRun& run) const;
  void Meet(const LinkEntry& other, double before, double after, bool bound);
  void DeferRetime(JobId id, bool estimate_survives);

  const bool modelled_;
  LinkCapacities capacities_;                 // the cluster's NIC and uplink figures, flat
  std::vector<int> nic_flows_;                // by node
  std::vector<int> uplink_flows_;             // by rack
  // By node: the running multi-node jobs crossing its NIC, with their UplinkKey, in the order
  // they started.
  std::vector<std::vector<LinkEntry>> nic_jobs_;
  // By rack with an uplink: the running jobs crossing it, by UplinkKey (then id). A flat set: a
  // job's entry moves at each re-time that changes its key (docs/PERFORMANCE.md, session 15).
  std::vector<FlatSet<LinkEntry>> uplink_jobs_;
  std::vector<ChangeMark> marks_;             // by run slot
  std::vector<LinkEntry> listed_;             // the last Register's jobs, in the order met
  std::vector<uint8_t> deferred_;             // by job id
  std::vector<JobId> deferred_queue_;         // deferred since the last flush, in the order listed
  bool defer_ = false;
};

}  // namespace hetsched::sim_internal
