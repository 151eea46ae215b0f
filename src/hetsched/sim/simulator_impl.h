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
#include "hetsched/perf/goodput_job.h"
#include "hetsched/perf/iteration_model.h"
#include "hetsched/perf/space_sharing.h"
#include "hetsched/sched/cluster_state.h"
#include "hetsched/sched/context.h"
#include "hetsched/sim/event_queue.h"
#include "hetsched/sim/link_contention.h"
#include "hetsched/sim/link_traffic.h"
#include "hetsched/sim/run_state.h"
#include "hetsched/sim/simulator.h"
#include "hetsched/sim/true_rates.h"
#include "hetsched/trace/calibrate.h"
#include "hetsched/util/flat_set.h"

namespace hetsched::sim_internal {

// Scheduling calls without any job progressing (and none left to arrive) after which a run with
// waiting jobs is stopped as stalled; far more than any policy's own waiting (Gavel's mechanism
// waits at most a reset interval, ~6 rounds).
constexpr long long kStallCalls = 10000;


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
        contention_(cluster, options.contention),
        truth_(cluster, options_),
        ctx_(*this, state_, *methods_.placer, *methods_.planner, zoo) {}

  // The engine: next time -> completions -> arrivals -> timers -> scheduler -> after-step, until
  // nothing is left or max_time_s; then the record is closed.
  Result<RunRecord> Run();

  // SchedBackend
  double now() const override { return now_; }
  // A job whose re-time is deferred (a scheduling call under way) is re-timed before it is shown:
  // the scheduler sees every job's speed under the current load, as if re-timed at once.
  const JobStatus& job_status(JobId id) const override {
    if (contention_.Deferred(id)) const_cast<Simulator*>(this)->FlushRetime(id);
    return status_[static_cast<size_t>(id)];
  }
  const ModelProfile* job_model(JobId id) const override { return runs_[static_cast<size_t>(id)].model; }
  void PrefetchJob(JobId id) const override;
  Status StartJob(JobId id, const PlannedJob& planned) override;
  Status PreemptJob(JobId id) override;
  Status RunUntil(JobId id, double iterations) override;
  Status HoldFinishUntil(JobId id, double time_s) override;
  Status HoldFinishesUntil(std::span<const JobId> ids, double time_s) override;
  Status DropJob(JobId id) override;
  Status ResizeJob(JobId id, const PlannedJob& planned) override;
  double ResizePauseS(JobId id, std::span<const DeviceId> devices) const override;
  Status HandOverJob(JobId id, const PlannedJob& planned) override;
  Status StartSharedJob(JobId id, JobId host, const PlannedJob& planned) override;
  double HandOverPauseS(JobId id, std::span<const DeviceId> devices) const override;
  void RequestWakeUp(double time_s) override {
    // Strictly in the future: a scheduler cannot make the clock stand still.
    if (time_s > now_ && std::isfinite(time_s)) events_.AddWakeUp(time_s);
  }
  Result<std::optional<GoodputJobView>> goodput_job(JobId id, bool with_model) const override;
  void NoteUnplaced(JobId id, std::string_view reason) override {
    status_[static_cast<size_t>(id)].pending_reason.assign(reason);
  }
  void NoteNeverPlaceable(JobId id, std::string_view reason) override {
    NoteUnplaced(id, reason);
    never_placeable_[static_cast<size_t>(id)] = true;
  }
  ArrivalsLeft arrivals_left() const override {
    size_t next = arrival_cursor_;
    while (next < rejected_.size() && rejected_[next]) ++next;
    return next < rejected_.size() ? ArrivalsLeft::kSome : ArrivalsLeft::kNone;
  }

