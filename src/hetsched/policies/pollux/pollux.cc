// Pollux's scheduling policy as its simulator runs it [SRC: Qiao et al., "Pollux: Co-adaptive
// Cluster Scheduling for Goodput-Optimized Deep Learning", OSDI 2021, sec. 4.2; petuum/adaptdl @
// osdi21-artifact, simulator/pollux.py, speedup.py and simulator.py:299-335 (Apache-2.0)]: every
// `round` seconds (60), while jobs are active, a genetic search (NSGA-II, pollux_internal::RunNsga2:
// 100 states, 100 generations, started from last round's best states) over the GPUs each active
// job gets on each node, for the objectives of PolluxProblem (pollux_problem.h); the state with the
// best power mean of speedups is applied. A job's speedup comes from what it reports of itself
// (SchedContext::goodput_job with its model): its goodput with the batch it would pick
// (GoodputModel::Optimize: its application's batch limits, accumulation allowed) relative to its
// goodput on its fair share; a job that has not measured itself yet counts its GPUs over its fair
// share's. Its replica limit: twice the most it has measured itself on (1 before any), at most 64 and
// its largest batch over its smallest local batch, and its application's own limit (ncf: 1). Jobs
// whose allocation changes are stopped and started again where the state puts them (each pays the
// re-allocation delay); jobs adapt their batch sizes (JobScheduler::adapts_batch_sizes).
// Seeded (option `seed`, the run's seed by default): the peer draws from numpy's global stream, so a
// run matches the peer's in distribution only (docs/validation.md compares the spread of seeds).
// Beyond Pollux's workloads [REC]: a job that is not a goodput job, or is not elastic, gets its
// requested GPUs or none (its least and most replicas), and counts them as a job without a model
// does; where the fair-share configuration admits no valid batch (the peer divides by zero there)
// the job's one-GPU goodput is the reference (speedup.py's own base before pollux.py:204-212
// replaces it).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hetsched/perf/goodput.h"
#include "hetsched/policies/pollux/common.h"
#include "hetsched/policies/pollux/nsga2.h"
#include "hetsched/policies/pollux/pollux_problem.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

using pollux_internal::Genome;
using pollux_internal::PolluxJobRow;
using pollux_internal::PolluxProblem;

struct PolluxSettings {
  double round_s = 60;
  double delay_s = 30;  // the restart penalty's delay (pollux.py:322)
  uint64_t seed = 1;
  int max_replicas = 64;  // the most GPUs a job is given (Pollux: 64; Sia's unaware baseline: 16)
  bool unaware = false;   // Sia's heterogeneity-unaware Pollux (below)
  pollux_internal::Nsga2Options ga;
};

class Pollux final : public JobScheduler {
 public:
  explicit Pollux(const PolluxSettings& s) : s_(s), grid_(s.round_s), rng_(s.seed) {}

