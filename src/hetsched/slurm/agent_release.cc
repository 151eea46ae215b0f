// The agent's decisions reaching Slurm: a placement journaled and made durable, pinned (`scontrol
// update`), released (`scontrol release`); a refused one taken back; a preemption journaled, then
// sent. Journal writes and syncs go through Append()/SyncJournal()/Intend() here: a failure is
// kept in fatal_, and nothing more is sent to Slurm.
#include <algorithm>
#include <chrono>
#include <map>

#include "hetsched/slurm/agent.h"
#include "hetsched/slurm/agent_job.h"
#include "hetsched/util/text.h"

namespace hetsched::slurm {

namespace {

// A journal failure, as the run ends with it.
Status Stopping(const Status& journal_error) {
  return Status::IoError(journal_error.message() +
                         ": the agent stops before it acts on Slurm again; restart it once the journal can be written "
                         "(it replays the journal and reconciles it with Slurm)");
}

}  // namespace

Status Agent::Append(JournalRecord record) {
  if (!fatal_.ok()) return fatal_;
  if (record.time_s == 0) record.time_s = clock_.NowS();
  journal_dirty_ = true;
  Status st = journal_.Append(record, /*sync=*/false);
  if (!st.ok()) fatal_ = Stopping(st);
  return fatal_;
}

Status Agent::SyncJournal() {
  if (!fatal_.ok()) return fatal_;
  if (!journal_dirty_) return Status::Ok();
  journal_dirty_ = false;
  Status st = journal_.Sync();
  if (!st.ok()) fatal_ = Stopping(st);
  return fatal_;
}

Status Agent::Intend(JournalRecord record) {
  HETSCHED_RETURN_IF_ERROR(Append(std::move(record)));
  return SyncJournal();
}

namespace {
// Slurm answered the command and refused it (not an outage: the client could reach slurmctld).
bool Refused(const Result<CommandResult>& r) {
  return r.ok() && r->exit_code != 0 && r->err.find("Unable to contact slurm controller") == std::string::npos &&
         r->err.find("Socket timed out") == std::string::npos;
}

// The `scontrol update` that pins a held job to its nodes and GPU count.
struct PinUpdate {
  std::vector<std::string> argv;
  std::vector<std::string> nodes;  // in node-id order
  bool even = true;                // the same GPU count on every node
};

Result<PinUpdate> PinUpdateFor(const SlurmCluster& cluster, const JobRequest& request, JobId id,
                               const std::vector<DeviceId>& devices) {
  // Nodes in node-id order, with the number of GPUs on each.
  std::map<NodeId, int> per_node;
  for (DeviceId d : devices) ++per_node[cluster.cluster.device(d).node];
  PinUpdate out;
  std::string list;
  for (const auto& [n, count] : per_node) {
    out.nodes.push_back(cluster.node_names[static_cast<size_t>(n)]);
    list += (list.empty() ? "" : ",") + out.nodes.back();
  }
  const std::string k = std::to_string(per_node.size());
  out.argv = {"scontrol", "update", "JobId=" + std::to_string(id), "NumNodes=" + k + "-" + k, "NodeList=" + list};
  // The same count on every node is expressed exactly, as a per-node GPU request (a per-job
  // request is rewritten so: Slurm accepts that, unlike a change of GPU type). An uneven split is
  // only possible for a per-job request, and Slurm then decides the count per node itself.
  const int first = per_node.begin()->second;
  out.even = std::all_of(per_node.begin(), per_node.end(), [&](const auto& e) { return e.second == first; });
  const std::string gres = "gres:gpu:" + (request.gres_type.empty() ? "" : request.gres_type + ":");
  if (out.even) {
    out.argv.push_back("TresPerNode=" + gres + std::to_string(first));
    if (request.form == GpuRequestForm::kPerJob) out.argv.push_back("TresPerJob=");
  } else if (request.form == GpuRequestForm::kPerNode) {
    return Status::Infeasible("job " + std::to_string(id) + " asked for GPUs per node: cannot take an uneven split");
  } else {
    // The per-job count, whatever an earlier even placement of this job rewrote (a per-node count
    // left in place would be taken on every node: 4 per node on 2 nodes is 8 GPUs).
    out.argv.push_back("TresPerNode=");
    out.argv.push_back("TresPerJob=" + gres + std::to_string(devices.size()));
  }
  return out;
}
}  // namespace

Status Agent::StartJob(JobId id, const PlannedJob& planned) {
  const auto t0 = std::chrono::steady_clock::now();
  AgentJob& job = *jobs_.at(id);
  const std::vector<DeviceId>& devices = planned.plan.devices;
  if (job.phase != Phase::kPending || devices.empty()) {
    return Status::InvalidArgument("job " + std::to_string(id) + " is not pending");
  }
  if (job.pin_retry_s >= 0 && clock_.NowS() < job.pin_retry_s) {
    return Status::Infeasible("job " + std::to_string(id) + ": Slurm refused its last pins; not tried again yet");
  }
  if (job.preempt_open) {
    // Slurm may still be stopping its last run (a requeue takes KillWait and more): a release
    // now would let that run's requeue pass for Slurm's own. Started once a poll shows it held.
    return Status::Infeasible("job " + std::to_string(id) + ": its preemption is not seen through yet");
  }
  for (DeviceId d : devices) {
    if (!state_.is_free(d)) return Status::Internal("job " + std::to_string(id) + ": device " + std::to_string(d) + " is busy");
  }
  HETSCHED_ASSIGN_OR_RETURN(PinUpdate pin, PinUpdateFor(cluster_, job.request, id, devices));
  if (job.goodput) HETSCHED_RETURN_IF_ERROR(PlaceGoodput(job, id, devices));  // its .alloc, before its release
  const DeviceTypeId type = cluster_.cluster.device(devices.front()).type;
  JournalRecord placed = JournalRecord::Of("place", id);
  placed.nodes = pin.nodes;
  placed.type = cluster_.cluster.device_catalog().type(type).name;
  placed.devices.assign(devices.begin(), devices.end());
  if (job.goodput) placed.text = GoodputAllocJson(job.alloc);  // what its .alloc holds (docs/slurm.md)
  // The intent: made durable (one sync for the batch) before the pin, in FlushReleases().
  HETSCHED_RETURN_IF_ERROR(Append(placed));
  HETSCHED_RETURN_IF_ERROR(HoldDevices(job, devices));
  SetPhase(job, Phase::kReleased);
  job.nodes = std::move(pin.nodes);
  job.type_name = placed.type;
  job.uneven = !pin.even;
  ++job.placements;
  job.status.state = JobState::kRunning;
  job.status.last_start_s = now();
  if (job.status.first_start_s < 0) job.status.first_start_s = job.status.last_start_s;
  job.status.iteration_rate = job.StartRate(planned.estimate.iteration_s);  // a goodput job's: MarkProgress
  unreleased_.push_back(Unreleased{id, t0, std::move(pin.argv)});
  if (static_cast<int>(unreleased_.size()) >= std::max(1, options_.release_batch)) FlushReleases();
  return Status::Ok();
}

void Agent::Unplace(AgentJob& job, JobId id, const std::string& msg, bool refused) {
  Report(msg);
  if (refused && ++job.pins_refused >= kPinRefusalsBeforeBackoff) {
    const int extra = std::min(job.pins_refused - kPinRefusalsBeforeBackoff, 5);
    const double wait_s = std::min(300.0, 10.0 * static_cast<double>(1 << extra));
    job.pin_retry_s = clock_.NowS() + wait_s;
    wakeups_.insert(now() + wait_s);  // the policy decides again then
    Report("job " + std::to_string(id) + ": Slurm refused its placement " + std::to_string(job.pins_refused) +
           " times in a row: not placed again for " + std::to_string(static_cast<int>(wait_s)) +
           " s (check the job's request in Slurm)");
  }
  (void)Append(JournalRecord::Of("unplace", id, msg));  // a failure is kept in fatal_
  ReleaseDevices(job);
  --job.placements;
  SetPhase(job, Phase::kPending);
  job.status.state = JobState::kPending;
  changed_ = true;
  // Inside the policy's own pass (a batch flushed from StartJob) the policy still takes the job
  // for started when StartJob returns: tell it once the pass is over.
  if (in_pass_) {
    requeue_after_pass_.push_back(id);
  } else if (job.policy_knows) {
    methods_.scheduler->OnJobRequeued(job.status, ctx_);
  }
}

void Agent::FlushReleases() {
  if (unreleased_.empty()) return;
  std::vector<Unreleased> batch;
  batch.swap(unreleased_);
  // 0. The placements are durable before anything is sent: a restarted agent must know where a
  // released job was placed (a pin alone, of a job still held, is simply decided again). When the
  // journal fails, nothing is sent; the run ends with the error (Step), and a restarted agent,
  // which finds these jobs held, decides them again.
  if (!SyncJournal().ok()) return;
  // 1. Pin every job of the batch, all updates at once (independent jobs).
  std::vector<std::vector<std::string>> updates;
  for (const Unreleased& u : batch) updates.push_back(u.pin);
  const std::vector<Result<CommandResult>> pinned = runner_.RunAll(updates);
  std::vector<const Unreleased*> ready;
  std::string list;
  for (size_t i = 0; i < batch.size(); ++i) {
    const Result<CommandResult>& r = pinned[i];
    if (!r.ok() || r->exit_code != 0) {
      ++slurm_errors_;
      Unplace(*jobs_.at(batch[i].id), batch[i].id,
              "job " + std::to_string(batch[i].id) + ": " + DescribeCommand(batch[i].pin) + " failed: " +
                  (r.ok() ? "exit " + std::to_string(r->exit_code) + ": " + std::string(Trim(r->err))
                          : r.status().message()),
              /*refused=*/Refused(r));
      continue;
    }
    ready.push_back(&batch[i]);
    list += (list.empty() ? "" : ",") + std::to_string(batch[i].id);
  }
  if (ready.empty() || !fatal_.ok()) return;
  // 2. Release them with one command.
  auto all = Slurm({"scontrol", "release", list});
  const bool batch_ok = all.ok() && all->exit_code == 0;
  for (const Unreleased* u : ready) {
    AgentJob& job = *jobs_.at(u->id);
    if (!batch_ok) {  // find out which one failed: release each (releasing twice is harmless)
      auto one = Slurm({"scontrol", "release", std::to_string(u->id)});
      if (!one.ok() || one->exit_code != 0) {
        Unplace(job, u->id,
                "job " + std::to_string(u->id) + ": scontrol release failed: " +
                    (one.ok() ? std::string(Trim(one->err)) : one.status().message()),
                /*refused=*/Refused(one));
        continue;
      }
    }
    (void)Append(JournalRecord::Of("release", u->id));  // a failure is kept in fatal_: the run ends
    job.released_at_s = clock_.NowS();
    job.pins_refused = 0;
    job.pin_retry_s = -1;
    job.stuck_reported = false;
    release_latencies_s_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - u->decided).count());
  }
}

