#include "hetsched/slurm/agent.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "hetsched/sched/registry.h"
#include "hetsched/slurm/agent_job.h"
#include "hetsched/util/text.h"

namespace hetsched::slurm {

const char* PhaseName(Phase p) {
  switch (p) {
    case Phase::kPending: return "pending";
    case Phase::kReleased: return "released";
    case Phase::kRunning: return "running";
    case Phase::kFinished: return "finished";
  }
  return "?";
}

Result<AgentMethods> CreateAgentMethods(const std::string& policy, const std::string& placer,
                                        const std::string& planner) {
  AgentMethods m;
  HETSCHED_ASSIGN_OR_RETURN(m.scheduler, Registry<JobScheduler>::Instance().Create(policy, Options{}));
  HETSCHED_ASSIGN_OR_RETURN(m.placer, Registry<Placer>::Instance().Create(placer, Options{}));
  HETSCHED_ASSIGN_OR_RETURN(m.planner, Registry<Planner>::Instance().Create(planner, Options{}));
  return m;
}

Agent::Agent(CommandRunner& runner, Clock& clock, const ModelZoo& zoo, AgentMethods methods, AgentOptions options,
             SlurmCluster cluster, Journal journal)
    : runner_(runner),
      clock_(clock),
      zoo_(zoo),
      methods_(std::move(methods)),
      options_(std::move(options)),
      cluster_(std::move(cluster)),
      journal_(std::move(journal)),
      state_(cluster_.cluster),
      ctx_(*this, state_, *methods_.placer, *methods_.planner, zoo_),
      node_down_(static_cast<size_t>(cluster_.cluster.num_nodes()), false),
      down_by_type_(static_cast<size_t>(cluster_.cluster.device_catalog().size()), 0) {}

Agent::~Agent() = default;

Result<std::unique_ptr<Agent>> Agent::Start(CommandRunner& runner, Clock& clock, const ModelZoo& zoo,
                                            AgentMethods methods, AgentOptions options) {
  if (!methods.scheduler || !methods.placer || !methods.planner) {
    return Status::InvalidArgument("agent: a job scheduler, a placer and a planner are all required");
  }
  if (options.journal_path.empty()) return Status::InvalidArgument("agent: a journal path is required");
  auto sinfo = runner.Run({"sinfo", "--json"});
  if (!sinfo.ok()) return sinfo.status().WithContext("agent: sinfo --json");
  if (sinfo->exit_code != 0) {
    return Status::IoError("agent: sinfo --json exited " + std::to_string(sinfo->exit_code) + ": " + sinfo->err);
  }
  auto nodes = ParseSinfoJson(sinfo->out, "sinfo --json");
  if (!nodes.ok()) return nodes.status();
  TranslateOptions translate;
  translate.partition = options.partition;
  translate.type_map = options.type_map;
  auto cluster = TranslateCluster(*nodes, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn(), translate, "sinfo --json");
  if (!cluster.ok()) return cluster.status();
  std::string warning;
  auto journal = Journal::Open(options.journal_path, &warning);
  if (!journal.ok()) return journal.status();
  std::unique_ptr<Agent> agent(new Agent(runner, clock, zoo, std::move(methods), std::move(options),
                                         std::move(cluster).value(), std::move(journal).value()));
  if (!warning.empty()) agent->Report("journal: " + warning);
  HETSCHED_RETURN_IF_ERROR(agent->Restore());
  return agent;
}

double Agent::now() const { return clock_.NowS() - origin_s_; }

const JobStatus& Agent::job_status(JobId id) const { return jobs_.at(id)->status; }

void Agent::Report(const std::string& message) const {
  if (options_.report) options_.report(message);
}

Status Agent::Append(JournalRecord record) {
  if (record.time_s == 0) record.time_s = clock_.NowS();
  journal_dirty_ = true;
  return journal_.Append(record, /*sync=*/false);
}

Status Agent::SyncJournal() {
  if (!journal_dirty_) return Status::Ok();
  journal_dirty_ = false;
  return journal_.Sync();
}

Result<CommandResult> Agent::Slurm(const std::vector<std::string>& argv) {
  auto r = runner_.Run(argv);
  if (!r.ok() || r->exit_code != 0) ++slurm_errors_;
  return r;
}

Result<std::vector<SlurmJob>> Agent::Squeue() {
  auto r = Slurm(SqueuePollCommand(options_.partition));
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) {
    return Status::IoError("squeue exited " + std::to_string(r->exit_code) + ": " + std::string(Trim(r->err)));
  }
  return ParseSqueuePoll(r->out, "squeue");
}