  std::string_view name() const override { return "pollux"; }
  double round_period_s() const override { return s_.round_s; }
  bool adapts_batch_sizes() const override { return true; }
  bool pools_goodput_models() const override { return s_.unaware; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override { Add(job.spec->id); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    active_.erase(std::remove(active_.begin(), active_.end(), job.spec->id), active_.end());
    vnode_alloc_.erase(job.spec->id);
  }
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override { Add(job.spec->id); }
  void OnJobRunning(const JobStatus& job, SchedContext& /*ctx*/) override { Add(job.spec->id); }

  void Schedule(SchedContext& ctx) override {
    if (!grid_.Due(ctx, !active_.empty())) return;
    if (active_.empty()) return;
    if (s_.unaware && vnode_node_.empty() && !InitVnodes(ctx)) return;
    std::vector<JobId> jobs = OrderedJobs(ctx);
    std::vector<PolluxJobRow> rows;
    rows.reserve(jobs.size());
    for (JobId id : jobs) {
      if (!Describe(ctx, id, jobs.size(), &rows.emplace_back())) return;  // a fault, kept in the context
    }
    const std::vector<int> node_gpus =
        s_.unaware ? std::vector<int>(vnode_node_.size(), vnode_gpus_) : pollux_internal::RoundNodeGpus(ctx, jobs);
    const PolluxProblem problem(std::move(rows), node_gpus, Share(ctx));
    pollux_internal::Nsga2Front front = pollux_internal::RunNsga2(Sampling(problem, jobs), s_.ga, problem.Operators(), rng_);
    size_t best = 0;  // numpy.argmin: the first of the best power means
    for (size_t i = 1; i < front.f.size(); ++i) {
      if (front.f[i][0] < front.f[best][0]) best = i;
    }
    if (s_.unaware) {
      ApplyUnaware(ctx, jobs, front.x[best]);
    } else {
      Apply(ctx, jobs, problem, front.x[best]);
    }
    prev_states_ = std::move(front.x);
    prev_jobs_ = std::move(jobs);
    grid_.Next(ctx, !active_.empty());
  }

 private:
  void Add(JobId id) {
    if (std::find(active_.begin(), active_.end(), id) == active_.end()) active_.push_back(id);
  }

  // Least attained service first, then earliest submitted (pollux.py:145-149; the workload's order
  // on ties, as Python's stable sort of the jobs in submission order).
  std::vector<JobId> OrderedJobs(const SchedContext& ctx) const {
    struct Key {
      double attained, submit;
      JobId id;
    };
    std::vector<Key> keys;
    for (JobId id : active_) {
      const JobStatus& st = ctx.job(id);
      keys.push_back(Key{st.AttainedServiceGpuS(ctx.now()), st.spec->submit_time_s, id});
    }
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
      if (a.attained != b.attained) return a.attained < b.attained;
      if (a.submit != b.submit) return a.submit < b.submit;
      return a.id < b.id;
    });
    std::vector<JobId> out;
    for (const Key& k : keys) out.push_back(k.id);
    return out;
  }

  // One GPU's share of the cluster (pollux.py:201-203: the dominant share of a one-GPU replica).
  static double Share(const SchedContext& ctx) { return 1.0 / ctx.cluster().num_devices(); }

  bool Describe(SchedContext& ctx, JobId id, size_t num_jobs, PolluxJobRow* row) {
    const Cluster& cluster = ctx.cluster();
    const JobStatus& st = ctx.job(id);
    const JobSpec& spec = *st.spec;
    if (s_.unaware) {
      DescribeVnodes(ctx, id, row);
    } else {
      row->current.assign(static_cast<size_t>(cluster.num_nodes()), 0);
      for (DeviceId d : st.devices) ++row->current[static_cast<size_t>(cluster.device(d).node)];
      row->node_limit.assign(static_cast<size_t>(cluster.num_nodes()), 0);
      for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
        if (spec.AllowsType(cluster.node(n).device_type, cluster.device_catalog())) {
          row->node_limit[static_cast<size_t>(n)] = cluster.node(n).num_devices;
        }
      }
    }
    const int nn = static_cast<int>(row->node_limit.size());
    std::optional<GoodputJobView> view = ctx.goodput_job(id, /*with_model=*/true);
    if (ctx.failed()) return false;
    // Fair share: ceil(1 / share / jobs) GPUs on ceil(nodes x share) nodes, in the peer's floats.
    const double share = Share(ctx);
    const int fair_replicas = static_cast<int>(std::ceil(1.0 / share / static_cast<double>(num_jobs)));
    const int fair_nodes = static_cast<int>(std::ceil(nn * share));
    const double age = ctx.now() - spec.submit_time_s;
    const int restarts = view ? view->restarts : 0;
    row->restart_factor = std::max(age - restarts * s_.delay_s, 0.0) / (age + s_.delay_s);
    auto by_count = [fair_replicas](int /*nodes*/, int replicas) { return static_cast<double>(replicas) / fair_replicas; };
    if (!view || !spec.elastic) {
      row->min_replicas = row->max_replicas = spec.num_gpus;
      row->speedup = by_count;
      return true;
    }
    // The unaware job's limits are those of its first profile type's application (Sia's: "aws",
    // job.py:224-245).
    const GoodputApplication& app =
        s_.unaware && !view->types.empty() ? *view->types.front().application : *view->application;
    row->min_replicas = 0;
    row->max_replicas = std::min(pollux_internal::GoodputMaxReplicas(app, view->max_profiled_replicas), s_.max_replicas);
    if (!view->params) {
      row->speedup = by_count;
      return true;
    }
    auto model = std::make_shared<GoodputModel>(*view->params, view->grad.value_or(GradientStats{}), app.init_batch_size());
    const BatchLimits limits = pollux_internal::GoodputBatchLimits(app, app.max_batch_size());
    double base = model->Optimize(std::min(fair_nodes, fair_replicas), fair_replicas, limits).goodput;
    if (!(base > 0)) base = model->Optimize(1, 1, limits).goodput;
    if (!(base > 0)) {
      row->speedup = by_count;
      return true;
    }
    row->speedup = [model, limits, base](int nodes, int replicas) {
      return model->Optimize(nodes, replicas, limits).goodput / base;
    };
    return true;
  }

  // The first population: last round's best states, or the current allocation (pollux.py:59-84,
  // 156-161). As the peer adapts them: the rows of the jobs common to both rounds are copied in
  // order, the k-th such job of last round's order to the k-th of this round's (pollux.py:64-66:
  // `jobs_src` and `jobs_dst` are each in their own round's order), so that where the order by
  // attained service changed, a job starts from another job's row; a job new this round gets none.
  std::vector<Genome> Sampling(const PolluxProblem& problem, const std::vector<JobId>& jobs) const {
    if (prev_states_.empty()) return {problem.BaseState()};
    const size_t nn = static_cast<size_t>(problem.num_nodes());
    const std::set<JobId> now(jobs.begin(), jobs.end()), before(prev_jobs_.begin(), prev_jobs_.end());
    std::vector<size_t> src, dst;
    for (size_t i = 0; i < prev_jobs_.size(); ++i) {
      if (now.contains(prev_jobs_[i])) src.push_back(i);
    }
    for (size_t j = 0; j < jobs.size(); ++j) {
      if (before.contains(jobs[j])) dst.push_back(j);
    }
    std::vector<Genome> out;
    for (const Genome& prev : prev_states_) {
      Genome x(jobs.size() * nn, 0);
      for (size_t k = 0; k < src.size(); ++k) {
        std::copy_n(prev.begin() + static_cast<std::ptrdiff_t>(src[k] * nn), nn,
                    x.begin() + static_cast<std::ptrdiff_t>(dst[k] * nn));
      }
      out.push_back(std::move(x));
    }
    return out;
  }

  // Jobs whose row changed are stopped, then started on their new nodes' free GPUs, node by node.
  void Apply(SchedContext& ctx, const std::vector<JobId>& jobs, const PolluxProblem& problem, const Genome& state) {
    const size_t nn = static_cast<size_t>(problem.num_nodes());
    const Genome base = problem.BaseState();
    std::vector<size_t> changed;
    for (size_t j = 0; j < jobs.size(); ++j) {
      if (!std::equal(state.begin() + static_cast<std::ptrdiff_t>(j * nn), state.begin() + static_cast<std::ptrdiff_t>((j + 1) * nn),
                      base.begin() + static_cast<std::ptrdiff_t>(j * nn))) {
        changed.push_back(j);
        if (ctx.job(jobs[j]).state == JobState::kRunning) ctx.Preempt(jobs[j]);
      }
    }
    // A job whose GPUs are not all free yet waits for the next round, as if the state gave it none.
    std::vector<std::pair<NodeId, int>> want;
    for (size_t j : changed) {
      want.clear();
      for (size_t n = 0; n < nn; ++n) want.emplace_back(static_cast<NodeId>(n), state[j * nn + n]);
      const std::vector<DeviceId> devices = FreeDevicesFor(ctx, want);
      if (!devices.empty()) ctx.StartOn(jobs[j], devices);
      if (ctx.failed()) return;
    }
  }

  // Sia's heterogeneity-unaware Pollux [SRC: siasosp23/artifacts sia-simulator/cluster_unaware.py,
  // pollux_unaware.py (no licence: behaviour reproduced, nothing copied)]: the search sees every
  // node as virtual nodes of the smallest node's GPU count (Sia's cluster: 16 of 4,
  // cluster_unaware.py:41-51); a job given GPUs of several types keeps those of the type it has
  // most of (on a tie, the more powerful by peak FP32 FLOP/s: Sia's order A100, V100, Quadro
  // RTX 6000, RTX 2080 Ti, T4 but for V100 and the Quadro, which FP32 swaps; tensor FLOP/s would
  // put the T4 above the RTX 2080 Ti) and the others stay idle (:448-503); a job's GPUs per real node are
  // its virtual nodes' summed.
  bool InitVnodes(SchedContext& ctx) {
    const Cluster& cluster = ctx.cluster();
    vnode_gpus_ = 0;
    for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
      const int d = cluster.node(n).num_devices;
      if (d > 0) vnode_gpus_ = vnode_gpus_ == 0 ? d : std::min(vnode_gpus_, d);
    }
    for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
      const int d = cluster.node(n).num_devices;
      if (vnode_gpus_ == 0 || d % vnode_gpus_ != 0) {
        ctx.Fail(Status::InvalidArgument("policy 'pollux' option unaware=true: node '" + cluster.node(n).name + "' has " +
                                         std::to_string(d) + " GPU(s), not a multiple of the smallest node's " +
                                         std::to_string(vnode_gpus_) + " (its virtual nodes)"));
        return false;
      }
      for (int v = 0; v < d / vnode_gpus_; ++v) vnode_node_.push_back(n);
    }
    return true;
  }

  void DescribeVnodes(const SchedContext& ctx, JobId id, PolluxJobRow* row) const {
    const Cluster& cluster = ctx.cluster();
    const JobSpec& spec = *ctx.job(id).spec;
    const size_t nv = vnode_node_.size();
    row->current.assign(nv, 0);
    auto it = vnode_alloc_.find(id);
    if (it != vnode_alloc_.end() && ctx.job(id).state == JobState::kRunning) row->current = it->second;
    row->node_limit.assign(nv, 0);
    for (size_t v = 0; v < nv; ++v) {
      if (spec.AllowsType(cluster.node(vnode_node_[v]).device_type, cluster.device_catalog())) {
        row->node_limit[v] = vnode_gpus_;
      }
    }
  }

  // Keeps each job's GPUs of one type (above), then moves it to their real nodes (MoveToNodeCounts).
  void ApplyUnaware(SchedContext& ctx, const std::vector<JobId>& jobs, const Genome& state) {
    const Cluster& cluster = ctx.cluster();
    const DeviceCatalog& catalog = cluster.device_catalog();
    const size_t nv = vnode_node_.size();
    auto power = [&](DeviceTypeId t) { return catalog.type(t).fp32_flops; };
    std::vector<std::pair<JobId, NodeCounts>> plan;
    for (size_t j = 0; j < jobs.size(); ++j) {
      std::vector<int> alloc(state.begin() + static_cast<std::ptrdiff_t>(j * nv),
                             state.begin() + static_cast<std::ptrdiff_t>((j + 1) * nv));
      // GPUs per type, types in the order of their first virtual node (Counter's order).
      std::vector<std::pair<DeviceTypeId, int>> counts;
      for (size_t v = 0; v < nv; ++v) {
        if (alloc[v] == 0) continue;
        const DeviceTypeId t = cluster.node(vnode_node_[v]).device_type;
        auto c = std::find_if(counts.begin(), counts.end(), [t](const auto& e) { return e.first == t; });
        if (c == counts.end()) {
          counts.emplace_back(t, alloc[v]);
        } else {
          c->second += alloc[v];
        }
      }
      if (counts.size() > 1) {
        std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        DeviceTypeId keep = counts[0].first;
        if (counts[1].second == counts[0].second && power(counts[1].first) > power(counts[0].first)) keep = counts[1].first;
        for (size_t v = 0; v < nv; ++v) {
          if (cluster.node(vnode_node_[v]).device_type != keep) alloc[v] = 0;
        }
      }
      NodeCounts want;
      for (size_t v = 0; v < nv; ++v) {
        if (alloc[v] == 0) continue;
        if (!want.empty() && want.back().first == vnode_node_[v]) {
          want.back().second += alloc[v];
        } else {
          want.emplace_back(vnode_node_[v], alloc[v]);
        }
      }
      vnode_alloc_[jobs[j]] = std::move(alloc);
      plan.emplace_back(jobs[j], std::move(want));
    }
    MoveToNodeCounts(ctx, plan);
  }

  PolluxSettings s_;
  pollux_internal::RoundGrid grid_;
  Rng rng_;
  std::vector<JobId> active_;  // submitted, not finished, in arrival order
  std::vector<Genome> prev_states_;  // last round's first front, over prev_jobs_
  std::vector<JobId> prev_jobs_;
  // unaware: each real node's virtual nodes (vnode_node_[v]: its node), their GPUs, and each job's
  // GPUs per virtual node after the last round's repair.
  std::vector<NodeId> vnode_node_;
  int vnode_gpus_ = 0;
  std::map<JobId, std::vector<int>> vnode_alloc_;
};

