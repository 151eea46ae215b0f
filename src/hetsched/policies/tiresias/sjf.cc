// Tiresias' `sjf` as Tiresias' own simulator runs it (registered as `tiresias-sjf`; hetsched's
// `sjf` is a different, non-preemptive policy on estimated lengths). SymbioticLab/Tiresias @
// 959f9b0, simulator/run_sim.py, smallest_first_sim_jobs (lines 454-580); docs/policies.md.
//
// "Smallest" is by GPU count, not by length, and the policy is preemptive: at every arrival or
// completion the runnable jobs (pending and running) are stable-sorted by GPU count, ties in the
// order they arrived (run_sim.py:529, a stable sort of a list new jobs join at the end), and the
// whole cluster is re-planned in that order (yarn_replan.h). The plan is a function of the
// runnable set alone, so planning twice at one instant gives the same set.
// Cost: O(runnable jobs x nodes) per event, as in the peer.
#include <algorithm>
#include <vector>

#include "hetsched/policies/tiresias/yarn_replan.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class TiresiasSjfScheduler : public JobScheduler {
 public:
  std::string_view name() const override { return "tiresias-sjf"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override {
    runnable_.push_back(job.spec->id);
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    runnable_.erase(std::remove(runnable_.begin(), runnable_.end(), job.spec->id), runnable_.end());
  }
  // A job the back end gave back keeps its place; one already running when the policy takes over
  // joins the list like a new job.
  void OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { OnJobSubmitted(job, ctx); }

  void Schedule(SchedContext& ctx) override {
    // run_sim.py:529: stable, so equal GPU counts keep the order in which they arrived.
    std::stable_sort(runnable_.begin(), runnable_.end(),
                     [&](JobId a, JobId b) { return ctx.job(a).spec->num_gpus < ctx.job(b).spec->num_gpus; });
    replan_.Apply(ctx, runnable_);
  }

 private:
  std::vector<JobId> runnable_;  // pending and running, in the peer's list order
  TiresiasYarnReplan replan_;
};

const MethodInfo kTiresiasSjfInfo{
    "tiresias-sjf",
    "Tiresias' smallest (GPU count) job first, preemptive, whole-cluster yarn re-plan at every event",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py smallest_first_sim_jobs)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kTiresiasSjfRegistered, kTiresiasSjfInfo,
                       [](const Options& /*o*/) -> Result<std::unique_ptr<JobScheduler>> {
                         return std::unique_ptr<JobScheduler>(std::make_unique<TiresiasSjfScheduler>());
                       })

}  // namespace hetsched
