// Tiresias' `multi-dlas-gpu` as Tiresias' own simulator runs it (SymbioticLab/Tiresias @ 959f9b0,
// simulator/run_sim.py, multi_dlas_sim_jobs 728-957, with jobs.py's per-size job classes;
// docs/policies.md, "multi-dlas-gpu"). The peer runs it only with --scheme=count (run_sim.py:2014-2017).
//
// Jobs are split by GPU count into classes (jobs.py:252-258, g_job 37-83), each with its own
// discretised LAS on GPUs x executed time: two queues, one limit, 3600 GPU-s (jobs.py:43-45:
// num_queue = 2, so only the first of [3600, 7200, 18000] is read), and its own share of the
// cluster's GPUs, `total`, with `free` what its last plan left plus what its jobs released since.
// Every class starts with no GPUs. Events:
//  - at an arrival, completion or queue jump (run_sim.py:776-778, 790-810), each class with
//    runnable jobs (in order of its first job's arrival) demotes, in arrival order, each running
//    job whose service reached the limit (one queue down, to the end) (820-844), then walks its
//    queues, a job running if it fits in what is left of the class's share, else skipped (no
//    head-of-line blocking; devices counted, not placed) (870-889), then moves its running jobs
//    before its pending ones in each queue, each in their old order (905-915). A completed job
//    gives its GPUs back to its class's `free` (jobs.py:576-588). The next jump is dlas-gpu's
//    formula, ceil((limit - executed seconds) / GPUs) ahead (930-948);
//  - every 600 s (reserve_interval, 738-739), after any other event of that second, the shares
//    are re-divided (782-786; jobs.py:596-670, `reserve_gpus`) and every class re-plans:
//    demand = runnable jobs x GPU count; with D the total demand and F the GPUs no class uses, in
//    ascending demand (ties: class order) each class with demand gets
//    min(demand, floor(round(demand / D, 2) x cluster GPUs / g) x g), beyond what it uses, out
//    of F (floored to a multiple of g when F runs short); then, classes by ascending GPU count,
//    one job's worth (g) at a time round-robin to every class short of its demand while F
//    lasts. A class keeps the GPUs its jobs use (free = total - used).
// A chosen job starts on the lowest-id free devices of a type it can use; "cluster GPUs" are all
// the cluster's devices (the peer has one type). Not reproduced: the peer stops, with jobs left,
// when nothing runs and none is left to arrive (run_sim.py:742-744), e.g. when every job arrives
// before the first re-division; here the next re-division gives them GPUs.
// Cost: O(runnable jobs) per event, as in the peer.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/tiresias/duration_distribution.h"  // RoundLikePython
#include "hetsched/policies/tiresias/yarn_replan.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace {

// Times within this many seconds count as reached (as dlas.cc's: the peer's times are whole
// seconds, ours drift by a few ulps).
constexpr double kMultiDlasSlackS = 1e-6;

class TiresiasMultiDlasScheduler : public JobScheduler {
 public:
  TiresiasMultiDlasScheduler(std::vector<double> limits, double interval_s)
      : limits_(std::move(limits)), interval_s_(interval_s), next_reserve_s_(interval_s) {}

  std::string_view name() const override { return "multi-dlas-gpu"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override {
    const int g = job.spec->num_gpus;
    auto it = class_of_gpus_.find(g);
    if (it == class_of_gpus_.end()) {
      it = class_of_gpus_.emplace(g, classes_.size()).first;
      classes_.push_back(JobClass{g, 0, 0, std::vector<std::vector<JobId>>(limits_.size() + 1), {}});
    }
    JobClass& c = classes_[it->second];
    c.runnable.push_back(job.spec->id);
    c.queues[0].push_back(job.spec->id);
    queue_of_[job.spec->id] = 0;
    event_since_plan_ = true;
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    const JobId id = job.spec->id;
    const auto q = queue_of_.find(id);
    if (q == queue_of_.end()) return;
    JobClass& c = classes_[class_of_gpus_.at(job.spec->num_gpus)];
    c.free += c.num_gpus;  // release_job_gpu(1) (jobs.py:59-63, 576-588)
    c.runnable.erase(std::find(c.runnable.begin(), c.runnable.end(), id));
    auto& queue = c.queues[static_cast<size_t>(q->second)];
    queue.erase(std::find(queue.begin(), queue.end(), id));
    queue_of_.erase(q);
    event_since_plan_ = true;
  }
  void OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) override { event_since_plan_ = true; }
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { OnJobSubmitted(job, ctx); }

