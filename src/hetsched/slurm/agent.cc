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

Agent::Agent(CommandRunner& runner, Clock& clock, const ModelZoo& zoo, Methods methods, AgentOptions options,
             SlurmCluster cluster, Journal journal)
    : runner_(runner),
      clock_(clock),
      zoo_(zoo),
      methods_(std::move(methods)),
      options_(std::move(options)),
      cluster_(std::move(cluster)),
      journal_(std::move(journal)),
      health_(clock, options_.settle_after_outage_s,
              [this](const std::vector<std::string>& argv) { return Slurm(argv); },
              [this](const std::string& message) { Report(message); }),
      state_(cluster_.cluster),
      nodes_(cluster_, state_, clock, [this](const std::string& message) { Report(message); }),
      ctx_(*this, state_, *methods_.placer, *methods_.planner, zoo_) {}

Agent::~Agent() = default;

namespace {

// Slurm's nodes when the agent starts. slurmctld may be restarting at the same moment (a machine
// that comes back, a supervisor that restarts both): an answer that is not there (the command
// failed or timed out, or `sinfo --json` reported errors, as it does with slurmctld down) is
// waited for, up to AgentOptions::start_wait_s, and reported once; an answer that does not parse
// is an error at once.
Result<std::vector<SlurmNode>> NodesAtStart(CommandRunner& runner, Clock& clock, const AgentOptions& options,
                                            bool* waited) {
  const double give_up_s = clock.NowS() + options.start_wait_s;
  bool reported = false;
  while (true) {
    Status st;
    auto r = runner.Run({"sinfo", "--json"});
    if (!r.ok()) {
      st = r.status();
    } else if (r->exit_code != 0) {
      st = Status::IoError("sinfo --json exited " + std::to_string(r->exit_code) + ": " + std::string(Trim(r->err)));
    } else {
      auto nodes = ParseSinfoJson(r->out, "sinfo --json");
      if (nodes.ok() || nodes.status().code() == StatusCode::kParseError) return nodes;
      st = nodes.status();
    }
    if (clock.NowS() >= give_up_s) return st.WithContext("agent: Slurm did not answer at start");
    if (!reported && options.report) options.report("Slurm unreachable at start (will retry): " + st.message());
    reported = true;
    *waited = true;
    clock.SleepS(1);
  }
}

}  // namespace

Result<std::unique_ptr<Agent>> Agent::Start(CommandRunner& runner, Clock& clock, const ModelZoo& zoo,
                                            Methods methods, AgentOptions options) {
  if (!methods.scheduler || !methods.placer || !methods.planner) {
    return Status::InvalidArgument("agent: a job scheduler, a placer and a planner are all required");
  }
  if (options.journal_path.empty()) return Status::InvalidArgument("agent: a journal path is required");
  bool waited = false;
  auto nodes = NodesAtStart(runner, clock, options, &waited);
  if (!nodes.ok()) return nodes.status();
  TranslateOptions translate;
  translate.partition = options.partition;
  translate.type_map = options.type_map;
  auto cluster = TranslateCluster(*nodes, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn(), translate, "sinfo --json");
  if (!cluster.ok()) return cluster.status();
  std::optional<GoodputCatalog> goodput;
  if (!options.goodput_dir.empty()) {
    HETSCHED_RETURN_IF_ERROR(PrepareGoodputDir(options.goodput_dir).WithContext("agent"));
    const std::string dir = options.goodput_profiles.empty() ? std::string(GoodputCatalog::kBuiltInDir) : options.goodput_profiles;
    auto opened = GoodputCatalog::OpenNamed(dir, options.goodput_types, options.goodput_settings,
                                            cluster->cluster.device_catalog());
    if (!opened.ok()) return opened.status().WithContext("agent: goodput profiles");
    goodput = std::move(opened).value();
  }
  std::string warning;
  auto journal = Journal::Open(options.journal_path, &warning);
  if (!journal.ok()) return journal.status();
  std::unique_ptr<Agent> agent(new Agent(runner, clock, zoo, std::move(methods), std::move(options),
                                         std::move(cluster).value(), std::move(journal).value()));
  agent->goodput_catalog_ = std::move(goodput);
  if (!warning.empty()) agent->Report("journal: " + warning);
  if (waited) agent->health_.StartUnreachable();  // its end starts the settling time
  (void)agent->health_.Settled();                 // reads the BOOT_TIME of the slurmctld it starts with
  HETSCHED_RETURN_IF_ERROR(agent->Restore());
  HETSCHED_RETURN_IF_ERROR(agent->ctx_.TakeError());
  return agent;
}

