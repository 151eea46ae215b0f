// Preemptive shortest remaining (estimated) time first.
//
// remaining = estimate - executed (job_estimates.h). Pending jobs are kept ordered by remaining
// time (constant while they wait); running jobs of each type by their estimated end time
// (start + remaining at start), which orders them by remaining time at any instant, since every
// running job's remaining time shrinks at the same rate: no re-sorting as time passes.
// A pending job that cannot fit preempts the running jobs with the longest remaining time, only
// those longer than its own by more than `margin` seconds (anti-thrashing), only as many as
// needed, and only if that frees enough devices of one usable type.
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class SrtfScheduler : public JobScheduler {
 public:
  SrtfScheduler(double margin_s, int window) : margin_s_(margin_s), window_(window) {}

  std::string_view name() const override { return "srtf"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override { Enqueue(job.spec->id, ctx); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override { Forget(job.spec->id); }
  void OnJobRequeued(const JobStatus& job, SchedContext& ctx) override {
    Forget(job.spec->id);
    Enqueue(job.spec->id, ctx);
  }
  // A preemption candidate by its remaining estimate, like a job this scheduler started.
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { RecordStart(ctx, job.spec->id); }

  void Schedule(SchedContext& ctx) override {
    const double now = ctx.now();
    int blocked = 0;
    for (auto it = pending_.begin(); it != pending_.end() && blocked < window_;) {
      const auto [remaining_s, submit_s, id] = *it;
      const int n = ctx.job(id).spec->num_gpus;
      bool started = ctx.TryStart(id, n);
      if (!started) {
        VictimChoice& choice = victims_;
        ChooseVictims(ctx, id, [&](DeviceTypeId t, VictimVisit visit) {
          auto& ends = running_by_type_[t];
          for (auto r = ends.rbegin(); r != ends.rend(); ++r) {
            if (r->first - now <= remaining_s + margin_s_) break;  // not longer by the margin
            if (!visit(r->second)) break;
          }
        }, &choice);
        if (choice.type != kNoDeviceType) {
          // Preempted jobs go back to the pending set behind `id` (they have longer remaining
          // times), so the iterator stays valid and they may restart later in this same scan.
          for (JobId v : choice.victims) {
            ctx.Preempt(v);
            Forget(v);
            Enqueue(v, ctx);
          }
          started = ctx.TryStart(id, n, choice.type);
        }
      }
      if (started) {
        it = pending_.erase(it);
        pending_key_.erase(id);
        RecordStart(ctx, id);
      } else {
        ++blocked;
        ++it;
      }
    }
  }

 private:
  using PendingKey = std::tuple<double, double, JobId>;  // (remaining, submit time, id)
  using EndKey = std::pair<double, JobId>;               // (estimated end, id)

  void Enqueue(JobId id, SchedContext& ctx) {
    const PendingKey key{RemainingOnFastestS(ctx, id), ctx.job(id).spec->submit_time_s, id};
    pending_.insert(key);
    pending_key_[id] = key;
  }
  void RecordStart(SchedContext& ctx, JobId id) {
    const JobStatus& status = ctx.job(id);
    // Measured on the fastest type, like pending jobs, so that a preempted job's new key is never
    // shorter than the one it was preempted with (which would let it preempt back: thrashing).
    const EndKey key{ctx.now() + RemainingOnFastestS(ctx, id), id};
    running_by_type_[status.device_type].insert(key);
    running_[id] = {key.first, status.device_type};
  }
  void Forget(JobId id) {
    if (auto it = pending_key_.find(id); it != pending_key_.end()) {
      pending_.erase(it->second);
      pending_key_.erase(it);
    }
    if (auto it = running_.find(id); it != running_.end()) {
      running_by_type_[it->second.second].erase({it->second.first, id});
      running_.erase(it);
    }
  }

  double margin_s_;
  int window_;
  std::set<PendingKey> pending_;
  std::map<JobId, PendingKey> pending_key_;
  std::map<DeviceTypeId, std::set<EndKey>> running_by_type_;
  VictimChoice victims_;  // Schedule's preemption search (storage reused)
  std::map<JobId, std::pair<double, DeviceTypeId>> running_;  // id -> (estimated end, type)
};

Result<std::unique_ptr<JobScheduler>> MakeSrtf(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const double margin_s, options.GetDouble("margin", 0));
  if (!(margin_s >= 0)) return Status::InvalidArgument("policy 'srtf': option 'margin' must be >= 0 seconds");
  HETSCHED_ASSIGN_OR_RETURN(const long long window, options.GetInt("window", 100));
  if (window < 1) return Status::InvalidArgument("policy 'srtf': option 'window' must be >= 1");
  return std::unique_ptr<JobScheduler>(std::make_unique<SrtfScheduler>(margin_s, static_cast<int>(window)));
}

const MethodInfo kSrtfInfo{
    "srtf", "preemptive shortest remaining (estimated) time first, with an anti-thrashing margin",
    "[CLASSIC] shortest remaining processing time (Schrage 1968); SRTF baseline of Gavel/Tiresias-style studies"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kSrtfRegistered, kSrtfInfo, MakeSrtf)

}  // namespace hetsched
