// The simulator's preparation, event loop, sampling and audits (a job's runs are in
// run_segments.cc; the shared state in simulator_impl.h).
#include "hetsched/sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>

#include "hetsched/sim/simulator_impl.h"

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
      Result<double> rate = RuntimeTruthRate(id, run, t, spec.num_gpus);
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
    return Status::Infeasible(who + " can never fit: it needs " + std::to_string(spec.num_gpus) +
                              " devices of one allowed type, the cluster has at most " + std::to_string(largest));
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
  status_.resize(n);
  runs_.resize(n);
  retime_mark_.assign(n, kRetimeNone);
  record_.jobs.reserve(n);
  rejected_.assign(n, false);
  nic_flows_.assign(static_cast<size_t>(cluster_.num_nodes()), 0);
  nic_jobs_.assign(static_cast<size_t>(cluster_.num_nodes()), {});
  uplink_flows_.assign(cluster_.racks().size(), 0);
  uplink_jobs_.assign(cluster_.racks().size(), {});
  link_capacities_ = LinkCapacities::Of(cluster_);
  busy_by_type_.assign(static_cast<size_t>(cluster_.device_catalog().size()), 0);
  present_types_ = cluster_.present_types();
  if (!workload_.runtime_device.empty()) {
    Result<DeviceTypeId> type = cluster_.device_catalog().Lookup(workload_.runtime_device);
    if (!type.ok()) return type.status().WithContext("workload: the reference device of its run times");
    runtime_type_ = *type;
  }
  for (size_t i = 0; i < n; ++i) {
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
    JobRecord& rec = record_.jobs.emplace_back();
    rec.id = job.spec.id;
    rec.name = job.spec.name;
    rec.user = job.spec.user;
    rec.model = job.spec.model;
    rec.num_gpus = job.spec.num_gpus;
    rec.priority = job.spec.priority;
    rec.submit_s = job.spec.submit_time_s;
    rec.deadline_s = job.spec.deadline_s;
    if (options_.measured_throughputs != nullptr) {
      run.measured_type = options_.measured_throughputs->JobTypeIndex(job.truth.measured_job_type);
    }
    if (run.model == nullptr) {
      return Status::InvalidArgument("job " + std::to_string(i) + ": unknown model '" + job.spec.model + "'");
    }
    if (job.truth.runtime_s > 0) {
      if (runtime_type_ == kNoDeviceType) {
        return Status::InvalidArgument("job " + std::to_string(i) +
                                       " has a trace run time but the workload names no reference device");
      }
      run.runtime_rate = run.total_iterations / job.truth.runtime_s;
    }
    Status fits = CheckFits(static_cast<JobId>(i));
    if (!fits.ok()) {
      if (!options_.skip_unfit_jobs) return fits;
      rejected_[i] = true;
      record_.jobs.pop_back();
      run.record = -1;
      ++record_.jobs_rejected;
      if (record_.rejected_reasons.size() < 10) record_.rejected_reasons.push_back(fits.message());
    }
  }
  return Status::Ok();
}

void Simulator::RegisterTraffic(JobId id, int delta, std::vector<JobId>* affected) {
  const ActiveRun& run = active(runs_[static_cast<size_t>(id)]);
  for (NodeId node : run.nics) {
    nic_flows_[static_cast<size_t>(node)] += delta;
    std::vector<JobId>& jobs = nic_jobs_[static_cast<size_t>(node)];
    if (delta > 0) {
      jobs.push_back(id);
    } else {
      jobs.erase(std::find(jobs.begin(), jobs.end(), id));
    }
    for (JobId other : jobs) {
      if (other != id) affected->push_back(other);
    }
  }
  for (RackId r : run.uplinks) {
    const size_t rack = static_cast<size_t>(r);
    uplink_flows_[rack] += delta;
    // A rack without a declared uplink has full bisection: no one's speed depends on its flows.
    const double capacity = link_capacities_.uplink_Bps[rack];
    if (capacity < 0) continue;
    std::set<std::pair<double, JobId>>& jobs = uplink_jobs_[rack];
    if (delta > 0) {
      jobs.emplace(UplinkKey(run), id);
    } else {
      jobs.erase({UplinkKey(run), id});
    }
    if (!options_.contention) continue;  // the load is not modelled: no speed changes
    // A job whose slowest link is slower than the uplink's share before and after (another link)
    // keeps its speed.
    const double share = ShareAtBusier(capacity, uplink_flows_[rack], delta);
    for (auto it = jobs.rbegin(); it != jobs.rend() && !(it->first < share); ++it) {
      if (it->second != id) affected->push_back(it->second);
    }
  }
}

