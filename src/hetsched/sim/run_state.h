// Internal to sim/: what the simulator keeps per job (RunState) and per running job (ActiveRun, in
// reused run slots), and the entries of the links' job lists (LinkEntry, ChangeMark), shared by
// the simulator (simulator_impl.h) and its link contention (link_contention.h).
#pragma once

#include <cstdint>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/iteration_model.h"
#include "hetsched/sim/event_queue.h"
#include "hetsched/util/units.h"

namespace hetsched::sim_internal {

// What only the simulator knows about a job while it runs: the part every job has (kept small,
// a 1M-job run holds a million), and the part only a running job has (in a pool of slots
// reused as jobs stop). The job's JobRecord is written in place in RunRecord::jobs.
struct ActiveRun {
  double update_s = 0;            // RunState::done_at_update is the progress at this time
  double progress_from_s = 0;     // progress starts here (after a restart cost)
  double rate = 0;                // iterations per second in the current allocation
  double completion_s = EventQueue::kNever;  // its entry in the event queue
  Plan plan;
  PreparedEstimate prepared;      // the load-free part of the estimate, set at start
  IterationEstimate estimate;     // with current contention
  PlanTraffic traffic;            // bytes per iteration on each link (load-free; multi-node only)
  std::vector<NodeId> nics;       // NICs this job's traffic crosses (multi-node only)
  std::vector<RackId> uplinks;    // rack uplinks it crosses (multi-rack only)
  double segment_start_s = 0;     // when the current allocation (or resume) began
  double segment_start_iterations = 0;
  double mark = kInf;             // RunUntil: progress stops here (iterations in all)
  bool idle = false;              // held at `mark`: devices kept, no progress, no traffic
  // SchedBackend::HoldFinishUntil: should its work end before this time, it is held idle (its
  // `mark` set to its total) and finishes then (Simulator::FinishHeld); -1: none.
  double finish_hold_s = -1;
  // Space sharing: the factor of its speed while its partner (JobStatus::sharing_with) runs.
  double pair_factor = 1;
  // The seconds of the current segment it ran beside a running partner, and since when it does
  // now (-1: it does not): the two split those devices' price and energy (Simulator::ClockSharing).
  double shared_s = 0;
  double shared_from_s = -1;
  // A goodput job's epoch end put off to after the scheduler's call at this time (a step's end,
  // SimOptions::goodput_round_epochs: Simulator::DeferEpochEnd); -1: none.
  double epoch_deferred_at_s = -1;
  JobId job = -1;                 // the job in this slot; -1 while the slot is free
};

struct RunState {
  const ModelProfile* model = nullptr;
  double total_iterations = 0;    // truth, in iterations of the job as submitted
  double samples_per_iteration = 0;  // spec.num_gpus x per-device batch: the work of one iteration
  double done_at_update = 0;      // iterations done at ActiveRun::update_s (when stopped: in total)
  double runtime_rate = 0;        // JobTruth::runtime_s as iterations/s on the reference type; 0: none
  int measured_type = -1;         // index in options.measured_throughputs, or -1 (model truth)
  bool measured_fallback = false; // some run of a measured job type used the model
  int32_t active = -1;            // its slot in Simulator::active_ while running, else -1
  int32_t record = -1;            // its index in RunRecord::jobs; -1 if rejected
  int32_t goodput = -1;           // its GoodputJob (Simulator::goodput_) if it is one, else -1
};

// A running job on a NIC's or an uplink's list: its UplinkKey, its id (the simulator's job ids
// are 0..n-1) and its run slot (Simulator::active_, its ChangeMark's index). Uplink lists are
// ordered by (key, id).
struct LinkEntry {
  double key = 0;
  int32_t id = 0;
  int32_t slot = 0;
  bool operator<(const LinkEntry& o) const { return key < o.key || (key == o.key && id < o.id); }
};

// LinkContention's mark of a running job, by run slot (Simulator::active_): three bytes a job,
// read once per job met on a changed link (a table by job id, a million entries, missed the
// cache at each).
inline constexpr uint8_t kTiesUnknown = 255;  // ChangeMark::ties of a job whose links are not counted
struct ChangeMark {
  uint8_t flags = 0;
  uint8_t ties = kTiesUnknown;
  uint8_t below = 0;
};

}  // namespace hetsched::sim_internal