void Agent::SetPhase(AgentJob& job, Phase phase) {
  --phase_count_[static_cast<int>(job.phase)];
  ++phase_count_[static_cast<int>(phase)];
  job.phase = phase;
}

void Agent::BookDown(const std::vector<DeviceId>& devices, int sign) {
  down_devices_ += sign * static_cast<int>(devices.size());
  for (DeviceId d : devices) down_by_type_[static_cast<size_t>(cluster_.cluster.device(d).type)] += sign;
}

Status Agent::RefreshNodes() {
  auto r = Slurm({"sinfo", "--json"});
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) return Status::IoError("sinfo --json exited " + std::to_string(r->exit_code));
  auto nodes = ParseSinfoJson(r->out, "sinfo --json");
  if (!nodes.ok()) return nodes.status();
  std::vector<DeviceId> free;
  for (const SlurmNode& sn : *nodes) {
    const NodeId n = cluster_.Find(sn.name);
    if (n < 0) continue;
    const bool down = !sn.Usable();
    if (down == node_down_[static_cast<size_t>(n)]) continue;
    free.clear();
    if (down) {
      state_.AppendFreeDevices(n, &free);
      HETSCHED_RETURN_IF_ERROR(state_.Allocate(kNodeDownOwner, free));
      BookDown(free, +1);
      Report("node " + sn.name + " is " + sn.state + (sn.reason.empty() ? "" : " (" + sn.reason + ")") +
             ": no new job goes there");
    } else {
      const Node& node = cluster_.cluster.node(n);
      for (int i = 0; i < node.num_devices; ++i) {
        if (state_.owner(node.first_device + i) == kNodeDownOwner) free.push_back(node.first_device + i);
      }
      HETSCHED_RETURN_IF_ERROR(state_.Release(kNodeDownOwner, free));
      BookDown(free, -1);
      Report("node " + sn.name + " is back (" + sn.state + ")");
    }
    node_down_[static_cast<size_t>(n)] = down;
    changed_ = true;
  }
  return Status::Ok();
}

Status Agent::Step() {
  busy_ = false;
  const double t = now();
  if (t >= next_node_refresh_s_) {
    Status st = RefreshNodes();
    if (!st.ok()) {
      if (!slurm_unreachable_) Report("Slurm unreachable (will retry): " + st.message());
      slurm_unreachable_ = true;
      return Status::Ok();
    }
    next_node_refresh_s_ = t + options_.node_refresh_s;
  }
  auto queue = Squeue();
  if (!queue.ok()) {
    if (!slurm_unreachable_) Report("Slurm unreachable (will retry): " + queue.status().message());
    slurm_unreachable_ = true;
    return Status::Ok();
  }
  if (slurm_unreachable_) Report("Slurm reachable again");
  slurm_unreachable_ = false;
  const bool changed_before = changed_;
  changed_ = false;
  std::vector<SlurmJob> fresh;
  const size_t unfinished = jobs_.size() - static_cast<size_t>(phase_count_[static_cast<int>(Phase::kFinished)]);
  size_t unfinished_seen = 0;
  for (SlurmJob& sj : *queue) {
    auto it = jobs_.find(sj.id);
    if (it != jobs_.end()) {
      if (it->second->phase != Phase::kFinished) ++unfinished_seen;
      Follow(*it->second, sj);
    } else if (sj.HeldByUser() && (options_.partition.empty() || sj.partition == options_.partition) &&
               rejected_.count(sj.id) == 0) {
      fresh.push_back(std::move(sj));
    }
  }
  // Jobs Slurm no longer lists (purged after MinJobAge while we were away, or cancelled and gone).
  if (unfinished_seen < unfinished) {
    std::set<JobId> seen;
    for (const SlurmJob& sj : *queue) seen.insert(sj.id);
    for (auto& [id, job] : jobs_) {
      if (job->phase != Phase::kFinished && seen.count(id) == 0) Finish(*job, "VANISHED", 0, clock_.NowS());
    }
  }
  AdmitNew(std::move(fresh));
  busy_ = changed_;
  changed_ = changed_ || changed_before;
  if (refresh_nodes_now_) {  // a requeue is often a node failure: see it before placing again
    refresh_nodes_now_ = false;
    if (Status st = RefreshNodes(); !st.ok()) Report("sinfo after a requeue: " + st.message());
    next_node_refresh_s_ = now() + options_.node_refresh_s;
  }
  const double after = now();
  bool due = changed_;
  while (!wakeups_.empty() && *wakeups_.begin() <= after) {
    wakeups_.erase(wakeups_.begin());
    due = true;
  }
  const double round = methods_.scheduler->round_period_s();
  if (round > 0 && after >= next_round_s_) {
    due = true;
    next_round_s_ = after + round;
  }
  if (due) {
    changed_ = false;
    ++scheduler_calls_;
    in_pass_ = true;
    methods_.scheduler->Schedule(ctx_);
    in_pass_ = false;
    for (JobId id : requeue_after_pass_) {
      AgentJob& job = *jobs_.at(id);
      if (job.policy_knows && job.phase == Phase::kPending) methods_.scheduler->OnJobRequeued(job.status, ctx_);
    }
    requeue_after_pass_.clear();
    FlushReleases();
    Sample();
  }
  // What this poll journaled (admissions, starts, ends, requeues) is durable once per poll.
  if (Status st = SyncJournal(); !st.ok()) Report(st.message());
  return Status::Ok();
}