double Simulator::MeasuredRate(JobId id, RunState& job) {
  const ActiveRun& run = active(job);
  const int count = static_cast<int>(run.plan.devices.size());
  const DeviceTypeId type = cluster_.device(run.plan.devices.front()).type;
  const JobSpec& spec = workload_.jobs[static_cast<size_t>(id)].spec;
  const double steps_per_s = count == spec.num_gpus
                                 ? options_.measured_throughputs->StepsPerSecond(
                                       job.measured_type, type, count,
                                       options_.measured_always_consolidated || run.estimate.span_nodes <= 1)
                                 : 0.0;
  if (steps_per_s <= 0) {
    job.measured_fallback = true;
    return run.rate;
  }
  return steps_per_s * ContentionSlowdown(job);
}

double Simulator::ContentionSlowdown(const RunState& job) const {
  const ActiveRun& run = active(job);
  if (!options_.contention || run.nics.empty() || run.estimate.iteration_s <= 0) return 1.0;
  const IterationEstimate alone = EstimateUnderLoad(run.prepared, *job.model, run.plan, cluster_, LinkLoad{});
  return std::min(1.0, alone.iteration_s / run.estimate.iteration_s);
}

Result<double> Simulator::PackedIterationS(DeviceTypeId type, const ModelProfile& model, int batch, int count) {
  auto it = calibrators_.find(type);
  if (it == calibrators_.end()) {
    HETSCHED_ASSIGN_OR_RETURN(RuntimeCalibrator made,
                              RuntimeCalibrator::Create(cluster_.device_catalog(), cluster_.link_catalog(),
                                                        cluster_.device_catalog().type(type).name));
    it = calibrators_.emplace(type, std::move(made)).first;
  }
  return it->second.IterationSeconds(model, batch, count);
}

Result<double> Simulator::RuntimeTruthRate(JobId id, const RunState& run, DeviceTypeId type, int count) {
  const JobSpec& spec = workload_.jobs[static_cast<size_t>(id)].spec;
  if (type == runtime_type_ && count == spec.num_gpus) return run.runtime_rate;  // the trace's own figure
  // Iterations are of spec.num_gpus x batch samples: compare sample throughputs.
  HETSCHED_ASSIGN_OR_RETURN(const double on_s, PackedIterationS(type, *run.model, spec.batch_size, count));
  HETSCHED_ASSIGN_OR_RETURN(const double ref_s, PackedIterationS(runtime_type_, *run.model, spec.batch_size,
                                                                 spec.num_gpus));
  return run.runtime_rate * (static_cast<double>(count) / on_s) / (static_cast<double>(spec.num_gpus) / ref_s);
}

bool Simulator::EstimateSurvives(JobId id, const ActiveRun& changed, int delta) const {
  const ActiveRun& run = active(runs_[static_cast<size_t>(id)]);
  const double path_Bps = run.estimate.ring_path_Bps;
  if (!options_.contention || !(path_Bps > 0)) return false;
  // The estimate stands if the job's slowest per-flow bandwidth is below the share before and
  // after on every changed link the job crosses (then its slowest link is elsewhere and keeps
  // its figure).
  const auto below = [&](double capacity, int flows) {
    return capacity >= 0 && path_Bps < ShareAtBusier(capacity, flows, delta);
  };
  // Both lists are sorted: walk them together.
  for (auto a = run.nics.begin(), b = changed.nics.begin(); a != run.nics.end() && b != changed.nics.end();) {
    if (*a < *b) {
      ++a;
    } else if (*b < *a) {
      ++b;
    } else {
      const size_t node = static_cast<size_t>(*a);
      if (!below(link_capacities_.nic_Bps[node], nic_flows_[node])) return false;
      ++a;
      ++b;
    }
  }
  for (RackId r : changed.uplinks) {
    const size_t rack = static_cast<size_t>(r);
    if (link_capacities_.uplink_Bps[rack] < 0) continue;  // full bisection: no share
    if (std::binary_search(run.uplinks.begin(), run.uplinks.end(), r) &&
        !below(link_capacities_.uplink_Bps[rack], uplink_flows_[rack])) {
      return false;
    }
  }
  return true;
}

