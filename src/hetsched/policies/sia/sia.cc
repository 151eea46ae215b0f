// Sia's scheduling policy as its simulator runs it [SRC: Jayaram Subramanya et al., SOSP 2023,
// sec. 3-4; siasosp23/artifacts, sia-simulator/sia.py, cluster.py:340-430, job.py:240-260 (no
// licence: behaviour reproduced, nothing copied)]: every `round` seconds (60) while jobs are
// active, an integer program (sia_problem.h, CBC) gives each job at most one configuration, GPUs
// of one node group on whole nodes or within one node, for the least sum of each job's
// normalised goodput to the power p (-0.5) plus lambda_n (1.1) per job left without GPUs. A job's
// goodputs come from what it reports of itself (SchedContext::goodput_job with its model): its
// goodput at the batch it would pick within its largest batch (the user's batch size when it has
// one, as Sia's job.py:253-255 passes it; else its application's); a job that has not measured
// itself yet may have one GPU. Its GPUs range from 1 to twice the most it has measured itself on
// (at most 64, its largest batch over its smallest local batch, and its application's own limit).
// A job whose configuration changes pays the re-allocation factor on every other configuration
// (restart penalty per application, sia.py:22-34); one still in its checkpoint-restore delay
// keeps its configuration. Placement: a job whose configuration stays keeps its nodes (Sia's
// simulator re-packs every job each round with its fast placer, sia.py:155-204, but compares a
// job's GPUs per node, not its nodes: a job moved in the same shape neither restarts nor pays its
// delay there, cluster.py:185-216, job.py:526-528; here a job cannot change nodes without
// restarting, so it stays); the others are placed by Sia's fast placer around them.
// `placement=fast` re-packs every job and restarts those whose nodes change.
//
// Beyond Sia's simulator [REC]: a job that is not a goodput job, or is not elastic, is one of
// Sia's rigid jobs: its requested GPUs on any node group of a type it allows, each worth its GPU
// count (Sia scales rigid jobs' throughputs across types by the profiles' ratios, which only
// goodput jobs have here). A goodput job has a model per GPU type it was profiled on, as in Sia,
// and a type it has not run on borrows a model by projection (`project`, on: Sia's experiments run
// with --project_throughputs and --share_max_replicas, its run_experiment.sh). sia-plus's parts
// (docs/goodput.md, "sia-plus"): elastic resizes, priced moves, a prior start, hand-overs, split
// jobs (split_jobs.h: after the placements, long running jobs borrow idle GPUs of a second type
// where their own prediction says it pays, given back as soon as a round places another job there
// or their timings say it did not pay), jobs starting from their application's history
// (JobScheduler::shares_application_history), and the program's terms weighed toward the jobs
// with the least time left (WeighByRemaining).

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/perf/goodput.h"
#include "hetsched/policies/sia/sia_policy.h"
#include "hetsched/policies/sia/split_jobs.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace sia_internal {

void SiaPolicy::Schedule(SchedContext& ctx) {
  if (!grid_.Due(ctx, !active_.empty())) return;
  if (active_.empty()) return;
  if (groups_.empty()) {
    groups_ = sia_internal::GroupNodes(ctx.cluster());
    configs_ = sia_internal::Configurations(groups_);
    node_group_.assign(static_cast<size_t>(ctx.cluster().num_nodes()), -1);
    index_in_group_.assign(static_cast<size_t>(ctx.cluster().num_nodes()), -1);
    for (size_t g = 0; g < groups_.size(); ++g) {
      for (size_t k = 0; k < groups_[g].nodes.size(); ++k) {
        node_group_[static_cast<size_t>(groups_[g].nodes[k])] = static_cast<int>(g);
        index_in_group_[static_cast<size_t>(groups_[g].nodes[k])] = static_cast<int>(k);
      }
    }
  }
  std::vector<SiaJobRow> rows(active_.size());
  for (size_t j = 0; j < active_.size(); ++j) {
    if (!Describe(ctx, active_[j], &rows[j])) return;  // a fault, kept in the context
  }
  sia_internal::WeighByRemaining(rows, s_.remaining_k);
  // Each group's GPUs: those free and those the active jobs hold.
  const std::vector<int> node_gpus = pollux_internal::RoundNodeGpus(ctx, active_);
  std::vector<int> capacity;
  for (const NodeGroup& g : groups_) {
    int sum = 0;
    for (NodeId n : g.nodes) sum += node_gpus[static_cast<size_t>(n)];
    capacity.push_back(sum);
  }
  Result<std::vector<int>> choice = sia_internal::SolveRound(capacity, rows, s_.solve);
  if (!choice.ok()) {
    ctx.Fail(choice.status().WithContext("policy 'sia' at " + std::to_string(ctx.now()) + " s"));
    return;
  }
  Apply(ctx, rows, *choice, node_gpus);
  grid_.Next(ctx, !active_.empty());
}

