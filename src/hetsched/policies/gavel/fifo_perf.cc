// fifo-perf: Gavel's performance-aware FIFO baseline (Narayanan et al., OSDI 2020; FIFO "perf"
// mode): jobs strictly in arrival order, each on the fastest type (visible perf-model estimate,
// or with `profile=PATH` a profiler's measured throughputs, as the gavel-* policies read them)
// that has room for it; the head of the queue blocks the rest when no type has room.
// Non-preemptive and event-driven.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/perf/validation.h"
#include "hetsched/policies/job_estimates.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"

namespace hetsched {
namespace {

class FifoPerf final : public JobScheduler {
 public:
  FifoPerf(std::vector<GavelThroughputRow> profile_rows, std::string profile_origin)
      : profile_rows_(std::move(profile_rows)), profile_origin_(std::move(profile_origin)) {}
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
  // With a profile, by its speeds (ProfiledSpeeds: measured, or modelled in its units).
  void RankTypes(const JobSpec& spec, SchedContext& ctx) {
    std::vector<DeviceTypeId> types;
    std::vector<double> iteration_s;
    for (DeviceTypeId t : UsableTypes(spec, ctx.cluster())) {
      const double it_s = ctx.EstimateIterationS(spec.id, spec.num_gpus, t);
      if (!std::isfinite(it_s)) continue;
      types.push_back(t);
      iteration_s.push_back(it_s);
    }
    // Sort key, smallest first: the iteration time, or minus the profiled speed.
    std::vector<double> key = iteration_s;
    if (!profile_rows_.empty()) {
      if (profile_ == nullptr) {
        auto table = MeasuredThroughputs::FromRows(profile_rows_, ctx.cluster().device_catalog(), profile_origin_);
        if (!table.ok()) {
          ctx.Fail(table.status().WithContext("fifo-perf: option 'profile'"));  // ends the run
          return;
        }
        profile_ = std::make_unique<MeasuredThroughputs>(std::move(table).value());
      }
      std::vector<double> modelled;
      for (double it_s : iteration_s) modelled.push_back(it_s > 0 ? 1.0 / it_s : 0.0);
      const std::vector<double> speed =
          ProfiledSpeeds(*profile_, profile_->JobTypeIndex(spec.name), spec.num_gpus, types, modelled, false);
      for (size_t k = 0; k < key.size(); ++k) key[k] = -speed[k];
    }
    std::vector<size_t> rank(types.size());
    for (size_t k = 0; k < rank.size(); ++k) rank[k] = k;
    std::stable_sort(rank.begin(), rank.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
    std::vector<DeviceTypeId>& order = order_[spec.id];
    order.clear();
    for (size_t k : rank) order.push_back(types[k]);
  }

  std::set<std::pair<double, JobId>> queue_;
  std::map<JobId, std::vector<DeviceTypeId>> order_;
  std::vector<GavelThroughputRow> profile_rows_;
  std::string profile_origin_;
  std::unique_ptr<MeasuredThroughputs> profile_;  // built on first use (it needs the catalog)
};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kFifoPerfRegistered,
                       (MethodInfo{"fifo-perf", "Strict FIFO, each job on the fastest type that has room (Gavel baseline)",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) FIFO baseline, performance-aware mode"}),
                       [](const Options& options) -> Result<std::unique_ptr<JobScheduler>> {
                         const std::string path = options.GetString("profile", "");
                         std::vector<GavelThroughputRow> rows;
                         if (!path.empty()) {
                           HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFileOrEmbedded(path));
                           HETSCHED_ASSIGN_OR_RETURN(rows, ParseGavelThroughputs(text, path));
                         }
                         return std::unique_ptr<JobScheduler>(std::make_unique<FifoPerf>(std::move(rows), path));
                       })

}  // namespace hetsched
