// A job's runs in the simulator: start, stop, preemption, idle holds at a RunUntil mark, elastic
// resizes and completion; each keeps the job's record, its visible status, the cluster state and
// the link load in step (simulator_impl.h).
#include <algorithm>
#include <cmath>
#include <string>

#include "hetsched/sim/simulator_impl.h"

namespace hetsched::sim_internal {
namespace {

// On the peers' clock of whole seconds (--goodput-round-epochs) a pause, and a hand-over's release
// of its old devices, end on a second.
void OnWholeSeconds(ResizeCost& cost) {
  cost.release_s = std::ceil(cost.release_s);
  cost.pause_s = std::ceil(cost.pause_s);
}

}  // namespace

void Simulator::PrefetchJob(JobId id) const {
  if (id < 0 || static_cast<size_t>(id) >= status_.size()) return;
  // A start reads the status's first line (spec, state, times, devices), the run's state (its
  // model) and the spec's fields from its second line to its fifth (GPUs, batch, allowed types,
  // parallelism, PS count, pipeline planner): the addresses are known from the id alone, so the
  // loads need not wait for one another.
  __builtin_prefetch(&status_[static_cast<size_t>(id)]);
  __builtin_prefetch(&runs_[static_cast<size_t>(id)]);
  const char* spec = reinterpret_cast<const char*>(&workload_.jobs[static_cast<size_t>(id)].spec);
  for (size_t line = 64; line < sizeof(JobSpec); line += 64) __builtin_prefetch(spec + line);
}

Status Simulator::StartJob(JobId id, const PlannedJob& planned) {
  const JobStatus& st = status_[static_cast<size_t>(id)];
  if (st.state != JobState::kPending || rejected_[static_cast<size_t>(id)]) {
    return Status::Internal("start of job " + std::to_string(id) + " that is not pending");
  }
  return BeginRun(id, planned, st.preemptions > 0 ? options_.restart_cost_s : 0.0);
}

ResizeCost Simulator::ResizeCostTo(JobId id, std::span<const DeviceId> devices) const {
  const JobStatus& st = status_[static_cast<size_t>(id)];
  if (runs_[static_cast<size_t>(id)].goodput >= 0) {
    ResizeCost cost;
    if (std::equal(st.devices.begin(), st.devices.end(), devices.begin(), devices.end())) return cost;
    const GoodputJob& g = goodput(runs_[static_cast<size_t>(id)]);
    if (!g.split() && GoodputSameShape(g, g.placement, g.on, devices)) {  // a free move: no pause, no restart
      cost.kind = ResizeKind::kElastic;
      return cost;
    }
    // An elastic job that keeps a worker on its type re-forms its ring at the elastic price
    // (docs/elastic.md), one that adds or drops GPUs of a second type beside them too (a split
    // job, docs/goodput.md); any other change re-allocates it: its application's delay, the job
    // restarting from its checkpoint.
    ElasticResizeModel params{options_.resize_rendezvous_s, GoodputDelayS(g)};
    params.two_types = true;
    cost = ResizeCostOf(*runs_[static_cast<size_t>(id)].model, cluster_, st.devices, devices, st.spec->elastic, params);
    if (options_.goodput_round_epochs) OnWholeSeconds(cost);
    return cost;
  }
  const ElasticResizeModel params{options_.resize_rendezvous_s, options_.restart_cost_s};
  return ResizeCostOf(*runs_[static_cast<size_t>(id)].model, cluster_, st.devices, devices, st.spec->elastic, params);
}

double Simulator::ResizePauseS(JobId id, std::span<const DeviceId> devices) const {
  const JobStatus& st = status_[static_cast<size_t>(id)];
  if (st.state != JobState::kRunning || devices.empty() || st.spec->is_container_job() || st.sharing_with >= 0) return kInf;
  return ResizeCostTo(id, devices).pause_s;
}

ResizeCost Simulator::HandOverCostTo(JobId id, std::span<const DeviceId> devices) const {
  const JobStatus& st = status_[static_cast<size_t>(id)];
  ResizeCost cost;
  cost.kind = ResizeKind::kRestart;
  cost.pause_s = kInf;
  if (st.state != JobState::kRunning || devices.empty() || st.spec->is_container_job() || !st.spec->elastic ||
      st.sharing_with >= 0) {
    return cost;
  }
  for (DeviceId d : devices) {
    if (std::find(st.devices.begin(), st.devices.end(), d) != st.devices.end()) return cost;
  }
  const RunState& job = runs_[static_cast<size_t>(id)];
  const ElasticResizeModel params{options_.resize_rendezvous_s, options_.restart_cost_s};
  cost = HandOverCostOf(*job.model, cluster_, st.devices, devices, params);
  if (job.goodput >= 0 && options_.goodput_round_epochs) OnWholeSeconds(cost);
  return cost;
}

double Simulator::HandOverPauseS(JobId id, std::span<const DeviceId> devices) const {
  return HandOverCostTo(id, devices).pause_s;
}

Status Simulator::ResizeJob(JobId id, const PlannedJob& planned) { return ChangeJob(id, planned, false); }

Status Simulator::HandOverJob(JobId id, const PlannedJob& planned) {
  if (!std::isfinite(HandOverCostTo(id, planned.plan.devices).pause_s)) {
    return Status::Infeasible("job " + std::to_string(id) + " cannot be handed over to these devices");
  }
  return ChangeJob(id, planned, true);
}

Status Simulator::ChangeJob(JobId id, const PlannedJob& planned, bool hand_over) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  if (st.state != JobState::kRunning || st.spec->is_container_job() || !planned.plan.containers.empty() ||
      planned.plan.devices.empty()) {
    return Status::Internal("resize of job " + std::to_string(id) + " that is not a running device job");
  }
  if (st.sharing_with >= 0) {
    return Status::Infeasible("job " + std::to_string(id) + " shares its devices with job " +
                              std::to_string(st.sharing_with) + ": it cannot be resized or moved");
  }
  HETSCHED_RETURN_IF_ERROR(RefuseIfFinishHeld(id, "resize"));
  const ResizeCost cost = hand_over ? HandOverCostTo(id, planned.plan.devices) : ResizeCostTo(id, planned.plan.devices);
  if (cost.kind == ResizeKind::kNone) return Status::Ok();
  RunState& job = runs_[static_cast<size_t>(id)];
  // The part of the pause a previous change left still runs: it is not forgiven.
  const double owed = std::max(0.0, active(job).progress_from_s - now_);
  if (hand_over) {
    // Its old workers hold their devices until the state is broadcast.
    if (released_at_s_.empty()) released_at_s_.assign(static_cast<size_t>(cluster_.num_devices()), -kInf);
    for (DeviceId d : st.devices) released_at_s_[static_cast<size_t>(d)] = now_ + owed + cost.release_s;
    last_release_s_ = std::max(last_release_s_, now_ + owed + cost.release_s);
  }
  HETSCHED_RETURN_IF_ERROR(StopRun(id));
  st.state = JobState::kPending;  // for the instant of the change: BeginRun takes a pending job
  ++pending_;
  JobRecord& rec = record(job);
  ++rec.resizes;
  rec.resize_pause_s += cost.pause_s;
  if (cost.kind == ResizeKind::kRestart) {
    ++st.preemptions;
    ++rec.preemptions;
  }
  return BeginRun(id, planned, owed + cost.pause_s, /*priced=*/true);
}

