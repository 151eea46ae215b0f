// Tiresias' `shortest-expected` as Tiresias' own simulator runs it (registered as
// `tiresias-shortest-expected`): shortest_first_sim_jobs (SymbioticLab/Tiresias @ 959f9b0,
// simulator/run_sim.py:592-725, chosen at 2040-2042) keyed by an expected duration learned from
// a job-duration distribution (duration_distribution.h: ExpectedDuration; by default the peer's
// yarn-gput1000.csv, option `distribution`) instead of the true one; docs/policies.md.
//
// At every arrival or completion (run_sim.py:638-673):
//  - a new job's key is the expected duration of a job that has run 0 s (run_sim.py:642-643);
//  - then each running job, in list order, writes the expected duration of its executed time
//    into `s_job`'s key (run_sim.py:655-656): `s_job` is the loop variable of the arrivals above,
//    still bound to the most recently arrived job, so the last running job in list order sets the
//    key of the newest job, and no other key ever changes. A slip of the peer (it means rjob),
//    reproduced as published;
//  - the runnable list (pending and running; new jobs join its end) is stable-sorted by key;
//  - the whole cluster is re-planned in that order (yarn_replan.h).
// Nothing here needs a job's true duration: the policy sees arrivals and executed times.
// Cost: O(runnable jobs x (log jobs + log samples + nodes)) per event, as in the peer.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/policies/tiresias/duration_distribution.h"
#include "hetsched/policies/tiresias/yarn_replan.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class TiresiasShortestExpectedScheduler : public JobScheduler {
 public:
  explicit TiresiasShortestExpectedScheduler(std::shared_ptr<const TiresiasDurationDistribution> dist)
      : dist_(std::move(dist)) {}

  std::string_view name() const override { return "tiresias-shortest-expected"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override {
    const JobId id = job.spec->id;
    runnable_.push_back(id);
    key_[id] = dist_->ExpectedDuration(0);
    newest_ = id;
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    runnable_.erase(std::remove(runnable_.begin(), runnable_.end(), job.spec->id), runnable_.end());
    key_.erase(job.spec->id);
  }
  // A job the back end gave back keeps its place; one already running when the policy takes over
  // joins the list like a new job.
  void OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { OnJobSubmitted(job, ctx); }

  void Schedule(SchedContext& ctx) override {
    const double now = ctx.now();
    std::optional<double> last;
    for (JobId id : runnable_) {
      const JobStatus& job = ctx.job(id);
      if (job.state != JobState::kRunning) continue;
      // total_executed_time, the peer's int() of whole seconds (ours may carry rounding dust).
      last = dist_->ExpectedDuration(static_cast<int64_t>(std::floor(job.ExecutedS(now) + 1e-6)));
    }
    // The newest job may have finished: the peer then writes into a job it no longer holds.
    if (last && newest_ && key_.count(*newest_) > 0) key_[*newest_] = *last;
    std::stable_sort(runnable_.begin(), runnable_.end(), [&](JobId a, JobId b) { return key_[a] < key_[b]; });
    replan_.Apply(ctx, runnable_);
  }

 private:
  std::shared_ptr<const TiresiasDurationDistribution> dist_;
  std::vector<JobId> runnable_;  // pending and running, in the peer's list order
  std::map<JobId, double> key_;  // the peer's remaining_expected of each runnable job
  std::optional<JobId> newest_;  // the peer's s_job: the most recently arrived job
  TiresiasYarnReplan replan_;
};

const MethodInfo kShortestExpectedInfo{
    "tiresias-shortest-expected",
    "Tiresias' shortest expected duration first over a learned duration distribution (distribution=CSV, "
    "default the peer's yarn-gput1000.csv), preemptive, yarn re-plan per event",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py shortest_first_sim_jobs, schedule "
    "shortest-expected)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kTiresiasShortestExpectedRegistered, kShortestExpectedInfo,
                       [](const Options& o) -> Result<std::unique_ptr<JobScheduler>> {
                         HETSCHED_ASSIGN_OR_RETURN(auto dist, TiresiasDistributionFromOptions(
                                                                  "tiresias-shortest-expected", o, false));
                         return std::unique_ptr<JobScheduler>(
                             std::make_unique<TiresiasShortestExpectedScheduler>(std::move(dist)));
                       })

}  // namespace hetsched
