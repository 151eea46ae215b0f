// Graham's list scheduling for rigid parallel jobs (Graham, "Bounds on multiprocessing timing
// anomalies", SIAM J. Appl. Math. 17(2), 1969; for jobs needing several processors: Garey &
// Graham, SIAM J. Comput. 4(2), 1975): the jobs form a list in arrival order, and whenever
// devices are free every job of the list that fits starts at once, on the earliest-available
// devices (the placer's choice). Unlike FIFO, a job that does not fit does not block the jobs
// behind it, and no reservation is made (so wide jobs can starve). The baseline "LS" of the
// GADGET/SJF-BCO line of work [REC: their exact variant is not in the abstracts].
// Cost per Schedule: O(window) TryStart calls at most, stopping when no device is free.
#include <set>
#include <utility>

#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class ListScheduler : public JobScheduler {
 public:
  explicit ListScheduler(int window) : window_(window) {}
  std::string_view name() const override { return "list-scheduling"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override {
    pending_.insert({job.spec->submit_time_s, job.spec->id});
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    pending_.erase({job.spec->submit_time_s, job.spec->id});
  }
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override {
    pending_.insert({job.spec->submit_time_s, job.spec->id});  // keeps its place in the list
  }
  // The list holds pending jobs only; a running one enters it if it is requeued.
  void OnJobRunning(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}

  void Schedule(SchedContext& ctx) override {
    int examined = 0;
    for (auto it = pending_.begin(); it != pending_.end() && examined < window_;) {
      if (ctx.state().total_free() == 0) break;
      ++examined;
      const JobId id = it->second;
      if (ctx.TryStart(id, ctx.job(id).spec->num_gpus)) {
        it = pending_.erase(it);
      } else {
        ++it;
      }
    }
  }

 private:
  int window_;
  std::set<std::pair<double, JobId>> pending_;  // (submit time, id): the list
};

Result<std::unique_ptr<JobScheduler>> MakeListScheduling(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const long long window, options.GetInt("window", 1000));
  if (window < 1) return Status::InvalidArgument("policy 'list-scheduling': option 'window' must be >= 1");
  return std::unique_ptr<JobScheduler>(std::make_unique<ListScheduler>(static_cast<int>(window)));
}

const MethodInfo kListSchedulingInfo{
    "list-scheduling", "Graham list scheduling: jobs in arrival order, every job that fits starts now, no blocking",
    "[CLASSIC] Graham 1969 list scheduling; multiprocessor jobs: Garey & Graham 1975"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kListSchedulingRegistered, kListSchedulingInfo, MakeListScheduling)

}  // namespace hetsched
