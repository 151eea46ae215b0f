// FIFO with optional EASY backfilling, or with any job that fits started (Tiresias' `fjf`).
//
// Strict arrival order (submit time, then id) with head-of-line blocking. With backfill=easy
// (Lifka 1995, "The ANL/IBM SP scheduling system"; Mu'alem & Feitelson 2001, IEEE TPDS 12(6)),
// when the head cannot start it gets a reservation at the shadow time (the earliest estimated
// time enough devices of one of its types are free); later jobs may start now if they fit and
// either end before the shadow time or only use the devices the head will not need at that time
// (the "extra" devices). Heterogeneity: the reservation is on the head's type with the earliest
// shadow time; devices of other types are not reserved. With backfill=any (registered as `fjf`:
// Tiresias' simulator, fit_first_sim_jobs, run_sim.py:338-395), every pending job that fits starts,
// in arrival order, with no reservation, until no GPU is free: the head may then wait for good.
#include <algorithm>
#include <map>
#include <string>
#include <set>
#include <unordered_map>
#include <utility>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/pending_index.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace {

enum class Backfill { kNone, kEasy, kAny };

class FifoScheduler : public JobScheduler {
 public:
  FifoScheduler(std::string name, Backfill backfill, int backfill_depth)
      : name_(std::move(name)), backfill_(backfill), backfill_depth_(backfill_depth) {}

  std::string_view name() const override { return name_; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override { Enqueue(job); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    Forget(job.spec->id);
    pending_.Erase(job.spec->submit_time_s, job.spec->id);
  }
  // A requeued job keeps its place: the order is by submit time, not by the time it came back.
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override {
    Forget(job.spec->id);
    Enqueue(job);
  }
  // Its estimated end counts in the head's reservation, like a job this scheduler started.
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { RecordStart(ctx, job.spec->id); }

  void Schedule(SchedContext& ctx) override {
    // Tiresias' fifo tries its queue only when a GPU is free (run_sim.py:305), its fjf before each
    // attempt (369-371). A placer asked even for a job that cannot fit (Placer::asked_when_short,
    // whose draws must fall as the peer's) is therefore not asked when none is; for the others
    // TryStart refuses such a start without asking, so nothing changes for them.
    const bool asked_when_short = ctx.placer().asked_when_short();
    bool first = true;
    while (!pending_.empty()) {
      if (asked_when_short && (first || backfill_ == Backfill::kAny) && ctx.state().total_free() == 0) break;
      first = false;
      const PendingIndex::Entry head = pending_.At(0);
      if (!ctx.TryStart(head.id, head.need)) break;
      pending_.Erase(head.time_s, head.id);
      RecordStart(ctx, head.id);
    }
    if (backfill_ == Backfill::kEasy && pending_.size() > 1) BackfillEasy(ctx);
    if (backfill_ == Backfill::kAny && pending_.size() > 1) StartAnyThatFits(ctx);
  }

 private:
  using Key = std::pair<double, JobId>;  // (time, id)

  void Enqueue(const JobStatus& job) {
    pending_.Insert(job.spec->submit_time_s, job.spec->id, job.spec->num_gpus);
  }

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

  // After the head: each job in arrival order that fits starts, while a GPU is free (run_sim.py:
  // 369-382, `continue` past a job that does not fit); jobs needing more GPUs than any type has free
  // are skipped by the index, as they would fail.
  void StartAnyThatFits(SchedContext& ctx) {
    size_t rank = 1;
    while (rank < pending_.size()) {
      int most_free = 0;
      for (DeviceTypeId t : ctx.cluster().present_types()) most_free = std::max(most_free, ctx.state().free_of_type(t));
      if (most_free <= 0) break;
      // Such a placer is asked for every job in turn, as the peer's fjf asks its placement.
      const size_t next = ctx.placer().asked_when_short() ? rank : pending_.FirstFitting(rank, most_free);
      if (next >= pending_.size()) break;
      const PendingIndex::Entry entry = pending_.At(next);
      if (ctx.TryStart(entry.id, entry.need)) {
        pending_.Erase(entry.time_s, entry.id);
        RecordStart(ctx, entry.id);
        rank = next;
      } else {
        rank = next + 1;
      }
      if (ctx.failed()) return;
    }
  }

  void BackfillEasy(SchedContext& ctx) {
    const Reservation res = Reserve(ctx, pending_.At(0).id);
    if (res.type == kNoDeviceType) return;  // no estimate tells when the head can start
    int extra = res.extra;
    const double now = ctx.now();
    // The first `backfill_depth_` jobs after the head are examined in queue order. A job that
    // needs more devices than any type has free cannot start (no type passes the free check
    // below), so the index skips such jobs, counting them as examined, instead of visiting them
    // one by one: the same starts in O(log n) per candidate instead of O(depth) per call.
    int examined = 0;
    size_t rank = 1;
    while (examined < backfill_depth_) {
      int most_free = 0;
      for (DeviceTypeId t : ctx.cluster().present_types()) most_free = std::max(most_free, ctx.state().free_of_type(t));
      const size_t room = static_cast<size_t>(backfill_depth_ - examined);
      const size_t next = pending_.FirstFitting(rank, most_free, rank + room);  // size() if none in the window
      if (next - rank >= room || next >= pending_.size()) break;
      examined += static_cast<int>(next - rank) + 1;
      const PendingIndex::Entry entry = pending_.At(next);
      const JobId id = entry.id;
      const int n = entry.need;
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
        pending_.Erase(entry.time_s, id);
        RecordStart(ctx, id);
        rank = next;
      } else {
        rank = next + 1;
      }
    }
  }