void Simulator::Retime(JobId id, bool estimate_current) {
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  Advance(job);
  // Only the communication depends on the load: the rest was computed at the start.
  const double old_key = UplinkKey(run);
  if (!estimate_current) run.estimate = EstimateUnderLoad(run.prepared, *job.model, run.plan, cluster_, CurrentLoad());
  if (const double key = UplinkKey(run); key != old_key) {
    for (RackId r : run.uplinks) {
      std::set<std::pair<double, JobId>>& jobs = uplink_jobs_[static_cast<size_t>(r)];
      if (jobs.erase({old_key, id}) > 0) jobs.emplace(key, id);
    }
  }
  // Progress is counted in iterations of the job as submitted (num_gpus x batch samples), so a
  // job that a scheduler runs on more or fewer devices than it asked for (elastic scheduling)
  // progresses at its sample throughput over that.
  run.rate = run.estimate.samples_per_s > 0 && job.samples_per_iteration > 0
                 ? run.estimate.samples_per_s / job.samples_per_iteration
                 : 0.0;
  if (job.measured_type >= 0) {
    run.rate = MeasuredRate(id, job);
  } else if (job.runtime_rate > 0 && !run.plan.devices.empty()) {
    const Result<double> truth = RuntimeTruthRate(id, job, cluster_.device(run.plan.devices.front()).type,
                                                  static_cast<int>(run.plan.devices.size()));
    // Where the model cannot run the job (no estimate), its own rate stays the truth.
    if (truth.ok()) run.rate = *truth * ContentionSlowdown(job);
  }
  if (!run.nics.empty()) traffic_.Set(job.active, run.traffic, run.estimate.iteration_s);
  status_[static_cast<size_t>(id)].iteration_rate = run.idle ? 0.0 : run.rate;
  Reschedule(id);
}

void Simulator::Reschedule(JobId id) {
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  double finish = EventQueue::kNever;
  if (run.rate > 0 && !run.idle) {
    const double from = std::max(now_, run.progress_from_s);
    finish = from + (std::min(job.total_iterations, run.mark) - job.done_at_update) / run.rate;
  }
  if (finish != run.completion_s) {  // often the same: a neighbour's change left this job's speed alone
    events_.SetCompletion(id, finish);
    run.completion_s = finish;
  }
}

void Simulator::ChangeTraffic(JobId id, int delta) {
  std::vector<JobId>& affected = scratch_affected_;
  affected.clear();
  RegisterTraffic(id, delta, &affected);
  if (delta > 0) Retime(id);
  std::sort(affected.begin(), affected.end());
  affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
  const ActiveRun& changed = active(runs_[static_cast<size_t>(id)]);
  if (defer_retimes_) {
    for (JobId other : affected) DeferRetime(other, changed, delta);
  } else {
    for (JobId other : affected) Retime(other, EstimateSurvives(other, changed, delta));
  }
  if (const RunState& job = runs_[static_cast<size_t>(id)]; delta < 0 && !active(job).nics.empty()) {
    traffic_.Remove(job.active);
  }
}

void Simulator::DeferRetime(JobId id, const ActiveRun& changed, int delta) {
  uint8_t& mark = retime_mark_[static_cast<size_t>(id)];
  if (mark == kRetimeEstimate) return;  // recomputed at the flush whatever else changes
  if (mark == kRetimeNone) retime_queue_.push_back(id);
  // Until then its estimate is the one of the load before this change (none of the earlier
  // changes altered it), so the test is the one an immediate re-time would make.
  mark = EstimateSurvives(id, changed, delta) ? kRetimeKeepEstimate : kRetimeEstimate;
}

void Simulator::FlushRetime(JobId id) {
  uint8_t& mark = retime_mark_[static_cast<size_t>(id)];
  const bool keep_estimate = mark == kRetimeKeepEstimate;
  mark = kRetimeNone;
  const RunState& job = runs_[static_cast<size_t>(id)];
  if (job.active >= 0 && !active(job).idle) Retime(id, keep_estimate);
}

void Simulator::FlushRetimes() {
  for (JobId id : retime_queue_) {
    if (retime_mark_[static_cast<size_t>(id)] != kRetimeNone) FlushRetime(id);
  }
  retime_queue_.clear();
}

void Simulator::Sample() {
  const int busy = cluster_.num_devices() - state_.total_free() - idle_devices_;
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
  JobId first = -1;
  for (size_t i = 0; i < status_.size() && first < 0; ++i) {
    const JobStatus& st = status_[i];
    if (!rejected_[i] && (st.state == JobState::kPending || (st.state == JobState::kRunning && st.idle))) {
      first = static_cast<JobId>(i);
    }
  }
  const JobSpec& spec = *status_[static_cast<size_t>(first)].spec;
  const std::string& reason = status_[static_cast<size_t>(first)].pending_reason;  // the scheduler's, if any
  const long long waiting = pending_ + idle_jobs_;
  return Status::Internal("policy '" + std::string(scheduler.name()) + "' makes no progress: job " +
                          std::to_string(first) + " ('" + spec.name + "', " + std::to_string(spec.num_gpus) +
                          " GPU(s), submitted at " + std::to_string(spec.submit_time_s) + " s)" +
                          (waiting > 1 ? " and " + std::to_string(waiting - 1) + " other(s)" : std::string()) +
                          " waited through " + std::to_string(kStallCalls) + " scheduling calls from t=" +
                          std::to_string(stalled_since_s_) + " s to t=" + std::to_string(now_) +
                          " s with no job progressing and none left to arrive" +
                          (reason.empty() ? std::string() : "; for job " + std::to_string(first) + ": " + reason));
}