 private:
  Status Prepare();
  // Job i's input rules (simulator.h), its status and run state, its record; an unfit job is
  // rejected here under skip_unfit_jobs.
  Status PrepareJob(size_t i);
  // A goodput job's own state (perf/goodput_job.h) and its work in progress units.
  Status PrepareGoodputJob(size_t i);
  // Its ideal run time (JobRecord::ideal_runtime_s; goodput_run.cc's model, alone).
  double GoodputIdealS(size_t i) const;
  // The steps of Run(), in order.
  Result<bool> AdvanceClock();
  Status CompleteDue(bool* decide);
  // A goodput epoch end at a step's end whose exact time is after it: put off to after the
  // scheduler's call (simulator.cc). True when it was.
  bool DeferEpochEnd(JobId id);
  void ResumeDeferredEpochEnds();
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
  // Recomputes the job's speed under the current link load and re-times its completion.
  // `estimate_current`: the job's estimate is known to be unchanged by the load's change (no
  // changed link it crosses is or becomes its slowest: RegisterTraffic); then so are its rate,
  // link meter entry and keys, and only its progress and completion are re-based at now.
  void Retime(JobId id, bool estimate_current = false);
  // Sets the job's stop event (completion, or its RunUntil mark) from its current rate.
  void Reschedule(JobId id);
  // Adds (+1) or removes (-1) the job's traffic and re-times the jobs it can slow or speed up, at
  // once or, while a scheduling call is under way, once each at the call's end (LinkContention's
  // two calls); the link meter's sums are exact, so its order does not matter (LinkTrafficMeter).
  void ChangeTraffic(JobId id, int delta);
  // The job's run slot, or -1 where it has stopped or is held (no speed to re-time).
  int32_t RetimeSlot(JobId id) const {
    const RunState& job = runs_[static_cast<size_t>(id)];
    return job.active < 0 || active(job).idle ? -1 : job.active;
  }
  // Runs `id`'s deferred re-time now (if it is still running and not held).
  void FlushRetime(JobId id) {
    contention_.FlushOne(id, RetimeSlot(id), [this](JobId j, bool stands) { Retime(j, stands); });
  }
  // Ends the job's current allocation segment in its visible status (device time, progress) and
  // returns what it adds to the record (JobRecord::Add); for a stop or an idle hold.
  SegmentTotals CloseSegment(JobId id);
  Status StopRun(JobId id);
  // Takes `planned`'s devices for a pending job and starts it; its progress resumes after pause_s.
  // `priced`: a resize, whose pause ResizeCostTo set (a goodput job's start pays its delay).
  // `host` >= 0: co-located with that running job on its devices (StartSharedJob).
  Status BeginRun(JobId id, const PlannedJob& planned, double pause_s, bool priced = false, JobId host = -1);
  // Space sharing (docs/space_sharing.md, perf/space_sharing.h): what `id` on `plan` asks of each
  // device, from its estimate alone and contention-free.
  DeviceDemand ShareDemand(JobId id, const Plan& plan, const IterationEstimate& alone) const;
  // The factor the job's speed takes now: its pair factor while its partner runs and is not held.
  double ShareFactor(const JobStatus& st, const ActiveRun& run) const {
    if (st.sharing_with < 0) return 1.0;
    const JobStatus& other = status_[static_cast<size_t>(st.sharing_with)];
    return other.idle ? 1.0 : run.pair_factor;
  }
  // The partner of a job that stops, is held or resumes is re-timed (its factor changes).
  void RetimePartner(const JobStatus& st) {
    if (st.sharing_with >= 0 && !status_[static_cast<size_t>(st.sharing_with)].idle) {
      ClockSharing(st.sharing_with);
      Retime(st.sharing_with);
    }
  }
  // Starts or stops a running job's clock of shared time (ActiveRun::shared_s) as it begins or
  // ceases to run beside a running partner.
  void ClockSharing(JobId id);
  // A device is busy while some job on it runs and is not held; busy_by_type_ and busy_devices_
  // count busy devices once, however many jobs share them.
  void MarkBusy(std::span<const DeviceId> devices);
  void MarkNotBusy(std::span<const DeviceId> devices);
  // A free slot of active_ (a reused one first, else a new one with its contention slot).
  int32_t TakeActiveSlot();
  // The NICs and rack uplinks a starting run's plan uses, its prepared estimate (the planner's own
  // when it has one) and the traffic it puts on them.
  void SetRunLayout(ActiveRun& run, const ModelProfile& model, const PlannedJob& planned);
  ResizeCost ResizeCostTo(JobId id, std::span<const DeviceId> devices) const;
  // A hand-over's cost (perf/elastic_resize.h); pause infinite where it cannot be: the job is not a
  // running elastic device job, or `devices` include its own.
  ResizeCost HandOverCostTo(JobId id, std::span<const DeviceId> devices) const;
  // ResizeJob and HandOverJob: the job stops and begins again on the plan's devices, paused for
  // the change's cost (a pause still owed included).
  Status ChangeJob(JobId id, const PlannedJob& planned, bool hand_over);
  Status Complete(JobId id);
  // Gives a job's emptied device list to spare_devices_ (the job has ended).
  void RecycleDevices(JobStatus& st);
  // The job reached its RunUntil mark: it keeps its devices, idle.
  Status Hold(JobId id);
  // Its work is done before its finish hold's time (HoldFinishUntil): held at its total, idle, its
  // completion event at that time.
  Status HoldToFinish(JobId id);
  // Holds running job id's finish to time_s (its completion moved where already held); false,
  // nothing changed, for a goodput job (it finishes with its last epoch).
  bool SetFinishHold(JobId id, double time_s);
  // Whether the running job is held idle, its work done, to finish at ActiveRun::finish_hold_s.
  bool FinishHeld(const RunState& job) const {
    const ActiveRun& a = active(job);
    return a.idle && a.finish_hold_s >= 0 && job.done_at_update >= job.total_iterations;
  }
  // A fault for `what` (a preemption, drop or resize) of a job held to its finish; Ok otherwise.
  Status RefuseIfFinishHeld(JobId id, const char* what) const;
  // Goodput jobs (perf/goodput_job.h), in goodput_run.cc. A start: its placement (GPUs per node of the
  // plan's devices, in their order), its batch, its true goodput (GoodputJob::rate).
  // `free_move`: it continues where it was (GoodputFreeMove).
  Status GoodputPlace(JobId id, const Plan& plan, bool free_move = false);
  // Its last epoch boundary in progress: the end of its current epoch, or of its last.
  double GoodputBoundary(const RunState& job) const;
  // The delay of a goodput job's placement (SimOptions::goodput_restart_delay_s).
  double GoodputDelayS(const GoodputJob& g) const;
  // Whether starting `g` on `plan` now is a free move (SimOptions::goodput_free_moves): it left
  // now, and `plan` has the same type and GPUs per node as where it was.
  bool GoodputFreeMove(const GoodputJob& g, const Plan& plan) const;
  // With free moves: whether `devices` are of the type of g.types[on], `placement` GPUs per node.
  bool GoodputSameShape(const GoodputJob& g, const std::vector<int>& placement, int on,
                        std::span<const DeviceId> devices) const;
  // The event at its boundary: the epoch ends (the job completes after its last).
  Status GoodputEpochEnds(JobId id, bool* decide);
  // Every goodput_interval_s: running adaptive jobs measure themselves and re-pick their batch.
  Status GoodputTick();
  // What the job measured while it ran since its last boundary (GoodputSteps::Observe), if it
  // progressed; then its batch is re-picked (`repick`) and its speed re-timed.
  Status GoodputBoundaryStep(JobId id, bool repick);
  GoodputJob& goodput(const RunState& job) { return goodput_[static_cast<size_t>(job.goodput)]; }
  const GoodputJob& goodput(const RunState& job) const { return goodput_[static_cast<size_t>(job.goodput)]; }
  void Sample();
  bool FullAuditDue();  // at this call (SimOptions::full_audit_every); advances the amortised schedule
  Status Audit() const;
  Status AuditLinks() const;  // part of Audit: NIC and uplink flows and lists
  Status AuditSharing() const;  // part of Audit: shared devices, partners, busy counts, idle holds' events
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
  LinkContention contention_;
  TrueRates truth_;
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
  // When each device that a hand-over left is free of its old worker (-inf: never left so;
  // allocated on the first hand-over); the latest of them.
  std::vector<double> released_at_s_;
  double last_release_s_ = -kInf;
  std::vector<JobId> deferred_epoch_ends_;  // DeferEpochEnd's, until the scheduler's call
  std::vector<bool> never_placeable_;  // jobs the scheduler said it can never place (NoteNeverPlaceable)
  std::vector<GoodputJob> goodput_;            // the goodput jobs' own state (RunState::goodput)
  // What each application has measured per type (its truth on that type: the key), shared by its
  // jobs under a policy that shares them (JobScheduler::shares_application_history); stable nodes.
  GoodputSteps::Histories histories_;
  double goodput_tick_s_ = kInf;               // the next GoodputTick, while adaptive jobs run
  double round_s_ = 0;                         // the scheduler's round period, read once per run
  size_t arrival_cursor_ = 0;                  // the next job of the trace to arrive (by index)
  std::vector<int> busy_by_type_;              // by catalog type id (idle held devices not counted)
  int busy_devices_ = 0;                       // their sum
  std::vector<uint8_t> device_users_;          // running jobs not held, by device (0-2)
  long long idle_jobs_ = 0;
  std::vector<DeviceTypeId> present_types_;
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
  RunRecord record_;
};

}  // namespace hetsched::sim_internal