  void Schedule(SchedContext& ctx) override {
    const double now = ctx.now();
    // Re-divisions while nothing was runnable (before the first arrival, or with every job done
    // and more to come) change no share, there being no demand: only the next one's time
    // (run_sim.py:783-787). No wake-up is asked for them, so that a run ends with its last job.
    while (idle_since_plan_ && next_reserve_s_ + kMultiDlasSlackS < now) next_reserve_s_ += interval_s_;
    if (event_since_plan_ || now + kMultiDlasSlackS >= next_jump_s_) Plan(ctx);
    if (now + kMultiDlasSlackS >= next_reserve_s_) {  // after the other events of this second
      next_reserve_s_ += interval_s_;
      Reserve(ctx.cluster().num_devices());
      Plan(ctx);
    }
    idle_since_plan_ = queue_of_.empty();
    const double wake = idle_since_plan_ ? kInf : std::min(next_jump_s_, next_reserve_s_);
    if (std::isfinite(wake) && wake != asked_s_) {
      ctx.WakeUpAt(wake);
      asked_s_ = wake;
    }
  }

 private:
  struct JobClass {
    int num_gpus;
    int total;                               // the peer's total_gpu: this class's share
    int free;                                // its free_gpu
    std::vector<std::vector<JobId>> queues;  // each in the peer's list order
    std::vector<JobId> runnable;             // pending and running, in arrival order
  };

  void Plan(SchedContext& ctx) {
    const double now = ctx.now();
    event_since_plan_ = false;
    stop_.clear();
    start_.clear();
    runs_.clear();
    for (JobClass& c : classes_) {
      if (c.runnable.empty()) continue;  // run_sim.py:820-822: its `free` stays as it is
      for (JobId id : c.runnable) {      // demotion, one queue at a time (832-844)
        const JobStatus& job = ctx.job(id);
        if (job.state != JobState::kRunning) continue;
        int& q = queue_of_[id];
        const double service = job.ExecutedS(now) * c.num_gpus;
        if (static_cast<size_t>(q) >= limits_.size() ||
            service + kMultiDlasSlackS * std::max(1.0, limits_[static_cast<size_t>(q)]) <
                limits_[static_cast<size_t>(q)]) {
          continue;
        }
        auto& from = c.queues[static_cast<size_t>(q)];
        from.erase(std::find(from.begin(), from.end(), id));
        ++q;
        c.queues[static_cast<size_t>(q)].push_back(id);
      }
      c.free = c.total;  // empty_gpu_alloc, then alloc_free_gpus per job (870-889)
      for (const auto& queue : c.queues) {
        for (JobId id : queue) {
          const bool running = ctx.job(id).state == JobState::kRunning;
          if (c.free >= c.num_gpus) {
            c.free -= c.num_gpus;
            runs_.insert(id);
            if (!running) start_.push_back(id);
          } else if (running) {
            stop_.push_back(id);
          }
        }
      }
      for (auto& queue : c.queues) {  // running first, then pending (905-915)
        std::stable_partition(queue.begin(), queue.end(), [&](JobId id) { return runs_.count(id) > 0; });
      }
    }
    for (JobId id : stop_) ctx.Preempt(id);
    for (JobId id : start_) {
      const JobSpec& spec = *ctx.job(id).spec;
      for (DeviceTypeId t : UsableTypes(spec, ctx.cluster())) {
        if (ctx.state().free_of_type(t) >= spec.num_gpus &&
            StartOnLowestFree(ctx, id, spec.num_gpus, t, &devices_))
          break;
      }
    }
    NextJump(ctx);
  }

  // run_sim.py:930-948: the earliest queue jump of a running job, dlas-gpu's formula.
  void NextJump(SchedContext& ctx) {
    const double now = ctx.now();
    double next = kInf;
    for (const JobClass& c : classes_) {
      for (JobId id : c.runnable) {
        const JobStatus& job = ctx.job(id);
        const int q = queue_of_.at(id);
        if (job.state != JobState::kRunning || static_cast<size_t>(q) >= limits_.size()) continue;
        const double left = limits_[static_cast<size_t>(q)] - job.ExecutedS(now);
        next = std::min(next, now + std::ceil(left / c.num_gpus - kMultiDlasSlackS));
      }
    }
    next_jump_s_ = next;
  }

