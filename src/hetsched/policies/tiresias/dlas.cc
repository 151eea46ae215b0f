// Tiresias' discretised LAS as Tiresias' own simulator runs it: `dlas` (attained service =
// executed time) and `dlas-gpu` (GPUs x executed time). SymbioticLab/Tiresias @ 959f9b0,
// simulator/run_sim.py, dlas_sim_jobs (lines 959-1241); docs/policies.md, "dlas, dlas-gpu".
//
// Unlike `tiresias-las` (hetsched's incremental 2D-LAS, which preempts only for a pending job
// that does not fit), the peer re-plans the whole cluster at every event:
//  1. Demotion (run_sim.py:1034-1055): each running job, in arrival order, whose service has
//     reached its queue's limit moves to the end of the next queue (jobs.py:102-104: limits
//     3250 and 7200 over three queues; the last queue has no limit).
//  2. Allocation (run_sim.py:1094-1117): free devices start at the cluster's total; queues in
//     order, each in its list order, a job runs if it fits in what is still free, else it is
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
// No starvation promotion (the peer's dlas and dlas-gpu pass solve_starvation = 0,
// run_sim.py:2045-2049). Heterogeneous clusters (the peer has one type): a job is counted
// against its own type while running, and against its usable type with the most free devices
// when it would start. Cost: O(runnable jobs) per event, as in the peer.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/tiresias/yarn_replan.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace {

// Times within this many seconds count as reached: floating-point slack on wake-ups.
constexpr double kDlasSlackS = 1e-9;

class TiresiasDlasScheduler : public JobScheduler {
 public:
  TiresiasDlasScheduler(std::string name, bool gpu_time, std::vector<double> limits, bool count_only)
      : name_(std::move(name)),
        gpu_time_(gpu_time),
        count_only_(count_only),
        limits_(std::move(limits)),
        queues_(limits_.size() + 1) {}