Status Simulator::BeginRun(JobId id, const PlannedJob& planned, double pause_s, bool priced, JobId host) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  RunState& job = runs_[static_cast<size_t>(id)];
  // A goodput job pays its re-allocation delay at every placement, its first too (Pollux), but
  // for a free move (SimOptions::goodput_free_moves), which is no preemption either, and for a
  // resize, priced by ResizeCostTo.
  const bool free_move = job.goodput >= 0 && GoodputFreeMove(goodput(job), planned.plan);
  if (free_move) {
    GoodputJob::Left& left = goodput(job).left;
    pause_s = left.delay_left_s;
    if (left.preempted) {
      --st.preemptions;
      --record(job).preemptions;
      left.preempted = false;
    }
  } else if (job.goodput >= 0 && !priced) {
    pause_s = GoodputDelayS(goodput(job));
  }
  // Devices a hand-over is leaving are free once its broadcast ends: a job started on them waits.
  if (last_release_s_ > now_) {
    for (DeviceId d : planned.plan.devices) pause_s = std::max(pause_s, released_at_s_[static_cast<size_t>(d)] - now_);
  }
  if (host >= 0) {
    HETSCHED_RETURN_IF_ERROR(state_.AllocateShared(id, planned.plan.devices));
  } else if (planned.plan.containers.empty()) {
    HETSCHED_RETURN_IF_ERROR(state_.Allocate(id, planned.plan.devices));
  } else {
    HETSCHED_RETURN_IF_ERROR(state_.AllocateContainers(id, planned.plan.containers));
  }
  st.pending_reason.clear();
  st.state = JobState::kRunning;
  if (st.devices.capacity() == 0 && !spare_devices_.empty()) {
    st.devices = std::move(spare_devices_.back());
    spare_devices_.pop_back();
  }
  st.devices = planned.plan.devices;
  st.device_type = cluster_.device(st.devices.front()).type;
  st.last_start_s = now_;
  if (st.first_start_s < 0) st.first_start_s = now_;
  MarkBusy(st.devices);
  --pending_;
  ++running_;

  job.active = TakeActiveSlot();
  ActiveRun& run = active(job);
  run.job = id;
  run.rate = 0;
  run.completion_s = EventQueue::kNever;
  run.estimate = IterationEstimate{};
  run.plan = planned.plan;
  run.update_s = now_;
  run.progress_from_s = now_ + pause_s;
  run.segment_start_s = now_;
  run.segment_start_iterations = job.done_at_update;
  run.mark = kInf;
  run.finish_hold_s = -1;
  run.epoch_deferred_at_s = -1;
  run.idle = false;
  st.idle = false;
  run.pair_factor = 1;
  run.shared_s = 0;
  run.shared_from_s = -1;
  if (host >= 0) {
    st.sharing_with = host;
    status_[static_cast<size_t>(host)].sharing_with = id;
  }
  if (job.goodput >= 0) {
    // No traffic on the links (goodput_run.cc): its speed is its application's truth.
    run.nics.clear();
    run.uplinks.clear();
    run.traffic.nics.clear();
    run.traffic.uplinks.clear();
    HETSCHED_RETURN_IF_ERROR(GoodputPlace(id, run.plan, free_move));
    if (goodput(job).adaptive && goodput_tick_s_ == kInf) {
      goodput_tick_s_ = (std::floor(now_ / options_.goodput_interval_s) + 1) * options_.goodput_interval_s;
    }
  } else {
    SetRunLayout(run, *job.model, planned);
  }
  ChangeTraffic(id, +1);
  return Status::Ok();
}

