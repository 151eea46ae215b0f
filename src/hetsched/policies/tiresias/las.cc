// Tiresias discretised two-dimensional least-attained-service (2D-LAS) scheduler.
//
// Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep Learning", NSDI 2019.
// Attained service = GPUs x executed time (JobStatus::AttainedServiceGpuS). K = thresholds + 1
// priority queues; a job enters queue 0 and moves down one queue each time its attained service
// crosses the next threshold. Within a queue, FIFO by the time the job entered it (as pending).
// Higher queues first; a pending job that does not fit preempts running jobs of strictly lower
// queues (lowest queue first, most recently started first), only if that frees enough devices
// of one usable type. Starvation: a pending job of a lower queue that has waited more than
// starve_factor x its executed time is promoted to queue 0 and its service counter restarts
// there (otherwise it would be demoted again at once).
//
// Event-driven by default (round=0): the scheduler asks for a wake-up at the exact time a
// running job's service crosses its queue's threshold, and at each promotion time. With round>0
// it relies on periodic rounds instead (Tiresias itself rescheduled periodically).
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/pending_index.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/job_table.h"
#include "hetsched/util/timer_heap.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace {

// Times within this many seconds count as reached: floating-point slack on wake-ups.
constexpr double kLasSlackS = 1e-9;

class TiresiasLasScheduler : public JobScheduler {
 public:
  TiresiasLasScheduler(std::vector<double> thresholds_gpu_s, double starve_factor, double round_s, int window)
      : thresholds_gpu_s_(std::move(thresholds_gpu_s)),
        starve_factor_(starve_factor),
        round_s_(round_s),
        window_(window),
        pending_(thresholds_gpu_s_.size() + 1) {}