  // jobs.py:596-670 (reserve_gpus) and 68-79 (get_gpu_reservation).
  void Reserve(int cluster_gpus) {
    struct Share {
      size_t cls;
      int num_gpus, used, demand, reserve;
    };
    std::vector<Share> shares;
    int used_all = 0, demand_all = 0;
    for (size_t k = 0; k < classes_.size(); ++k) {
      const JobClass& c = classes_[k];
      const int demand = static_cast<int>(c.runnable.size()) * c.num_gpus;
      shares.push_back(Share{k, c.num_gpus, c.total - c.free, demand, 0});
      used_all += c.total - c.free;
      demand_all += demand;
    }
    if (demand_all == 0) return;
    int left = cluster_gpus - used_all;
    std::stable_sort(shares.begin(), shares.end(),
                     [](const Share& a, const Share& b) { return a.demand < b.demand; });
    for (Share& s : shares) {
      if (s.demand == 0) continue;
      const double ratio = RoundLikePython(static_cast<double>(s.demand) / demand_all, 2);
      int want = static_cast<int>(std::floor(ratio * cluster_gpus / s.num_gpus)) * s.num_gpus;
      want = std::min(want, s.demand);
      int extra = want - s.used;
      if (extra <= 0) {
        extra = 0;
      } else if (extra > left) {
        extra = left / s.num_gpus * s.num_gpus;
      }
      s.reserve = s.used + extra;
      left -= extra;
    }
    std::stable_sort(shares.begin(), shares.end(),
                     [](const Share& a, const Share& b) { return a.num_gpus < b.num_gpus; });
    size_t full = 0;
    while (left > 0) {  // jobs.py:644-661, its round-robin as written
      if (full >= shares.size()) break;
      full = 0;
      for (Share& s : shares) {
        if (s.demand <= s.reserve) {
          ++full;
          continue;
        }
        if (left >= s.num_gpus) {
          left -= s.num_gpus;
          s.reserve += s.num_gpus;
        } else {
          ++full;
        }
        if (left <= 0) break;
      }
    }
    for (const Share& s : shares) {
      JobClass& c = classes_[s.cls];
      const int used = c.total - c.free;
      c.total = s.reserve;
      c.free = c.total - used;
    }
  }

  std::vector<double> limits_;           // service (GPU-s) at which a job leaves queue i
  double interval_s_;                    // reserve_interval
  std::vector<JobClass> classes_;        // by first arrival
  std::map<int, size_t> class_of_gpus_;  // GPU count -> index in classes_
  std::map<JobId, int> queue_of_;        // runnable jobs: their queue in their class
  bool event_since_plan_ = false;        // an arrival, completion or requeue since the last plan
  bool idle_since_plan_ = true;          // nothing was runnable after the last call (or none yet)
  double next_jump_s_ = kInf;
  double next_reserve_s_;
  double asked_s_ = kInf;
  std::vector<JobId> stop_, start_;  // scratch of Plan
  std::set<JobId> runs_;
  std::vector<DeviceId> devices_;
};

Result<std::unique_ptr<JobScheduler>> MakeMultiDlas(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(std::vector<double> limits,
                            ParseIncreasingList(options.GetString("thresholds", "3600"),
                                                "policy 'multi-dlas-gpu': option 'thresholds'"));
  HETSCHED_ASSIGN_OR_RETURN(const double interval, options.GetDouble("interval", 600));
  if (!(interval > 0) || !std::isfinite(interval)) {
    return Status::InvalidArgument(
        "policy 'multi-dlas-gpu': option 'interval' must be a number of seconds > 0");
  }
  return std::unique_ptr<JobScheduler>(
      std::make_unique<TiresiasMultiDlasScheduler>(std::move(limits), interval));
}

const MethodInfo kMultiDlasInfo{
    "multi-dlas-gpu",
    "Tiresias' multi-dlas-gpu: one dlas-gpu per GPU count (limit 3600 GPU-s), each with a share of the "
    "cluster re-divided by demand every 600 s (thresholds=3600, interval=600)",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py multi_dlas_sim_jobs, jobs.py reserve_gpus)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kMultiDlasRegistered, kMultiDlasInfo, MakeMultiDlas)

}  // namespace hetsched