bool SiaPolicy::Describe(SchedContext& ctx, JobId id, SiaJobRow* row) {
  const Cluster& cluster = ctx.cluster();
  const JobStatus& st = ctx.job(id);
  const JobSpec& spec = *st.spec;
  std::vector<bool> allowed(groups_.size());
  for (size_t g = 0; g < groups_.size(); ++g) allowed[g] = spec.AllowsType(groups_[g].type, cluster.device_catalog());
  std::optional<GoodputJobView> view = ctx.goodput_job(id, /*with_model=*/true);
  if (ctx.failed()) return false;
  const double age = ctx.now() - spec.submit_time_s;
  const int restarts = view ? view->restarts : 0;
  std::string application = view && view->application ? view->application->name() : spec.model;
  double penalty = s_.restart_penalty_s >= 0 ? s_.restart_penalty_s : sia_internal::RestartPenalty(application);
  if (s_.priced_moves && s_.restart_penalty_s < 0 && view && view->application->restart_delay_s() > 0) {
    penalty = view->application->restart_delay_s();  // what a restart costs it, as its application declares
  }
  // A move is still weighed at the restart's price where it can be handed over: weighed at the
  // hand-over's, the program moved jobs more often than the cheaper moves paid for
  // (docs/goodput.md, "sia-plus").
  row->hand_over = s_.hand_over && st.state == JobState::kRunning && spec.elastic &&
                   std::isfinite(HandOverProbeS(ctx, id));
  row->realloc_factor = s_.priced_moves ? sia_internal::PricedFactor(age, restarts, penalty)
                                        : sia_internal::ReallocFactor(age, restarts, penalty);
  row->hold = view && view->delay_left_s > 0;
  if (s_.remaining_k > 0 && view) row->remaining_s = sia_internal::RemainingS(st, *view);
  row->elastic_group = -1;
  if (s_.resize_elastic && st.state == JobState::kRunning && spec.elastic) {
    const double pause = ElasticPauseS(ctx, id);
    if (std::isfinite(pause)) {
      row->elastic_group = node_group_[static_cast<size_t>(cluster.device(st.devices.front()).node)];
      row->elastic_factor = sia_internal::PricedFactor(age, restarts, pause);
    }
  }
  if (!view || !spec.elastic) {
    for (size_t g = 0; g < groups_.size(); ++g) {
      const int total = groups_[g].gpus_per_node * static_cast<int>(groups_[g].nodes.size());
      if (allowed[g] && spec.num_gpus <= total) row->options.push_back({static_cast<int>(g), spec.num_gpus, double(spec.num_gpus)});
    }
  } else {
    sia_internal::GoodputRowSettings rs;
    rs.batch_from_job = s_.batch_from_job;
    rs.project = s_.project;
    row->options = s_.prior_start && !view->grad.has_value()
                       ? sia_internal::PriorOptions(*view, groups_, configs_, allowed, spec.num_gpus)
                       : sia_internal::GoodputOptions(*view, groups_, configs_, allowed, rs);
  }
  row->previous = -1;
  if (auto it = previous_.find(id); it != previous_.end()) {
    for (size_t o = 0; o < row->options.size(); ++o) {
      if (row->options[o].group == it->second.group && row->options[o].gpus == it->second.gpus) {
        row->previous = static_cast<int>(o);
      }
    }
  }
  if (row->previous < 0) row->hold = false;
  return true;
}

double SiaPolicy::ElasticPauseS(SchedContext& ctx, JobId id) {
  std::vector<DeviceId> devices = ctx.job(id).devices;
  if (devices.size() >= 2) {
    devices.pop_back();
    return ctx.ResizePauseS(id, devices);
  }
  const DeviceTypeId type = ctx.cluster().device(devices.front()).type;
  std::vector<DeviceId> free;
  for (NodeId n : ctx.state().nodes_of_type(type)) {
    if (ctx.state().free_on_node(n) == 0) continue;
    ctx.state().AppendFreeDevices(n, &free);
    devices.push_back(free.front());
    return ctx.ResizePauseS(id, devices);
  }
  return kInf;
}