int32_t Simulator::TakeActiveSlot() {
  if (!free_active_.empty()) {
    const int32_t slot = free_active_.back();
    free_active_.pop_back();
    return slot;
  }
  active_.emplace_back();
  contention_.AddSlot();
  return static_cast<int32_t>(active_.size() - 1);
}

void Simulator::SetRunLayout(ActiveRun& run, const ModelProfile& model, const PlannedJob& planned) {
  NicsUsed(cluster_, run.plan, &run.nics);
  RacksOf(cluster_, run.nics, &run.uplinks);
  if (run.uplinks.size() < 2) run.uplinks.clear();
  const bool from_planner = planned.prepared.split;  // the planner's own preparation of this plan
  if (from_planner) {
    run.prepared = planned.prepared;  // a copy into the slot's storage, not a temporary
  } else {
    run.prepared = PrepareEstimate(model, run.plan, cluster_);
  }
  run.traffic.nics.clear();
  run.traffic.uplinks.clear();
  if (!run.nics.empty()) {
    // The bytes a plan moves do not depend on the load (only how long they take does).
    const IterationEstimate estimate =
        from_planner ? planned.estimate : EstimateUnderLoad(run.prepared, model, run.plan, cluster_, LinkLoad{});
    if (run.plan.containers.empty()) {
      // TrafficOf from the NICs and racks found above, into the slot's reused storage.
      EvenTrafficOf(run.nics, run.uplinks, estimate.cross_node_bytes, &run.traffic);
    } else {
      run.traffic = TrafficOf(model, run.plan, cluster_, estimate);
    }
  }

}