Status Agent::StartSharedJob(JobId id, JobId host, const PlannedJob& /*planned*/) {
  const std::string why = "space sharing declined: job " + std::to_string(id) + " cannot share job " +
                          std::to_string(host) +
                          "'s GPUs (Slurm gives a GPU to one job whatever OverSubscribe says; co-location "
                          "needs gres/shard or gres/mps, which the agent does not request)";
  if (!sharing_reported_) {
    sharing_reported_ = true;
    Report(why + "; reported once, later refusals are silent");
  }
  return Status::Infeasible(why);
}

Status Agent::PreemptJob(JobId id) {
  AgentJob& job = *jobs_.at(id);
  if (job.phase != Phase::kReleased && job.phase != Phase::kRunning) {
    return Status::InvalidArgument("job " + std::to_string(id) + " is not running");
  }
  auto waiting = std::find_if(unreleased_.begin(), unreleased_.end(), [id](const Unreleased& u) { return u.id == id; });
  if (waiting != unreleased_.end()) {
    // Neither pinned nor released in Slurm yet: nothing to stop there, the placement is undone.
    unreleased_.erase(waiting);
    HETSCHED_RETURN_IF_ERROR(Append(JournalRecord::Of("unplace", id, "preempted by the policy before its release")));
    ReleaseDevices(job);
    --job.placements;
    SetPhase(job, Phase::kPending);
    job.status.state = JobState::kPending;
    job.status.queued_since_s = now();
    return Status::Ok();
  }
  // Journaled before it is sent; the policy counts the job pending from now on (the next poll
  // shows whether Slurm requeued it, kept it from starting, or saw it end first).
  HETSCHED_RETURN_IF_ERROR(OpenPreemption(job, kPreemptedByPolicy));
  AccountRunEnd(job, clock_.NowS());
  ReleaseDevices(job);
  SetPhase(job, Phase::kPending);
  job.status.state = JobState::kPending;
  job.status.queued_since_s = now();
  changed_ = true;
  return Status::Ok();
}

