// Tiresias' discretised LAS as Tiresias' own simulator runs it: `dlas` (attained service =
// executed time) and `dlas-gpu` (GPUs x executed time). SymbioticLab/Tiresias @ 959f9b0,
// simulator/run_sim.py, dlas_sim_jobs (lines 959-1241); docs/policies.md, "dlas, dlas-gpu".
//
// Unlike `tiresias-las` (hetsched's incremental 2D-LAS, which preempts only for a pending job
// that does not fit), the peer re-plans the whole cluster at every event:
//  1. Demotion (run_sim.py:1034-1055): each running job, in arrival order, whose service has
//     reached its queue's limit moves to the end of the next queue (jobs.py:102-104: limits
//     3250 and 7200 over three queues; the last queue has no limit).
//  2. Allocation (run_sim.py:1094-1117; count_replan.h): free devices start at the cluster's
//     total; queues in order, each in its list order (dlas-gpu-gittins first sorts each queue,
//     gittins.cc), a job runs if it fits in what is still free, else it is
//     skipped (no head-of-line blocking, no reservation). Devices are counted, not placed (the
//     peer calls no placer here: CLUSTER.empty_infra() then free_gpu counting): with
//     placement=count a chosen job starts on the lowest-id free devices of its type; with
//     placement=placer (the default) it asks the placer, and stays pending if the placer
//     finds no room.
//  3. Running jobs left out are preempted, chosen pending jobs start (run_sim.py:1120-1129);
//     a preemption costs nothing in the peer (the run time continues, run_sim.py:1207).
//  4. Each queue is reordered: running jobs first, then pending ones, each in their old order
//     (run_sim.py:1133-1143). New jobs join the end of queue 0 (run_sim.py:1025-1029).
//  5. The next event is the earliest completion, arrival or "queue jump" of a running job
//     (run_sim.py:1216-1237). For dlas-gpu the peer computes the jump as
//     ceil((limit - executed time) / GPUs) ahead, mixing GPU-seconds and seconds: a job is
//     demoted at the first event after its service crossed the limit, which is this jump or any
//     earlier arrival or completion. Reproduced as is.
// No starvation promotion in dlas and dlas-gpu (the peer passes solve_starvation = 0,
// run_sim.py:2045-2049); the peer's dlas-gpu-N variants set it (Promote below; registered in
// dlas_names.cc), as the option `starvation` does, and their promotions are events too.
// Heterogeneous clusters (the peer has one type): a job is counted against its own type while
// running, and against its usable type with the most free devices when it would start.
// Cost: O(runnable jobs) per event, as in the peer, with `incremental` off (a queue order set,
// as dlas-gpu-gittins's, turns it off too). On (the default):
//
// Incremental re-plan: the same plans without walking every job. Each queue's list is kept as
// `front`, the jobs the last plan put first (those it ran), in list order, followed by `rest`,
// every other job of the queue in list order by a key: jobs appended later (arrivals, demotions,
// promotions) take keys above all others, jobs the re-plan moves from front to the head of rest
// keys below all others. `rest` is split into buckets: the running jobs, and the pending jobs by
// GPU count, each ordered by key; the walk merges the buckets by key, so it visits jobs in list
// order. During a walk a device count only shrinks, so once a pending job's count exceeds the
// most devices any type still has free (TiresiasCountReplan::MaxFree) it, and every later job of
// its bucket, would be skipped by the whole walk too: the merge drops that bucket. Every running
// job and every pending job that may fit is visited in the whole walk's order, so the same jobs
// are kept, stopped and started, in the same order. A front whose jobs all still run and all fit
// in what is left free is kept at once from its devices per type (each would be kept in turn).
// The reorder of step 4 is then: front = the front jobs that run, then the visited rest jobs that
// run (in key order); front jobs that do not run go to the head of rest in their order; the jobs
// not visited stay where they are. Demotions and jumps look only at the running jobs, kept in id
// order (a job changes state only by the re-plan's starts and stops, completions and requeues;
// a rest bucket follows the job's state the same way).
// Cost per event: O(running) for demotions and jumps, O((stopped + started + demoted) x
// log(jobs)) for the re-plan; starvation promotion still looks at every waiting job.
#include "hetsched/policies/tiresias/dlas.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/policies/tiresias/count_replan.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace {

