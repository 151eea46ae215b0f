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
// run_sim.py:2045-2049); the peer's dlas-gpu-N variants set it (Promote below; registered at the
// end of this file), as the option `starvation` does, and their promotions are events too.
// Heterogeneous clusters (the peer has one type): a job is counted against its own type while
// running, and against its usable type with the most free devices when it would start.
// Cost: O(runnable jobs) per event, as in the peer.
#include "hetsched/policies/tiresias/dlas.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/tiresias/count_replan.h"
#include "hetsched/sched/registry.h"
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
        queues_(limits_.size() + 1),
        replan_(config.count_only) {}

  std::string_view name() const override { return name_; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override {
    const JobId id = job.spec->id;
    queue_of_[id] = 0;
    queues_[0].push_back(id);
    event_since_plan_ = true;
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    Forget(job.spec->id);
    promoted_at_.erase(job.spec->id);
    last_pending_s_.erase(job.spec->id);
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
    if (starvation_ > 0) Promote(ctx);
    Allocate(ctx);
    AskForNextJump(ctx);
    last_event_s_ = now;
  }

 private:
  void Forget(JobId id) {
    auto it = queue_of_.find(id);
    if (it == queue_of_.end()) return;
    auto& q = queues_[static_cast<size_t>(it->second)];
    q.erase(std::find(q.begin(), q.end(), id));
    queue_of_.erase(it);
  }

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
      auto& old_list = queues_[static_cast<size_t>(queue)];
      old_list.erase(std::find(old_list.begin(), old_list.end(), id));
      queues_[0].push_back(id);
      queue = 0;
    }
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

  void Allocate(SchedContext& ctx) {
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

  void AskForNextJump(SchedContext& ctx) {
    const double now = ctx.now();
    double next = kInf;
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
      if (static_cast<size_t>(queue) >= limits_.size()) continue;
      if (job.state != JobState::kRunning) continue;
      const double left = limits_[static_cast<size_t>(queue)] - ExecutedOf(job, now);
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
  std::vector<double> limits_;              // service at which a job leaves queue i
  double starvation_;                       // solve_starvation; 0: none
  TiresiasQueueOrder order_;                // empty: list order
  std::vector<std::vector<JobId>> queues_;  // each in the peer's list order
  std::map<JobId, int> queue_of_;           // runnable jobs (pending + running): their queue
  bool event_since_plan_ = false;           // an arrival, completion or requeue since the last plan
  double next_jump_s_ = kInf;               // the earliest queue jump of a running job
  double asked_s_ = kInf;                   // the last wake-up asked for
  double last_event_s_ = 0;                 // the time of the last plan
  std::map<JobId, double> promoted_at_;     // executed seconds at a job's last promotion
  std::map<JobId, double> last_pending_s_;  // the peer's last_pending_time: waited since then
  TiresiasCountReplan replan_;
  std::vector<JobId> order_scratch_;  // scratch of Allocate: the queues one after another
};

Result<std::unique_ptr<JobScheduler>> MakeDlas(const std::string& name, bool gpu_time, const Options& options,
                                               double starvation = 0) {
  HETSCHED_ASSIGN_OR_RETURN(TiresiasDlasConfig config,
                            ParseTiresiasDlasOptions(name, gpu_time, options, starvation));
  return MakeTiresiasDlas(std::move(config));
}

const MethodInfo kDlasInfo{
    "dlas",
    "Tiresias' discretised LAS on executed time, whole-cluster re-plan at every event (thresholds=3250;7200)",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py dlas_sim_jobs, gputime=False)"};
const MethodInfo kDlasGpuInfo{
    "dlas-gpu", "Tiresias' discretised 2D-LAS on GPUs x executed time, whole-cluster re-plan at every event",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py dlas_sim_jobs, gputime=True)"};

}  // namespace