  std::string name_;
  Backfill backfill_;
  int backfill_depth_;
  PendingIndex pending_;                                       // by (submit time, id)
  std::map<DeviceTypeId, std::set<Key>> ends_by_type_;         // running: (estimated end, id)
  std::unordered_map<JobId, std::pair<double, DeviceTypeId>> running_;  // id -> (estimated end, type)
};

Result<std::unique_ptr<JobScheduler>> MakeFifo(const Options& options) {
  const std::string backfill = options.GetString("backfill", "easy");
  if (backfill != "easy" && backfill != "none" && backfill != "any") {
    return Status::InvalidArgument("policy 'fifo': option 'backfill' must be easy, none or any, got '" + backfill + "'");
  }
  HETSCHED_ASSIGN_OR_RETURN(const long long depth, options.GetInt("backfill_depth", 100));
  if (depth < 0) return Status::InvalidArgument("policy 'fifo': option 'backfill_depth' must be >= 0");
  const Backfill mode = backfill == "easy" ? Backfill::kEasy : backfill == "any" ? Backfill::kAny : Backfill::kNone;
  return std::unique_ptr<JobScheduler>(std::make_unique<FifoScheduler>("fifo", mode, static_cast<int>(depth)));
}

Result<std::unique_ptr<JobScheduler>> MakeFitFirst(const Options& /*options*/) {
  return std::unique_ptr<JobScheduler>(std::make_unique<FifoScheduler>("fjf", Backfill::kAny, 0));
}

const MethodInfo kFifoInfo{
    "fifo", "first come first served, head-of-line blocking, EASY backfilling (backfill=easy|none|any)",
    "[CLASSIC] FCFS; EASY backfilling (Lifka 1995; Mu'alem & Feitelson, IEEE TPDS 2001)"};

const MethodInfo kFitFirstInfo{
    "fjf", "fit first: arrival order, every job that fits starts (no reservation), non-preemptive",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py fit_first_sim_jobs)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kFifoRegistered, kFifoInfo, MakeFifo)
HETSCHED_REGISTER_IMPL(JobScheduler, kFitFirstRegistered, kFitFirstInfo, MakeFitFirst)

}  // namespace hetsched