SegmentTotals Simulator::CloseSegment(JobId id) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  Advance(job);
  const double held_s = now_ - run.segment_start_s;
  const double n = static_cast<double>(st.devices.size());
  // Devices shared with a running partner: each of the two pays half their price and energy.
  if (run.shared_from_s >= 0) run.shared_s += now_ - run.shared_from_s;
  SegmentTotals seg = SegmentTotals::HoldingDevices(cluster_, st.devices, st.device_type, held_s - 0.5 * run.shared_s);
  seg.gpu_seconds = held_s * n;
  run.shared_s = 0;
  run.shared_from_s = -1;
  seg.cross_node_bytes = (job.done_at_update - run.segment_start_iterations) * run.estimate.cross_node_bytes;
  seg.iterations_run = job.done_at_update - run.segment_start_iterations;
  // Here rather than at the start, where the record would be read once more (a cache miss a run
  // at a million jobs): every run ends with a segment closed, and its span does not change.
  seg.span_nodes = run.estimate.span_nodes;
  st.service_gpu_s += held_s * n;
  st.executed_s += held_s;
  st.iterations_done = job.done_at_update;
  st.iteration_rate = 0;
  MarkNotBusy(st.devices);
  events_.CancelCompletion(id);
  run.completion_s = EventQueue::kNever;
  return seg;
}

Status Simulator::StopRun(JobId id) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  JobRecord& rec = record(job);
  // The record is written last, after the traffic change: fetched meanwhile, its cache miss (one
  // a stop at a million jobs) is hidden.
  __builtin_prefetch(&rec, 1);
  if (job.goodput >= 0 && !run.idle) {
    // What it measured in the run that stops, then no placement (simulator.py:176-178).
    GoodputJob& g = goodput(job);
    HETSCHED_RETURN_IF_ERROR(GoodputSteps::ObserveIfRan(g, now_, run.progress_from_s).WithContext("job " + std::to_string(id)));
    g.observe_due = false;
    g.left = GoodputJob::Left{now_, g.placement, g.on, g.atomic_bsz, g.accum_steps, std::max(0.0, run.progress_from_s - now_),
                              false, g.split()};
    HETSCHED_RETURN_IF_ERROR(GoodputSteps::Place(g, {}));
  }
  if (run.idle) {  // its segment, devices' busy count and traffic were closed when it was held
    run.idle = false;
    st.idle = false;
    --idle_jobs_;
    events_.CancelCompletion(id);  // a finish hold's (HoldToFinish)
    run.completion_s = EventQueue::kNever;
  } else {
    const SegmentTotals seg = CloseSegment(id);
    ChangeTraffic(id, -1);
    contention_.Undefer(id);  // no speed left to re-time
    rec.Add(seg);
  }
  rec.device_type = st.device_type;
  rec.device_type_name = cluster_.device_catalog().type(st.device_type).name;
  if (run.plan.containers.empty()) {
    HETSCHED_RETURN_IF_ERROR(state_.Release(id, st.devices));
  } else {
    HETSCHED_RETURN_IF_ERROR(state_.ReleaseContainers(id));
  }
  if (st.sharing_with >= 0) {  // its partner runs on alone, at its own speed
    const JobId partner = st.sharing_with;
    status_[static_cast<size_t>(partner)].sharing_with = kNoJob;
    st.sharing_with = kNoJob;
    if (!status_[static_cast<size_t>(partner)].idle) {
      ClockSharing(partner);
      Retime(partner);
    }
  }
  st.devices.clear();
  run.nics.clear();
  run.uplinks.clear();
  run.job = -1;
  free_active_.push_back(job.active);
  job.active = -1;
  --running_;
  return Status::Ok();
}