double SiaPolicy::HandOverProbeS(SchedContext& ctx, JobId id) {
  const Cluster& cluster = ctx.cluster();
  const std::vector<DeviceId>& own = ctx.job(id).devices;
  std::vector<bool> used(static_cast<size_t>(cluster.num_nodes()), false);
  for (DeviceId d : own) used[static_cast<size_t>(cluster.device(d).node)] = true;
  std::vector<DeviceId> probe;
  for (DeviceId d = 0; d < cluster.num_devices() && probe.size() < own.size(); ++d) {
    if (!used[static_cast<size_t>(cluster.device(d).node)]) probe.push_back(d);
  }
  return probe.size() == own.size() ? ctx.HandOverPauseS(id, probe) : kInf;
}

}  // namespace sia_internal

namespace {

using sia_internal::SiaPolicy;
using sia_internal::SiaPolicySettings;

// The options both policies read; `s` holds the policy's defaults and its name.
Status ReadSiaOptions(const Options& options, SiaPolicySettings& s) {
  const std::string who = "policy '" + s.name + "': ";
  HETSCHED_ASSIGN_OR_RETURN(s.round_s, options.GetDouble("round", 60));
  HETSCHED_ASSIGN_OR_RETURN(s.solve.p, options.GetDouble("p", -0.5));
  HETSCHED_ASSIGN_OR_RETURN(s.solve.lambda_n, options.GetDouble("lambda_n", 1.1));
  HETSCHED_ASSIGN_OR_RETURN(s.restart_penalty_s, options.GetDouble("restart_penalty", -1));
  HETSCHED_ASSIGN_OR_RETURN(s.solve.relative_gap, options.GetDouble("gap", 1e-4));
  const std::string max_batch = options.GetString("max_batch", "job");
  if (max_batch != "job" && max_batch != "application") {
    return Status::InvalidArgument(who + "option 'max_batch' must be 'job' (Sia: the user's batch size caps the goodputs it "
                                   "weighs) or 'application' (its application's largest batch, as Pollux)");
  }
  s.batch_from_job = max_batch == "job";
  const std::string placement = options.GetString("placement", s.keep_placements ? "keep" : "fast");
  if (placement != "fast" && placement != "keep") {
    return Status::InvalidArgument(who + "option 'placement' must be 'keep' (a job whose configuration stays keeps its "
                                   "nodes) or 'fast' (every job re-packed each round, those moved restarted)");
  }
  s.keep_placements = placement == "keep";
  HETSCHED_ASSIGN_OR_RETURN(s.project, options.GetBool("project", true));
  if (!(s.round_s > 0) || !std::isfinite(s.round_s)) {
    return Status::InvalidArgument(who + "option 'round' must be > 0 seconds");
  }
  if (!(s.solve.p < 0) || !std::isfinite(s.solve.p)) {
    return Status::InvalidArgument(who + "option 'p' must be < 0 (Sia minimises goodput^p; Sia's value: -0.5)");
  }
  if (!(s.solve.lambda_n >= 0) || !std::isfinite(s.solve.lambda_n)) {
    return Status::InvalidArgument(who + "option 'lambda_n' must be >= 0");
  }
  if (!std::isfinite(s.restart_penalty_s)) {
    return Status::InvalidArgument(who + "option 'restart_penalty' must be seconds (< 0: Sia's per-application table)");
  }
  if (!(s.solve.relative_gap >= 0 && s.solve.relative_gap < 1)) {
    return Status::InvalidArgument(who + "option 'gap' must be in [0, 1)");
  }
  return Status::Ok();
}

// A choice between two words, `on` setting the part.
Status ReadPart(const Options& options, const std::string& who, const std::string& key, const std::string& on,
                const std::string& off, bool* part) {
  const std::string v = options.GetString(key, *part ? on : off);
  if (v != on && v != off) {
    return Status::InvalidArgument(who + "option '" + key + "' must be '" + on + "' or '" + off + "', got '" + v + "'");
  }
  *part = v == on;
  return Status::Ok();
}

Result<std::unique_ptr<JobScheduler>> MakeSia(const Options& options) {
  SiaPolicySettings s;
  HETSCHED_RETURN_IF_ERROR(ReadSiaOptions(options, s));
  return std::unique_ptr<JobScheduler>(std::make_unique<SiaPolicy>(s));
}

Result<std::unique_ptr<JobScheduler>> MakeSiaPlus(const Options& options) {
  SiaPolicySettings s;
  s.name = "sia-plus";
  // start=prior: measured no gain beside elastic resizes; history: -6%, split beside it -2%, the
  // lean toward jobs near their end -2% average JCT on Sia's workloads (docs/goodput.md, "sia-plus").
  s.resize_elastic = s.priced_moves = s.hand_over = s.split = s.history = true;
  s.remaining_k = 0.5;
  HETSCHED_RETURN_IF_ERROR(ReadSiaOptions(options, s));
  const std::string who = "policy 'sia-plus': ";
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "resize", "elastic", "restart", &s.resize_elastic));
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "moves", "priced", "sia", &s.priced_moves));
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "start", "prior", "one", &s.prior_start));
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "handover", "on", "off", &s.hand_over));
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "split", "on", "off", &s.split));
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "history", "on", "off", &s.history));
  HETSCHED_ASSIGN_OR_RETURN(s.split_per_own, options.GetDouble("split_per_own", s.split_per_own));
  HETSCHED_ASSIGN_OR_RETURN(s.split_min_left_rounds, options.GetDouble("split_min_left", s.split_min_left_rounds));
  HETSCHED_ASSIGN_OR_RETURN(s.split_gain, options.GetDouble("split_gain", s.split_gain));
  HETSCHED_ASSIGN_OR_RETURN(s.remaining_k, options.GetDouble("remaining", s.remaining_k));
  if (!(s.remaining_k >= 0 && s.remaining_k <= 4)) {
    return Status::InvalidArgument(who + "option 'remaining' must be in [0, 4] (the lean toward jobs with the least time "
                                   "left: 0 none, 0.5 the default)");
  }
  if (!(s.split_gain >= 0) || !std::isfinite(s.split_gain)) {
    return Status::InvalidArgument(who + "option 'split_gain' must be a finite number >= 0 (the predicted gain a loan needs, 0.1: 10%)");
  }
  if (!(s.split_per_own >= 0) || !std::isfinite(s.split_per_own)) {
    return Status::InvalidArgument(who + "option 'split_per_own' must be >= 0 (borrowed GPUs per GPU of its own)");
  }
  if (!(s.split_min_left_rounds >= 0) || !std::isfinite(s.split_min_left_rounds)) {
    return Status::InvalidArgument(who + "option 'split_min_left' must be >= 0 rounds");
  }
  return std::unique_ptr<JobScheduler>(std::make_unique<SiaPolicy>(s));
}