Result<TiresiasDlasConfig> ParseTiresiasDlasOptions(const std::string& name, bool gpu_time,
                                                    const Options& options, double starvation) {
  TiresiasDlasConfig config;
  config.name = name;
  config.gpu_time = gpu_time;
  // jobs.py:102-104 (queue_limit = [3250, 7200, 18000] with num_queue = 3: only the first two
  // limits are ever compared, run_sim.py:1049).
  HETSCHED_ASSIGN_OR_RETURN(config.limits, ParseIncreasingList(options.GetString("thresholds", "3250;7200"),
                                                               "policy '" + name + "': option 'thresholds'"));
  const std::string placement = options.GetString("placement", "placer");
  if (placement != "placer" && placement != "count") {
    return Status::InvalidArgument("policy '" + name +
                                   "': option 'placement' must be placer or count, got '" + placement + "'");
  }
  config.count_only = placement == "count";
  HETSCHED_ASSIGN_OR_RETURN(config.starvation, options.GetDouble("starvation", starvation));
  if (!(config.starvation >= 0) || !std::isfinite(config.starvation)) {
    return Status::InvalidArgument("policy '" + name + "': option 'starvation' must be a finite number >= 0");
  }
  return config;
}

std::unique_ptr<JobScheduler> MakeTiresiasDlas(TiresiasDlasConfig config) {
  return std::make_unique<TiresiasDlasScheduler>(std::move(config));
}

HETSCHED_REGISTER_IMPL(JobScheduler, kDlasRegistered, kDlasInfo,
                       [](const Options& o) { return MakeDlas("dlas", false, o); })
HETSCHED_REGISTER_IMPL(JobScheduler, kDlasGpuRegistered, kDlasGpuInfo,
                       [](const Options& o) { return MakeDlas("dlas-gpu", true, o); })

namespace {

// The peer's dlas-gpu-N (run_sim.py:2077-2092): dlas-gpu with solve_starvation = N (05: 0.5). Its
// dlas-gpu-gittins-N (run_sim.py:2053-2064) are the same policies: the Gittins ordering tests for
// the exact name dlas-gpu-gittins (run_sim.py:1056, 1076, 1104), so they only add starvation.
struct DlasGpuStarvationVariant {
  const char* name;
  double starvation;
};
constexpr DlasGpuStarvationVariant kDlasGpuStarvationVariants[] = {
    {"dlas-gpu-05", 0.5},      {"dlas-gpu-1", 1},         {"dlas-gpu-2", 2},
    {"dlas-gpu-4", 4},         {"dlas-gpu-8", 8},         {"dlas-gpu-10", 10},
    {"dlas-gpu-100", 100},     {"dlas-gpu-1000", 1000},   {"dlas-gpu-gittins-1", 1},
    {"dlas-gpu-gittins-2", 2}, {"dlas-gpu-gittins-4", 4}, {"dlas-gpu-gittins-8", 8},
};

// The peer's dlas-gpu-pack (run_sim.py:2065-2067, dlas_pack_sim_jobs 1503-1770) counts a GPU as
// free while its share left is at least the job's model's `mem_util` (cluster.py:131-154), so
// that jobs could share GPUs; but the published models.py:22 sets every mem_util to 1 (the
// per-model values are commented out), so a GPU holds one job and the policy is dlas-gpu.
const MethodInfo kDlasGpuPackInfo{
    "dlas-gpu-pack",
    "Tiresias' dlas-gpu-pack as published: dlas-gpu (every model's GPU share is 1, so nothing packs)",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py dlas_pack_sim_jobs; models.py m_mem all 1)"};

const bool kDlasGpuVariantsRegistered = [] {
  for (const DlasGpuStarvationVariant& v : kDlasGpuStarvationVariants) {
    const std::string name = v.name;
    const std::string factor = name == "dlas-gpu-05" ? "0.5" : name.substr(name.rfind('-') + 1);
    Registry<JobScheduler>::Instance().Register(
        MethodInfo{name,
                   "Tiresias' dlas-gpu with starvation promotion: a job waiting " + factor +
                       " x its executed time returns to queue 0 (starvation=" + factor + ")",
                   "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py dlas_sim_jobs, gputime=True, "
                   "solve_starvation=" +
                       factor +
                       (name.find("gittins") != std::string::npos
                            ? "; no Gittins ordering: the peer tests the exact "
                              "name dlas-gpu-gittins)"
                            : ")")},
        [name, starvation = v.starvation](const Options& o) { return MakeDlas(name, true, o, starvation); });
  }
  Registry<JobScheduler>::Instance().Register(
      kDlasGpuPackInfo, [](const Options& o) { return MakeDlas("dlas-gpu-pack", true, o); });
  return true;
}();

}  // namespace

}  // namespace hetsched
