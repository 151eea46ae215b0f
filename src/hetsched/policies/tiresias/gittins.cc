// Tiresias' Gittins-index policies as Tiresias' own simulator runs them (SymbioticLab/Tiresias @
// 959f9b0, simulator/run_sim.py; docs/policies.md, "dlas-gpu-gittins, gittins"). Both rank jobs
// by the Gittins index of their attained service over a learned job-duration distribution
// (duration_distribution.h: by default the peer's yarn-gput1000.csv, option `distribution`).
//
// dlas-gpu-gittins (run_sim.py:2050-2052, dlas_sim_jobs with gputime): the paper's 2D-Gittins
// policy. dlas-gpu exactly (dlas.cc: its queues, demotions, jumps and counting re-plan), except
// that before the re-plan each queue is sorted in place by (index, -submit time) descending
// (run_sim.py:1103-1105): the highest index first, ties the earliest submitted, then the list
// order (Python's sort is stable, reverse=True included). A job's index is that of
// int(executed time x GPUs), updated at every event, pending jobs too (run_sim.py:1056-1058,
// 1076-1082).
//
// gittins (run_sim.py:2072-2076, gittins_sim_jobs 1252-1500): one list, no queues. At every
// event the runnable list (new jobs join its end) is stable-sorted by the index *ascending*
// (run_sim.py:1377, no reverse: the lowest index, i.e. the lowest priority, runs first), and
// the cluster is re-planned by counting (count_replan.h); no running-first reordering. A
// running job's index is that of int(executed time x GPUs), a pending job's that of its
// executed time alone (run_sim.py:1366-1369). Events are arrivals, completions and "Gittins
// units": the next unit starts at delta, and after an event at t it moves to unit + t
// (run_sim.py:1259, 1302-1304, 1498), so units thin out as the run goes on. Both quirks are
// reproduced as published. The peer as published cannot run it (its get_gittins_index reads
// JOBS.job_dist_data, which main never sets for this policy: run_sim.py:1245, 2075): the
// figures compared are of the peer with that one assignment added.
//
// Cost: O(runnable jobs x log samples) per event to rank, plus the sort and the re-plan.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/policies/tiresias/count_replan.h"
#include "hetsched/policies/tiresias/dlas.h"
#include "hetsched/policies/tiresias/duration_distribution.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace {

// Times within this many seconds count as reached: floating-point slack on wake-ups (as dlas.cc's:
// the peer's times are whole seconds, ours drift by a few ulps).
constexpr double kGittinsSlackS = 1e-6;

// The peer's int() of a service it accumulates in whole seconds; ours may carry rounding dust.
int64_t WholeService(double service) { return static_cast<int64_t>(std::floor(service + 1e-6)); }

// run_sim.py:1103-1105: queue.sort(key=(rank, r_submit_time), reverse=True), r_submit_time =
// int(-submit_time) (jobs.py:199).
TiresiasQueueOrder GittinsQueueOrder(std::shared_ptr<const TiresiasDurationDistribution> dist) {
  return [dist = std::move(dist), rank = std::vector<std::pair<JobId, double>>()](
             const SchedContext& ctx, const std::function<double(JobId)>& service,
             std::vector<JobId>* queue) mutable {
    rank.clear();
    for (JobId id : *queue) rank.emplace_back(id, dist->GittinsIndex(WholeService(service(id))));
    std::stable_sort(rank.begin(), rank.end(), [&](const auto& a, const auto& b) {
      if (a.second != b.second) return a.second > b.second;
      return std::trunc(-ctx.job(a.first).spec->submit_time_s) >
             std::trunc(-ctx.job(b.first).spec->submit_time_s);
    });
    for (size_t k = 0; k < rank.size(); ++k) (*queue)[k] = rank[k].first;
  };
}

Result<std::unique_ptr<JobScheduler>> MakeDlasGpuGittins(const Options& options) {
  const std::string name = "dlas-gpu-gittins";
  HETSCHED_ASSIGN_OR_RETURN(auto dist, TiresiasDistributionFromOptions(name, options));
  HETSCHED_ASSIGN_OR_RETURN(TiresiasDlasConfig config, ParseTiresiasDlasOptions(name, true, options));
  config.order = GittinsQueueOrder(std::move(dist));
  return MakeTiresiasDlas(std::move(config));
}

