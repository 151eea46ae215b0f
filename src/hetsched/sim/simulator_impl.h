// Internal to sim/: the simulator's state and its SchedBackend implementation, shared by
// simulator.cc (preparation, the event loop, sampling, audits) and run_segments.cc (a job's runs:
// start, stop, preemption, idle holds, resizes, completion). Not a public API: sim/simulator.h is.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetsched/perf/elastic_resize.h"
#include "hetsched/perf/iteration_model.h"
#include "hetsched/sched/cluster_state.h"
#include "hetsched/sched/context.h"
#include "hetsched/sim/event_queue.h"
#include "hetsched/sim/link_traffic.h"
#include "hetsched/sim/simulator.h"
#include "hetsched/trace/calibrate.h"
#include "hetsched/util/flat_set.h"

namespace hetsched::sim_internal {


constexpr double kInf = std::numeric_limits<double>::infinity();
// Scheduling calls without any job progressing (and none left to arrive) after which a run with
// waiting jobs is stopped as stalled; far more than any policy's own waiting (Gavel's mechanism
// waits at most a reset interval, ~6 rounds).
constexpr long long kStallCalls = 10000;

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

// Simulator::change_mark_'s entry, by run slot (Simulator::active_): three bytes a running job,
// read once per job met on a changed link (a table by job id, a million entries, missed the
// cache at each).
inline constexpr uint8_t kTiesUnknown = 255;  // ChangeMark::ties of a job whose links are not counted
struct ChangeMark {
  uint8_t flags = 0;
  uint8_t ties = kTiesUnknown;
  uint8_t below = 0;
};

class Simulator final : public SchedBackend {
 public:
  Simulator(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload, Methods methods,
            const SimOptions& options)
      : cluster_(cluster),
        zoo_(zoo),
        workload_(workload),
        methods_(std::move(methods)),
        options_(options),
        state_(cluster),
        traffic_(cluster),
        ctx_(*this, state_, *methods_.placer, *methods_.planner, zoo) {}

  // The engine: next time -> completions -> arrivals -> timers -> scheduler -> after-step, until
  // nothing is left or max_time_s; then the record is closed.
  Result<RunRecord> Run();

  // SchedBackend
  double now() const override { return now_; }
  // A job whose re-time is deferred (a scheduling call under way) is re-timed before it is shown:
  // the scheduler sees every job's speed under the current load, as if re-timed at once.
  const JobStatus& job_status(JobId id) const override {
    if (retime_mark_[static_cast<size_t>(id)] != kRetimeNone) const_cast<Simulator*>(this)->FlushRetime(id);
    return status_[static_cast<size_t>(id)];
  }
  const ModelProfile* job_model(JobId id) const override { return runs_[static_cast<size_t>(id)].model; }
  void PrefetchJob(JobId id) const override;
  Status StartJob(JobId id, const PlannedJob& planned) override;
  Status PreemptJob(JobId id) override;
  Status RunUntil(JobId id, double iterations) override;
  Status DropJob(JobId id) override;
  Status ResizeJob(JobId id, const PlannedJob& planned) override;
  double ResizePauseS(JobId id, std::span<const DeviceId> devices) const override;
  void RequestWakeUp(double time_s) override {
    // Strictly in the future: a scheduler cannot make the clock stand still.
    if (time_s > now_ && std::isfinite(time_s)) events_.AddWakeUp(time_s);
  }
  void NoteUnplaced(JobId id, std::string_view reason) override {
    status_[static_cast<size_t>(id)].pending_reason.assign(reason);
  }
  ArrivalsLeft arrivals_left() const override {
    size_t next = arrival_cursor_;
    while (next < rejected_.size() && rejected_[next]) ++next;
    return next < rejected_.size() ? ArrivalsLeft::kSome : ArrivalsLeft::kNone;
  }

