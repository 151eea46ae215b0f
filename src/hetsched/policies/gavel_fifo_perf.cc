// fifo-perf: Gavel's performance-aware FIFO baseline (Narayanan et al., OSDI 2020; FIFO "perf"
// mode): jobs strictly in arrival order, each on the fastest type (visible perf-model estimate)
// that has room for it; the head of the queue blocks the rest when no type has room.
// Non-preemptive and event-driven.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class FifoPerf final : public JobScheduler {
 public:
  std::string_view name() const override { return "fifo-perf"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override {
    RankTypes(*job.spec, ctx);
    queue_.insert({job.queued_since_s, job.spec->id});
  }
  // Not queued; its type order serves if it is requeued.
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { RankTypes(*job.spec, ctx); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override { order_.erase(job.spec->id); }
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override {
    // A requeued job keeps its place: its submit time.
    queue_.insert({job.spec->submit_time_s, job.spec->id});
  }

  void Schedule(SchedContext& ctx) override {
    while (!queue_.empty()) {
      const JobId id = queue_.begin()->second;
      const int n = ctx.job(id).spec->num_gpus;
      bool started = false;
      for (DeviceTypeId t : order_[id]) {
        if (ctx.state().free_of_type(t) >= n && ctx.TryStart(id, n, t)) {
          started = true;
          break;
        }
      }
      if (!started) return;  // strict FIFO: the head blocks
      queue_.erase(queue_.begin());
    }
  }

 private:
  // The job's usable types, fastest first (ties: catalog order), computed once per job.
  void RankTypes(const JobSpec& spec, SchedContext& ctx) {
    std::vector<std::pair<double, DeviceTypeId>> speed;
    for (DeviceTypeId t : UsableTypes(spec, ctx.cluster())) {
      const double it_s = ctx.EstimateIterationS(spec.id, spec.num_gpus, t);
      if (std::isfinite(it_s)) speed.emplace_back(it_s, t);
    }
    std::stable_sort(speed.begin(), speed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<DeviceTypeId>& order = order_[spec.id];
    order.clear();
    for (const auto& [s, t] : speed) order.push_back(t);
  }

  std::set<std::pair<double, JobId>> queue_;
  std::map<JobId, std::vector<DeviceTypeId>> order_;
};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kFifoPerfRegistered,
                       (MethodInfo{"fifo-perf", "Strict FIFO, each job on the fastest type that has room (Gavel baseline)",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) FIFO baseline, performance-aware mode"}),
                       [](const Options&) -> Result<std::unique_ptr<JobScheduler>> {
                         return std::unique_ptr<JobScheduler>(std::make_unique<FifoPerf>());
                       })

}  // namespace hetsched
