// The agent following its jobs through Slurm's states: running (booked as Slurm allocated
// them), ended, requeued, unable to start where they were placed, or (a job the agent counts as
// pending) held, ended, or running where the agent did not put it.
#include <algorithm>
#include <cmath>
#include <map>

#include "hetsched/slurm/agent.h"
#include "hetsched/slurm/agent_job.h"
#include "hetsched/util/text.h"

namespace hetsched::slurm {

std::vector<DeviceId> Agent::ActualDevices(const AgentJob& job, const SlurmJob& sj) const {
  // Devices of one node are interchangeable in the model, and Slurm picks the GPU indices itself:
  // only the number per node matters. gres_detail lists one entry per allocated node, in the
  // order of the job's node list. Keeps the booked devices when the counts agree (or when Slurm
  // gives no detail); otherwise re-books per node: the job's own devices there first, then free
  // ones. Empty result: the allocation cannot be booked (more than the node has free).
  const std::vector<DeviceId>& booked = job.status.devices;
  if (sj.gres_detail.size() != sj.nodes.size() || sj.nodes.empty()) return booked;
  std::map<NodeId, int> actual;
  for (size_t i = 0; i < sj.nodes.size(); ++i) {
    const NodeId n = cluster_.Find(sj.nodes[i]);
    auto idx = ParseGresIndices(sj.gres_detail[i]);
    if (n < 0 || !idx.ok()) return booked;
    actual[n] += static_cast<int>(idx->size());
  }
  std::map<NodeId, std::vector<DeviceId>> mine;
  for (DeviceId d : booked) mine[cluster_.cluster.device(d).node].push_back(d);
  bool same = mine.size() == actual.size();
  for (const auto& [n, count] : actual) same = same && mine.count(n) > 0 && static_cast<int>(mine[n].size()) == count;
  if (same) return booked;
  std::vector<DeviceId> out, free;
  for (const auto& [n, count] : actual) {
    auto& own = mine[n];
    for (int k = 0; k < count && k < static_cast<int>(own.size()); ++k) out.push_back(own[static_cast<size_t>(k)]);
    int missing = count - static_cast<int>(std::min<size_t>(own.size(), static_cast<size_t>(count)));
    free.clear();
    state_.AppendFreeDevices(n, &free);
    for (size_t k = 0; missing > 0 && k < free.size(); ++k, --missing) out.push_back(free[k]);
    if (missing > 0) return {};
  }
  return out;
}

Status Agent::HoldDevices(AgentJob& job, const std::vector<DeviceId>& devices) {
  HETSCHED_RETURN_IF_ERROR(state_.Allocate(job.status.spec->id, devices));
  job.status.devices = devices;
  job.status.device_type = devices.empty() ? kNoDeviceType : cluster_.cluster.device(devices.front()).type;
  return Status::Ok();
}

void Agent::ReleaseDevices(AgentJob& job) {
  if (job.status.devices.empty()) return;
  const JobId id = job.status.spec->id;
  if (Status st = state_.Release(id, job.status.devices); !st.ok()) Report("internal: " + st.message());
  // Devices of a node that went down while the job held them stay out of service.
  nodes_.HoldIfDown(job.status.devices);
  job.status.devices.clear();
}

void Agent::FillGresDetail(SlurmJob& sj) {
  auto r = Slurm({"scontrol", "show", "job", "-d", std::to_string(sj.id)});
  if (!r.ok() || r->exit_code != 0) return;  // no detail: the agent keeps its own split
  auto detail = ParseScontrolGresDetail(r->out, "scontrol show job -d " + std::to_string(sj.id));
  if (!detail.ok()) {
    Report(detail.status().message());
    return;
  }
  std::vector<std::string> ordered;
  for (const std::string& node : sj.nodes) {
    auto it = detail->find(node);
    if (it == detail->end()) return;
    ordered.push_back(it->second);
  }
  sj.gres_detail = std::move(ordered);
}

void Agent::MarkRunning(AgentJob& job, const SlurmJob& polled) {
  SlurmJob sj = polled;
  // Only an uneven split leaves the count per node to Slurm: ask it how it split.
  if (job.uneven && sj.gres_detail.empty() && !sj.nodes.empty()) FillGresDetail(sj);
  const std::vector<DeviceId> actual = ActualDevices(job, sj);
  if (actual.empty()) {
    Report("note: job " + std::to_string(sj.id) + ": Slurm split its GPUs over the chosen nodes as " +
           DescribeCommand(sj.gres_detail) + ", unlike the placer; the agent's view keeps the placer's split "
           "until the job ends");
  } else if (actual != job.status.devices) {
    // Slurm chose how many GPUs per node (a per-job GPU count): book what it really allocated.
    ReleaseDevices(job);
    if (Status st = HoldDevices(job, actual); !st.ok()) Report("internal: " + st.message());
  }
  SetPhase(job, Phase::kRunning);
  job.nodes = sj.nodes;
  job.restart_count = sj.restart_count;
  // Slurm's times are whole seconds (slurmctld's time(), truncated), and its end time will be on
  // that base: when it shows no start time, the agent's clock is put on the same base (the job
  // started at or before now, so no later than this whole second), never after Slurm's end.
  job.run_start_epoch_s = sj.start_time_s > 0 ? sj.start_time_s : std::floor(clock_.NowS());
  if (job.record.first_start_s < 0) job.record.first_start_s = job.run_start_epoch_s - origin_s_;
  JournalRecord r = JournalRecord::Of("start", sj.id);
  r.time_s = job.run_start_epoch_s;
  r.nodes = sj.nodes;
  r.devices.assign(job.status.devices.begin(), job.status.devices.end());
  r.type = job.type_name;
  r.value = sj.restart_count;
  (void)Append(r);  // a failure is kept in fatal_: the run ends
  changed_ = true;
}

void Agent::AccountRunEnd(AgentJob& job, double end_epoch_s) {
  if (job.run_start_epoch_s < 0 || job.status.device_type == kNoDeviceType) return;
  const double held_s = std::max(0.0, end_epoch_s - job.run_start_epoch_s);
  const double n = static_cast<double>(job.status.devices.size());
  const DeviceType& type = cluster_.cluster.device_catalog().type(job.status.device_type);
  job.record.Add(SegmentTotals::Holding(type, n, held_s));
  job.record.device_type = job.status.device_type;
  job.record.device_type_name = type.name;
  job.status.service_gpu_s += held_s * n;
  job.status.executed_s += held_s;
  job.run_start_epoch_s = -1;
}

void Agent::Finish(AgentJob& job, const std::string& state, int exit_code, double end_epoch_s) {
  const JobId id = job.status.spec->id;
  AccountRunEnd(job, end_epoch_s);
  ReleaseDevices(job);
  SetPhase(job, Phase::kFinished);
  job.final_state = state;
  if (state != "COMPLETED") ++failed_;
  job.status.state = JobState::kFinished;
  job.status.finish_s = end_epoch_s - origin_s_;
  job.record.finish_s = job.status.finish_s;
  if (state != "COMPLETED") {
    Report("job " + std::to_string(id) + " ended " + state + " (" + DescribeExit(exit_code) + "): not restarted");
  }
  JournalRecord r = JournalRecord::Of("finish", id);
  r.time_s = end_epoch_s;
  r.state = state;
  r.value = exit_code;
  (void)Append(r);  // a failure is kept in fatal_: the run ends
  changed_ = true;
  if (job.policy_knows) methods_.scheduler->OnJobFinished(job.status, ctx_);
  job.policy_knows = false;
}

void Agent::Requeue(AgentJob& job, const SlurmJob& sj, const std::string& why, bool by_slurm) {
  const JobId id = sj.id;
  // Journaled before the hold: a restarted agent finds the job pending, and holds it if this one
  // could not.
  JournalRecord r = JournalRecord::Of("requeue", id, why);
  r.value = sj.restart_count;
  if (!Append(r).ok()) return;  // kept in fatal_: nothing more is sent
  // Keep Slurm from starting it on its old node list; the policy places it again.
  if (!sj.Held()) Hold(id);
  AccountRunEnd(job, clock_.NowS());
  ReleaseDevices(job);
  SetPhase(job, Phase::kPending);
  CountRequeues(job, sj.restart_count, by_slurm);
  job.status.state = JobState::kPending;
  job.status.queued_since_s = now();
  refresh_nodes_now_ = true;
  Report("job " + std::to_string(id) + " requeued (" + why + "): placing it again");
  changed_ = true;
  if (job.policy_knows) {
    methods_.scheduler->OnJobRequeued(job.status, ctx_);
  } else {
    job.policy_knows = true;
    methods_.scheduler->OnJobSubmitted(job.status, ctx_);
  }
}

void Agent::CountRequeues(AgentJob& job, int restart_count, bool by_slurm) {
  // Each requeue adds one to Slurm's restart count: a count that grew by k since the agent last
  // looked is k runs stopped (at least one: a run the agent saw end by a requeue).
  const int runs = std::max(1, restart_count - job.restart_count);
  job.restart_count = std::max(job.restart_count, restart_count);
  job.requeues += runs;
  requeued_ += runs;
  if (by_slurm) slurm_requeued_ += runs;
  job.status.preemptions += runs;
  job.record.preemptions = job.status.preemptions;
}

void Agent::StopRerun(AgentJob& job, const SlurmJob& sj) {
  // The cancel is an intent, journaled once per listing again; `scancel` is sent again (no new
  // record) every kRerunCancelRetryS while Slurm still lists the job. Not held back by the
  // settling after an outage: the job's end is known.
  const double now = clock_.NowS();
  if (job.rerun_cancel_s >= 0 && now - job.rerun_cancel_s < kRerunCancelRetryS) return;
  const std::string id = std::to_string(sj.id);
  if (job.rerun_cancel_s < 0) {
    JournalRecord r = JournalRecord::Of("cancel", sj.id, "ended " + job.final_state + ", and Slurm lists it " + sj.state +
                                                             " again: cancelled, not run again");
    r.value = sj.restart_count;
    if (!Intend(r).ok()) return;  // kept in fatal_
    Report("job " + id + " ended " + job.final_state + ", and Slurm lists it " + sj.state + " again (restart " +
           std::to_string(sj.restart_count) + "; slurmctld lost its end?): cancelled, not run again");
    ++relisted_;
  }
  SendCancel(sj.id, &job.rerun_cancel_s);
}

void Agent::SendCancel(JobId id, double* sent_s) {
  *sent_s = clock_.NowS();
  const std::string job = std::to_string(id);
  auto r = Slurm({"scancel", job});
  if (!r.ok() || r->exit_code != 0) {
    Report("job " + job + ": scancel failed (" + (r.ok() ? std::string(Trim(r->err)) : r.status().message()) +
           "): sent again in " + std::to_string(static_cast<int>(kRerunCancelRetryS)) + " s if Slurm still lists it");
  }
}

void Agent::EndRelisting(AgentJob& job) {
  if (job.rerun_cancel_s < 0) return;
  job.rerun_cancel_s = -1;
  --relisted_;
}

void Agent::FollowPending(AgentJob& job, const SlurmJob& sj) {
  const JobId id = sj.id;
  if (sj.Terminal()) {
    if (job.preempt_open) {
      // Its own end came first (`requeuehold Incomplete` leaves an ended job alone).
      job.preempt_open = false;
      Report("job " + std::to_string(id) + " ended " + sj.state + " before its preemption reached it: not run again");
    }
    Finish(job, sj.state, sj.exit_code, sj.end_time_s > 0 ? sj.end_time_s : clock_.NowS());
    return;
  }
  if (sj.Held()) {
    if (job.preempt_open) ClosePreemption(job, sj);
    job.restart_count = sj.restart_count;
    return;
  }
  if (sj.Completing()) return;  // its script has ended: the next poll shows how
  // Not held, so Slurm may start it (or has) where the agent did not decide.
  if (job.preempt_open && sj.Pending() && sj.restart_count > job.restart_count) {
    // Slurm requeued the run before the preemption reached it (the agent was killed between the
    // intent and its commands): Slurm's requeue, told as such; the job is held as after one.
    JournalRecord r = JournalRecord::Of("requeue", id, "Slurm requeued it: " + sj.reason);
    r.value = sj.restart_count;
    if (!Append(r).ok()) return;
    job.preempt_open = false;
    changed_ = true;
    CountRequeues(job, sj.restart_count, /*by_slurm=*/true);
    Report("job " + std::to_string(id) + " requeued (Slurm requeued it: " + sj.reason + ") before its preemption reached it");
    Hold(id);
    return;
  }
  if (job.preempt_open) {
    SendPreemption(id, sj.Active());  // not seen through yet (a command that failed or timed out)
    return;
  }
  if (sj.Active()) {
    // A hold that came after Slurm had started the job again on its own (a requeue), or a
    // release by someone else: the run is not the agent's decision, and its GPUs are free in the
    // agent's view. Taken back; the policy places the job.
    Report("job " + std::to_string(id) + " is " + sj.state + " in Slurm, though the agent did not release it: "
           "taken back (requeued held)");
    (void)OpenPreemption(job, "started without the agent's release: taken back");  // a failure is kept in fatal_
    return;
  }
  // Pending and not held: released by someone else, requeued by Slurm, or a hold that failed.
  JournalRecord r = JournalRecord::Of("hold", id, "pending in Slurm and not held (" + sj.reason + ")");
  r.value = sj.restart_count;
  if (Append(r).ok()) Hold(id);
}

void Agent::Follow(AgentJob& job, const SlurmJob& sj) {
  switch (job.phase) {
    case Phase::kFinished:
      // A job that ended and that Slurm lists as pending (held or not) or running again: slurmctld
      // lost its end (a crash before it saved its state) and requeued it. It is never run twice:
      // cancelled (a run Slurm started is stopped), reported once. Left held, it would stay in the
      // queue for good, and a run Slurm started on its own would hold GPUs the agent counts free.
      if (!sj.Terminal() && !sj.Completing()) {
        StopRerun(job, sj);
      } else {
        EndRelisting(job);
      }
      return;
    case Phase::kPending:
      FollowPending(job, sj);
      return;
    case Phase::kReleased:
    case Phase::kRunning:
      break;
  }
  if ((sj.Active() || sj.Terminal()) && !FollowRestart(job, sj)) return;
  if (sj.Active()) {
    if (job.phase == Phase::kReleased) MarkRunning(job, sj);
    return;
  }
  if (sj.Terminal()) {
    if (job.phase == Phase::kReleased && sj.start_time_s > 0 && sj.state != "CANCELLED") MarkRunning(job, sj);
    Finish(job, sj.state, sj.exit_code, sj.end_time_s > 0 ? sj.end_time_s : clock_.NowS());
    return;
  }
  FollowPendingAgain(job, sj);
}

// Slurm requeued a run of it and started it again (on its pinned nodes) between two polls, or
// while the agent was down: its restart count grew.
bool Agent::FollowRestart(AgentJob& job, const SlurmJob& sj) {
  if (sj.restart_count <= job.restart_count) return true;
  JournalRecord r = JournalRecord::Of("requeue", sj.id, "Slurm requeued it and started it again");
  r.value = sj.restart_count;
  if (!Append(r).ok()) return false;
  Report("job " + std::to_string(sj.id) + " requeued by Slurm and started again (restart " +
         std::to_string(sj.restart_count) + ")");
  if (job.phase == Phase::kRunning) {
    AccountRunEnd(job, sj.start_time_s > 0 ? sj.start_time_s : std::floor(clock_.NowS()));
    SetPhase(job, Phase::kReleased);
  }
  CountRequeues(job, sj.restart_count, /*by_slurm=*/true);
  return true;
}

void Agent::FollowPendingAgain(AgentJob& job, const SlurmJob& sj) {
  if (job.phase == Phase::kRunning || sj.restart_count > job.restart_count) {
    Requeue(job, sj, "Slurm requeued it: " + sj.reason, /*by_slurm=*/true);
  } else if (sj.reason == "BadConstraints" || sj.Held() || (nodes_.AnyDown(job.nodes) && sj.reason != "None")) {
    // ReqNodeNotAvail alone also shows while a chosen node is busy (Slurm split a per-job GPU count
    // differently from the placer): only a node that is down makes the placement hopeless.
    Requeue(job, sj, "cannot start where it was placed: " + sj.reason, /*by_slurm=*/false);
  } else if (job.phase == Phase::kReleased && nodes_.AnyShort(job.nodes)) {
    // Slurm counts GPUs of its nodes in use that the agent gave it (another user's job started
    // there, or Slurm's miscount after a slurmctld restart): it cannot start there. Taken back;
    // the GPUs it frees are kept out at once, so the policy places it elsewhere or later.
    Requeue(job, sj, "Slurm counts GPUs of its nodes in use that no job of the agent runs: " + sj.reason,
            /*by_slurm=*/false);
  } else {
    ReportIfStuck(job, sj);
  }
}

void Agent::ReportIfStuck(AgentJob& job, const SlurmJob& sj) {
  if (job.stuck_reported || job.released_at_s < 0 || options_.stuck_report_s <= 0) return;
  const double waited = clock_.NowS() - job.released_at_s;
  if (waited < options_.stuck_report_s || job.nodes.empty()) return;
  for (const std::string& name : job.nodes) {
    const NodeId n = cluster_.Find(name);
    if (n < 0 || !nodes_.idle(n)) return;
  }
  job.stuck_reported = true;
  std::string nodes;
  for (const std::string& name : job.nodes) nodes += (nodes.empty() ? "" : ",") + name;
  Report("job " + std::to_string(sj.id) + " was released " + std::to_string(static_cast<long long>(waited)) +
         " s ago and Slurm still leaves it pending (" + sj.reason + ") though its nodes " + nodes +
         " are idle: Slurm's own scheduler holds it back (see slurmctld's log)");
}

}  // namespace hetsched::slurm