double Agent::now() const { return clock_.NowS() - origin_s_; }

const JobStatus& Agent::job_status(JobId id) const { return jobs_.at(id)->status; }

void Agent::Report(const std::string& message) const {
  if (options_.report) options_.report(message);
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
  // A goodput job that holds no GPUs any more has no placement (its batch is picked at the next).
  if (job.goodput && (phase == Phase::kPending || phase == Phase::kFinished)) GoodputSteps::Deallocate(*job.goodput);
}

Status Agent::RefreshNodes() {
  auto r = Slurm({"sinfo", "--json"});
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) return Status::IoError("sinfo --json exited " + std::to_string(r->exit_code));
  auto nodes = ParseSinfoJson(r->out, "sinfo --json");
  if (!nodes.ok()) return nodes.status();
  const auto running = [this](JobId owner) {
    auto job = jobs_.find(owner);
    return job != jobs_.end() && job->second->phase == Phase::kRunning;
  };
  for (const SlurmNode& sn : *nodes) HETSCHED_RETURN_IF_ERROR(nodes_.Refresh(sn, running, &changed_));
  return Status::Ok();
}

Status Agent::Step() {
  if (!fatal_.ok()) return fatal_;
  busy_ = false;
  std::optional<std::vector<SlurmJob>> queue = Poll();
  if (!queue) return Status::Ok();  // reported; tried again at the next poll
  const bool changed_before = changed_;
  changed_ = false;
  AdmitNew(FollowQueue(*queue));
  if (!options_.goodput_dir.empty()) ReadGoodputMetrics();
  // A journal write that failed: nothing more is decided or sent. A restarted agent replays the
  // journal and reconciles it with Slurm.
  if (!fatal_.ok()) return fatal_;
  if (!options_.goodput_dir.empty()) HETSCHED_RETURN_IF_ERROR(RepickGoodputBatches());
  busy_ = changed_;
  changed_ = changed_ || changed_before;
  if (refresh_nodes_now_) {  // a requeue is often a node failure: see it before placing again
    refresh_nodes_now_ = false;
    if (Status st = RefreshNodes(); !st.ok()) Report("sinfo after a requeue: " + st.message());
    next_node_refresh_s_ = now() + options_.node_refresh_s;
  }
  if (SchedulingDue()) SchedulingPass();
  // A start or preemption that failed inside a policy's call (a journal write, a device already
  // held) ends the agent: the policy believes it happened. The journal lets a restarted agent
  // pick up where this one stopped.
  HETSCHED_RETURN_IF_ERROR(ctx_.TakeError());
  // What this poll journaled (admissions, starts, ends, requeues) is durable once per poll.
  return SyncJournal();
}

std::optional<std::vector<SlurmJob>> Agent::Poll() {
  const double t = now();
  if (t >= next_node_refresh_s_) {
    Status st = RefreshNodes();
    if (!st.ok()) {
      ReportPollFailure(st);
      return std::nullopt;
    }
    next_node_refresh_s_ = t + options_.node_refresh_s;
  }
  auto queue = Squeue();
  if (!queue.ok()) {
    ReportPollFailure(queue.status());
    return std::nullopt;
  }
  health_.Answered();
  health_.Understood();
  return std::move(queue).value();
}

