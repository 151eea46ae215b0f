// Multi-priority queues with aging, non-preemptive (RLPTO's task scheduling, ALGORITHMS.md 3.3;
// the queues are in priority_queues.h). Dispatch scans queue 0 to the last, each queue in the
// order jobs started waiting, and starts every job that fits at its requested size; a job that
// does not fit is passed over (backfilling) unless it is starving (waited levels x age in queue
// 0): then nothing behind it starts until it does. Wakes up at each promotion.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/priority_queues.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class MultiPriorityScheduler : public JobScheduler {
 public:
  MultiPriorityScheduler(PriorityClassConfig config, int window) : queue_(config), window_(window) {}

  std::string_view name() const override { return "multi-priority"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override { Enqueue(job, ctx); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override { queue_.Remove(job.spec->id); }
  void OnJobRequeued(const JobStatus& job, SchedContext& ctx) override {
    queue_.Remove(job.spec->id);
    Enqueue(job, ctx);
  }
  // The queues hold pending jobs only (non-preemptive); a running one is queued if requeued.
  void OnJobRunning(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}

  void Schedule(SchedContext& ctx) override {
    const double now = ctx.now();
    queue_.Age(now);
    int blocked = 0;
    std::vector<JobId> started;
    for (int level = 0; level < queue_.levels() && blocked < window_; ++level) {
      for (const auto& [enter_s, id] : queue_.queue(level)) {
        if (ctx.state().total_free() == 0 || blocked >= window_) break;
        if (ctx.TryStart(id, ctx.job(id).spec->num_gpus)) {
          started.push_back(id);
          continue;
        }
        ++blocked;
        if (queue_.Starving(id, now)) {
          blocked = window_;  // head-of-line blocking: the starving job goes next
          break;
        }
      }
    }
    for (JobId id : started) queue_.Remove(id);
    const double next = queue_.NextPromotionS();
    if (std::isfinite(next)) ctx.WakeUpAt(next);
  }

 private:
  void Enqueue(const JobStatus& job, SchedContext& ctx) {
    const JobId id = job.spec->id;
    const double estimate_s = RemainingOnFastestS(ctx, id);
    const double gpu_s = std::isfinite(estimate_s) ? estimate_s * job.spec->num_gpus : 0.0;
    queue_.Add(id, queue_.config().BaseLevel(*job.spec, gpu_s), job.queued_since_s, ctx.now());
  }

  MultiLevelQueue queue_;
  int window_;
};

}  // namespace

Result<PriorityClassConfig> ParsePriorityClassOptions(const Options& options, const std::string& who) {
  PriorityClassConfig config;
  HETSCHED_ASSIGN_OR_RETURN(const long long levels, options.GetInt("levels", config.levels));
  HETSCHED_ASSIGN_OR_RETURN(config.age_s, options.GetDouble("age", config.age_s));
  HETSCHED_ASSIGN_OR_RETURN(const double large_h, options.GetDouble("large_gpu_h", config.large_gpu_s / 3600));
  config.levels = static_cast<int>(std::clamp<long long>(levels, -1, 1000));
  config.large_gpu_s = large_h * 3600;
  HETSCHED_RETURN_IF_ERROR(config.Validate(who));
  return config;
}

namespace {

Result<std::unique_ptr<JobScheduler>> MakeMultiPriority(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const PriorityClassConfig config, ParsePriorityClassOptions(options, "policy 'multi-priority'"));
  HETSCHED_ASSIGN_OR_RETURN(const long long window, options.GetInt("window", 100));
  if (window < 1) return Status::InvalidArgument("policy 'multi-priority': option 'window' must be >= 1");
  return std::unique_ptr<JobScheduler>(std::make_unique<MultiPriorityScheduler>(config, static_cast<int>(window)));
}

const MethodInfo kMultiPriorityInfo{
    "multi-priority",
    "multi-priority FIFO queues by user priority and size, aging promotion (age), backfill, starvation-free",
    "[SRC] RLPTO (Lu et al., IEEE TPDS 2023) multi-priority task queues; levels, aging and size rule [REC]"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kMultiPriorityRegistered, kMultiPriorityInfo, MakeMultiPriority)

}  // namespace hetsched
