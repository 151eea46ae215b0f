// Tiresias' `lpjf` ("longest pending job first") as Tiresias' own simulator runs it, registered
// as `tiresias-lpjf`. SymbioticLab/Tiresias @ 959f9b0, simulator/run_sim.py,
// longest_pending_first_sim_jobs (lines 1773-1830, marked "NOT USEFUL" there); docs/policies.md.
//
// What the peer's code does, which is not what its name says:
//  - The order is arrival order. The pending list is sorted by pending_time, longest first
//    (run_sim.py:1806), but JOBS.update_pending_time tests for a key 'sumbit_time' (sic,
//    jobs.py:399-402) that no job has, so every pending_time stays 0 and the stable sort keeps
//    the list as jobs joined it.
//  - At each arrival or completion the list is walked from the head with the yarn placer on the
//    cluster as it is (non-preemptive); the walk stops at the first job that does not fit
//    (head-of-line blocking, as `fifo` with backfill=none).
//  - A started job is removed from the list while the list is being iterated (run_sim.py:1810-
//    1816), so Python's iterator skips the job after it: that job is not tried at this event
//    even if it fits, and the walk goes on with the one after. Reproduced as is.
// Cost: O(pending jobs) per event.
#include <cstddef>
#include <vector>

#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class TiresiasLpjfScheduler : public JobScheduler {
 public:
  std::string_view name() const override { return "tiresias-lpjf"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override {
    pending_.push_back(job.spec->id);
  }
  void OnJobFinished(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  // A job the back end gave back joins the end of the list, as the peer's move_to_pending does.
  void OnJobRequeued(const JobStatus& job, SchedContext& ctx) override { OnJobSubmitted(job, ctx); }
  void OnJobRunning(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}

  void Schedule(SchedContext& ctx) override {
    size_t i = 0;
    while (i < pending_.size()) {
      const JobId id = pending_[i];
      if (!ctx.TryStart(id, ctx.job(id).spec->num_gpus)) break;
      pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
      ++i;  // the peer's iterator steps past the job that moved into the started one's place
      if (ctx.failed()) return;
    }
  }

 private:
  std::vector<JobId> pending_;  // in the order jobs joined the peer's pending list
};

const MethodInfo kTiresiasLpjfInfo{
    "tiresias-lpjf",
    "Tiresias' lpjf as its simulator runs it: arrival order, head-of-line blocking, the job after each "
    "start skipped",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py longest_pending_first_sim_jobs)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kTiresiasLpjfRegistered, kTiresiasLpjfInfo,
                       [](const Options& /*o*/) -> Result<std::unique_ptr<JobScheduler>> {
                         return std::unique_ptr<JobScheduler>(std::make_unique<TiresiasLpjfScheduler>());
                       })

}  // namespace hetsched