Status Agent::Run(const std::function<bool()>& stop) {
  while (true) {
    const double t0 = clock_.NowS();
    HETSCHED_RETURN_IF_ERROR(Step());
    if (stop && stop()) return Status::Ok();
    const double interval = busy_ ? options_.busy_poll_interval_s : options_.poll_interval_s;
    clock_.SleepS(interval - (clock_.NowS() - t0));
  }
}

void Agent::AdmitNew(std::vector<SlurmJob> fresh) {
  if (fresh.empty()) return;
  // Names and comments are free text: not in the poll, fetched for the new jobs only.
  std::sort(fresh.begin(), fresh.end(), [](const SlurmJob& a, const SlurmJob& b) { return a.id < b.id; });
  std::vector<long long> ids;
  for (const SlurmJob& sj : fresh) ids.push_back(sj.id);
  auto comments = FetchTextField(runner_, ids, "Comment");
  auto names = comments.ok() ? FetchTextField(runner_, ids, "Name") : comments;
  if (!names.ok()) {  // admitted at a later poll
    ++slurm_errors_;
    Report("squeue (names and comments of new jobs): " + names.status().message());
    return;
  }
  for (SlurmJob& sj : fresh) {
    auto c = comments->find(sj.id);
    auto n = names->find(sj.id);
    if (c == comments->end() || n == names->end()) continue;  // gone meanwhile
    sj.comment = c->second;
    sj.name = n->second;
    Admit(sj);
  }
}

void Agent::Admit(const SlurmJob& sj) {
  JobRequestOptions jo;
  jo.default_model = options_.default_model;
  jo.default_iterations = options_.default_iterations;
  jo.origin_s = origin_s_;
  auto request = TranslateJob(sj, cluster_, zoo_, options_.type_map, jo);
  if (!request.ok()) {
    rejected_.insert(sj.id);
    Report("rejected (left held in Slurm): " + request.status().message());
    JournalRecord r = JournalRecord::Of("reject", sj.id, request.status().message());
    if (Status st = Append(r); !st.ok()) Report(st.message());
    return;
  }
  JournalRecord r = JournalRecord::Of("admit", sj.id);
  r.name = sj.name;
  r.model = request->spec.model;
  r.gpus = request->spec.num_gpus;
  r.iterations = request->spec.iterations;
  r.type = request->gres_type;
  r.submit_s = sj.submit_time_s;
  if (Status st = Append(r); !st.ok()) {
    Report("not admitted (journal): " + st.message());
    return;
  }
  auto job = std::make_unique<AgentJob>();
  job->request = std::move(request).value();
  job->status.spec = &job->request.spec;
  job->status.queued_since_s = job->request.spec.submit_time_s;
  job->policy_knows = true;
  job->restart_count = sj.restart_count;
  ++phase_count_[static_cast<int>(Phase::kPending)];
  AgentJob& ref = *job;
  jobs_[sj.id] = std::move(job);
  changed_ = true;
  methods_.scheduler->OnJobSubmitted(ref.status, ctx_);
}

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
  std::vector<DeviceId> down;
  for (DeviceId d : job.status.devices) {
    if (node_down_[static_cast<size_t>(cluster_.cluster.device(d).node)]) down.push_back(d);
  }
  if (!down.empty() && state_.Allocate(kNodeDownOwner, down).ok()) BookDown(down, +1);
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
  if (Status st = Append(r); !st.ok()) Report(st.message());
  changed_ = true;
}