std::vector<SlurmJob> Agent::FollowQueue(std::vector<SlurmJob>& queue) {
  std::vector<SlurmJob> fresh;
  const size_t unfinished = jobs_.size() - static_cast<size_t>(phase_count_[static_cast<int>(Phase::kFinished)]);
  size_t unfinished_seen = 0;
  long long relisted_seen = 0;
  for (SlurmJob& sj : queue) {
    auto it = jobs_.find(sj.id);
    if (it != jobs_.end()) {
      if (it->second->phase != Phase::kFinished) ++unfinished_seen;
      if (it->second->phase == Phase::kFinished && it->second->rerun_cancel_s >= 0) ++relisted_seen;
      Follow(*it->second, sj);
    } else if (sj.HeldByUser() && (options_.partition.empty() || sj.partition == options_.partition) &&
               rejected_.count(sj.id) == 0) {
      fresh.push_back(std::move(sj));
    }
  }
  // Jobs Slurm no longer lists (purged after MinJobAge while we were away, or cancelled and gone):
  // finished, and a cancel of one listed again is over.
  if (unfinished_seen < unfinished || relisted_seen < relisted_) {
    std::set<JobId> seen;
    for (const SlurmJob& sj : queue) seen.insert(sj.id);
    for (auto& [id, job] : jobs_) {
      if (seen.count(id) > 0) continue;
      if (job->phase != Phase::kFinished) {
        Finish(*job, "VANISHED", 0, clock_.NowS());
      } else {
        EndRelisting(*job);
      }
    }
  }
  return fresh;
}

bool Agent::SchedulingDue() {
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
  return due;
}

void Agent::SchedulingPass() {
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
  jo.goodput = goodput_catalog_ ? &*goodput_catalog_ : nullptr;
  auto request = TranslateJob(sj, cluster_, zoo_, options_.type_map, jo);
  if (!request.ok()) {
    JournalRecord r = JournalRecord::Of("reject", sj.id, request.status().message());
    if (!Append(r).ok()) return;  // kept in fatal_: the run ends, and the next agent decides again
    rejected_.insert(sj.id);
    Report("rejected (left held in Slurm): " + request.status().message());
    return;
  }
  JournalRecord r = JournalRecord::Of("admit", sj.id);
  r.name = sj.name;
  r.model = request->spec.model;
  r.gpus = request->spec.num_gpus;
  r.iterations = request->spec.iterations;
  r.type = request->gres_type;
  r.submit_s = sj.submit_time_s;
  r.application = request->spec.application;
  if (!r.application.empty()) {
    r.total_batch = request->spec.total_batch_size;
    r.adaptive = request->spec.adaptive_batch;
    r.elastic = request->spec.elastic;
  }
  if (!Append(r).ok()) return;  // kept in fatal_: the run ends, and the next agent admits it
  auto job = std::make_unique<AgentJob>();
  job->request = std::move(request).value();
  job->status.spec = &job->request.spec;
  job->status.queued_since_s = job->request.spec.submit_time_s;
  job->policy_knows = true;
  job->restart_count = sj.restart_count;
  if (!job->request.spec.application.empty()) MakeGoodputJob(*job);
  ++phase_count_[static_cast<int>(Phase::kPending)];
  AgentJob& ref = *job;
  jobs_[sj.id] = std::move(job);
  changed_ = true;
  methods_.scheduler->OnJobSubmitted(ref.status, ctx_);
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
  c.preempted = preempted_;
  c.slurm_requeued = slurm_requeued_;
  c.relisted = relisted_;
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
  s.busy_devices = cluster_.cluster.num_devices() - state_.total_free() - nodes_.held_devices();
  s.pending_jobs = static_cast<int>(phase_count_[static_cast<int>(Phase::kPending)]);
  s.running_jobs = static_cast<int>(phase_count_[static_cast<int>(Phase::kReleased)] +
                                    phase_count_[static_cast<int>(Phase::kRunning)]);
  if (!timeline_.empty() && timeline_.back().busy_devices == s.busy_devices &&
      timeline_.back().running_jobs == s.running_jobs && timeline_.back().pending_jobs == s.pending_jobs) {
    return;
  }
  timeline_.push_back(s);
  for (DeviceTypeId t : cluster_.cluster.present_types()) {
    const size_t i = static_cast<size_t>(t);
    timeline_busy_by_type_.push_back(cluster_.cluster.devices_per_type()[i] - state_.free_of_type(t) -
                                     nodes_.held_of_type(t));
  }
}

}  // namespace hetsched::slurm
