// Optimus as Pollux's simulator runs it ("Optimus+Oracle+TunedJobs") [SRC: petuum/adaptdl @
// osdi21-artifact, simulator/optimus.py (Apache-2.0); Peng et al., EuroSys 2018, as adapted in
// Pollux, OSDI 2021, sec. 5.3]: every `round` seconds (Pollux's interval, 60 s), each active goodput
// job gets one GPU (in arrival order, while GPUs last), then the GPUs left go one at a time to the
// job whose remaining time falls most from one more GPU: (t(n) - t(n+1)) x remaining iterations,
// t(n) the step time of its tuned batch on n GPUs (4 a node) read from its application's profile
// (the oracle), remaining = the iterations its validation run took from the end of its current
// epoch to the end of its last at that batch. A job may have at most tuned batch / smallest local
// batch GPUs (ncf: 1). A job whose count is unchanged keeps its GPUs; the others are placed again,
// jobs with fewer GPUs first, from the node with the most free GPUs. Jobs keep their tuned batch.
// Another job (not of Pollux's or Sia's workloads) gets the GPUs it asked for or none [REC], after
// the goodput jobs' first GPU each (Pollux's order by the least GPUs a job needs), placed by the
// run's placer.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "hetsched/policies/pollux/common.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class PolluxOptimus final : public JobScheduler {
 public:
  explicit PolluxOptimus(double round_s) : round_s_(round_s), grid_(round_s) {}

  std::string_view name() const override { return "pollux-optimus"; }
  double round_period_s() const override { return round_s_; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override { arrived_.push_back(job.spec->id); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override { Forget(job.spec->id); }
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override {
    if (std::find(order_.begin(), order_.end(), job.spec->id) == order_.end()) arrived_.push_back(job.spec->id);
    held_.erase(job.spec->id);
  }
  void OnJobRunning(const JobStatus& job, SchedContext& /*ctx*/) override {
    if (std::find(order_.begin(), order_.end(), job.spec->id) == order_.end()) order_.push_back(job.spec->id);
    held_[job.spec->id] = static_cast<int>(job.devices.size());
  }

  void Schedule(SchedContext& ctx) override {
    if (!grid_.Due(ctx, !order_.empty() || !arrived_.empty())) return;
    order_.insert(order_.end(), arrived_.begin(), arrived_.end());
    arrived_.clear();
    if (order_.empty()) return;
    std::map<JobId, Plan> plans;
    for (JobId id : order_) {
      Plan p;
      if (!Describe(ctx, id, &p)) return;  // a fault, kept in the context
      plans.emplace(id, std::move(p));
    }
    if (!Distribute(ctx, &plans)) return;
    Place(ctx, plans);
    grid_.Next(ctx, !order_.empty());
  }

 private:
  struct Plan {
    GoodputJobView view;  // view.application null: not a goodput job
    double remaining = 0;
    int min_replicas = 1;
    int max_replicas = 1;
    int replicas = 0;
    double gain = 0;
  };

  void Forget(JobId id) {
    order_.erase(std::remove(order_.begin(), order_.end(), id), order_.end());
    arrived_.erase(std::remove(arrived_.begin(), arrived_.end(), id), arrived_.end());
    held_.erase(id);
  }

  // Its remaining iterations and GPU limit (optimus.py:11-19; simulator.py:339-353).
  bool Describe(SchedContext& ctx, JobId id, Plan* p) {
    std::optional<GoodputJobView> view = ctx.goodput_job(id);
    if (ctx.failed()) return false;
    if (!view) {  // the GPUs it asked for, or none
      p->min_replicas = p->max_replicas = ctx.job(id).spec->num_gpus;
      p->remaining = 1;
      return true;
    }
    p->view = std::move(*view);
    const GoodputApplication& app = *p->view.application;
    const double batch = p->view.target_batch;
    const int completion = app.completion_epoch();
    if (completion <= p->view.epoch) {
      p->remaining = 1;
    } else {
      auto end = app.IterationsAt(batch, completion);
      auto now = app.IterationsAt(batch, p->view.epoch);
      if (!end.ok() || !now.ok()) {
        ctx.Fail((end.ok() ? now.status() : end.status()).WithContext("pollux-optimus: job " + std::to_string(id)));
        return false;
      }
      p->remaining = *end - *now;
    }
    p->max_replicas = static_cast<int>(p->view.target_batch / app.min_local_bsz());
    if (app.max_replicas() > 0) p->max_replicas = std::min(p->max_replicas, app.max_replicas());
    return true;
  }

  // The step time of its tuned batch on n GPUs, 4 a node, from the profile (optimus.py:63-77).
  Result<double> PredictStepTime(const Plan& p, int n) const {
    const GoodputApplication& app = *p.view.application;
    std::vector<int> placement;
    for (int left = n; left > 0; left -= 4) placement.push_back(std::min(left, 4));
    const BatchSplit split = SplitBatch(app, p.view.target_batch, n, /*accumulate_alone=*/n == 1);
    HETSCHED_ASSIGN_OR_RETURN(const StepTimes t, app.StepTime(placement, split.atomic_bsz));
    return t.step_s + (t.step_s - t.sync_s) * split.accum_steps;
  }

  Result<double> Gain(const Plan& p, int free) const {
    if (p.view.application == nullptr || p.replicas + 1 > p.max_replicas || free < 1) return 0.0;
    HETSCHED_ASSIGN_OR_RETURN(const double now, PredictStepTime(p, p.replicas));
    HETSCHED_ASSIGN_OR_RETURN(const double more, PredictStepTime(p, p.replicas + 1));
    return (now - more) * p.remaining;
  }

  // Its least GPUs each, jobs needing fewer first (a stable sort of the arrival order), then the
  // rest by largest marginal gain (optimus.py:20-46).
  bool Distribute(SchedContext& ctx, std::map<JobId, Plan>* plans) {
    int free = ctx.cluster().num_devices();
    auto fail = [&](const Status& s) {
      ctx.Fail(s.WithContext("pollux-optimus"));
      return false;
    };
    std::vector<JobId> by_least = order_;
    std::stable_sort(by_least.begin(), by_least.end(),
                     [&](JobId a, JobId b) { return plans->at(a).min_replicas < plans->at(b).min_replicas; });
    for (JobId id : by_least) {
      Plan& p = plans->at(id);
      if (p.min_replicas > free) continue;
      p.replicas = p.min_replicas;
      free -= p.min_replicas;
      auto gain = Gain(p, free);
      if (!gain.ok()) return fail(gain.status());
      p.gain = *gain;
    }
    while (free > 0) {
      Plan* best = nullptr;
      for (JobId id : by_least) {  // the first of the largest gains, in that order (Python's max)
        Plan& p = plans->at(id);
        if (best == nullptr || p.gain > best->gain) best = &p;
      }
      if (best == nullptr || !(best->gain > 0)) break;
      ++best->replicas;
      auto gain = Gain(*best, free);
      if (!gain.ok()) return fail(gain.status());
      best->gain = *gain;
      --free;
    }
    return true;
  }

  // Jobs whose count changed give their GPUs back; then each job without GPUs is placed, fewer
  // GPUs first (a stable sort of the arrival order), from the freest nodes (optimus.py:47-60).
  void Place(SchedContext& ctx, const std::map<JobId, Plan>& plans) {
    for (const auto& [id, p] : plans) {
      auto held = held_.find(id);
      if (held != held_.end() && held->second != p.replicas) {
        if (ctx.job(id).state == JobState::kRunning) ctx.Preempt(id);
        held_.erase(held);
      }
    }
    std::vector<JobId> keys;
    for (JobId id : order_) {
      if (plans.contains(id)) keys.push_back(id);
    }
    std::stable_sort(keys.begin(), keys.end(),
                     [&](JobId a, JobId b) { return plans.at(a).replicas < plans.at(b).replicas; });
    for (JobId id : keys) {
      const int n = plans.at(id).replicas;
      if (n == 0 || held_.contains(id) || ctx.job(id).state == JobState::kRunning) continue;
      if (plans.at(id).view.application == nullptr) {
        if (ctx.TryStart(id, n)) held_[id] = n;
        continue;
      }
      const std::vector<DeviceId> devices = pollux_internal::FreestNodesFirst(ctx, id, n);
      if (!devices.empty() && ctx.StartOn(id, devices)) held_[id] = n;
    }
  }

  double round_s_;
  pollux_internal::RoundGrid grid_;
  std::vector<JobId> order_;    // active jobs, in arrival order
  std::vector<JobId> arrived_;  // submitted since the last round
  std::map<JobId, int> held_;   // GPUs each running job holds
};

Result<std::unique_ptr<JobScheduler>> MakePolluxOptimus(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const double round_s, options.GetDouble("round", 60));
  if (!(round_s > 0) || !std::isfinite(round_s)) {
    return Status::InvalidArgument("policy 'pollux-optimus': option 'round' must be > 0 seconds");
  }
  return std::unique_ptr<JobScheduler>(std::make_unique<PolluxOptimus>(round_s));
}

const MethodInfo kPolluxOptimusInfo{
    "pollux-optimus",
    "Optimus as Pollux's simulator runs it: greedy GPUs by marginal gain from profiled step times, tuned batches",
    "[SRC] petuum/adaptdl osdi21-artifact simulator/optimus.py (Pollux, OSDI 2021, sec. 5.3: Optimus+Oracle+TunedJobs)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kPolluxOptimusRegistered, kPolluxOptimusInfo, MakePolluxOptimus)

}  // namespace hetsched
