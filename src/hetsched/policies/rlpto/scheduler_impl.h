// The `rlpto` scheduler's class, internal to its two files: rlpto_scheduler.cc (the hooks, the
// queues, shrinking, the rule's dispatch) and rlpto_decide.cc (the agent's or heuristic's
// decisions, the state it sees and, while training, the rewards it records). Built only through
// NewRlptoScheduler (rlpto_scheduler.h).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "hetsched/policies/rlpto/rlpto.h"
#include "hetsched/policies/rlpto/forecast.h"
#include "hetsched/policies/rlpto/scheduler.h"
#include "hetsched/sched/context.h"

namespace hetsched::rlpto_internal {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

class RlptoScheduler final : public JobScheduler {
 public:
  RlptoScheduler(RlptoConfig config, std::shared_ptr<learn::AllocationAgent> agent, RlptoTraining training)
      : config_(std::move(config)), queue_(config_.classes), forecast_(config_.forecast_window_s), agent_(std::move(agent)),
        training_(std::move(training)), explore_(training_.explore_seed) {
    if (training_.agent) agent_ = training_.agent;
    if (training_.act_by_teacher) agent_ = nullptr;
    learned_ = agent_ != nullptr || training_.act_by_teacher || config_.allocation == RlptoAllocation::kHeuristic;
  }

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
  struct JobInfo {
    int omega = 2;
    int min = 1;
    bool running = false;
    bool converging = false;  // stays set once the job reached its converging fraction
    double converge_s = kInf;
    double accuracy = 0;  // training only: accuracy credited so far
    double accounted_s = -1;     // training only: the job's reward is accounted up to this time
    int64_t last_decision = -1;  // training only: index of the last decision about it (-1: none)
    int gpus = 0;                // GPUs held while tracked as running
    int slots = 0;        // usable types ranked (<= kRlptoTypeSlots)
    std::array<DeviceTypeId, kRlptoTypeSlots> type{};
    std::array<double, kRlptoTypeSlots> speed{};  // relative to the fastest
    double fastest_iteration_s = kInf;            // the visible model's, on its request
  };

  bool Recording() const { return training_.trajectory != nullptr; }

  void Admit(const JobStatus& job, SchedContext& ctx);

  // The job's usable types, fastest first (steps/s on its request: the profile's measurement
  // where it has one, else the visible model's speed in the profile's units, ProfiledSpeeds);
  // ties by type id. A profile the cluster's catalog cannot read ends the run (ctx.Fail).
  void RankTypes(SchedContext& ctx, const JobSpec& spec, JobInfo& info);
  // RemainingOnFastestS (job_estimates.h) with the fastest iteration time kept from submission
  // (the visible model's estimate does not change): the same value without the model lookups.
  static double RemainingS(const JobStatus& s, const JobInfo& info, double now);
  // Speed of `type` relative to the job's fastest; 0 if not among its ranked types.
  static double SpeedOf(const JobInfo& info, DeviceTypeId type);

  void Enqueue(const JobStatus& job, SchedContext& ctx);

  // Progress as a fraction of the stated iterations, from what the job reports.
  static double Fraction(const JobStatus& s, double now);

  void StartTracking(SchedContext& ctx, JobId id);
  void StopTracking(JobId id, JobInfo& info);

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
  // `window` first waiting jobs: states built first, one forward pass of the agent (or the
  // heuristic), then the actions applied, running jobs first.
  void Decide(SchedContext& ctx, bool with_running);

  // Yielding (RlptoConfig::yield; docs/rlpto.md). Yield preempts and re-queues the running job
  // `id` while queue 0's head is blocked (HeadBlocked) and `moves` allows (counted there);
  // returns whether it did. The rule itself (RlptoYieldRuleHolds, on the job's state) is the
  // heuristic's, and the scheduler applies it to what an agent without the yield action keeps.
  bool Yield(SchedContext& ctx, JobId id, int& moves);
  bool HeadBlocked(SchedContext& ctx) const;
  // value / threshold as a feature, <= 2, and below 1 exactly when value < threshold.
  static float ThresholdShare(double value, double threshold);
  // The state size of the agent acting or training (kRlptoStateDim without one).
  int AgentStateDim() const;

  // The agent's view of one job (ALGORITHMS.md 3.4 state; RlptoFeature), every entry roughly in
  // [0, 2].
  void AppendState(SchedContext& ctx, JobId id, std::vector<float>& out) const;
  void AccountReward(SchedContext& ctx, double now);
  // Adds `r` to the reward of the last decision about the job (none yet: not credited).
  void CreditJob(const JobInfo& info, double r);

  RlptoConfig config_;
  MultiLevelQueue queue_;
  DemandForecast forecast_;
  std::shared_ptr<learn::AllocationAgent> agent_;
  RlptoTraining training_;
  Rng explore_;
  std::map<JobId, JobInfo> jobs_;
  std::set<std::pair<double, JobId>> convergence_events_;
  std::set<JobId> converging_;
  std::set<JobId> running_;
  JobId running_cursor_ = 0;  // round-robin over running jobs: the next to reconsider
  double next_round_s_ = 0;
  bool learned_ = false;      // the agent or the heuristic allocates (else the rule)
  std::unique_ptr<MeasuredThroughputs> profile_;  // config_.profile's table, built on first use
  std::vector<float> states_;       // a legacy agent's view (its first AgentStateDim() features)
  std::vector<float> full_states_;  // every feature (kRlptoStateDim per decision)
  double omega_in_system_ = 0;
  double pending_reward_ = 0;
  double last_reward_s_ = 0;
  std::pair<JobId, DeviceTypeId> hold_{-1, kNoDeviceType};  // HeldType's last answer
};

}  // namespace hetsched::rlpto_internal