  std::string_view name() const override { return "tiresias-las"; }
  double round_period_s() const override { return round_s_; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override {
    JobInfo& info = jobs_[job.spec->id];
    info = JobInfo{};
    info.need = job.spec->num_gpus;
    AddPending(ctx, job.spec->id, info, job.queued_since_s);
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    JobInfo* info = jobs_.Find(job.spec->id);
    if (info == nullptr) return;
    RemovePending(job.spec->id, *info);
    RemoveRunning(*info);
    jobs_.Erase(job.spec->id);
  }
  // Booked running in the queue its attained service has reached (its service counts from
  // zero in queue 0, as for a new job), with its threshold crossing due.
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override {
    JobInfo& info = jobs_[job.spec->id];
    RemovePending(job.spec->id, info);  // a record from before (none for a job the policy never saw)
    RemoveRunning(info);
    info = JobInfo{};
    info.need = job.spec->num_gpus;
    info.queue = QueueOf(job.AttainedServiceGpuS(ctx.now()));
    AddRunning(ctx, job.spec->id, info);
  }
  void OnJobRequeued(const JobStatus& job, SchedContext& ctx) override {
    JobInfo* found = jobs_.Find(job.spec->id);
    if (found == nullptr) return;
    JobInfo& info = *found;
    RemoveRunning(info);
    RemovePending(job.spec->id, info);
    // A crossing may have passed without a Schedule call yet: take the larger queue.
    info.queue = std::max(info.queue, QueueOf(job.AttainedServiceGpuS(ctx.now()) - info.offset_gpu_s));
    AddPending(ctx, job.spec->id, info, ctx.now());
  }

  void Schedule(SchedContext& ctx) override {
    ApplyDemotions(ctx);
    ApplyPromotions(ctx);
    // The first `window_` pending jobs, higher queues first, FIFO within a queue, are examined;
    // each starts if it fits, else (above the lowest queue) preempts lower queues if that helps.
    // A job that needs more devices than MostReachable() would fail both at once with no side
    // effect, so it is counted as examined without a visit: the scan costs O(log n) per job
    // that may start, not O(window) per call.
    size_t examined = 0;
    const size_t window = static_cast<size_t>(window_);
    const int num_queues = static_cast<int>(pending_.size());
    for (int q = 0; q < num_queues && examined < window; ++q) {
      PendingIndex& queue = pending_[static_cast<size_t>(q)];
      size_t rank = 0;  // jobs of this queue before `rank` are examined
      while (examined < window && rank < queue.size()) {
        const size_t budget = window - examined;
        const size_t hit = queue.FirstFitting(rank, MostReachable(ctx, q), rank + budget);
        if (hit >= queue.size() || hit - rank >= budget) {
          examined += std::min(budget, queue.size() - rank);
          break;
        }
        examined += hit - rank + 1;
        const PendingIndex::Entry entry = queue.At(hit);
        const JobId id = entry.id;
        jobs_.Prefetch(id);  // read below if it starts
        ctx.PrefetchJob(id);  // read by TryStart at once: the misses overlap
        bool started = ctx.TryStart(id, entry.need);
        if (!started && q + 1 < num_queues) started = PreemptFor(ctx, id, q);
        // Victims of a preemption join queues below q: ranks in this queue move only when the
        // job itself leaves it.
        if (started) {
          JobInfo& info = jobs_[id];
          RemovePending(id, info);
          AddRunning(ctx, id, info);
          rank = hit;
        } else {
          rank = hit + 1;
        }
      }
    }
  }

 private:
  using Key = std::pair<double, JobId>;  // (time, id)
  using KeySet = std::set<Key>;

  // Each job keeps the positions of its entries in the ordered sets, so that removing one costs
  // no search (the sets hold one entry per running or pending job: a search is a cache miss per
  // level at a million jobs).
  struct JobInfo {
    int queue = 0;
    int need = 0;             // devices it requests (spec->num_gpus): a re-queue reads no spec
    double offset_gpu_s = 0;  // service attained before the last promotion to queue 0
    bool pending = false;
    bool running = false;
    double enter_s = 0;       // pending: when it entered its queue
    double promote_s = kInf;  // pending in a queue > 0: when it counts as starved
    double last_start_s = 0;  // running: start of the current run
    DeviceTypeId type = kNoDeviceType;
    int devices = 0;           // running: devices held
    double crossing_s = kInf;  // running: when its service crosses its queue's threshold
    KeySet::iterator running_at;    // running: its entry in RunningSet(type, queue)
    // The seq of its live entry in crossings_ (running, finite crossing) and in promotions_
    // (pending, finite promotion time); 0 when none. Seqs come from one counter for all jobs, so
    // an entry left from an earlier record of the same id never matches a later one.
    uint64_t crossing_seq = 0;
    uint64_t promotion_seq = 0;
  };

  int QueueOf(double service_gpu_s) const {
    int q = 0;
    for (double t : thresholds_gpu_s_) {
      if (service_gpu_s + kLasSlackS * std::max(1.0, t) < t) break;
      ++q;
    }
    return q;
  }

  void AddPending(SchedContext& ctx, JobId id, JobInfo& info, double enter_s) {
    info.pending = true;
    info.enter_s = enter_s;
    pending_[static_cast<size_t>(info.queue)].Insert(enter_s, id, info.need);
    info.promote_s = kInf;
    if (info.queue > 0 && starve_factor_ > 0) {
      info.promote_s = enter_s + starve_factor_ * ctx.job(id).ExecutedS(ctx.now());
      promotions_.Push(info.promote_s, id, info.promotion_seq = ++last_seq_);
      if (round_s_ <= 0) ctx.WakeUpAt(info.promote_s);
    }
  }
  void RemovePending(JobId id, JobInfo& info) {
    if (!info.pending) return;
    pending_[static_cast<size_t>(info.queue)].Erase(info.enter_s, id);
    info.pending = false;
    if (info.promote_s != kInf) {
      info.promotion_seq = 0;  // its entry is no longer live
      promotions_.Cancelled(PromotionLive{this});
    }
  }

  void AddRunning(SchedContext& ctx, JobId id, JobInfo& info) {
    const JobStatus& status = ctx.job(id);
    info.running = true;
    info.last_start_s = status.last_start_s;
    info.type = status.device_type;
    // A run starts now, so its key is the set's largest but for ties: the end is the hint.
    KeySet& running = RunningSet(info.type, info.queue);
    info.running_at = running.emplace_hint(running.end(), info.last_start_s, id);
    Held(info.type)[static_cast<size_t>(info.queue)] += status.num_devices();
    info.devices = status.num_devices();
    ScheduleCrossing(ctx, id, info);
  }
  void RemoveRunning(JobInfo& info) {
    if (!info.running) return;
    RunningSet(info.type, info.queue).erase(info.running_at);
    Held(info.type)[static_cast<size_t>(info.queue)] -= info.devices;
    info.running = false;
    if (info.crossing_s != kInf) {
      info.crossing_seq = 0;  // its entry is no longer live
      crossings_.Cancelled(CrossingLive{this});
    }
  }

  // The exact time the running job's service reaches its queue's threshold: service grows at
  // num_devices GPU-seconds per second.
  void ScheduleCrossing(SchedContext& ctx, JobId id, JobInfo& info) {
    info.crossing_s = kInf;
    if (static_cast<size_t>(info.queue) >= thresholds_gpu_s_.size()) return;
    const JobStatus& status = ctx.job(id);
    const double now = ctx.now();
    const double service_gpu_s = status.AttainedServiceGpuS(now) - info.offset_gpu_s;
    const double left_gpu_s = std::max(0.0, thresholds_gpu_s_[static_cast<size_t>(info.queue)] - service_gpu_s);
    info.crossing_s = now + left_gpu_s / std::max(1, status.num_devices());
    crossings_.Push(info.crossing_s, id, info.crossing_seq = ++last_seq_);
    if (round_s_ <= 0) ctx.WakeUpAt(info.crossing_s);
  }

  void ApplyDemotions(SchedContext& ctx) {
    const double now = ctx.now();
    for (const TimerHeap<JobId>::Entry* e; (e = crossings_.Top(CrossingLive{this})) != nullptr && e->time_s <= now + kLasSlackS;) {
      const JobId id = e->id;
      JobInfo& info = jobs_[id];
      RemoveRunning(info);
      ++info.queue;
      AddRunning(ctx, id, info);  // next crossing; may be `now` again in round mode, looped here
    }
  }
  void ApplyPromotions(SchedContext& ctx) {
    const double now = ctx.now();
    for (const TimerHeap<JobId>::Entry* e; (e = promotions_.Top(PromotionLive{this})) != nullptr && e->time_s <= now + kLasSlackS;) {
      const JobId id = e->id;
      JobInfo& info = jobs_[id];
      RemovePending(id, info);
      info.queue = 0;
      info.offset_gpu_s = ctx.job(id).AttainedServiceGpuS(now);
      AddPending(ctx, id, info, now);
    }
  }

  // An upper bound on the devices a job of queue `q` could get now: the most free devices of any
  // type, plus (above the lowest queue) what lower queues hold of it. A job needing more cannot
  // start: the placer's devices are all of one type (PlacementRequest), so TryStart fails before
  // placing, and PreemptFor fails its first test. O(types x queues).
  int MostReachable(SchedContext& ctx, int q) const {
    int most = 0;
    for (DeviceTypeId type : ctx.cluster().present_types()) most = std::max(most, ctx.state().free_of_type(type));
    const int num_queues = static_cast<int>(pending_.size());
    if (q + 1 >= num_queues) return most;
    for (const auto& [type, held] : held_) {
      int reachable = ctx.state().free_of_type(type);
      for (int qq = q + 1; qq < num_queues; ++qq) reachable += held[static_cast<size_t>(qq)];
      most = std::max(most, reachable);
    }
    return most;
  }

  // Preempts running jobs of queues below `q` so that `id` can start; true if it started.
  bool PreemptFor(SchedContext& ctx, JobId id, int q) {
    const int num_queues = static_cast<int>(pending_.size());
    // Cheap test first (the common case in a full cluster): can the free devices plus those held
    // by lower queues reach the request on any usable type? O(types x queues), no walk.
    const int need = ctx.job(id).spec->num_gpus;
    bool possible = false;
    for (const auto& [type, held] : held_) {
      int reachable = ctx.state().free_of_type(type);
      for (int qq = q + 1; qq < num_queues; ++qq) reachable += held[static_cast<size_t>(qq)];
      if (reachable >= need && ctx.job(id).spec->AllowsType(type, ctx.cluster().device_catalog())) {
        possible = true;
        break;
      }
    }
    if (!possible) return false;
    VictimChoice& choice = victims_;
    ChooseVictims(ctx, id, [&](DeviceTypeId t, VictimVisit visit) {
      for (int qq = num_queues - 1; qq > q; --qq) {
        const auto& running = RunningSet(t, qq);
        for (auto r = running.rbegin(); r != running.rend(); ++r) {
          if (!visit(r->second)) return;
        }
      }
    }, &choice);
    if (choice.type == kNoDeviceType) return false;
    for (JobId v : choice.victims) {
      jobs_.Prefetch(v);  // read below
      ctx.Preempt(v);
      JobInfo& info = jobs_[v];
      RemoveRunning(info);
      AddPending(ctx, v, info, ctx.now());  // into its own queue, below q: the scan of q is safe
    }
    return ctx.TryStart(id, ctx.job(id).spec->num_gpus, choice.type);
  }

  std::vector<int>& Held(DeviceTypeId type) {
    auto& held = held_[type];
    if (held.empty()) held.resize(pending_.size(), 0);
    return held;
  }

  std::set<Key>& RunningSet(DeviceTypeId type, int queue) {
    auto& per_queue = running_[type];
    if (per_queue.empty()) per_queue.resize(pending_.size());
    return per_queue[static_cast<size_t>(queue)];
  }

  std::vector<double> thresholds_gpu_s_;
  double starve_factor_;
  double round_s_;
  int window_;
  JobTable<JobInfo> jobs_;  // by id only, never walked
  std::vector<PendingIndex> pending_;                         // per queue: (enter time, id)
  std::map<DeviceTypeId, std::vector<std::set<Key>>> running_;  // per type, per queue: (start, id)
  std::map<DeviceTypeId, std::vector<int>> held_;             // per type, per queue: devices held by running jobs
  TimerHeap<JobId> crossings_;   // running: (threshold crossing, id)
  TimerHeap<JobId> promotions_;  // pending: (starvation time, id)
  VictimChoice victims_;         // PreemptFor's (storage reused)
  uint64_t last_seq_ = 0;        // the last seq given to a timer entry
  // Whether a timer entry is its job's live one (the job's record holds the same seq).
  struct CrossingLive {
    const TiresiasLasScheduler* self;
    bool operator()(const TimerHeap<JobId>::Entry& e) const {
      const JobInfo* info = self->jobs_.Find(e.id);
      return info != nullptr && info->running && info->crossing_seq == e.seq;
    }
  };
  struct PromotionLive {
    const TiresiasLasScheduler* self;
    bool operator()(const TimerHeap<JobId>::Entry& e) const {
      const JobInfo* info = self->jobs_.Find(e.id);
      return info != nullptr && info->pending && info->promotion_seq == e.seq;
    }
  };
};

Result<std::unique_ptr<JobScheduler>> MakeTiresiasLas(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(std::vector<double> thresholds,
                            ParseIncreasingList(options.GetString("thresholds", "3600;36000"),
                                                "policy 'tiresias-las': option 'thresholds'"));
  HETSCHED_ASSIGN_OR_RETURN(const double starve_factor, options.GetDouble("starve_factor", 2));
  HETSCHED_ASSIGN_OR_RETURN(const double round_s, options.GetDouble("round", 0));
  HETSCHED_ASSIGN_OR_RETURN(const long long window, options.GetInt("window", 100));
  if (!(starve_factor >= 0)) {
    return Status::InvalidArgument("policy 'tiresias-las': option 'starve_factor' must be >= 0 (0 disables)");
  }
  if (!(round_s >= 0)) return Status::InvalidArgument("policy 'tiresias-las': option 'round' must be >= 0 seconds");
  if (window < 1) return Status::InvalidArgument("policy 'tiresias-las': option 'window' must be >= 1");
  return std::unique_ptr<JobScheduler>(std::make_unique<TiresiasLasScheduler>(
      std::move(thresholds), starve_factor, round_s, static_cast<int>(window)));
}

const MethodInfo kTiresiasInfo{
    "tiresias-las", "discretised 2D least attained service (GPUs x time), preemptive, with starvation promotion",
    "[CLASSIC] Tiresias 2D-LAS (Gu et al., NSDI 2019); thresholds and starvation rule [REC]"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kTiresiasRegistered, kTiresiasInfo, MakeTiresiasLas)

}  // namespace hetsched