void Agent::AccountRunEnd(AgentJob& job, double end_epoch_s) {
  if (job.run_start_epoch_s < 0 || job.status.device_type == kNoDeviceType) return;
  const double held_s = std::max(0.0, end_epoch_s - job.run_start_epoch_s);
  const double n = static_cast<double>(job.status.devices.size());
  const DeviceType& type = cluster_.cluster.device_catalog().type(job.status.device_type);
  job.record.gpu_seconds += held_s * n;
  job.record.busy_energy_joules += held_s * n * (type.tdp_watts - type.idle_watts);
  job.record.cost_usd += held_s / 3600.0 * n * type.price_per_hour;
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
    Report("job " + std::to_string(id) + " ended " + state + " (exit code " + std::to_string(exit_code) +
           "): not restarted");
  }
  JournalRecord r = JournalRecord::Of("finish", id);
  r.time_s = end_epoch_s;
  r.state = state;
  r.value = exit_code;
  if (Status st = Append(r); !st.ok()) Report(st.message());
  changed_ = true;
  if (job.policy_knows) methods_.scheduler->OnJobFinished(job.status, ctx_);
  job.policy_knows = false;
}

void Agent::HoldIfNeeded(const SlurmJob& sj) {
  if (sj.HeldByUser()) return;
  auto r = Slurm({"scontrol", "hold", std::to_string(sj.id)});
  if (!r.ok() || r->exit_code != 0) {
    Report("job " + std::to_string(sj.id) + ": scontrol hold failed: " + (r.ok() ? r->err : r.status().message()));
  }
}

void Agent::Requeue(AgentJob& job, const SlurmJob& sj, const std::string& why) {
  const JobId id = sj.id;
  // Keep Slurm from starting it on its old node list; the policy places it again.
  HoldIfNeeded(sj);
  AccountRunEnd(job, clock_.NowS());
  ReleaseDevices(job);
  SetPhase(job, Phase::kPending);
  job.restart_count = sj.restart_count;
  ++job.requeues;
  ++requeued_;
  ++job.status.preemptions;
  job.record.preemptions = job.status.preemptions;
  job.status.state = JobState::kPending;
  job.status.queued_since_s = now();
  refresh_nodes_now_ = true;
  Report("job " + std::to_string(id) + " requeued (" + why + "): placing it again");
  JournalRecord r = JournalRecord::Of("requeue", id, why);
  r.value = sj.restart_count;
  if (Status st = Append(r); !st.ok()) Report(st.message());
  changed_ = true;
  if (job.policy_knows) {
    methods_.scheduler->OnJobRequeued(job.status, ctx_);
  } else {
    job.policy_knows = true;
    methods_.scheduler->OnJobSubmitted(job.status, ctx_);
  }
}

void Agent::Follow(AgentJob& job, const SlurmJob& sj) {
  switch (job.phase) {
    case Phase::kFinished:
      return;
    case Phase::kPending:
      job.restart_count = sj.restart_count;
      if (sj.Terminal()) {
        Finish(job, sj.state, sj.exit_code, sj.end_time_s > 0 ? sj.end_time_s : clock_.NowS());
      } else if (!sj.HeldByUser() && sj.Pending() && sj.reason != "JobHeldAdmin") {
        HoldIfNeeded(sj);  // released by someone else: the agent decides where it runs
      }
      return;
    case Phase::kReleased:
    case Phase::kRunning:
      break;
  }
  if (sj.Active()) {
    if (job.phase == Phase::kReleased) MarkRunning(job, sj);
    return;
  }
  if (sj.Terminal()) {
    if (job.phase == Phase::kReleased && sj.start_time_s > 0 && sj.state != "CANCELLED") MarkRunning(job, sj);
    Finish(job, sj.state, sj.exit_code, sj.end_time_s > 0 ? sj.end_time_s : clock_.NowS());
    return;
  }
  // Pending again in Slurm.
  if (job.phase == Phase::kRunning || sj.restart_count > job.restart_count) {
    Requeue(job, sj, "Slurm requeued it: " + sj.reason);
  } else if (sj.reason == "BadConstraints" || sj.HeldByUser() || (OnDownNode(job) && sj.reason != "None")) {
    // ReqNodeNotAvail alone also shows while a chosen node is busy (Slurm split a per-job GPU count
    // differently from the placer): only a node that is down makes the placement hopeless.
    Requeue(job, sj, "cannot start where it was placed: " + sj.reason);
  }
}

