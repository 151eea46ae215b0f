// Non-preemptive shortest job first.
//
// Jobs are ordered by their estimated length (the user's runtime estimate, or iterations x the
// visible model's iteration time on the fastest usable type), ties by arrival then id. Each
// Schedule starts jobs in that order; a job that does not fit is skipped (work-conserving, as
// the SJF baselines of Tiresias and Gavel are), and the scan stops after `window` jobs that could
// not start, so a call costs O(window + started) whatever the queue length.
#include <map>
#include <set>
#include <tuple>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class SjfScheduler : public JobScheduler {
 public:
  explicit SjfScheduler(int window) : window_(window) {}

  std::string_view name() const override { return "sjf"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override { Enqueue(job, ctx); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override { Remove(job.spec->id); }
  void OnJobRequeued(const JobStatus& job, SchedContext& ctx) override {
    Remove(job.spec->id);
    Enqueue(job, ctx);
  }
  // Non-preemptive, and keeps only its queue: a running job needs no entry (requeued, it is
  // queued by its remaining estimate like any other).
  void OnJobRunning(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}

  void Schedule(SchedContext& ctx) override {
    int blocked = 0;
    for (auto it = queue_.begin(); it != queue_.end() && blocked < window_;) {
      if (ctx.state().total_free() == 0) break;
      const JobId id = std::get<2>(*it);
      const int n = ctx.job(id).spec->num_gpus;
      if (ctx.TryStart(id, n)) {  // a request larger than the free devices fails in O(1)
        key_.erase(id);
        it = queue_.erase(it);
        continue;
      }
      ++blocked;
      ++it;
    }
  }

 private:
  using Key = std::tuple<double, double, JobId>;  // (estimated length, submit time, id)

  void Enqueue(const JobStatus& job, SchedContext& ctx) {
    const JobId id = job.spec->id;
    // The remaining estimate: the total for a new job, what is left for a requeued one.
    const Key key{RemainingOnFastestS(ctx, id), job.spec->submit_time_s, id};
    queue_.insert(key);
    key_[id] = key;
  }
  void Remove(JobId id) {
    auto it = key_.find(id);
    if (it == key_.end()) return;
    queue_.erase(it->second);
    key_.erase(it);
  }

  int window_;
  std::set<Key> queue_;
  std::map<JobId, Key> key_;
};

Result<std::unique_ptr<JobScheduler>> MakeSjf(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const long long window, options.GetInt("window", 100));
  if (window < 1) return Status::InvalidArgument("policy 'sjf': option 'window' must be >= 1");
  return std::unique_ptr<JobScheduler>(std::make_unique<SjfScheduler>(static_cast<int>(window)));
}

const MethodInfo kSjfInfo{"sjf", "non-preemptive shortest (estimated) job first, work-conserving",
                          "[CLASSIC] shortest job first (e.g. Silberschatz et al., Operating System Concepts)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kSjfRegistered, kSjfInfo, MakeSjf)

}  // namespace hetsched