 private:
  Status Prepare();
  // The steps of Run(), in order.
  Result<bool> AdvanceClock();
  Status CompleteDue(bool* decide);
  Status ArriveDue(bool* decide);
  Status CallScheduler();
  Status AfterStep();
  Status CloseRecord();
  double WallS() const;  // SimOptions::wall_clock, or the steady clock
  Status CheckFits(JobId id);
  // Container jobs: the placer must place containers, and must be able to place this job's on
  // the empty cluster (else it can never start).
  Status CheckContainersFit(JobId id);
  ActiveRun& active(const RunState& run) { return active_[static_cast<size_t>(run.active)]; }
  const ActiveRun& active(const RunState& run) const { return active_[static_cast<size_t>(run.active)]; }
  JobRecord& record(const RunState& run) { return record_.jobs[static_cast<size_t>(run.record)]; }
  double ProgressAt(const RunState& run, double t) const {
    const ActiveRun& a = active(run);
    if (a.idle) return run.done_at_update;
    const double from = std::max(a.update_s, a.progress_from_s);
    return run.done_at_update + (t > from ? a.rate * (t - from) : 0.0);
  }
  void Advance(RunState& run) {
    run.done_at_update = std::min(ProgressAt(run, now_), run.total_iterations);
    active(run).update_s = now_;
  }
  // The measured truth of a job with a measured type: Gavel's steps/s for its GPU type, count and
  // layout (Gavel's simulator finishes a job after total_steps / steps_per_second, and our
  // iterations are Gavel's steps), times the model's contention slowdown (iteration time without
  // load / with load). The model's rate when the table lacks the configuration.
  double MeasuredRate(JobId id, RunState& run);
  // The model's slowdown of the job's current run from link contention: iteration time alone /
  // under the current load, at most 1 (1 when contention is off or the job is on one node).
  double ContentionSlowdown(const RunState& run) const;
  // A job with a trace run time (JobTruth::runtime_s), contention-free, on `count` devices of
  // `type`: total_iterations / runtime_s on spec.num_gpus devices of the reference type; other
  // types and counts scale it by the model's packed estimates (RuntimeCalibrator), whatever the
  // layout. Fails when the model cannot run the job there.
  Result<double> RuntimeTruthRate(JobId id, const RunState& run, DeviceTypeId type, int count);
  Result<double> PackedIterationS(DeviceTypeId type, const ModelProfile& model, int batch, int count);
  // Recomputes the job's speed under the current link load and re-times its completion.
  // `estimate_current`: the job's estimate is known to be unchanged by the load's change (no
  // changed link it crosses is or becomes its slowest: RegisterTraffic); then so are its rate,
  // link meter entry and keys, and only its progress and completion are re-based at now.
  void Retime(JobId id, bool estimate_current = false);
  // Sets the job's stop event (completion, or its RunUntil mark) from its current rate.
  void Reschedule(JobId id);
  // Adds (delta +1) or removes (-1) the job's flows on its NICs and rack uplinks, and lists in
  // *affected the jobs whose speed this can change: every job sharing one of its NICs, and the
  // jobs sharing one of its rack uplinks whose slowest link that uplink is or becomes (each once,
  // in the order met). A listed job whose links are counted (change_mark_) has its counts follow
  // the change; one whose links are not is marked kLinkBound, its estimate to recompute, where a
  // changed NIC or uplink it crosses is or becomes its slowest link, or is of unknown speed to it
  // (no estimate figure, a NIC without one). The others' estimates stand exactly: their slowest
  // link is elsewhere and keeps its share.
  void RegisterTraffic(JobId id, int delta, std::vector<LinkEntry>* affected);
  // The job's mark met on a changed link with its key (UplinkKey) and the link's per-flow share
  // before and after the change: its counts follow, or (not counted) kLinkBound where the link is
  // or becomes its slowest.
  static void MeetChangedLink(double key, double before, double after, ChangeMark* mark);
  // Whether a job whose links are counted keeps its key under the current load (see
  // change_mark_).
  static bool KeyStands(const ChangeMark& mark) { return mark.below == 0 && mark.ties > 0; }
  // ChangeMark::ties of a running job under the current load: how many of its links (NICs, and
  // uplinks where its ring crosses racks) give one flow exactly its ring's slowest bandwidth;
  // kTiesUnknown where that bandwidth is not its ring's (other plans) or not known, or where the
  // job has so many links that a count could pass 254.
  uint8_t CountTies(const ActiveRun& run) const;
  // A job's place among the jobs crossing an uplink: its ring's per-flow bandwidth on its slowest
  // link (IterationEstimate::ring_path_Bps), infinite where that is not known (other plans: such a
  // job is re-timed at every change of the uplink).
  // The link load the performance model sees now (empty when contention is off).
  LinkLoad CurrentLoad() const {
    LinkLoad load;
    if (options_.contention) {
      load.nic_flows = &nic_flows_;
      load.uplink_flows = &uplink_flows_;
      load.capacities = &link_capacities_;
    }
    return load;
  }
  static double UplinkKey(const ActiveRun& run) {
    return run.estimate.ring_path_Bps > 0 ? run.estimate.ring_path_Bps : std::numeric_limits<double>::infinity();
  }
  // Adds (+1) or removes (-1) the job's traffic and re-times the jobs it can slow or speed up
  // (RegisterTraffic): at once, or, while a scheduling call is under way (defer_retimes_), once
  // each at the call's end (FlushRetimes), when the call's starts and stops are all known.
  // Exact either way: a re-time at an unchanged time and load changes nothing, so re-timing a job
  // once after several changes gives what re-timing it after each would (progress re-based at
  // the same instant, the estimate of the final load); the link meter's sums are exact, so its
  // order does not matter (LinkTrafficMeter).
  void ChangeTraffic(JobId id, int delta);
  // Lists `id` for a deferred re-time after `changed`'s flows changed by `delta`; whether its
  // estimate must be recomputed is decided now, against the load that change left (as Retime
  // right after it would).
  void DeferRetime(JobId id, bool estimate_survives);
  // Runs `id`'s deferred re-time now (if it is still running and not held) and unlists it.
  void FlushRetime(JobId id);
  void FlushRetimes();
  void DropRetime(JobId id) { retime_mark_[static_cast<size_t>(id)] = kRetimeNone; }
  // Ends the job's current allocation segment in its visible status (device time, progress) and
  // returns what it adds to the record (JobRecord::Add); for a stop or an idle hold.
  SegmentTotals CloseSegment(JobId id);
  Status StopRun(JobId id);
  // Takes `planned`'s devices for a pending job and starts it; its progress resumes after pause_s.
  Status BeginRun(JobId id, const PlannedJob& planned, double pause_s);
  ResizeCost ResizeCostTo(JobId id, std::span<const DeviceId> devices) const;
  Status Complete(JobId id);
  // Gives a job's emptied device list to spare_devices_ (the job has ended).
  void RecycleDevices(JobStatus& st);
  // The job reached its RunUntil mark: it keeps its devices, idle.
  Status Hold(JobId id);
  void Sample();
  bool FullAuditDue();  // at this call (SimOptions::full_audit_every); advances the amortised schedule
  Status Audit() const;
  Status AuditLinks() const;  // part of Audit: NIC and uplink flows and lists
  // The error for a run that ends with jobs held idle (RunUntil) and nothing left to happen.
  Status StalledHeldJobs(const JobScheduler& scheduler) const;
  // The error for a run in which nothing progressed through kStallCalls scheduling calls.
  Status Stalled(const JobScheduler& scheduler) const;