Status Simulator::PreemptJob(JobId id) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  if (st.state != JobState::kRunning) {
    return Status::Internal("preemption of job " + std::to_string(id) + " that is not running");
  }
  HETSCHED_RETURN_IF_ERROR(RefuseIfFinishHeld(id, "preemption"));
  HETSCHED_RETURN_IF_ERROR(StopRun(id));
  RunState& job = runs_[static_cast<size_t>(id)];
  if (job.goodput >= 0) goodput(job).left.preempted = true;
  st.state = JobState::kPending;
  st.queued_since_s = now_;
  ++st.preemptions;
  ++record(runs_[static_cast<size_t>(id)]).preemptions;
  ++pending_;
  return Status::Ok();
}

Status Simulator::Hold(JobId id) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  // Progress conservation: held exactly at its mark (or where it was, if already past it).
  const double done = ProgressAt(job, now_);
  const double tol = 1e-6 * job.total_iterations + 1e-6;
  if (done + tol < run.mark) {
    return Status::Internal("invariant: job " + std::to_string(id) + " held at t=" + std::to_string(now_) + " with " +
                            std::to_string(done) + " iterations done, before its mark " + std::to_string(run.mark));
  }
  record(job).Add(CloseSegment(id));
  job.done_at_update = std::abs(done - run.mark) <= tol ? run.mark : done;
  st.iterations_done = job.done_at_update;
  ChangeTraffic(id, -1);
  contention_.Undefer(id);  // held: no speed to re-time until it resumes
  run.idle = true;
  st.idle = true;
  ++idle_jobs_;
  RetimePartner(st);  // alone on the devices while this one is held
  return Status::Ok();
}

Status Simulator::RunUntil(JobId id, double iterations) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  if (st.state != JobState::kRunning || !(iterations >= 0)) {
    return Status::Internal("RunUntil of job " + std::to_string(id) + " that is not running, or with a bad mark");
  }
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  if (FinishHeld(job)) return Status::Ok();  // its work is done: it stays held to its finish
  run.mark = iterations;
  if (!run.idle) {
    Advance(job);
    if (job.done_at_update >= std::min(iterations, job.total_iterations)) return Hold(id);
    Reschedule(id);
    return Status::Ok();
  }
  if (iterations <= job.done_at_update) return Status::Ok();  // stays held
  // Resume on the devices it holds: a new segment, no restart cost.
  run.idle = false;
  st.idle = false;
  --idle_jobs_;
  MarkBusy(st.devices);
  st.last_start_s = now_;
  run.update_s = now_;
  run.progress_from_s = std::max(now_, run.progress_from_s);  // a restart cost still due stays due
  run.segment_start_s = now_;
  run.segment_start_iterations = job.done_at_update;
  ChangeTraffic(id, +1);
  ClockSharing(id);
  RetimePartner(st);
  return Status::Ok();
}

Status Simulator::HoldFinishUntil(JobId id, double time_s) {
  if (status_[static_cast<size_t>(id)].state != JobState::kRunning || !std::isfinite(time_s)) {
    return Status::Internal("finish hold of job " + std::to_string(id) + " that is not running, or at no time");
  }
  if (!SetFinishHold(id, time_s)) {
    return Status::Infeasible("goodput job " + std::to_string(id) + " finishes with its last epoch");
  }
  return Status::Ok();
}

bool Simulator::SetFinishHold(JobId id, double time_s) {
  RunState& job = runs_[static_cast<size_t>(id)];
  if (job.goodput >= 0) return false;
  active(job).finish_hold_s = time_s;
  if (FinishHeld(job)) Reschedule(id);  // held already: its finish moves
  return true;
}