Result<std::unique_ptr<JobScheduler>> MakePollux(const Options& options) {
  PolluxSettings s;
  HETSCHED_ASSIGN_OR_RETURN(s.round_s, options.GetDouble("round", 60));
  HETSCHED_ASSIGN_OR_RETURN(s.delay_s, options.GetDouble("restart_delay", 30));
  HETSCHED_ASSIGN_OR_RETURN(const long long seed, options.GetInt("seed", 1));
  HETSCHED_ASSIGN_OR_RETURN(const long long pop, options.GetInt("population", 100));
  HETSCHED_ASSIGN_OR_RETURN(const long long gens, options.GetInt("generations", 100));
  HETSCHED_ASSIGN_OR_RETURN(const long long max_replicas, options.GetInt("max_replicas", 64));
  HETSCHED_ASSIGN_OR_RETURN(s.unaware, options.GetBool("unaware", false));
  if (max_replicas < 1 || max_replicas > 100000) {
    return Status::InvalidArgument("policy 'pollux': option 'max_replicas' must be in [1, 100000]");
  }
  s.max_replicas = static_cast<int>(max_replicas);
  if (!(s.round_s > 0) || !std::isfinite(s.round_s)) {
    return Status::InvalidArgument("policy 'pollux': option 'round' must be > 0 seconds");
  }
  if (!(s.delay_s >= 0) || !std::isfinite(s.delay_s)) {
    return Status::InvalidArgument("policy 'pollux': option 'restart_delay' must be >= 0 seconds");
  }
  if (pop < 2 || pop > 100000) return Status::InvalidArgument("policy 'pollux': option 'population' must be in [2, 100000]");
  if (gens < 1 || gens > 100000) {
    return Status::InvalidArgument("policy 'pollux': option 'generations' must be in [1, 100000]");
  }
  s.seed = static_cast<uint64_t>(seed);
  s.ga.pop_size = static_cast<int>(pop);
  s.ga.generations = static_cast<int>(gens);
  return std::unique_ptr<JobScheduler>(std::make_unique<Pollux>(s));
}

const MethodInfo kPolluxInfo{
    "pollux",
    "Pollux: GPUs and batch sizes co-adapted for goodput, a genetic search each round over allocations",
    "[SRC] Qiao et al., OSDI 2021, sec. 4.2; petuum/adaptdl osdi21-artifact simulator/pollux.py (NSGA-II as pymoo 0.4.2)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kPolluxRegistered, kPolluxInfo, MakePollux)

}  // namespace hetsched