Status Simulator::Audit() const {
  HETSCHED_RETURN_IF_ERROR(state_.CheckConsistency());
  long long pending = 0, running = 0, finished = 0, busy = 0;
  for (size_t i = 0; i < status_.size(); ++i) {
    if (rejected_[i] || status_[i].spec->submit_time_s > now_) continue;
    switch (status_[i].state) {
      case JobState::kPending: ++pending; break;
      case JobState::kRunning: ++running; busy += status_[i].num_devices(); break;
      case JobState::kFinished: ++finished; break;
    }
  }
  if (pending != pending_ || running != running_ || finished != finished_ ||
      busy != cluster_.num_devices() - state_.total_free()) {
    return Status::Internal("invariant: job accounting disagrees at t=" + std::to_string(now_));
  }
  return AuditLinks();
}

Status Simulator::AuditLinks() const {
  // Every running job that is not held is counted once on each of its NICs and uplinks, and
  // listed on each uplink under its current key; nothing else is. Its kept estimate is what the
  // current load gives (a job that was not re-timed was left alone rightly).
  std::vector<int> nic_flows(nic_flows_.size(), 0), uplink_flows(uplink_flows_.size(), 0);
  std::vector<size_t> uplink_listed(uplink_jobs_.size(), 0);
  const auto broken = [&](const std::string& what) {
    return Status::Internal("invariant: link bookkeeping (" + what + ") disagrees at t=" + std::to_string(now_));
  };
  for (size_t i = 0; i < runs_.size(); ++i) {
    const RunState& job = runs_[i];
    if (job.active < 0 || active(job).idle) continue;
    const ActiveRun& run = active(job);
    if (options_.contention && !run.nics.empty()) {
      const IterationEstimate fresh = EstimateUnderLoad(run.prepared, *job.model, run.plan, cluster_, CurrentLoad());
      if (fresh.iteration_s != run.estimate.iteration_s) return broken("job " + std::to_string(i) + "'s speed");
    }
    for (NodeId node : run.nics) ++nic_flows[static_cast<size_t>(node)];
    for (RackId r : run.uplinks) {
      const size_t rack = static_cast<size_t>(r);
      ++uplink_flows[rack];
      if (link_capacities_.uplink_Bps[rack] < 0) continue;
      ++uplink_listed[rack];
      if (!uplink_jobs_[rack].contains({UplinkKey(run), static_cast<JobId>(i)})) return broken("uplink list");
    }
  }
  if (nic_flows != nic_flows_ || uplink_flows != uplink_flows_) return broken("flow counts");
  for (size_t r = 0; r < uplink_jobs_.size(); ++r) {
    if (uplink_jobs_[r].size() != uplink_listed[r]) return broken("uplink list size");
  }
  return Status::Ok();
}