const MethodInfo kSiaInfo{
    "sia",
    "Sia: each job's GPU type, count and batch size for goodput, an integer program each round",
    "[SRC] Jayaram Subramanya et al., SOSP 2023; siasosp23/artifacts sia-simulator/sia.py (CBC, p = -0.5, lambda_n = 1.1, "
    "goodputs per GPU type, projected onto types a job has not run on); "
    "[REC] non-goodput jobs as rigid"};

const MethodInfo kSiaPlusInfo{
    "sia-plus",
    "Sia's integer program with hetsched's parts: elastic resizes at their price, moves priced, a prior start, "
    "hand-overs and jobs split over two GPU types (resize=elastic|restart, moves=priced|sia, start=one|prior, "
    "handover=on|off, split=on|off with split_per_own=1, split_min_left=10 rounds and split_gain=0.1, "
    "history=on|off, remaining=0.5 (0: off); all off: sia)",
    "[SRC] Sia's program (as 'sia'); [REC] the parts: elastic resizes inside a job's type priced by the back end "
    "(docs/elastic.md), re-allocations weighed at their own price, a first placement from the application's "
    "one-GPU throughputs up to the user's GPUs, moves to other nodes or types as elastic hand-overs, idle GPUs of "
    "a second type lent to long running jobs where their own prediction says it pays, jobs starting from what "
    "their application's earlier jobs measured, the program's terms weighed toward the jobs with the least "
    "time left (after heSRPT, Berg et al. 2020) (docs/goodput.md, \"sia-plus\", \"Split jobs\", \"History\", "
    "\"Remaining time\")"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kSiaRegistered, kSiaInfo, MakeSia)
HETSCHED_REGISTER_IMPL(JobScheduler, kSiaPlusRegistered, kSiaPlusInfo, MakeSiaPlus)

}  // namespace hetsched