// Times within this many seconds count as reached: floating-point slack on wake-ups. The peer's
// times are whole seconds; ours drift (a completion computed from progress summed over many runs
// lands up to ~1e-7 s off by t ~ 2.5e6 s, docs/validation.md), so the slack is well above that
// and far below a second.
constexpr double kDlasSlackS = 1e-6;

class TiresiasDlasScheduler : public JobScheduler {
 public:
  explicit TiresiasDlasScheduler(TiresiasDlasConfig config)
      : name_(std::move(config.name)),
        gpu_time_(config.gpu_time),
        limits_(std::move(config.limits)),
        starvation_(config.starvation),
        order_(std::move(config.order)),
        incremental_(config.incremental && !order_),
        inc_(limits_.size() + 1),
        queues_(limits_.size() + 1),
        replan_(config.count_only),
        watching_(incremental_ && starvation_ == 0) {}

  std::string_view name() const override { return name_; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override {
    const JobId id = job.spec->id;
    queue_of_[id] = 0;
    ListAppend(job, 0);
    MarkRunning(job, 0, ctx.now());
    event_since_plan_ = true;
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    Forget(job.spec->id);
    MarkStopped(job.spec->id);
    promoted_at_.erase(job.spec->id);
    last_pending_s_.erase(job.spec->id);
    event_since_plan_ = true;
  }
  // A job the back end gave back keeps its queue and its place in it.
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override {
    const auto it = queue_of_.find(job.spec->id);
    if (incremental_ && it != queue_of_.end()) {
      IncQueue& q = inc_[static_cast<size_t>(it->second)];
      Place& place = place_[job.spec->id];
      if (place.front && place.counted) UncountFront(q, place);
      Rebucket(q, job);
    }
    MarkStopped(job.spec->id);
    event_since_plan_ = true;
  }
  // The queues hold every job, pending or running (ctx.job(id).state tells which): it enters
  // queue 0 like a new job, and the next pass's Demote moves it down by the service it attained.
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { OnJobSubmitted(job, ctx); }

  void Schedule(SchedContext& ctx) override {
    const double now = ctx.now();
    // The peer has an event only at arrivals, completions and queue jumps: a wake-up asked for
    // earlier and since made stale changes nothing there, so nothing here either.
    if (!event_since_plan_ && now + kDlasSlackS < next_jump_s_) return;
    event_since_plan_ = false;
    Demote(ctx);
    if (starvation_ > 0) Promote(ctx);
    Allocate(ctx);
    AskForNextJump(ctx);
    last_event_s_ = now;
  }

 private:
  void Forget(JobId id) {
    auto it = queue_of_.find(id);
    if (it == queue_of_.end()) return;
    ListRemove(id, it->second);
    queue_of_.erase(it);
  }

  // The queue lists: `queues_` for the whole walk, `inc_` for the incremental one.
  struct Place {
    int64_t key = 0;      // in rest
    int bucket = 0;       // in rest: kRunningBucket or the job's GPU count
    bool front = false;   // in front, else in rest
    bool counted = false;  // in front and running when it was put there: in front_need
    DeviceTypeId type = kNoDeviceType;  // counted: the type and number of its devices
    int devices = 0;
  };
  struct IncQueue {
    std::vector<JobId> front;                       // the running prefix the last plan left, in list order
    std::map<int, std::map<int64_t, JobId>> rest;  // bucket -> key -> job; the rest of the list by key
    int64_t lo = 0, hi = 0;                         // rest's keys lie in [lo, hi)
    // The devices per type of front's counted jobs, and how many front jobs are not counted (given
    // back since). With none uncounted, front's jobs are all running, and when all of them fit in
    // what the walk left free each is kept: TiresiasCountReplan::KeepAll keeps them at once.
    std::vector<int> front_need;
    int front_uncounted = 0;
  };
  static constexpr int kRunningBucket = -1;  // below every GPU count: always walked
  static int BucketOf(const JobStatus& job) {
    return job.state == JobState::kRunning ? kRunningBucket : job.spec->num_gpus;
  }

  void ListAppend(const JobStatus& job, int queue) {
    const JobId id = job.spec->id;
    if (!incremental_) {
      queues_[static_cast<size_t>(queue)].push_back(id);
      return;
    }
    IncQueue& q = inc_[static_cast<size_t>(queue)];
    const Place place{q.hi++, BucketOf(job), false};
    q.rest[place.bucket].emplace(place.key, id);
    place_[id] = place;
  }
  void ListRemove(JobId id, int queue) {
    if (!incremental_) {
      auto& q = queues_[static_cast<size_t>(queue)];
      q.erase(std::find(q.begin(), q.end(), id));
      return;
    }
    IncQueue& q = inc_[static_cast<size_t>(queue)];
    const auto it = place_.find(id);
    if (it->second.front) {
      q.front.erase(std::find(q.front.begin(), q.front.end(), id));
      if (it->second.counted) UncountFront(q, it->second);
      --q.front_uncounted;  // an uncounted front job leaves
    } else {
      EraseFromRest(q, it->second);
    }
    place_.erase(it);
  }
  // Puts job `id` (which runs) at the end of front, counting its devices.
  void PushFront(IncQueue& q, Place& place, JobId id, const JobStatus& job) {
    place.front = true;
    q.front.push_back(id);
    if (job.state != JobState::kRunning) {
      place.counted = false;
      ++q.front_uncounted;
      return;
    }
    place.counted = true;
    place.type = job.device_type;
    place.devices = job.num_devices();
    if (q.front_need.size() <= static_cast<size_t>(place.type)) q.front_need.resize(static_cast<size_t>(place.type) + 1, 0);
    q.front_need[static_cast<size_t>(place.type)] += place.devices;
  }
  static void UncountFront(IncQueue& q, Place& place) {
    q.front_need[static_cast<size_t>(place.type)] -= place.devices;
    place.counted = false;
    ++q.front_uncounted;
  }
  // running_ holds the running jobs in id order (incremental_); MarkRunning notes a job of
  // `queue` by its state, MarkStopped one that no longer runs.
  void MarkRunning(const JobStatus& job, int queue, double now) {
    const JobId id = job.spec->id;
    if (job.state != JobState::kRunning) {
      MarkStopped(id);
      return;
    }
    if (!incremental_) return;
    const auto it = std::lower_bound(running_.begin(), running_.end(), id);
    if (it != running_.end() && *it == id) return;
    running_.insert(it, id);
    StartWatch(job, queue, now);
  }
  void MarkStopped(JobId id) {
    if (!incremental_) return;
    const auto it = std::lower_bound(running_.begin(), running_.end(), id);
    if (it == running_.end() || *it != id) return;
    running_.erase(it);
    StopWatch(id);
  }

  // Watches (incremental_ without starvation): for each running job below the last queue, lower
  // bounds of the time it can be demoted and of its jump, from its executed time when it was
  // watched: executed time grows at most as fast as the clock, and only a promotion (none
  // without starvation) takes it back. Demote and AskForNextJump then evaluate exactly only the
  // jobs whose bound does not rule them out.
  struct Watch {
    double demote_s;  // service cannot reach the queue's limit before
    double reach_s;   // limit - executed + now: the jump is at least now' + (reach_s - now') / gpus - slack
    int gpus;         // GPUs for dlas-gpu's jump formula, 1 for dlas
  };
  // Floating-point room on the bounds, far above their rounding and far below a second.
  static double WatchMargin(double now) { return 1e-3 + 1e-9 * std::abs(now); }
  void StartWatch(const JobStatus& job, int queue, double now) {
    if (!watching_ || static_cast<size_t>(queue) >= limits_.size()) return;
    const double limit = limits_[static_cast<size_t>(queue)];
    const double executed = ExecutedOf(job, now);
    const int gpus = gpu_time_ ? job.spec->num_gpus : 1;
    // Demote's test: executed x gpus + slack x max(1, limit) >= limit.
    const Watch w{now + (limit - kDlasSlackS * std::max(1.0, limit)) / gpus - executed, limit - executed + now, gpus};
    watch_[job.spec->id] = w;
    by_demote_.emplace(w.demote_s, job.spec->id);
    by_reach_[w.gpus].emplace(w.reach_s, job.spec->id);
  }
  void StopWatch(JobId id) {
    const auto it = watch_.find(id);
    if (it == watch_.end()) return;
    by_demote_.erase({it->second.demote_s, id});
    by_reach_[it->second.gpus].erase({it->second.reach_s, id});
    watch_.erase(it);
  }
  static void EraseFromRest(IncQueue& q, const Place& place) {
    const auto bucket = q.rest.find(place.bucket);
    bucket->second.erase(place.key);
    if (bucket->second.empty()) q.rest.erase(bucket);
  }
  // Moves a job of rest to the bucket of its state, keeping its key.
  void Rebucket(IncQueue& q, const JobStatus& job) {
    Place& place = place_[job.spec->id];
    if (place.front || place.bucket == BucketOf(job)) return;
    EraseFromRest(q, place);
    place.bucket = BucketOf(job);
    q.rest[place.bucket].emplace(place.key, job.spec->id);
  }
  // The running jobs (incremental_), in arrival (id) order: jobs change state only by the
  // re-plan's starts and stops, completions and requeues, each of which updates running_.
  const std::vector<JobId>& RunningJobs(const SchedContext& /*ctx*/) { return running_; }

  // The peer's executed_time: since the job's last promotion to queue 0 (all of it without
  // starvation).
  double ExecutedOf(const JobStatus& job, double now) const {
    const auto it = promoted_at_.find(job.spec->id);
    return job.ExecutedS(now) - (it == promoted_at_.end() ? 0.0 : it->second);
  }
  double ServiceOf(const JobStatus& job, double now) const {
    const double executed = ExecutedOf(job, now);
    return gpu_time_ ? executed * job.spec->num_gpus : executed;
  }
  // The peer's int() of a time it accumulates in whole seconds; ours may carry rounding dust.
  static double Whole(double x) { return std::floor(x + 1e-6); }

  // solve_starvation (run_sim.py:1061-1074): at every event a pending job that has run since its
  // last promotion accumulates its waiting time; once that reaches int(executed x starvation)
  // and it is below queue 0, its executed time restarts at 0 and it moves to the end of queue 0.
  void Promote(SchedContext& ctx) {
    const double now = ctx.now();
    for (auto& [id, queue] : queue_of_) {  // arrival order, as Demote
      const JobStatus& job = ctx.job(id);
      if (job.state != JobState::kPending) continue;
      const double executed = Whole(ExecutedOf(job, now));
      if (executed <= 0) continue;  // the peer counts waiting only once the job has run
      double& waited = last_pending_s_[id];
      waited += now - last_event_s_;  // a job that has run was there at the last event
      if (queue == 0 || waited + kDlasSlackS < std::trunc(executed * starvation_)) continue;
      promoted_at_[id] = job.ExecutedS(now);
      waited = 0;
      ListRemove(id, queue);
      ListAppend(job, 0);
      queue = 0;
    }
  }

  void Demote(SchedContext& ctx) {
    // Arrival order: ids are in submit order.
    if (!incremental_) {
      for (auto& [id, queue] : queue_of_) DemoteOne(ctx, id, queue);
      return;
    }
    if (!watching_) {
      for (JobId id : RunningJobs(ctx)) DemoteOne(ctx, id, queue_of_.find(id)->second);
      return;
    }
    // The jobs whose demotion bound has passed, in id order.
    const double now = ctx.now();
    demote_scratch_.clear();
    for (auto it = by_demote_.begin(); it != by_demote_.end() && it->first <= now + WatchMargin(now); ++it) {
      demote_scratch_.push_back(it->second);
    }
    std::sort(demote_scratch_.begin(), demote_scratch_.end());
    for (JobId id : demote_scratch_) DemoteOne(ctx, id, queue_of_.find(id)->second);
  }
  void DemoteOne(SchedContext& ctx, JobId id, int& queue) {
    const JobStatus& job = ctx.job(id);
    if (job.state != JobState::kRunning) return;
    const double service = ServiceOf(job, ctx.now());
    const int from = queue;
    while (static_cast<size_t>(queue) < limits_.size() &&
           service + kDlasSlackS * std::max(1.0, limits_[static_cast<size_t>(queue)]) >=
               limits_[static_cast<size_t>(queue)]) {
      ++queue;
    }
    if (queue == from) return;
    ListRemove(id, from);
    ListAppend(job, queue);
    StopWatch(id);
    StartWatch(job, queue, ctx.now());
  }

  void Allocate(SchedContext& ctx) {
    if (incremental_) {
      AllocateIncremental(ctx);
      return;
    }
    order_scratch_.clear();
    const auto service = [&](JobId id) { return ServiceOf(ctx.job(id), ctx.now()); };
    for (auto& queue : queues_) {
      if (order_) order_(ctx, service, &queue);  // the peer sorts each queue in place (run_sim.py:1103-1105)
      order_scratch_.insert(order_scratch_.end(), queue.begin(), queue.end());
    }
    replan_.Apply(ctx, order_scratch_);
    // Running jobs first, then pending ones, each in their old order.
    for (auto& queue : queues_) {
      std::stable_partition(queue.begin(), queue.end(), [&](JobId id) { return replan_.Runs(id); });
    }
  }

  // The incremental walk (the file's comment, "Incremental re-plan").
  void AllocateIncremental(SchedContext& ctx) {
    replan_.Begin(ctx);
    visited_.clear();
    kept_all_.assign(inc_.size(), false);
    for (size_t qi = 0; qi < inc_.size(); ++qi) {
      IncQueue& q = inc_[qi];
      kept_all_[qi] = q.front_uncounted == 0 && replan_.KeepAll(q.front_need);
      if (!kept_all_[qi]) {
        for (JobId id : q.front) replan_.Offer(ctx, id);
      }
      cursors_.clear();
      for (const auto& [bucket, jobs] : q.rest) cursors_.push_back(Cursor{bucket, jobs.begin(), jobs.end()});
      for (;;) {  // merge the buckets by key, dropping those that can no longer fit
        const int max_free = replan_.MaxFree();
        Cursor* next = nullptr;
        for (Cursor& c : cursors_) {
          if (c.bucket > max_free) break;  // buckets ascend
          if (c.it != c.end && (next == nullptr || c.it->first < next->it->first)) next = &c;
        }
        if (next == nullptr) break;
        const JobId id = next->it->second;
        ++next->it;
        replan_.Offer(ctx, id);
        visited_.emplace_back(qi, id);
      }
    }
    replan_.Finish(ctx);
    // Step 4: front = the front jobs that run, then the visited rest jobs that run; front jobs
    // that do not run go to the head of rest, in their order. A front kept all at once stays.
    for (size_t qi = 0; qi < inc_.size(); ++qi) {
      if (kept_all_[qi]) continue;
      IncQueue& q = inc_[qi];
      kept_.clear();
      moved_.clear();
      for (JobId id : q.front) {
        (replan_.Runs(id) ? kept_ : moved_).push_back(id);
        MarkRunning(ctx.job(id), static_cast<int>(qi), ctx.now());
      }
      for (auto it = moved_.rbegin(); it != moved_.rend(); ++it) {
        const Place place{--q.lo, BucketOf(ctx.job(*it)), false};
        q.rest[place.bucket].emplace(place.key, *it);
        place_[*it] = place;
      }
      q.front.clear();
      std::fill(q.front_need.begin(), q.front_need.end(), 0);
      q.front_uncounted = 0;
      for (JobId id : kept_) PushFront(q, place_[id], id, ctx.job(id));
    }
    for (const auto& [qi, id] : visited_) {
      IncQueue& q = inc_[qi];
      Place& place = place_[id];
      const JobStatus& job = ctx.job(id);
      MarkRunning(job, static_cast<int>(qi), ctx.now());
      if (replan_.Runs(id)) {
        EraseFromRest(q, place);
        PushFront(q, place, id, job);
      } else {
        Rebucket(q, job);
      }
    }
  }

  void AskForNextJump(SchedContext& ctx) {
    const double now = ctx.now();
    double next = kInf;
    // Without starvation only running jobs jump.
    if (watching_) {
      // For each GPU count, jobs by their bound, until it passes the earliest jump found.
      for (const auto& [gpus, jobs] : by_reach_) {
        for (const auto& [reach_s, id] : jobs) {
          if (now + (reach_s - now) / gpus - kDlasSlackS - WatchMargin(now) > next) break;
          next = std::min(next, JumpOf(ctx.job(id), queue_of_.find(id)->second, now));
        }
      }
      AskFor(ctx, next);
      return;
    }
    for (const auto& [id, queue] : queue_of_) {
      const JobStatus& job = ctx.job(id);
      if (job.state == JobState::kPending && starvation_ > 0 && queue > 0) {
        // The promotion of a waiting job (run_sim.py:1230-1235): int(executed x starvation -
        // waited) ahead, when positive.
        const double executed = Whole(ExecutedOf(job, now));
        const auto it = last_pending_s_.find(id);
        const double waited = it == last_pending_s_.end() ? 0.0 : it->second;
        const double diff = std::trunc(executed * starvation_ - waited + kDlasSlackS);
        if (executed > 0 && diff > 0) next = std::min(next, now + diff);
        continue;
      }
      next = std::min(next, JumpOf(job, queue, now));
    }
    AskFor(ctx, next);
  }
  // A running job's queue jump (kInf for others and in the last queue).
  double JumpOf(const JobStatus& job, int queue, double now) const {
    if (static_cast<size_t>(queue) >= limits_.size()) return kInf;
    if (job.state != JobState::kRunning) return kInf;
    const double left = limits_[static_cast<size_t>(queue)] - ExecutedOf(job, now);
    // The peer's formula (run_sim.py:1226-1228), seconds and GPU-seconds mixed as it does.
    return gpu_time_ ? now + std::ceil(left / job.spec->num_gpus - kDlasSlackS) : now + left;
  }
  void AskFor(SchedContext& ctx, double next) {
    next_jump_s_ = next;
    if (std::isfinite(next) && next != asked_s_) {
      ctx.WakeUpAt(next);
      asked_s_ = next;
    }
  }

  std::string name_;
  bool gpu_time_;
  std::vector<double> limits_;              // service at which a job leaves queue i
  double starvation_;                       // solve_starvation; 0: none
  TiresiasQueueOrder order_;                // empty: list order
  bool incremental_;                        // the incremental re-plan (inc_), else the whole walk (queues_)
  std::vector<IncQueue> inc_;               // incremental_: each queue's list
  std::map<JobId, Place> place_;            // incremental_: where each runnable job is in its list
  std::vector<std::vector<JobId>> queues_;  // !incremental_: each in the peer's list order
  std::map<JobId, int> queue_of_;           // runnable jobs (pending + running): their queue
  bool event_since_plan_ = false;           // an arrival, completion or requeue since the last plan
  double next_jump_s_ = kInf;               // the earliest queue jump of a running job
  double asked_s_ = kInf;                   // the last wake-up asked for
  double last_event_s_ = 0;                 // the time of the last plan
  std::map<JobId, double> promoted_at_;     // executed seconds at a job's last promotion
  std::map<JobId, double> last_pending_s_;  // the peer's last_pending_time: waited since then
  TiresiasCountReplan replan_;
  std::vector<JobId> order_scratch_;  // scratch of Allocate: the queues one after another
  // Scratch of the incremental re-plan.
  struct Cursor {
    int bucket;
    std::map<int64_t, JobId>::const_iterator it, end;
  };
  std::vector<Cursor> cursors_;
  std::vector<std::pair<size_t, JobId>> visited_;  // rest jobs the walk offered: (queue, job)
  std::vector<JobId> kept_, moved_;
  std::vector<bool> kept_all_;  // per queue: its front kept all at once
  std::vector<JobId> running_;  // incremental_: the running jobs, in id order
  bool watching_;               // incremental_ without starvation: the watches below
  std::map<JobId, Watch> watch_;
  std::set<std::pair<double, JobId>> by_demote_;               // (demote_s, job)
  std::map<int, std::set<std::pair<double, JobId>>> by_reach_;  // gpus -> (reach_s, job)
  std::vector<JobId> demote_scratch_;
};

}  // namespace

std::unique_ptr<JobScheduler> MakeTiresiasDlas(TiresiasDlasConfig config) {
  return std::make_unique<TiresiasDlasScheduler>(std::move(config));
}

}  // namespace hetsched