class TiresiasGittinsScheduler : public JobScheduler {
 public:
  TiresiasGittinsScheduler(std::shared_ptr<const TiresiasDurationDistribution> dist, bool count_only)
      : dist_(std::move(dist)), next_unit_s_(static_cast<double>(dist_->delta())), replan_(count_only) {}

  std::string_view name() const override { return "gittins"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override {
    runnable_.push_back(job.spec->id);
    event_since_plan_ = true;
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    runnable_.erase(std::remove(runnable_.begin(), runnable_.end(), job.spec->id), runnable_.end());
    event_since_plan_ = true;
  }
  // A job the back end gave back keeps its place; one already running when the policy takes
  // over joins the list like a new job.
  void OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) override { event_since_plan_ = true; }
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { OnJobSubmitted(job, ctx); }

  void Schedule(SchedContext& ctx) override {
    const double now = ctx.now();
    // Units that passed while nothing was runnable (before the first arrival: no wake-up was
    // asked): in the peer each is an event that changes nothing but moves the next unit to
    // unit + unit. Otherwise a wake-up was asked at the unit, so none passed unseen.
    while (idle_since_plan_ && next_unit_s_ + kGittinsSlackS < now) next_unit_s_ += next_unit_s_;
    const bool unit = now + kGittinsSlackS >= next_unit_s_;
    if (!event_since_plan_ && !unit) return;
    event_since_plan_ = false;
    rank_.clear();
    for (JobId id : runnable_) {
      const JobStatus& job = ctx.job(id);
      const double executed = job.ExecutedS(now);
      const double service = job.state == JobState::kRunning ? executed * job.spec->num_gpus : executed;
      rank_.emplace_back(id, dist_->GittinsIndex(WholeService(service)));
    }
    std::stable_sort(rank_.begin(), rank_.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
    for (size_t k = 0; k < rank_.size(); ++k) runnable_[k] = rank_[k].first;
    replan_.Apply(ctx, runnable_);
    next_unit_s_ += now;  // run_sim.py:1498
    idle_since_plan_ = runnable_.empty();
    // Units while nothing is runnable are caught up above: no wake-up, so that a run ends with its
    // last job.
    if (!idle_since_plan_) ctx.WakeUpAt(next_unit_s_);
  }

 private:
  std::shared_ptr<const TiresiasDurationDistribution> dist_;
  double next_unit_s_;                          // the peer's next_gittins_unit
  bool event_since_plan_ = false;               // an arrival, completion or requeue since the last plan
  bool idle_since_plan_ = true;                 // nothing was runnable after the last plan (or none yet)
  std::vector<JobId> runnable_;                 // pending and running, in the peer's list order
  std::vector<std::pair<JobId, double>> rank_;  // scratch of Schedule
  TiresiasCountReplan replan_;
};

Result<std::unique_ptr<JobScheduler>> MakeGittins(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(auto dist, TiresiasDistributionFromOptions("gittins", options));
  const std::string placement = options.GetString("placement", "placer");
  if (placement != "placer" && placement != "count") {
    return Status::InvalidArgument("policy 'gittins': option 'placement' must be placer or count, got '" +
                                   placement + "'");
  }
  return std::unique_ptr<JobScheduler>(
      std::make_unique<TiresiasGittinsScheduler>(std::move(dist), placement == "count"));
}

const MethodInfo kDlasGpuGittinsInfo{
    "dlas-gpu-gittins",
    "Tiresias' 2D-Gittins: dlas-gpu with each queue ordered by the Gittins index of GPUs x executed time "
    "over a learned duration distribution (distribution=CSV, default the peer's yarn-gput1000.csv; "
    "delta=3250)",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py dlas_sim_jobs, schedule dlas-gpu-gittins)"};
const MethodInfo kGittinsInfo{
    "gittins",
    "Tiresias' single-list Gittins policy as its simulator runs it (lowest index first, re-ranked at "
    "arrivals, completions and growing Gittins units; distribution=CSV, delta=3250)",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py gittins_sim_jobs)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kDlasGpuGittinsRegistered, kDlasGpuGittinsInfo, MakeDlasGpuGittins)
HETSCHED_REGISTER_IMPL(JobScheduler, kGittinsRegistered, kGittinsInfo, MakeGittins)

}  // namespace hetsched