bool Agent::OnDownNode(const AgentJob& job) const {
  for (const std::string& name : job.nodes) {
    const NodeId n = cluster_.Find(name);
    if (n >= 0 && node_down_[static_cast<size_t>(n)]) return true;
  }
  return false;
}

Status Agent::StartJob(JobId id, const PlannedJob& planned) {
  const auto t0 = std::chrono::steady_clock::now();
  AgentJob& job = *jobs_.at(id);
  const std::vector<DeviceId>& devices = planned.plan.devices;
  if (job.phase != Phase::kPending || devices.empty()) {
    return Status::InvalidArgument("job " + std::to_string(id) + " is not pending");
  }
  // Nodes in node-id order, with the number of GPUs on each.
  std::map<NodeId, int> per_node;
  for (DeviceId d : devices) {
    if (!state_.is_free(d)) return Status::Internal("job " + std::to_string(id) + ": device " + std::to_string(d) + " is busy");
    ++per_node[cluster_.cluster.device(d).node];
  }
  std::vector<std::string> names;
  std::string list;
  for (const auto& [n, count] : per_node) {
    names.push_back(cluster_.node_names[static_cast<size_t>(n)]);
    list += (list.empty() ? "" : ",") + names.back();
  }
  const DeviceTypeId type = cluster_.cluster.device(devices.front()).type;
  const std::string k = std::to_string(per_node.size());
  std::vector<std::string> update = {"scontrol", "update", "JobId=" + std::to_string(id), "NumNodes=" + k + "-" + k,
                                     "NodeList=" + list};
  // The same count on every node is expressed exactly, as a per-node GPU request (a per-job
  // request is rewritten so: Slurm accepts that, unlike a change of GPU type). An uneven split is
  // only possible for a per-job request, and Slurm then decides the count per node itself.
  const int first = per_node.begin()->second;
  const bool even = std::all_of(per_node.begin(), per_node.end(), [&](const auto& e) { return e.second == first; });
  if (even) {
    update.push_back("TresPerNode=gres:gpu:" +
                     (job.request.gres_type.empty() ? "" : job.request.gres_type + ":") + std::to_string(first));
    if (job.request.form == GpuRequestForm::kPerJob) update.push_back("TresPerJob=");
  } else if (job.request.form == GpuRequestForm::kPerNode) {
    return Status::Infeasible("job " + std::to_string(id) + " asked for GPUs per node: cannot take an uneven split");
  }
  JournalRecord placed = JournalRecord::Of("place", id);
  placed.nodes = names;
  placed.type = cluster_.cluster.device_catalog().type(type).name;
  placed.devices.assign(devices.begin(), devices.end());
  // Made durable (one sync for the batch) before the release, in FlushReleases().
  HETSCHED_RETURN_IF_ERROR(Append(placed));
  HETSCHED_RETURN_IF_ERROR(HoldDevices(job, devices));
  SetPhase(job, Phase::kReleased);
  job.nodes = names;
  job.type_name = placed.type;
  job.uneven = !even;
  ++job.placements;
  job.status.state = JobState::kRunning;
  job.status.last_start_s = now();
  if (job.status.first_start_s < 0) job.status.first_start_s = job.status.last_start_s;
  job.status.iteration_rate = planned.estimate.iteration_s > 0 ? 1.0 / planned.estimate.iteration_s : 0;
  unreleased_.push_back(Unreleased{id, t0, std::move(update)});
  if (static_cast<int>(unreleased_.size()) >= std::max(1, options_.release_batch)) FlushReleases();
  return Status::Ok();
}