  std::string_view name() const override { return name_; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override {
    const JobId id = job.spec->id;
    queue_of_[id] = 0;
    queues_[0].push_back(id);
    event_since_plan_ = true;
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    Forget(job.spec->id);
    event_since_plan_ = true;
  }
  // A job the back end gave back keeps its queue and its place in it.
  void OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) override { event_since_plan_ = true; }
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
    Allocate(ctx);
    AskForNextJump(ctx);
  }

 private:
  void Forget(JobId id) {
    auto it = queue_of_.find(id);
    if (it == queue_of_.end()) return;
    auto& q = queues_[static_cast<size_t>(it->second)];
    q.erase(std::find(q.begin(), q.end(), id));
    queue_of_.erase(it);
  }

  double ServiceOf(const JobStatus& job, double now) const {
    const double executed = job.ExecutedS(now);
    return gpu_time_ ? executed * job.spec->num_gpus : executed;
  }

  void Demote(SchedContext& ctx) {
    const double now = ctx.now();
    for (auto& [id, queue] : queue_of_) {  // arrival order: ids are in submit order
      const JobStatus& job = ctx.job(id);
      if (job.state != JobState::kRunning) continue;
      const double service = ServiceOf(job, now);
      const int from = queue;
      while (static_cast<size_t>(queue) < limits_.size() &&
             service + kDlasSlackS * std::max(1.0, limits_[static_cast<size_t>(queue)]) >=
                 limits_[static_cast<size_t>(queue)]) {
        ++queue;
      }
      if (queue == from) continue;
      auto& old_list = queues_[static_cast<size_t>(from)];
      old_list.erase(std::find(old_list.begin(), old_list.end(), id));
      queues_[static_cast<size_t>(queue)].push_back(id);
    }
  }

  // The type a pending job would be counted against: its usable type with the most devices still
  // free in this pass (ties: catalog order), or kNoDeviceType when none has room.
  DeviceTypeId RoomFor(const JobSpec& spec, const Cluster& cluster, const std::vector<int>& free) const {
    DeviceTypeId best = kNoDeviceType;
    for (DeviceTypeId t : UsableTypes(spec, cluster)) {
      const int f = free[static_cast<size_t>(t)];
      if (f >= spec.num_gpus && (best == kNoDeviceType || f > free[static_cast<size_t>(best)])) best = t;
    }
    return best;
  }

  void Allocate(SchedContext& ctx) {
    const Cluster& cluster = ctx.cluster();
    std::vector<int> free = cluster.devices_per_type();
    stop_.clear();
    start_.clear();
    keep_.clear();
    for (const auto& queue : queues_) {
      for (JobId id : queue) {
        const JobStatus& job = ctx.job(id);
        const int need = job.spec->num_gpus;
        if (job.state == JobState::kRunning) {
          int& f = free[static_cast<size_t>(job.device_type)];
          if (f >= job.num_devices()) {
            f -= job.num_devices();
            keep_.insert(id);
          } else {
            stop_.push_back(id);
          }
          continue;
        }
        const DeviceTypeId t = RoomFor(*job.spec, cluster, free);
        if (t == kNoDeviceType) continue;
        free[static_cast<size_t>(t)] -= need;
        start_.emplace_back(id, t);
      }
    }
    for (JobId id : stop_) ctx.Preempt(id);
    for (const auto& [id, type] : start_) {
      const int n = ctx.job(id).spec->num_gpus;
      // placement=count: whichever `n` free devices of `type` come first in id order (the peer only
      // counts them); false if the planner refuses them.
      const bool started =
          count_only_ ? StartOnLowestFree(ctx, id, n, type, &devices_) : ctx.TryStart(id, n, type);
      if (started) keep_.insert(id);
    }
    // Running jobs first, then pending ones, each in their old order.
    for (auto& queue : queues_) {
      std::stable_partition(queue.begin(), queue.end(), [&](JobId id) { return keep_.count(id) > 0; });
    }
  }

  void AskForNextJump(SchedContext& ctx) {
    const double now = ctx.now();
    double next = kInf;
    for (const auto& [id, queue] : queue_of_) {
      if (static_cast<size_t>(queue) >= limits_.size()) continue;
      const JobStatus& job = ctx.job(id);
      if (job.state != JobState::kRunning) continue;
      const double left = limits_[static_cast<size_t>(queue)] - job.ExecutedS(now);
      // The peer's formula (run_sim.py:1226-1228), seconds and GPU-seconds mixed as it does.
      const double jump = gpu_time_ ? now + std::ceil(left / job.spec->num_gpus - kDlasSlackS) : now + left;
      next = std::min(next, jump);
    }
    next_jump_s_ = next;
    if (std::isfinite(next) && next != asked_s_) {
      ctx.WakeUpAt(next);
      asked_s_ = next;
    }
  }

  std::string name_;
  bool gpu_time_;
  bool count_only_;                         // placement=count
  std::vector<double> limits_;              // service at which a job leaves queue i
  std::vector<std::vector<JobId>> queues_;  // each in the peer's list order
  std::map<JobId, int> queue_of_;           // runnable jobs (pending + running): their queue
  bool event_since_plan_ = false;           // an arrival, completion or requeue since the last plan
  double next_jump_s_ = kInf;               // the earliest queue jump of a running job
  double asked_s_ = kInf;                   // the last wake-up asked for
  std::vector<JobId> stop_;                 // scratch of Allocate
  std::vector<std::pair<JobId, DeviceTypeId>> start_;
  std::set<JobId> keep_;
  std::vector<DeviceId> devices_;
};

Result<std::unique_ptr<JobScheduler>> MakeDlas(const std::string& name, bool gpu_time,
                                               const Options& options) {
  // jobs.py:102-104 (queue_limit = [3250, 7200, 18000] with num_queue = 3: only the first two
  // limits are ever compared, run_sim.py:1049).
  HETSCHED_ASSIGN_OR_RETURN(std::vector<double> limits,
                            ParseIncreasingList(options.GetString("thresholds", "3250;7200"),
                                                "policy '" + name + "': option 'thresholds'"));
  const std::string placement = options.GetString("placement", "placer");
  if (placement != "placer" && placement != "count") {
    return Status::InvalidArgument("policy '" + name +
                                   "': option 'placement' must be placer or count, got '" + placement + "'");
  }
  return std::unique_ptr<JobScheduler>(
      std::make_unique<TiresiasDlasScheduler>(name, gpu_time, std::move(limits), placement == "count"));
}

const MethodInfo kDlasInfo{
    "dlas",
    "Tiresias' discretised LAS on executed time, whole-cluster re-plan at every event (thresholds=3250;7200)",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py dlas_sim_jobs, gputime=False)"};
const MethodInfo kDlasGpuInfo{
    "dlas-gpu", "Tiresias' discretised 2D-LAS on GPUs x executed time, whole-cluster re-plan at every event",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py dlas_sim_jobs, gputime=True)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kDlasRegistered, kDlasInfo,
                       [](const Options& o) { return MakeDlas("dlas", false, o); })
HETSCHED_REGISTER_IMPL(JobScheduler, kDlasGpuRegistered, kDlasGpuInfo,
                       [](const Options& o) { return MakeDlas("dlas-gpu", true, o); })

}  // namespace hetsched