// HoldFinishUntil's work for each running job, without its call or its refusal of a goodput job
// (kInfeasible, an outcome: that job is left alone). A re-time a scheduling call deferred is not
// run first, as the context's job(id) before each call did: it does not read the hold (a job held
// to its finish is idle, not re-timed), and the call's end runs it under the same load.
Status Simulator::HoldFinishesUntil(std::span<const JobId> ids, double time_s) {
  for (JobId id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= status_.size() ||
        status_[static_cast<size_t>(id)].state != JobState::kRunning) {
      continue;
    }
    if (!std::isfinite(time_s)) return HoldFinishUntil(id, time_s);  // its fault
    SetFinishHold(id, time_s);  // false for a goodput job: left alone, its outcome
  }
  return Status::Ok();
}

// Its work ended before its finish hold's time (CompleteDue): it stops at its total, held idle, and
// its completion event is set at that time (Reschedule).
Status Simulator::HoldToFinish(JobId id) {
  RunState& job = runs_[static_cast<size_t>(id)];
  active(job).mark = job.total_iterations;
  HETSCHED_RETURN_IF_ERROR(Hold(id));
  Reschedule(id);
  return Status::Ok();
}

Status Simulator::RefuseIfFinishHeld(JobId id, const char* what) const {
  const RunState& job = runs_[static_cast<size_t>(id)];
  if (job.active < 0 || !FinishHeld(job)) return Status::Ok();
  return Status::Internal(std::string(what) + " of job " + std::to_string(id) +
                          ", whose work is done and whose finish is held to t=" +
                          std::to_string(active(job).finish_hold_s) + " (HoldFinishUntil), at t=" + std::to_string(now_));
}

void Simulator::RecycleDevices(JobStatus& st) {
  if (st.devices.capacity() > 0) spare_devices_.push_back(std::move(st.devices));
  st.devices.clear();  // a moved-from vector is valid but unspecified: make it empty
}

Status Simulator::DropJob(JobId id) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  HETSCHED_RETURN_IF_ERROR(RefuseIfFinishHeld(id, "drop"));
  if (st.state == JobState::kRunning) {
    HETSCHED_RETURN_IF_ERROR(StopRun(id));
  } else if (st.state == JobState::kPending) {
    --pending_;
  } else {
    return Status::Internal("drop of job " + std::to_string(id) + " that is neither pending nor running");
  }
  st.state = JobState::kDropped;
  RecycleDevices(st);
  RunState& run = runs_[static_cast<size_t>(id)];
  JobRecord& rec = record(run);
  rec.first_start_s = st.first_start_s;
  rec.dropped_s = now_;
  ++dropped_;
  ++record_.jobs_dropped;
  return Status::Ok();
}

Status Simulator::Complete(JobId id) {
  RunState& run = runs_[static_cast<size_t>(id)];
  JobStatus& st = status_[static_cast<size_t>(id)];
  // Progress conservation: the job finishes exactly when its work is done.
  const double done = ProgressAt(run, now_);
  const double tol = 1e-6 * run.total_iterations + 1e-6;
  if (std::abs(done - run.total_iterations) > tol) {
    return Status::Internal("invariant: job " + std::to_string(id) + " completes at t=" + std::to_string(now_) +
                            " with " + std::to_string(done) + " of " + std::to_string(run.total_iterations) +
                            " iterations done");
  }
  HETSCHED_RETURN_IF_ERROR(StopRun(id));
  run.done_at_update = run.total_iterations;
  st.iterations_done = run.total_iterations;
  st.state = JobState::kFinished;
  st.finish_s = now_;
  RecycleDevices(st);
  JobRecord& rec = record(run);
  rec.first_start_s = st.first_start_s;
  rec.finish_s = now_;
  ++finished_;
  methods_.scheduler->OnJobFinished(st, ctx_);
  HETSCHED_RETURN_IF_ERROR(ctx_.TakeError());
  if (options_.progress) {
    const long long total = static_cast<long long>(workload_.jobs.size()) - record_.jobs_rejected;
    const long long step = std::max<long long>(1, total / 200);
    if (finished_ % step == 0 || finished_ == total) options_.progress(finished_, total);
  }
  return Status::Ok();
}

}  // namespace hetsched::sim_internal