void Agent::Unplace(AgentJob& job, JobId id, const std::string& msg) {
  Report(msg);
  if (Status st = Append(JournalRecord::Of("unplace", id, msg)); !st.ok()) Report(st.message());
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
                          : r.status().message()));
      continue;
    }
    ready.push_back(&batch[i]);
    list += (list.empty() ? "" : ",") + std::to_string(batch[i].id);
  }
  if (ready.empty()) return;
  // 2. The placements are durable before any is released: a restarted agent must know where a
  // released job was placed (a pin alone, of a job still held, is simply decided again).
  if (Status st = SyncJournal(); !st.ok()) {
    for (const Unreleased* u : ready) Unplace(*jobs_.at(u->id), u->id, "job " + std::to_string(u->id) + ": " + st.message());
    return;
  }
  // 3. Release them with one command.
  auto all = Slurm({"scontrol", "release", list});
  const bool batch_ok = all.ok() && all->exit_code == 0;
  for (const Unreleased* u : ready) {
    AgentJob& job = *jobs_.at(u->id);
    if (!batch_ok) {  // find out which one failed: release each (releasing twice is harmless)
      auto one = Slurm({"scontrol", "release", std::to_string(u->id)});
      if (!one.ok() || one->exit_code != 0) {
        Unplace(job, u->id,
                "job " + std::to_string(u->id) + ": scontrol release failed: " +
                    (one.ok() ? std::string(Trim(one->err)) : one.status().message()));
        continue;
      }
    }
    if (Status st = Append(JournalRecord::Of("release", u->id)); !st.ok()) Report(st.message());
    release_latencies_s_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - u->decided).count());
  }
}

Status Agent::PreemptJob(JobId id) {
  AgentJob& job = *jobs_.at(id);
  if (job.phase != Phase::kReleased && job.phase != Phase::kRunning) {
    return Status::InvalidArgument("job " + std::to_string(id) + " is not running");
  }
  auto waiting = std::find_if(unreleased_.begin(), unreleased_.end(), [id](const Unreleased& u) { return u.id == id; });
  if (waiting != unreleased_.end()) {
    unreleased_.erase(waiting);  // not yet pinned nor released in Slurm: nothing to stop there
    --job.placements;
  } else {
    auto r = Slurm({"scontrol", "requeuehold", std::to_string(id)});
    if (!r.ok() || r->exit_code != 0) {
      return Status::IoError("job " + std::to_string(id) + ": scontrol requeuehold failed");
    }
  }
  AccountRunEnd(job, clock_.NowS());
  ReleaseDevices(job);
  SetPhase(job, Phase::kPending);
  ++job.status.preemptions;
  job.record.preemptions = job.status.preemptions;
  job.status.state = JobState::kPending;
  job.status.queued_since_s = now();
  return Append(JournalRecord::Of("requeue", id, "preempted by the policy"));
}

AgentCounts Agent::counts() const {
  AgentCounts c;
  c.rejected = static_cast<long long>(rejected_.size());
  c.slurm_errors = slurm_errors_;
  c.admitted = static_cast<long long>(jobs_.size());
  c.requeued = requeued_;
  c.pending = phase_count_[static_cast<int>(Phase::kPending)];
  c.released = phase_count_[static_cast<int>(Phase::kReleased)];
  c.running = phase_count_[static_cast<int>(Phase::kRunning)];
  c.finished = phase_count_[static_cast<int>(Phase::kFinished)];
  c.failed = failed_;
  return c;
}

std::vector<AgentJobView> Agent::Jobs() const {
  std::vector<AgentJobView> out;
  for (const auto& [id, job] : jobs_) {
    out.push_back(AgentJobView{id, PhaseName(job->phase), job->nodes, job->type_name, job->placements,
                               job->requeues, job->final_state});
  }
  return out;
}

void Agent::Sample() {
  // From the agent's counters and the cluster state's per-type free counts: no scan of the jobs.
  TimelineSample s;
  s.time_s = now();
  s.busy_devices = cluster_.cluster.num_devices() - state_.total_free() - down_devices_;
  s.pending_jobs = static_cast<int>(phase_count_[static_cast<int>(Phase::kPending)]);
  s.running_jobs = static_cast<int>(phase_count_[static_cast<int>(Phase::kReleased)] +
                                    phase_count_[static_cast<int>(Phase::kRunning)]);
  for (DeviceTypeId t : cluster_.cluster.present_types()) {
    const size_t i = static_cast<size_t>(t);
    s.busy_by_type.push_back(cluster_.cluster.devices_per_type()[i] - state_.free_of_type(t) - down_by_type_[i]);
  }
  if (!timeline_.empty() && timeline_.back().busy_devices == s.busy_devices &&
      timeline_.back().running_jobs == s.running_jobs && timeline_.back().pending_jobs == s.pending_jobs) {
    return;
  }
  timeline_.push_back(std::move(s));
}

}  // namespace hetsched::slurm
