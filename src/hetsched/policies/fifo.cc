// FIFO with optional EASY backfilling.
//
// Strict arrival order (submit time, then id) with head-of-line blocking. With backfill=easy
// (Lifka 1995, "The ANL/IBM SP scheduling system"; Mu'alem & Feitelson 2001, IEEE TPDS 12(6)),
// when the head cannot start it gets a reservation at the shadow time (the earliest estimated
// time enough devices of one of its types are free); later jobs may start now if they fit and
// either end before the shadow time or only use the devices the head will not need at that time
// (the "extra" devices). Heterogeneity: the reservation is on the head's type with the earliest
// shadow time; devices of other types are not reserved.
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class FifoScheduler : public JobScheduler {
 public:
  FifoScheduler(bool backfill, int backfill_depth) : backfill_(backfill), backfill_depth_(backfill_depth) {}

  std::string_view name() const override { return "fifo"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override { Enqueue(job); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    Forget(job.spec->id);
    pending_.erase({job.spec->submit_time_s, job.spec->id});
  }
  // A requeued job keeps its place: the order is by submit time, not by the time it came back.
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override {
    Forget(job.spec->id);
    Enqueue(job);
  }

  void Schedule(SchedContext& ctx) override {
    while (!pending_.empty()) {
      const JobId head = pending_.begin()->second;
      if (!ctx.TryStart(head, ctx.job(head).spec->num_gpus)) break;
      pending_.erase(pending_.begin());
      RecordStart(ctx, head);
    }
    if (backfill_ && pending_.size() > 1) Backfill(ctx);
  }

 private:
  using Key = std::pair<double, JobId>;  // (time, id)

  void Enqueue(const JobStatus& job) { pending_.insert({job.spec->submit_time_s, job.spec->id}); }

  void RecordStart(SchedContext& ctx, JobId id) {
    const JobStatus& status = ctx.job(id);
    const double end_s = ctx.now() + RemainingEstimateS(ctx, id, status.device_type);
    ends_by_type_[status.device_type].insert({end_s, id});
    running_[id] = {end_s, status.device_type};
  }

  void Forget(JobId id) {
    auto it = running_.find(id);
    if (it == running_.end()) return;
    ends_by_type_[it->second.second].erase({it->second.first, id});
    running_.erase(it);
  }

  // The head's reservation: the type with the earliest shadow time, and how many devices of that
  // type are free at the shadow time beyond what the head needs. Walks running jobs of each type
  // in estimated-end order only until enough devices are freed.
  struct Reservation {
    DeviceTypeId type = kNoDeviceType;
    double shadow_s = kInf;
    int extra = 0;
  };
  Reservation Reserve(SchedContext& ctx, JobId head) {
    const JobSpec& spec = *ctx.job(head).spec;
    const double now = ctx.now();
    Reservation best;
    for (DeviceTypeId t : UsableTypes(spec, ctx.cluster())) {
      int avail = ctx.state().free_of_type(t);
      double shadow_s = now;
      if (avail < spec.num_gpus) {
        for (const auto& [end_s, id] : ends_by_type_[t]) {
          avail += ctx.job(id).num_devices();
          shadow_s = std::max(now, end_s);  // an overrun job is taken to end now
          if (avail >= spec.num_gpus) break;
        }
      }
      if (avail < spec.num_gpus || shadow_s == kInf) continue;
      if (shadow_s < best.shadow_s) best = {t, shadow_s, avail - spec.num_gpus};
    }
    return best;
  }

  void Backfill(SchedContext& ctx) {
    const Reservation res = Reserve(ctx, pending_.begin()->second);
    if (res.type == kNoDeviceType) return;  // no estimate tells when the head can start
    int extra = res.extra;
    const double now = ctx.now();
    int examined = 0;
    for (auto it = std::next(pending_.begin()); it != pending_.end() && examined < backfill_depth_;) {
      ++examined;
      if (ctx.state().total_free() == 0) break;
      const JobId id = it->second;
      const int n = ctx.job(id).spec->num_gpus;
      bool started = false;
      for (DeviceTypeId t : UsableTypes(*ctx.job(id).spec, ctx.cluster())) {
        if (ctx.state().free_of_type(t) < n) continue;
        bool uses_extra = false;
        if (t == res.type && now + RemainingEstimateS(ctx, id, t) > res.shadow_s) {
          // Would still hold devices of the reserved type at the shadow time.
          if (n > extra) continue;
          uses_extra = true;
        }
        if (ctx.TryStart(id, n, t)) {
          if (uses_extra) extra -= n;
          started = true;
          break;
        }
      }
      if (started) {
        it = pending_.erase(it);
        RecordStart(ctx, id);
      } else {
        ++it;
      }
    }
  }

  bool backfill_;
  int backfill_depth_;
  std::set<Key> pending_;                                      // (submit time, id)
  std::map<DeviceTypeId, std::set<Key>> ends_by_type_;         // running: (estimated end, id)
  std::map<JobId, std::pair<double, DeviceTypeId>> running_;   // id -> (estimated end, type)
};

Result<std::unique_ptr<JobScheduler>> MakeFifo(const Options& options) {
  const std::string backfill = options.GetString("backfill", "easy");
  if (backfill != "easy" && backfill != "none") {
    return Status::InvalidArgument("policy 'fifo': option 'backfill' must be easy or none, got '" + backfill + "'");
  }
  HETSCHED_ASSIGN_OR_RETURN(const long long depth, options.GetInt("backfill_depth", 100));
  if (depth < 0) return Status::InvalidArgument("policy 'fifo': option 'backfill_depth' must be >= 0");
  return std::unique_ptr<JobScheduler>(std::make_unique<FifoScheduler>(backfill == "easy", static_cast<int>(depth)));
}

const MethodInfo kFifoInfo{
    "fifo", "first come first served, head-of-line blocking, EASY backfilling (backfill=easy|none)",
    "[CLASSIC] FCFS; EASY backfilling (Lifka 1995; Mu'alem & Feitelson, IEEE TPDS 2001)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kFifoRegistered, kFifoInfo, MakeFifo)

}  // namespace hetsched
