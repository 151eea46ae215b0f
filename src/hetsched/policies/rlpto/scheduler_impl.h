// The `rlpto` scheduler's class, internal to its two files: scheduler.cc (the hooks, the queues,
// shrinking, the rule's dispatch) and decide.cc (the state its decider sees, the decider's
// actions carried out, yielding). Built only through NewRlptoScheduler (scheduler.h).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "hetsched/policies/rlpto/decider.h"
#include "hetsched/policies/rlpto/forecast.h"
#include "hetsched/policies/rlpto/job.h"
#include "hetsched/policies/rlpto/observer.h"
#include "hetsched/policies/rlpto/scheduler.h"
#include "hetsched/sched/context.h"

namespace hetsched::rlpto_internal {

class RlptoScheduler final : public JobScheduler {
 public:
  // `decider`: null allocates by the rule; `observer`: null but while training.
  RlptoScheduler(RlptoConfig config, std::unique_ptr<RlptoDecider> decider, std::unique_ptr<RlptoObserver> observer)
      : config_(std::move(config)), queue_(config_.classes), forecast_(config_.forecast_window_s), decider_(std::move(decider)),
        observer_(std::move(observer)) {}

  std::string_view name() const override { return "rlpto"; }
  double round_period_s() const override { return config_.round_s; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override;
  // A job that is already running: its weight counts, it is tracked as running (it may converge,
  // be shrunk or moved), and it is not an arrival of now for the forecast.
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override;
  void OnJobFinished(const JobStatus& job, SchedContext& ctx) override;
  void OnJobRequeued(const JobStatus& job, SchedContext& ctx) override;

  void Schedule(SchedContext& ctx) override;

 private:
  void Admit(const JobStatus& job, SchedContext& ctx);

  // The job's usable types, fastest first (steps/s on its request: the profile's measurement
  // where it has one, else the visible model's speed in the profile's units, ProfiledSpeeds);
  // ties by type id. A profile the cluster's catalog cannot read ends the run (ctx.Fail).
  void RankTypes(SchedContext& ctx, const JobSpec& spec, RlptoJob& info);
  // RemainingOnFastestS (job_estimates.h) with the fastest iteration time kept from submission
  // (the visible model's estimate does not change): the same value without the model lookups.
  static double RemainingS(const JobStatus& s, const RlptoJob& info, double now);

  void Enqueue(const JobStatus& job, SchedContext& ctx);

  void StartTracking(SchedContext& ctx, JobId id);
  void StopTracking(JobId id, RlptoJob& info);

  // Runs `id` on `n` devices of `type` from now. An elastic job (JobSpec::elastic) that stays on
  // its type is resized in place where the back end can (ResizeInPlace: it pays an elastic
  // re-rendezvous, docs/elastic.md). Otherwise it is stopped and restarted (a preemption: it pays
  // the restart cost); if that fails, on its old devices' count and type; if that fails too, it
  // waits in its queue. Returns whether it runs.
  bool Restart(SchedContext& ctx, JobId id, int n, DeviceTypeId type);

  // Moves a running job onto `n` devices of its own type that keep as many of its devices as
  // possible, then span the fewest servers (gadget::RingCandidates: its own servers, own devices
  // first). False, with nothing changed, when no such ring keeps a worker (a move of the whole
  // ring is a restart anyway) or the back end cannot resize (the Slurm agent).
  static bool ResizeInPlace(SchedContext& ctx, JobId id, int n);

  // Converging jobs above their minimum halve (never below the minimum) while jobs wait: an
  // elastic job is resized in place, any other is preempted and restarted on fewer devices of the
  // same type, paying the restart cost (Restart; docs/rlpto.md). Only on a type where the
  // devices given back can start a waiting job (UsefulShrinkTypes): a shrink that frees devices
  // no waiting job can use only slows the job down (and, behind a starving head, keeps its type
  // busy for longer).
  void Shrink(SchedContext& ctx);
  // Types on which shrinking the converging jobs to their minimum would let a waiting job start
  // that does not fit now (its request on one type, as the rule dispatches it): the jobs of the
  // dispatch window in queue order, up to the first starving one (nothing behind it may start).
  std::set<DeviceTypeId> UsefulShrinkTypes(SchedContext& ctx);

  // Waiting jobs the dispatcher considers, in queue order: at most `window`.
  std::vector<JobId> WaitingWindow() const;

  // The most free devices of one type the job may use, leaving out `held` (a type a starving job
  // waits for; kNoDeviceType: none).
  static int MostFree(SchedContext& ctx, const JobSpec& spec, DeviceTypeId held = kNoDeviceType);
  // Starts the job on `n` devices of any type it may use but `held` (the placer picks the type when
  // nothing is held).
  static bool TryStartAvoiding(SchedContext& ctx, JobId id, int n, DeviceTypeId held);

  // Allocation by the rule of ALGORITHMS.md 3.2 (no agent): requested GPUs on the placer's type,
  // holding back part of the forecast demand from all but the top queue.
  void DispatchByRule(SchedContext& ctx);
  // The type a starving job that does not fit holds (the most free where it can run; kept until it
  // starts).
  DeviceTypeId HeldType(SchedContext& ctx, JobId id);

  // One decision per job for up to `window` running jobs (round-robin, at round ticks) and the
  // `window` first waiting jobs: states built first, one call of the decider (one forward pass of
  // an agent), then the actions applied, running jobs first.
  void Decide(SchedContext& ctx, bool with_running);
  // The jobs up for a decision: up to `window` running jobs from the round-robin cursor (not one
  // (re)started just now) when `with_running`, then, while devices are free, the waiting window;
  // `running` is set to the number of running ones.
  std::vector<JobId> JobsUp(SchedContext& ctx, bool with_running, size_t& running);
  // Carries out action `a` for the running job `id` (keep, yield, or a resize or move where the
  // target type has room, within `moves`). Returns whether it yielded.
  bool ApplyToRunning(SchedContext& ctx, JobId id, int a, int& moves);
  // Carries out action `a` for the waiting job `id` (wait, or a start on the chosen type, else the
  // next fastest with room; a starving job may not wait and holds a type when it does not fit).
  // Returns false when nothing more can start at this call.
  bool ApplyToWaiting(SchedContext& ctx, JobId id, int a, DeviceTypeId& held);

  // Yielding (RlptoConfig::yield; docs/rlpto.md). Yield preempts and re-queues the running job
  // `id` while queue 0's head is blocked (HeadBlocked) and `moves` allows (counted there);
  // returns whether it did. The rule itself (RlptoYieldRuleHolds, on the job's state) is the
  // heuristic's; behind the legacy adapter it applies to what a decider without the yield action
  // keeps (decider.h).
  bool Yield(SchedContext& ctx, JobId id, int& moves);
  bool HeadBlocked(SchedContext& ctx) const;
  // value / threshold as a feature, <= 2, and below 1 exactly when value < threshold.
  static float ThresholdShare(double value, double threshold);

  // The agent's view of one job (ALGORITHMS.md 3.4 state; RlptoFeature), every entry roughly in
  // [0, 2].
  void AppendState(SchedContext& ctx, JobId id, std::vector<float>& out) const;

  RlptoConfig config_;
  MultiLevelQueue queue_;
  DemandForecast forecast_;
  std::unique_ptr<RlptoDecider> decider_;    // null: the rule allocates
  std::unique_ptr<RlptoObserver> observer_;  // the trainer's (reward_recorder.h), else null
  std::map<JobId, RlptoJob> jobs_;
  std::set<std::pair<double, JobId>> convergence_events_;
  std::set<JobId> converging_;
  std::set<JobId> running_;
  JobId running_cursor_ = 0;  // round-robin over running jobs: the next to reconsider
  double next_round_s_ = 0;
  std::unique_ptr<MeasuredThroughputs> profile_;  // config_.profile's table, built on first use
  std::vector<float> states_;  // every feature (kRlptoStateDim per decision)
  std::pair<JobId, DeviceTypeId> hold_{-1, kNoDeviceType};  // HeldType's last answer
};

}  // namespace hetsched::rlpto_internal