Status Agent::OpenPreemption(AgentJob& job, const std::string& why) {
  const JobId id = job.status.spec->id;
  JournalRecord r = JournalRecord::Of("preempt", id, why);
  r.value = job.restart_count;
  HETSCHED_RETURN_IF_ERROR(Intend(r));
  job.preempt_open = true;
  job.preempt_why = why;
  job.preempted_run_start_s = job.run_start_epoch_s;
  job.run_probe_s = -1;
  job.run_gone = false;
  SendPreemption(id, job.phase == Phase::kRunning);
  return Status::Ok();
}

bool Agent::RunLostBySlurm(AgentJob& job) {
  const std::string id = std::to_string(job.status.spec->id);
  const double now_s = clock_.NowS();
  if (job.lost_cancel_s >= 0) {  // sent: again while Slurm lists it running
    if (now_s - job.lost_cancel_s >= kRerunCancelRetryS) SendCancel(job.status.spec->id, &job.lost_cancel_s);
    return true;
  }
  const double ctld_boot_s = health_.ctld_boot_s();
  if (job.preempted_run_start_s < 0 || ctld_boot_s <= 0 || job.preempted_run_start_s > ctld_boot_s) return false;
  if (job.run_probe_s < 0 || now_s - job.run_probe_s >= kRunProbeEveryS) {
    job.run_probe_s = now_s;
    auto r = Slurm({"sstat", "--noheader", "--allsteps", "--jobs", id, "--format", "JobID"});
    // A step listed, or no answer: the run is taken as running (the preemption is sent).
    job.run_gone = r.ok() && r->exit_code == 0 && Trim(r->out).empty();
    if (job.run_gone) {
      Report("job " + id + ": Slurm lists it running, but no step of it runs: its run ended while slurmctld was " +
             "down or restarting; not requeued (it would run again)");
    }
  }
  if (!job.run_gone) return false;
  if (now_s - ctld_boot_s < kLostRunGraceS) return true;  // its completion may still reach slurmctld
  JournalRecord r = JournalRecord::Of("cancel", job.status.spec->id,
                                      "its run ended and slurmctld lost its end (it lists it running, no step runs): "
                                      "cancelled, not run again");
  r.value = job.restart_count;
  if (!Intend(r).ok()) return true;  // kept in fatal_
  Report("job " + id + ": its completion has not reached slurmctld " + std::to_string(static_cast<int>(kLostRunGraceS)) +
         " s after its start (slurmctld lost it): cancelled, not run again");
  SendCancel(job.status.spec->id, &job.lost_cancel_s);
  return true;
}

