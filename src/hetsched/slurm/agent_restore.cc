// The agent's restart path: replay the journal, then reconcile it with what Slurm reports,
// completing or rolling back each intent the journal left open (a placement without its release
// or undoing, a preemption without its outcome).
#include <algorithm>
#include <cmath>
#include <set>

#include "hetsched/slurm/agent.h"
#include "hetsched/slurm/agent_job.h"
#include "hetsched/util/printable.h"

namespace hetsched::slurm {

Status Agent::Restore() {
  const auto& records = journal_.replayed();
  const std::string methods = std::string(methods_.scheduler->name()) + "+" + std::string(methods_.placer->name()) +
                              "+" + std::string(methods_.planner->name());
  if (records.empty()) {
    // Slurm's times are whole seconds (truncated): on the same base, a job the agent released
    // in its first second does not start "before" the origin (a negative time reads as unset).
    origin_s_ = std::floor(clock_.NowS());
    JournalRecord start = JournalRecord::Of("agent_start", -1, methods);
    start.time_s = origin_s_;
    HETSCHED_RETURN_IF_ERROR(Append(start));
    return SyncJournal();
  }
  if (records.front().event != "agent_start") {
    return Status::ParseError(journal_.path() + ":1: the journal must begin with an agent_start record");
  }
  origin_s_ = std::floor(records.front().time_s);  // journals written before it was whole
  std::set<JobId> placed_open;  // a `place` not yet followed by its `release` or `unplace`

  // 1. Replay: rebuild each job's bookkeeping as it was when the agent stopped.
  for (size_t i = 1; i < records.size(); ++i) {
    const JournalRecord& r = records[i];
    if (r.event == "agent_start" || r.event == "agent_restart") continue;
    if (r.event == "reject") {
      rejected_.insert(r.job);
      continue;
    }
    if (r.event == "admit") {
      HETSCHED_RETURN_IF_ERROR(AdmitReplayed(r));
      continue;
    }
    auto it = jobs_.find(r.job);
    if (it == jobs_.end()) {
      return Status::ParseError(journal_.path() + ": record " + std::to_string(i + 1) + " (" + Quoted(r.event) +
                                ") names job " + std::to_string(r.job) + ", never admitted");
    }
    HETSCHED_ASSIGN_OR_RETURN(const bool goodput_only, ReplayGoodput(*it->second, r));
    if (!goodput_only && !ReplayRun(*it->second, r, &placed_open) && !ReplayStop(*it->second, r)) {
      return Status::ParseError(journal_.path() + ": record " + std::to_string(i + 1) + ": unknown event " +
                                Quoted(r.event));
    }
  }
  HETSCHED_RETURN_IF_ERROR(Append(JournalRecord::Of("agent_restart", -1, methods)));
  // A job the journal has ended had its metrics file read for the last time by the agent that
  // ended it (in the same poll); one that Slurm ended while no agent ran is read once below.
  for (auto& [id, owned] : jobs_) {
    if (owned->phase == Phase::kFinished) owned->metrics_final_read = true;
  }

  // 2. Reconcile with Slurm.
  HETSCHED_ASSIGN_OR_RETURN(const std::vector<SlurmJob> queue, SqueueAtRestart());
  std::map<JobId, const SlurmJob*> by_id;
  for (const SlurmJob& sj : queue) by_id[sj.id] = &sj;
  for (auto& [id, owned] : jobs_) {
    if (owned->phase == Phase::kFinished) continue;
    auto found = by_id.find(id);
    HETSCHED_RETURN_IF_ERROR(
        Reconcile(*owned, found == by_id.end() ? nullptr : found->second, placed_open.count(id) > 0));
  }
  if (goodput_catalog_) HETSCHED_RETURN_IF_ERROR(RestoreGoodputAllocs());
  changed_ = true;
  return SyncJournal();
}

Status Agent::AdmitReplayed(const JournalRecord& r) {
  auto job = std::make_unique<AgentJob>();
  JobSpec& spec = job->request.spec;
  spec.id = r.job;
  spec.name = r.name;
  spec.model = r.model;
  spec.num_gpus = r.gpus;
  spec.iterations = r.iterations;
  spec.submit_time_s = r.submit_s - origin_s_;
  spec.parallelism = spec.num_gpus == 1 ? Parallelism::kSingle : Parallelism::kDataRing;
  job->request.gres_type = r.type;
  if (!r.type.empty()) {
    auto t = MapGresType(r.type, cluster_.cluster.device_catalog(), options_.type_map);
    if (t.ok()) spec.allowed_types = {*t};
  }
  if (!r.application.empty()) {  // a goodput job: its fields as its comment gave them
    const std::string who = journal_.path() + ": goodput job " + std::to_string(r.job);
    if (!goodput_catalog_) {
      return Status::InvalidArgument(who + " (application " + Quoted(r.application) +
                                     ") was admitted by an agent with --goodput-dir: start this one with it too");
    }
    const std::map<std::string, std::string> fields = {{"application", r.application},
                                                       {"total_batch_size", std::to_string(r.total_batch)},
                                                       {"adaptive_batch", r.adaptive ? "1" : "0"},
                                                       {"elastic", r.elastic ? "1" : "0"},
                                                       {"model", r.model},
                                                       {"iterations", std::to_string(r.iterations)}};
    HETSCHED_RETURN_IF_ERROR(ReadGoodputFields(fields, who, cluster_, zoo_, &*goodput_catalog_, &job->request));
    MakeGoodputJob(*job);
  }
  job->status.spec = &job->request.spec;
  job->status.queued_since_s = spec.submit_time_s;
  jobs_[r.job] = std::move(job);
  ++phase_count_[static_cast<int>(Phase::kPending)];
  return Status::Ok();
}

bool Agent::ReplayRun(AgentJob& job, const JournalRecord& r, std::set<JobId>* placed_open) {
  const DeviceTypeId type = r.type.empty() ? kNoDeviceType : cluster_.cluster.device_catalog().Find(r.type);
  if (r.event == "place") {
    placed_open->insert(r.job);
    job.nodes = r.nodes;
    job.type_name = r.type;
    job.status.devices.assign(r.devices.begin(), r.devices.end());
    job.status.device_type = type;
  } else if (r.event == "unplace") {
    placed_open->erase(r.job);
    job.status.devices.clear();
  } else if (r.event == "release") {
    placed_open->erase(r.job);
    SetPhase(job, Phase::kReleased);
    ++job.placements;
    job.status.state = JobState::kRunning;
  } else if (r.event == "start") {
    SetPhase(job, Phase::kRunning);
    job.nodes = r.nodes;
    job.status.devices.assign(r.devices.begin(), r.devices.end());
    if (type != kNoDeviceType) job.status.device_type = type;
    job.run_start_epoch_s = r.time_s;
    job.restart_count = static_cast<int>(r.value);
    if (job.record.first_start_s < 0) job.record.first_start_s = r.time_s - origin_s_;
  } else {
    return false;
  }
  return true;
}

bool Agent::ReplayStop(AgentJob& job, const JournalRecord& r) {
  if (r.event == "preempt") {
    // The intent, before its commands: the job is pending for the policy from here on; the
    // reconcile below (FollowPending) sees the preemption through from Slurm's state.
    AccountRunEnd(job, r.time_s);
    job.status.devices.clear();
    SetPhase(job, Phase::kPending);
    job.status.state = JobState::kPending;
    job.restart_count = static_cast<int>(r.value);
    job.preempt_open = true;
    job.preempt_why = r.text;
  } else if (r.event == "cancel" && job.phase != Phase::kFinished) {
    // A preempted job whose run slurmctld lost the end of: `scancel` is sent again while Slurm
    // lists it running (RunLostBySlurm).
    job.lost_cancel_s = 0;
  } else if (r.event == "cancel") {
    // A job that had ended and that Slurm listed again: the first poll sends `scancel` again,
    // without a new record, if Slurm still lists it (Follow, Phase::kFinished).
    if (job.rerun_cancel_s < 0) ++relisted_;
    job.rerun_cancel_s = 0;
  } else if (r.event == "hold") {
    // A hold sent for a job pending in Slurm: the reconcile sends it again if it did not land.
  } else if (r.event == "requeue") {
    ReplayRequeue(job, r);
  } else if (r.event == "finish") {
    AccountRunEnd(job, r.time_s);
    job.status.devices.clear();
    job.preempt_open = false;
    SetPhase(job, Phase::kFinished);
    job.final_state = r.state;
    if (r.state != "COMPLETED") ++failed_;
    job.status.state = JobState::kFinished;
    job.status.finish_s = r.time_s - origin_s_;
    job.record.finish_s = job.status.finish_s;
  } else {
    return false;
  }
  return true;
}

void Agent::ReplayRequeue(AgentJob& job, const JournalRecord& r) {
  if (r.text == "Slurm requeued it and started it again") {
    // Still placed where it was: its next `start` record follows.
    if (job.phase == Phase::kRunning) {
      AccountRunEnd(job, r.time_s);
      SetPhase(job, Phase::kReleased);
    }
  } else {
    AccountRunEnd(job, r.time_s);
    job.status.devices.clear();
    SetPhase(job, Phase::kPending);
    job.status.state = JobState::kPending;
  }
  const bool by_slurm = r.text.rfind("Slurm requeued it", 0) == 0;
  if (!by_slurm && job.preempt_open && job.preempt_why == kPreemptedByPolicy) ++preempted_;
  job.preempt_open = false;
  CountRequeues(job, static_cast<int>(r.value), by_slurm);
}

Result<std::vector<SlurmJob>> Agent::SqueueAtRestart() {
  // Slurm may be restarting too: waited for (AgentOptions::start_wait_s).
  Result<std::vector<SlurmJob>> queue = Status::IoError("not tried");
  const double give_up_s = clock_.NowS() + options_.start_wait_s;
  while (true) {
    queue = Squeue();
    if (queue.ok() || clock_.NowS() >= give_up_s || queue.status().code() == StatusCode::kParseError) break;
    ReportPollFailure(queue.status());
    clock_.SleepS(1);
  }
  if (queue.ok()) health_.Answered();
  if (!queue.ok()) return queue.status().WithContext("agent restart: reconciling the journal with squeue");
  return queue;
}

Status Agent::Reconcile(AgentJob& job, const SlurmJob* listed, bool placed_open) {
  const JobId id = job.status.spec->id;
  const std::vector<DeviceId> journaled = job.status.devices;
  job.status.devices.clear();
  job.policy_knows = false;
  if (listed == nullptr) {  // finished and purged while the agent was away
    Finish(job, "VANISHED", 0, clock_.NowS());
    return Status::Ok();
  }
  const SlurmJob& sj = *listed;
  if (job.phase == Phase::kPending) {
    // An open placement (journaled, perhaps pinned, its release not journaled) is completed when
    // Slurm shows the job released (the agent was killed between `scontrol release` and its
    // record: one record per release Slurm carried out), else rolled back: the policy decides
    // again, and the next pin overrides the old one. A job that ended without ever starting
    // (cancelled while held) was not released by the agent.
    const bool released = placed_open && !sj.Held() && !(sj.Terminal() && sj.start_time_s <= 0);
    if (!released) {
      // Held: decided again. Otherwise FollowPending sees an open preemption through, holds a
      // job released by someone else, takes back one running where the agent did not put it,
      // or finishes one that ended.
      FollowPending(job, sj);
      HETSCHED_RETURN_IF_ERROR(fatal_);
      if (job.phase == Phase::kPending) {
        job.status.state = JobState::kPending;
        job.policy_knows = true;
        methods_.scheduler->OnJobSubmitted(job.status, ctx_);
      }
      return Status::Ok();
    }
    SetPhase(job, Phase::kReleased);
    ++job.placements;
    job.status.state = JobState::kRunning;
    HETSCHED_RETURN_IF_ERROR(Append(JournalRecord::Of("release", id, "found released in Slurm at restart")));
  }
  // Released before the stop: followed first (it may have ended or been requeued meanwhile),
  // then shown to the policy as running if it still is. Its journaled GPUs are booked for any run
  // Slurm started, also one that ended while the agent was away: that run is recorded on them (its
  // start, its GPU time), and its end gives them back.
  if (!journaled.empty() && (!sj.Terminal() || sj.start_time_s > 0)) {
    if (Status st = HoldDevices(job, journaled); !st.ok()) Report("restore job " + std::to_string(id) + ": " + st.message());
  }
  if (job.phase == Phase::kReleased) job.released_at_s = clock_.NowS();
  Follow(job, sj);
  HETSCHED_RETURN_IF_ERROR(fatal_);
  if ((job.phase == Phase::kReleased || job.phase == Phase::kRunning) && !job.status.devices.empty()) {
    ShowRunning(job);
  }
  return Status::Ok();
}

void Agent::ShowRunning(AgentJob& job) {
  JobStatus& s = job.status;
  s.state = JobState::kRunning;
  // The current run's start as Slurm reported it (released, not yet started: from now).
  s.last_start_s = job.run_start_epoch_s >= 0 ? job.run_start_epoch_s - origin_s_ : now();
  if (s.first_start_s < 0) s.first_start_s = job.record.first_start_s >= 0 ? job.record.first_start_s : s.last_start_s;
  // The rate a job started in this life reports is its plan's estimate: the same here (a goodput
  // job's is measured again from its next reports, MarkProgress).
  s.iteration_rate =
      job.goodput ? 0.0 : job.StartRate(ctx_.EstimateIterationS(s.spec->id, s.num_devices(), s.device_type));
  job.policy_knows = true;
  methods_.scheduler->OnJobRunning(s, ctx_);
}

RunRecord Agent::Record() {
  RunRecord run;
  run.policy = std::string(methods_.scheduler->name());
  run.placer = std::string(methods_.placer->name());
  run.planner = std::string(methods_.planner->name());
  run.trace = "slurm partition " + options_.partition;
  const Cluster& cluster = cluster_.cluster;
  run.cluster_summary = cluster.Summary();
  run.total_devices = cluster.num_devices();
  for (const Device& d : cluster.devices()) run.idle_power_watts += cluster.device_catalog().type(d.type).idle_watts;
  for (DeviceTypeId t : cluster.present_types()) {
    run.device_types.push_back(cluster.device_catalog().type(t).name);
    run.devices_per_type.push_back(cluster.devices_per_type()[static_cast<size_t>(t)]);
  }
  run.jobs_rejected = static_cast<long long>(rejected_.size());
  // Times re-based to the first submission, like a trace that starts at 0.
  const double t0 = FirstSubmitS();
  for (const auto& [id, owned] : jobs_) {
    const AgentJob& job = *owned;
    const JobSpec& spec = job.request.spec;
    JobRecord rec = job.record;
    rec.TakeSpec(spec);
    rec.submit_s -= t0;
    if (rec.first_start_s >= 0) rec.first_start_s -= t0;
    if (rec.finish_s >= 0) rec.finish_s -= t0;
    if (job.final_state != "COMPLETED") rec.finish_s = -1;  // failed/cancelled: not a completion
    // The visible model's estimate: the requested count of the fastest allowed type, packed.
    double best = -1;
    for (DeviceTypeId t : cluster.present_types()) {
      if (!spec.AllowsType(t, cluster.device_catalog()) ||
          cluster.devices_per_type()[static_cast<size_t>(t)] < spec.num_gpus) {
        continue;
      }
      const double it = ctx_.EstimateIterationS(id, spec.num_gpus, t);
      if (std::isfinite(it) && (best < 0 || it < best)) best = it;
    }
    rec.ideal_runtime_s = best > 0 ? best * static_cast<double>(spec.iterations) : 0;
    run.jobs.push_back(std::move(rec));
  }
  for (TimelineSample s : timeline_) {
    s.time_s = std::max(0.0, s.time_s - t0);
    run.timeline.push_back(s);
  }
  run.timeline_busy_by_type = timeline_busy_by_type_;
  run.scheduler_calls = scheduler_calls_;
  return run;
}

double Agent::FirstSubmitS() const {
  double t0 = 0;
  bool first = true;
  for (const auto& [id, job] : jobs_) {
    if (first || job->request.spec.submit_time_s < t0) t0 = job->request.spec.submit_time_s;
    first = false;
  }
  return t0;
}

Workload Agent::AdmittedWorkload() const {
  Workload w;
  w.source = "slurm partition " + options_.partition + " (jobs admitted by hetsched agent)";
  const double t0 = FirstSubmitS();
  for (const auto& [id, job] : jobs_) {
    Job j;
    j.spec = job->request.spec;
    j.spec.submit_time_s -= t0;
    j.truth.total_iterations = static_cast<double>(std::max<long long>(j.spec.iterations, 1));
    w.jobs.push_back(std::move(j));
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(),
                   [](const Job& a, const Job& b) { return a.spec.submit_time_s < b.spec.submit_time_s; });
  for (size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].spec.id = static_cast<JobId>(i);
  w.rows_read = static_cast<long long>(w.jobs.size());
  return w;
}

}  // namespace hetsched::slurm