Result<RunRecord> Simulator::Run() {
  const auto wall_start = std::chrono::steady_clock::now();
  HETSCHED_RETURN_IF_ERROR(Prepare());
  JobScheduler& scheduler = *methods_.scheduler;
  const double round = scheduler.round_period_s();
  size_t cursor = 0;
  const size_t n = workload_.jobs.size();
  while (true) {
    while (cursor < n && rejected_[cursor]) ++cursor;
    const double next_arrival = cursor < n ? workload_.jobs[cursor].spec.submit_time_s : kInf;
    const double t = std::min(next_arrival, events_.NextTime());
    if (!std::isfinite(t)) {
      if (idle_jobs_ > 0) return StalledHeldJobs(scheduler);
      break;
    }
    if (t > options_.max_time_s) {
      now_ = options_.max_time_s;  // the run is cut here: running jobs are accounted up to it
      break;
    }
    if (t < now_) return Status::Internal("invariant: time went backwards");
    now_ = t;
    // 1. Completions at t (they free devices before anyone asks for them), in job-id order. A
    //    job reaching its RunUntil mark is held instead; that alone does not call the scheduler.
    bool decide = false;
    for (JobId done = events_.CompletionAt(now_); done >= 0; done = events_.CompletionAt(now_)) {
      ++events_processed_;
      const RunState& run = runs_[static_cast<size_t>(done)];
      if (active(run).mark < run.total_iterations) {
        HETSCHED_RETURN_IF_ERROR(Hold(done));
      } else {
        decide = true;
        HETSCHED_RETURN_IF_ERROR(Complete(done));
      }
    }
    // 2. Arrivals at t.
    while (cursor < n && workload_.jobs[cursor].spec.submit_time_s == now_) {
      decide = true;
      if (!rejected_[cursor]) {
        ++arrived_;
        ++pending_;
        ++events_processed_;
        scheduler.OnJobSubmitted(status_[cursor], ctx_);
        HETSCHED_RETURN_IF_ERROR(ctx_.TakeError());
      }
      ++cursor;
    }
    // 3. Round ticks and wake-ups due at t.
    const int timers = events_.PopTimersAt(now_);
    events_processed_ += timers;
    if (!decide && timers == 0) {  // only holds: nothing for the scheduler to decide
      Sample();
      traffic_.Settle();
      continue;
    }
    // The call's starts and stops re-time the jobs they slow or speed up once, at its end.
    defer_retimes_ = true;
    if (options_.decision_timing) {
      const long long pending_before = pending_;
      const auto t0 = std::chrono::steady_clock::now();
      scheduler.Schedule(ctx_);
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      options_.decision_timing(dt, pending_before);
    } else {
      scheduler.Schedule(ctx_);
    }
    defer_retimes_ = false;
    FlushRetimes();
    // A start or preemption the back end refused as a fault ends the run (exit 3 for a bug).
    HETSCHED_RETURN_IF_ERROR(ctx_.TakeError());
    ++scheduler_calls_;
    // A run in which nothing can change any more but the scheduler's clock (no job progressing,
    // none left to arrive, some waiting) is a scheduler that will never place them: stop it
    // rather than tick to max_time.
    if (cursor >= n && running_ == idle_jobs_ && pending_ + idle_jobs_ > 0) {
      if (stalled_calls_++ == 0) stalled_since_s_ = now_;
      if (stalled_calls_ >= kStallCalls) return Stalled(scheduler);
    } else {
      stalled_calls_ = 0;
    }
    if (round > 0 && !events_.round_armed() && (pending_ > 0 || running_ > 0 || cursor < n)) {
      events_.SetRound(now_ + round);
    }
    Sample();
    traffic_.Settle();
    if (options_.check_invariants) {
      if (state_.total_free() < 0 || pending_ < 0 || running_ < 0) {
        return Status::Internal("invariant: negative counter at t=" + std::to_string(now_));
      }
      if (options_.full_audit_every > 0 && scheduler_calls_ % options_.full_audit_every == 0) {
        HETSCHED_RETURN_IF_ERROR(Audit());
      }
    }
    if (pending_ > 0 && running_ == 0 && events_.empty() && cursor >= n) {
      return Status::Internal("policy '" + std::string(scheduler.name()) + "' left " + std::to_string(pending_) +
                              " job(s) pending on an idle cluster with nothing left to happen");
    }
  }
  if (options_.check_invariants) HETSCHED_RETURN_IF_ERROR(Audit());

  record_.policy = std::string(scheduler.name());
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
  for (size_t i = 0; i < n; ++i) {
    if (rejected_[i]) continue;
    RunState& run = runs_[i];
    if (status_[i].state == JobState::kRunning) {  // cut off by max_time: account what it used
      HETSCHED_RETURN_IF_ERROR(StopRun(static_cast<JobId>(i)));
      status_[i].state = JobState::kPending;
    }
    record(run).first_start_s = status_[i].first_start_s;
    // The same precedence as the speed itself (TrueIterationS): measured table, trace run time, model.
    ++(run.measured_type >= 0 ? (run.measured_fallback ? record_.jobs_truth_mixed : record_.jobs_truth_measured)
       : run.runtime_rate > 0 ? record_.jobs_truth_runtime
                              : record_.jobs_truth_model);
  }
  traffic_.Report(&record_.link_peaks);
  record_.events = events_processed_;
  record_.scheduler_calls = scheduler_calls_;
  record_.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return std::move(record_);
}

}  // namespace sim_internal

Result<RunRecord> Simulate(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                           SimMethods methods, const SimOptions& options) {
  if (!methods.scheduler || !methods.placer || !methods.planner) {
    return Status::InvalidArgument("simulate: a job scheduler, a placer and a planner are all required");
  }
  HETSCHED_RETURN_IF_ERROR(cluster.Validate());
  sim_internal::Simulator sim(cluster, zoo, workload, std::move(methods), options);
  return sim.Run();
}

}  // namespace hetsched