void Agent::SendPreemption(JobId id, bool running) {
  if (!health_.Settled()) {
    // Just after an outage a job Slurm shows running may have ended meanwhile (its completion
    // not yet delivered): sent once Slurm has settled, by the poll that sees it still running.
    health_.ReportWaiting();
    return;
  }
  if (running && RunLostBySlurm(*jobs_.at(id))) return;
  // Both are sent whatever Slurm's state: `hold` keeps a job that has not started from starting
  // (on a running job it only sets its priority to 0); `requeuehold Incomplete` requeues a job
  // that is running or configuring and leaves one that has ended or is ending alone (plain
  // `requeuehold` would requeue a completed job: it would run twice). Each is idempotent.
  const std::string job = std::to_string(id);
  auto hold = Slurm({"scontrol", "hold", job});
  auto requeue = Slurm({"scontrol", "requeuehold", "Incomplete", job});
  const bool sent = (hold.ok() && hold->exit_code == 0) || (requeue.ok() && requeue->exit_code == 0);
  if (!sent) {
    Report("job " + job + ": preemption not accepted yet (" +
           (requeue.ok() ? std::string(Trim(requeue->err)) : requeue.status().message()) + "): sent again at the next poll");
  }
}

void Agent::ClosePreemption(AgentJob& job, const SlurmJob& sj) {
  const JobId id = job.status.spec->id;
  const bool requeued = sj.restart_count > job.restart_count;
  JournalRecord r = JournalRecord::Of(
      "requeue", id, job.preempt_why + (requeued ? "" : " (before it started: held again, not requeued)"));
  r.value = sj.restart_count;
  (void)Append(r);  // a failure is kept in fatal_
  job.preempt_open = false;
  changed_ = true;  // the job may be started again (StartJob declined it until now): a pass is due
  if (job.preempt_why == kPreemptedByPolicy) ++preempted_;
  CountRequeues(job, sj.restart_count, /*by_slurm=*/false);
}

void Agent::Hold(JobId id) {
  auto r = Slurm({"scontrol", "hold", std::to_string(id)});
  if (!r.ok() || r->exit_code != 0) {
    Report("job " + std::to_string(id) + ": scontrol hold failed (" +
           (r.ok() ? std::string(Trim(r->err)) : r.status().message()) + "): tried again at the next poll");
  }
}

}  // namespace hetsched::slurm