  const Cluster& cluster_;
  const ModelZoo& zoo_;
  const Workload& workload_;
  Methods methods_;
  SimOptions options_;
  ClusterState state_;
  std::unique_ptr<ClusterState> empty_state_;  // for CheckContainersFit, built on first use
  LinkTrafficMeter traffic_;
  SchedContext ctx_;
  EventQueue events_;
  double now_ = 0;

  std::vector<JobStatus> status_;
  std::vector<RunState> runs_;
  std::vector<ActiveRun> active_;              // slots of running jobs
  std::vector<int32_t> free_active_;           // unused slots in active_
  // Device lists of finished and dropped jobs (JobStatus::devices, emptied): a job's first start
  // takes one instead of allocating its own.
  std::vector<std::vector<DeviceId>> spare_devices_;
  std::vector<bool> rejected_;
  double round_s_ = 0;                         // the scheduler's round period, read once per run
  size_t arrival_cursor_ = 0;                  // the next job of the trace to arrive (by index)
  std::vector<int> nic_flows_;                 // by node
  std::vector<int> uplink_flows_;              // by rack
  LinkCapacities link_capacities_;             // the cluster's NIC and uplink figures, flat
  // By node: the running multi-node jobs crossing its NIC, with their UplinkKey (kept current by
  // Retime, like the uplinks' lists), in the order they started.
  std::vector<std::vector<LinkEntry>> nic_jobs_;
  // By rack with an uplink: the running jobs crossing it, by UplinkKey (then id). A flat set: a
  // job's entry moves at each re-time that changes its key (docs/PERFORMANCE.md, session 15).
  std::vector<FlatSet<LinkEntry>> uplink_jobs_;
  std::vector<int> busy_by_type_;              // by catalog type id (idle held devices not counted)
  int idle_devices_ = 0;                       // held by idle jobs (RunUntil)
  long long idle_jobs_ = 0;
  std::vector<DeviceTypeId> present_types_;
  DeviceTypeId runtime_type_ = kNoDeviceType;                  // Workload::runtime_device
  std::map<DeviceTypeId, RuntimeCalibrator> calibrators_;      // packed estimates, by type
  long long pending_ = 0, running_ = 0, finished_ = 0, arrived_ = 0, dropped_ = 0;
  long long events_processed_ = 0;
  long long scheduler_calls_ = 0;
  // kAuditAmortised: full audits at least this many calls apart, and at least as far apart as
  // jobs have arrived (each walks them); next_audit_call_ is the call count of the next one.
  static constexpr long long kMinAuditPeriod = 100000;
  long long next_audit_call_ = kMinAuditPeriod;
  // Consecutive scheduling calls after which no job progressed, none was left to arrive and some
  // waited (pending or held idle); since when.
  long long stalled_calls_ = 0;
  double stalled_since_s_ = 0;
  std::vector<LinkEntry> scratch_affected_;
  // Deferred re-times (ChangeTraffic): per job, none / its estimate still exact / to recompute;
  // the jobs listed since the last flush, in the order listed (unlisted ones skipped).
  enum : uint8_t { kRetimeNone = 0, kRetimeKeepEstimate = 1, kRetimeEstimate = 2 };
  std::vector<uint8_t> retime_mark_;
  // Per run slot (active_: a slot's marks are its running job's). `flags`, set by RegisterTraffic while a change is applied and cleared as
  // ChangeTraffic takes the job: kListed, already in the change's list of affected jobs (so listed
  // once); kLinkBound, a job whose links are not counted met on a changed link that is or becomes
  // its slowest: its estimate is recomputed. `ties` and `below`, for a running job whose key is
  // its ring's slowest per-flow bandwidth K (CountTies; kTiesUnknown otherwise): how many of its
  // links give one flow exactly K, and less than K, under the current load; counted at each
  // recomputed estimate (then below = 0), kept by MeetChangedLink as links change. K stands, and
  // with it the estimate, exactly while below == 0 and ties > 0 (KeyStands), whatever changed in
  // between: a NIC that loses a flow and gains one in the same scheduling call, or a link that
  // speeds up while another of the job's links has the same share, leaves the estimate as it was
  // (most of the estimates the changes asked for came out unchanged: docs/PERFORMANCE.md,
  // session 19).
  enum : uint8_t { kListed = 1, kLinkBound = 2 };
  std::vector<ChangeMark> change_mark_;
  std::vector<JobId> retime_queue_;
  bool defer_retimes_ = false;
  RunRecord record_;
};

}  // namespace hetsched::sim_internal
