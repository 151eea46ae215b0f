// The simulator's preparation, event loop, sampling and audits (a job's runs are in
// run_segments.cc, its speed and re-timing in job_speed.cc; the shared state in simulator_impl.h).
#include "hetsched/sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>

#include "hetsched/sim/simulator_impl.h"
#include "hetsched/util/memory.h"

namespace hetsched {
namespace sim_internal {

Status Simulator::CheckFits(JobId id) {
  const JobSpec& spec = workload_.jobs[static_cast<size_t>(id)].spec;
  double best = kInf;
  int largest = 0;
  for (DeviceTypeId t : present_types_) {
    if (!spec.AllowsType(t, cluster_.device_catalog())) continue;
    largest = std::max(largest, cluster_.devices_per_type()[static_cast<size_t>(t)]);
    if (cluster_.devices_per_type()[static_cast<size_t>(t)] < spec.num_gpus) continue;
    best = std::min(best, ctx_.EstimateIterationS(id, spec.num_gpus, t));
  }
  RunState& run = runs_[static_cast<size_t>(id)];
  if (std::isfinite(best) && run.runtime_rate > 0) {
    // The truth is the trace's run time: the ideal is the fastest type's truth rate.
    double fastest = 0;
    for (DeviceTypeId t : present_types_) {
      if (!spec.AllowsType(t, cluster_.device_catalog()) ||
          cluster_.devices_per_type()[static_cast<size_t>(t)] < spec.num_gpus) {
        continue;
      }
      Result<double> rate = truth_.Runtime(spec, run, t, spec.num_gpus);
      if (rate.ok()) fastest = std::max(fastest, *rate);
    }
    if (fastest > 0) best = 1.0 / fastest;  // seconds per iteration; else the model's (fallback)
  }
  if (std::isfinite(best)) {
    record(run).ideal_runtime_s = best * run.total_iterations;
    return spec.is_container_job() ? CheckContainersFit(id) : Status::Ok();
  }
  const std::string who = "job " + std::to_string(id) + " ('" + spec.name + "', model " + spec.model +
                          ", submitted at " + std::to_string(spec.submit_time_s) + " s)";
  if (largest < spec.num_gpus) {
    // A goodput job runs only where its application's profiles were measured (docs/goodput.md).
    const std::string goodput = spec.application.empty()
                                    ? ""
                                    : " (a goodput job runs only on the device types its profiles were measured on, "
                                      "--profile-types; --compat pollux sets Pollux's cluster, 16 nodes of 4 t4)";
    return Status::Infeasible(who + " can never fit: it needs " + std::to_string(spec.num_gpus) +
                              " devices of one allowed type, the cluster has at most " + std::to_string(largest) +
                              goodput);
  }
  return Status::Infeasible(who + " can never fit: " + std::to_string(spec.num_gpus) +
                            " devices of every allowed type lack the memory for its model and batch");
}

Status Simulator::CheckContainersFit(JobId id) {
  const JobSpec& spec = workload_.jobs[static_cast<size_t>(id)].spec;
  const std::string who = "job " + std::to_string(id) + " ('" + spec.name + "', model " + spec.model + ")";
  Placer& placer = *methods_.placer;
  if (!placer.places_containers()) {
    return Status::InvalidArgument(who + " is a parameter-server container job, and placer '" +
                                   std::string(placer.name()) + "' does not place containers");
  }
  if (!empty_state_) empty_state_ = std::make_unique<ClusterState>(cluster_);
  std::vector<ContainerPlacement> trial;
  std::string reason;
  PlacementRequest request{&spec, spec.num_gpus, kNoDeviceType};
  for (DeviceTypeId t : CandidateTypes(request, *empty_state_)) {
    trial.clear();
    PlacementRequest typed{&spec, spec.num_gpus, t};
    if (placer.PlaceContainers(typed, *empty_state_, &trial, &reason)) return Status::Ok();
  }
  return Status::Infeasible(who + " can never fit: on the empty cluster, " + reason);
}

Status Simulator::Prepare() {
  const size_t n = workload_.jobs.size();
  // Job ids are kept in 32 bits where a job is listed per link (LinkEntry).
  if (n > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::InvalidArgument("workload: " + std::to_string(n) + " jobs; the simulator takes at most 2^31 - 1");
  }
  // The per-job arrays are read at random, one job at a time (docs/PERFORMANCE.md, session 18).
  ReserveHugePages(status_, n);
  ReserveHugePages(runs_, n);
  ReserveHugePages(record_.jobs, n);
  status_.resize(n);
  runs_.resize(n);
  contention_.Reset(n);
  rejected_.assign(n, false);
  never_placeable_.assign(n, false);
  busy_by_type_.assign(static_cast<size_t>(cluster_.device_catalog().size()), 0);
  device_users_.assign(static_cast<size_t>(cluster_.num_devices()), 0);
  present_types_ = cluster_.present_types();
  if (!workload_.runtime_device.empty()) {
    Result<DeviceTypeId> type = cluster_.device_catalog().Lookup(workload_.runtime_device);
    if (!type.ok()) return type.status().WithContext("workload: the reference device of its run times");
    truth_.set_runtime_type(*type);
  }
  for (size_t i = 0; i < n; ++i) HETSCHED_RETURN_IF_ERROR(PrepareJob(i));
  return Status::Ok();
}

Status Simulator::PrepareJob(size_t i) {
  const Job& job = workload_.jobs[i];
  if (job.spec.id != static_cast<JobId>(i)) {
    return Status::InvalidArgument("workload: job ids must be 0..n-1 in order; position " + std::to_string(i) +
                                   " holds id " + std::to_string(job.spec.id));
  }
  if (i > 0 && job.spec.submit_time_s < workload_.jobs[i - 1].spec.submit_time_s) {
    return Status::InvalidArgument("workload: jobs must be sorted by submit time (job " + std::to_string(i) + ")");
  }
  if (job.spec.num_gpus < 1) {
    return Status::InvalidArgument("job " + std::to_string(i) + ": num_gpus must be >= 1");
  }
  status_[i].spec = &job.spec;
  status_[i].queued_since_s = job.spec.submit_time_s;
  RunState& run = runs_[i];
  run.model = zoo_.Find(job.spec.model);
  run.total_iterations = std::max(job.truth.total_iterations, 1.0);
  if (run.model != nullptr) {
    const int batch = job.spec.batch_size > 0 ? job.spec.batch_size : run.model->default_batch_size;
    run.samples_per_iteration = static_cast<double>(job.spec.num_gpus) * std::max(batch, 1);
  }
  run.record = static_cast<int32_t>(record_.jobs.size());
  record_.jobs.emplace_back().TakeSpec(job.spec);
  if (options_.measured_throughputs != nullptr) {
    run.measured_type = options_.measured_throughputs->JobTypeIndex(job.truth.measured_job_type);
  }
  if (run.model == nullptr) {
    return Status::InvalidArgument("job " + std::to_string(i) + ": unknown model '" + job.spec.model + "'");
  }
  if (!job.spec.application.empty()) HETSCHED_RETURN_IF_ERROR(PrepareGoodputJob(i));
  if (job.truth.runtime_s > 0) {
    if (truth_.runtime_type() == kNoDeviceType) {
      return Status::InvalidArgument("job " + std::to_string(i) +
                                     " has a trace run time but the workload names no reference device");
    }
    run.runtime_rate = run.total_iterations / job.truth.runtime_s;
  }
  Status fits = CheckFits(static_cast<JobId>(i));
  if (fits.ok() && run.goodput >= 0) record(run).ideal_runtime_s = GoodputIdealS(i);
  if (!fits.ok()) {
    if (!options_.skip_unfit_jobs) return fits;
    rejected_[i] = true;
    record_.jobs.pop_back();
    run.record = -1;
    ++record_.jobs_rejected;
    if (record_.rejected_reasons.size() < 10) record_.rejected_reasons.push_back(fits.message());
  }
  return Status::Ok();
}

Status Simulator::PrepareGoodputJob(size_t i) {
  const JobSpec& spec = workload_.jobs[i].spec;
  const auto it = workload_.applications.find(spec.application);
  if (it == workload_.applications.end() || it->second.by_type.empty() ||
      std::any_of(it->second.by_type.begin(), it->second.by_type.end(), [](const auto& t) { return t.app == nullptr; })) {
    return Status::InvalidArgument("job " + std::to_string(i) + ": application '" + spec.application +
                                   "' has no profile in the workload (Workload::applications)");
  }
  RunState& run = runs_[i];
  GoodputJob g = GoodputSteps::New(spec, it->second, methods_.scheduler->adapts_batch_sizes(),
                                   methods_.scheduler->pools_goodput_models());
  if (methods_.scheduler->shares_application_history()) GoodputSteps::ShareApplicationHistory(g, histories_);
  // Its work: the progress (iterations at the initial batch size) at which its last epoch ends.
  run.total_iterations = g.app->ProgressAt(g.app->max_epochs());
  run.goodput = static_cast<int32_t>(goodput_.size());
  goodput_.push_back(std::move(g));
  return Status::Ok();
}

double Simulator::GoodputIdealS(size_t i) const {
  // Alone from its arrival: its requested GPUs on the fewest nodes of its allowed type that hold
  // them, its tuned batch, every epoch at its true goodput, after one re-allocation delay. 0 (no
  // ideal: left out of slowdowns and fairness) where its profile has no time for that placement.
  const JobSpec& spec = workload_.jobs[i].spec;
  const RunState& run = runs_[i];
  const GoodputJob& job = goodput_[static_cast<size_t>(run.goodput)];
  double best = 0;
  for (const GoodputTypeKnowledge& k : job.types) {
    int per_node = 0;
    DeviceTypeId type = kNoDeviceType;
    for (NodeId n = 0; n < cluster_.num_nodes(); ++n) {
      const DeviceTypeId t = cluster_.node(n).device_type;
      if ((k.type == kNoDeviceType || t == k.type) && spec.AllowsType(t, cluster_.device_catalog()) &&
          cluster_.node(n).num_devices > per_node) {
        per_node = cluster_.node(n).num_devices;
        type = t;
      }
    }
    if (per_node < 1) continue;
    std::vector<int> placement;
    for (int left = spec.num_gpus; left > 0; left -= per_node) placement.push_back(std::min(left, per_node));
    GoodputJob g = job;
    g.adaptive = false;
    if (!GoodputSteps::Place(g, std::move(placement), type).ok()) continue;
    double seconds = GoodputDelayS(g);
    bool timed = true;
    for (g.epoch = 0; timed && g.epoch < g.app->max_epochs(); ++g.epoch) {
      const Result<double> rate = GoodputSteps::TrueGoodput(g);
      timed = rate.ok() && *rate > 0;
      if (timed) seconds += (g.app->ProgressAt(g.epoch + 1) - g.app->ProgressAt(g.epoch)) / *rate;
    }
    if (timed && seconds > 0 && (best == 0 || seconds < best)) best = seconds;
  }
  return best;
}

void Simulator::Sample() {
  const int busy = busy_devices_;
  auto& tl = record_.timeline;
  auto& rows = record_.timeline_busy_by_type;  // one row of present_types_.size() per sample
  const size_t width = present_types_.size();
  auto same_by_type = [&](size_t sample) {
    for (size_t i = 0; i < width; ++i) {
      if (rows[sample * width + i] != busy_by_type_[static_cast<size_t>(present_types_[i])]) return false;
    }
    return true;
  };
  if (!tl.empty()) {
    const TimelineSample& last = tl.back();
    if (last.busy_devices == busy && last.running_jobs == running_ && last.pending_jobs == pending_ &&
        same_by_type(tl.size() - 1)) {
      return;  // nothing changed: the step function continues
    }
  }
  if (tl.empty() || tl.back().time_s != now_) {
    tl.emplace_back();
    rows.resize(rows.size() + width);
  }
  TimelineSample& s = tl.back();
  s.time_s = now_;
  s.busy_devices = busy;
  s.running_jobs = static_cast<int>(running_);
  s.pending_jobs = static_cast<int>(pending_);
  int* row = rows.data() + (tl.size() - 1) * width;
  for (size_t i = 0; i < width; ++i) row[i] = busy_by_type_[static_cast<size_t>(present_types_[i])];
}

Status Simulator::StalledHeldJobs(const JobScheduler& scheduler) const {
  JobId first = -1;
  for (size_t i = 0; i < status_.size() && first < 0; ++i) {
    if (status_[i].state == JobState::kRunning && status_[i].idle) first = static_cast<JobId>(i);
  }
  return Status::Internal("policy '" + std::string(scheduler.name()) + "' left job " + std::to_string(first) +
                          (idle_jobs_ > 1 ? " and " + std::to_string(idle_jobs_ - 1) + " other(s)" : std::string()) +
                          " held idle at a progress mark (RunUntil) at t=" + std::to_string(now_) +
                          " with nothing left to happen");
}

Status Simulator::Stalled(const JobScheduler& scheduler) const {
  // The first waiting job, one the scheduler said it can never place if there is one.
  JobId first = -1;
  bool never = false;
  for (size_t i = 0; i < status_.size() && !never; ++i) {
    const JobStatus& st = status_[i];
    if (!rejected_[i] && (st.state == JobState::kPending || (st.state == JobState::kRunning && st.idle))) {
      if (first < 0 || never_placeable_[i]) first = static_cast<JobId>(i);
      never = never_placeable_[i];
    }
  }
  const JobSpec& spec = *status_[static_cast<size_t>(first)].spec;
  const std::string& reason = status_[static_cast<size_t>(first)].pending_reason;  // the scheduler's, if any
  const long long waiting = pending_ + idle_jobs_;
  if (never) {  // the workload, not the policy: it cannot run this job on this cluster
    return Status::Infeasible("policy '" + std::string(scheduler.name()) + "' cannot run job " + std::to_string(first) +
                              " ('" + spec.name + "', " + std::to_string(spec.num_gpus) + " GPU(s), submitted at " +
                              std::to_string(spec.submit_time_s) + " s): " + reason + "; " +
                              std::to_string(waiting) + " job(s) were left waiting when nothing else could progress. "
                              "Remove such jobs from the workload, or run it on a cluster or under a policy that can "
                              "place them");
  }
  return Status::Internal("policy '" + std::string(scheduler.name()) + "' makes no progress: job " +
                          std::to_string(first) + " ('" + spec.name + "', " + std::to_string(spec.num_gpus) +
                          " GPU(s), submitted at " + std::to_string(spec.submit_time_s) + " s)" +
                          (waiting > 1 ? " and " + std::to_string(waiting - 1) + " other(s)" : std::string()) +
                          " waited through " + std::to_string(kStallCalls) + " scheduling calls from t=" +
                          std::to_string(stalled_since_s_) + " s to t=" + std::to_string(now_) +
                          " s with no job progressing and none left to arrive" +
                          (reason.empty() ? std::string() : "; for job " + std::to_string(first) + ": " + reason));
}

bool Simulator::FullAuditDue() {
  if (options_.full_audit_every > 0) return scheduler_calls_ % options_.full_audit_every == 0;
  if (options_.full_audit_every != SimOptions::kAuditAmortised) return false;
  if (scheduler_calls_ < next_audit_call_) return false;
  next_audit_call_ = scheduler_calls_ + std::max(kMinAuditPeriod, static_cast<long long>(arrival_cursor_));
  return true;
}

Status Simulator::Audit() const {
  HETSCHED_RETURN_IF_ERROR(state_.CheckConsistency());
  long long pending = 0, running = 0, finished = 0, dropped = 0, busy = 0;
  // The jobs that have arrived are those before the arrival cursor (the workload is in submission
  // order), so their specs are not read: at a million jobs that halves the audit's memory traffic.
  for (size_t i = 0; i < arrival_cursor_; ++i) {
    if (rejected_[i]) continue;
    switch (status_[i].state) {
      case JobState::kPending: ++pending; break;
      case JobState::kRunning:
        ++running;
        // A guest (space sharing) holds devices its host holds: counted once, with the owner.
        if (status_[i].sharing_with < 0 || state_.owner(status_[i].devices.front()) == static_cast<JobId>(i)) {
          busy += status_[i].num_devices();
        }
        break;
      case JobState::kFinished: ++finished; break;
      case JobState::kDropped: ++dropped; break;
    }
  }
  if (pending != pending_ || running != running_ || finished != finished_ || dropped != dropped_ ||
      busy != cluster_.num_devices() - state_.total_free()) {
    return Status::Internal("invariant: job accounting disagrees at t=" + std::to_string(now_));
  }
  HETSCHED_RETURN_IF_ERROR(AuditSharing());
  return AuditLinks();
}

Status Simulator::AuditLinks() const {
  // Every running job that is not held is counted once on each of its NICs and uplinks, and
  // listed on each under its current key; nothing else is (LinkContention::Audit). Its kept
  // estimate is what the current load gives (a job that was not re-timed was left alone rightly).
  const auto broken = [&](const std::string& what) {
    return Status::Internal("invariant: link bookkeeping (" + what + ") disagrees at t=" + std::to_string(now_));
  };
  // The running jobs through their run slots (not the million-entry job table): each occupied
  // slot's job runs and names that slot, and there are as many occupied slots as running jobs
  // (Audit counts those from the jobs' states).
  long long occupied = 0;
  for (size_t slot = 0; slot < active_.size(); ++slot) {
    const ActiveRun& run = active_[slot];
    if (run.job < 0) continue;
    ++occupied;
    const size_t i = static_cast<size_t>(run.job);
    const RunState& job = runs_[i];
    if (job.active != static_cast<int32_t>(slot) || status_[i].state != JobState::kRunning) {
      return broken("run slot " + std::to_string(slot));
    }
    if (run.idle || !options_.contention || run.nics.empty()) continue;
    const IterationEstimate fresh =
        EstimateUnderLoad(run.prepared, *job.model, run.plan, cluster_, contention_.Load());
    if (fresh.iteration_s != run.estimate.iteration_s) return broken("job " + std::to_string(i) + "'s speed");
  }
  if (occupied != running_) return broken("run slots in use");
  return contention_.Audit(active_, broken);
}

// One step of the engine: the next time anything happens (a completion, an arrival, a timer).
// False when the run is over: nothing left, or past max_time_s (then the clock stops there).
Result<bool> Simulator::AdvanceClock() {
  const size_t n = workload_.jobs.size();
  size_t& cursor = arrival_cursor_;
  while (cursor < n && rejected_[cursor]) ++cursor;
  const double next_arrival = cursor < n ? workload_.jobs[cursor].spec.submit_time_s : kInf;
  const double t = std::min({next_arrival, events_.NextTime(), goodput_tick_s_});
  if (!std::isfinite(t)) {
    if (idle_jobs_ > 0) return StalledHeldJobs(*methods_.scheduler);
    return false;
  }
  if (t > options_.max_time_s) {
    now_ = options_.max_time_s;  // the run is cut here: running jobs are accounted up to it
    return false;
  }
  if (t < now_) return Status::Internal("invariant: time went backwards");
  now_ = t;
  return true;
}

// Completions at now_ (they free devices before anyone asks for them), in job-id order. A job
// reaching its RunUntil mark, or its total before its HoldFinishUntil time, is held instead; that
// alone does not call the scheduler.
Status Simulator::CompleteDue(bool* decide) {
  for (JobId done = events_.CompletionAt(now_); done >= 0; done = events_.CompletionAt(now_)) {
    ++events_processed_;
    const RunState& run = runs_[static_cast<size_t>(done)];
    if (run.goodput >= 0 && active(run).mark >= GoodputBoundary(run)) {
      if (DeferEpochEnd(done)) continue;
      HETSCHED_RETURN_IF_ERROR(GoodputEpochEnds(done, decide));
    } else if (active(run).mark < run.total_iterations) {
      HETSCHED_RETURN_IF_ERROR(Hold(done));
    } else if (!active(run).idle && active(run).finish_hold_s > now_) {
      HETSCHED_RETURN_IF_ERROR(HoldToFinish(done));  // finishes at its hold's time, held idle till then
    } else {
      *decide = true;
      HETSCHED_RETURN_IF_ERROR(Complete(done));
    }
  }
  return Status::Ok();
}

// Pollux's and Sia's simulators step every job a round at a time and see an epoch end within a
// step only when its exact time falls within it, though they then round that time to the second
// (Pollux simulator.py:132-150, Sia job.py:489-512). So an epoch whose exact end lies less than
// half a second after a step's end, but rounds to it, ends in the next step, after the policy's
// call: when the job runs on, at that same second; when the policy moves or stops it, the rest of
// the epoch is carried to where it goes. With SimOptions::goodput_round_epochs (their compat
// profiles) the steps are the scheduler's rounds.
bool Simulator::DeferEpochEnd(JobId id) {
  if (!options_.goodput_round_epochs || !(round_s_ > 0) || std::fmod(now_, round_s_) != 0) return false;
  RunState& run = runs_[static_cast<size_t>(id)];
  ActiveRun& a = active(run);
  if (a.epoch_deferred_at_s == now_) return false;  // its turn, after the scheduler's call
  const double boundary = GoodputBoundary(run);
  if (!(ProgressAt(run, now_) < boundary - 1e-9 * std::max(1.0, boundary))) return false;
  a.epoch_deferred_at_s = now_;
  events_.SetCompletion(id, EventQueue::kNever);  // set again by ResumeDeferredEpochEnds
  a.completion_s = EventQueue::kNever;
  deferred_epoch_ends_.push_back(id);
  return true;
}

// Epoch ends DeferEpochEnd put off, once the scheduler has been called: each job still in the run
// it was in ends its epoch now (its event is set again at now_).
void Simulator::ResumeDeferredEpochEnds() {
  for (JobId id : deferred_epoch_ends_) {
    const RunState& run = runs_[static_cast<size_t>(id)];
    if (run.active < 0 || active(run).epoch_deferred_at_s != now_) continue;  // stopped or moved meanwhile
    Reschedule(id);
  }
  deferred_epoch_ends_.clear();
}

// Arrivals at now_, told to the scheduler in trace order.
Status Simulator::ArriveDue(bool* decide) {
  const size_t n = workload_.jobs.size();
  size_t& cursor = arrival_cursor_;
  while (cursor < n && workload_.jobs[cursor].spec.submit_time_s == now_) {
    *decide = true;
    if (!rejected_[cursor]) {
      ++arrived_;
      ++pending_;
      ++events_processed_;
      methods_.scheduler->OnJobSubmitted(status_[cursor], ctx_);
      HETSCHED_RETURN_IF_ERROR(ctx_.TakeError());
    }
    ++cursor;
  }
  return Status::Ok();
}

// One Schedule() call. Its starts and stops re-time the jobs they slow or speed up once, at its
// end; a start or preemption the back end refused as a fault ends the run (exit 3 for a bug).
Status Simulator::CallScheduler() {
  JobScheduler& scheduler = *methods_.scheduler;
  contention_.Defer();
  if (options_.decision_timing) {
    const long long pending_before = pending_;
    const auto t0 = std::chrono::steady_clock::now();
    scheduler.Schedule(ctx_);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    options_.decision_timing(dt, pending_before);
  } else {
    scheduler.Schedule(ctx_);
  }
  contention_.Flush([this](JobId id) { return RetimeSlot(id); },
                    [this](JobId id, bool stands) { Retime(id, stands); });
  HETSCHED_RETURN_IF_ERROR(ctx_.TakeError());
  ++scheduler_calls_;
  return Status::Ok();
}

// After a scheduling call: the stall check, the next round, the timeline sample, the link meter,
// the invariants.
Status Simulator::AfterStep() {
  const JobScheduler& scheduler = *methods_.scheduler;
  const bool arrivals_done = arrival_cursor_ >= workload_.jobs.size();
  // A run in which nothing can change any more but the scheduler's clock (no job progressing,
  // none left to arrive, some waiting) is a scheduler that will never place them: stop it
  // rather than tick to max_time.
  if (arrivals_done && running_ == idle_jobs_ && pending_ + idle_jobs_ > 0) {
    if (stalled_calls_++ == 0) stalled_since_s_ = now_;
    if (stalled_calls_ >= kStallCalls) return Stalled(scheduler);
  } else {
    stalled_calls_ = 0;
  }
  if (round_s_ > 0 && !events_.round_armed() && (pending_ > 0 || running_ > 0 || !arrivals_done)) {
    events_.SetRound(now_ + round_s_);
  }
  Sample();
  AdviseHeapGrowth();
  traffic_.Settle();
  if (options_.check_invariants) {
    if (state_.total_free() < 0 || pending_ < 0 || running_ < 0) {
      return Status::Internal("invariant: negative counter at t=" + std::to_string(now_));
    }
    if (FullAuditDue()) HETSCHED_RETURN_IF_ERROR(Audit());
  }
  if (pending_ > 0 && running_ == 0 && events_.empty() && arrivals_done) {
    return Status::Internal("policy '" + std::string(scheduler.name()) + "' left " + std::to_string(pending_) +
                            " job(s) pending on an idle cluster with nothing left to happen");
  }
  return Status::Ok();
}

Result<RunRecord> Simulator::Run() {
  const double wall_start_s = WallS();
  HETSCHED_RETURN_IF_ERROR(Prepare());
  round_s_ = methods_.scheduler->round_period_s();
  arrival_cursor_ = 0;
  while (true) {
    HETSCHED_ASSIGN_OR_RETURN(const bool more, AdvanceClock());
    if (!more) break;
    bool decide = false;
    HETSCHED_RETURN_IF_ERROR(CompleteDue(&decide));
    HETSCHED_RETURN_IF_ERROR(ArriveDue(&decide));
    if (now_ == goodput_tick_s_) HETSCHED_RETURN_IF_ERROR(GoodputTick());
    const int timers = events_.PopTimersAt(now_);  // round ticks and wake-ups
    events_processed_ += timers;
    if (!decide && timers == 0) {  // only holds: nothing for the scheduler to decide
      ResumeDeferredEpochEnds();
      Sample();
      traffic_.Settle();
      continue;
    }
    HETSCHED_RETURN_IF_ERROR(CallScheduler());
    ResumeDeferredEpochEnds();
    HETSCHED_RETURN_IF_ERROR(AfterStep());
  }
  if (options_.check_invariants) HETSCHED_RETURN_IF_ERROR(Audit());
  HETSCHED_RETURN_IF_ERROR(CloseRecord());
  record_.wall_seconds = WallS() - wall_start_s;
  return std::move(record_);
}

// The run record's header and each job's last figures, once the run is over; jobs cut off by
// max_time_s are stopped and accounted up to it.
Status Simulator::CloseRecord() {
  record_.policy = std::string(methods_.scheduler->name());
  record_.placer = std::string(methods_.placer->name());
  record_.planner = std::string(methods_.planner->name());
  record_.trace = workload_.source;
  record_.cluster_summary = cluster_.Summary();
  record_.truth_table_used = options_.measured_throughputs != nullptr;
  record_.seed = options_.seed;
  record_.total_devices = cluster_.num_devices();
  record_.idle_power_watts = 0;
  for (const Device& d : cluster_.devices()) record_.idle_power_watts += cluster_.device_catalog().type(d.type).idle_watts;
  for (DeviceTypeId t : present_types_) {
    record_.device_types.push_back(cluster_.device_catalog().type(t).name);
    record_.devices_per_type.push_back(cluster_.devices_per_type()[static_cast<size_t>(t)]);
  }
  for (size_t i = 0; i < workload_.jobs.size(); ++i) {
    if (rejected_[i]) continue;
    RunState& run = runs_[i];
    if (status_[i].state == JobState::kRunning) {  // cut off by max_time: account what it used
      HETSCHED_RETURN_IF_ERROR(StopRun(static_cast<JobId>(i)));
      status_[i].state = JobState::kPending;
    }
    record(run).first_start_s = status_[i].first_start_s;
    // The same precedence as the speed itself (TrueIterationS): measured table, trace run time, model.
    ++(run.goodput >= 0         ? record_.jobs_truth_goodput
       : run.measured_type >= 0 ? (run.measured_fallback ? record_.jobs_truth_mixed : record_.jobs_truth_measured)
       : run.runtime_rate > 0   ? record_.jobs_truth_runtime
                                : record_.jobs_truth_model);
  }
  traffic_.Report(&record_.link_peaks);
  record_.events = events_processed_;
  record_.scheduler_calls = scheduler_calls_;
  return Status::Ok();
}

double Simulator::WallS() const {
  if (options_.wall_clock) return options_.wall_clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace sim_internal

Result<RunRecord> Simulate(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                           Methods methods, const SimOptions& options) {
  if (!methods.scheduler || !methods.placer || !methods.planner) {
    return Status::InvalidArgument("simulate: a job scheduler, a placer and a planner are all required");
  }
  HETSCHED_RETURN_IF_ERROR(cluster.Validate());
  sim_internal::Simulator sim(cluster, zoo, workload, std::move(methods), options);
  return sim.Run();
}

}  // namespace hetsched
