// RLPTO job scheduler (Lu et al., IEEE TPDS 2023; ALGORITHMS.md 3): multi-priority queues with
// aging (priority_queues.h), convergence-driven shrinking, a task-volume forecast (ARIMA on the
// GPU demand the scheduler has seen arrive), and an allocation agent (learn/allocation_agent.h)
// that picks, for each waiting job and (once per round) each running job, how many GPUs of which
// type it gets. Registered as `rlpto`; with no `model` option it allocates by the rule of
// ALGORITHMS.md 3.2 (`allocation=rule`, default) or by the type-aware heuristic the agent is
// warm-started from (`allocation=heuristic`). The model of convergence and every rule are in
// docs/rlpto.md.
//
// This header exists for the trainer (experiments/rlpto_training.h): it builds the scheduler with
// an agent in exploration mode and a trajectory to record into. The scheduler's decision stage
// (the rule, the heuristic, the agent, the legacy agent's adapter) is chosen once from the options
// (policies/rlpto/decider.h); the recording is an observer only a trajectory attaches
// (policies/rlpto/observer.h, reward_recorder.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "hetsched/learn/allocation_agent.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/options.h"
#include "hetsched/util/rng.h"

namespace hetsched {

// Action space (docs/rlpto.md): 0 = wait (a waiting job) or keep the current allocation (a
// running job); a > 0 = (type slot, count choice) with slot = (a - 1) / kRlptoCountChoices and
// count choice = (a - 1) % kRlptoCountChoices. A job's type slots are the device types it may
// use, fastest first for this job (measured throughput with a `profile`, else the visible
// model); a slot past the job's last type means its last (slowest) type. Count choices: the
// job's minimum, half its request, its request, twice its request.
// Action kRlptoYield (agents of kRlptoActions; session 16): a running job gives its devices back
// and waits in its queue (yielding, docs/rlpto.md; only with the scheduler's option yield=true,
// else it keeps); for a waiting job it means wait. Agents of the earlier shape
// (kRlptoLegacyActions, kRlptoLegacyStateDim: the shipped one) see the first 23 features and
// have no yield action; with yield=true the scheduler's rule yields for them.
inline constexpr int kRlptoTypeSlots = 3;
inline constexpr int kRlptoCountChoices = 4;
inline constexpr int kRlptoLegacyActions = 1 + kRlptoTypeSlots * kRlptoCountChoices;
inline constexpr int kRlptoYield = kRlptoLegacyActions;
inline constexpr int kRlptoActions = kRlptoLegacyActions + 1;
inline constexpr int kRlptoLegacyStateDim = 23;
inline constexpr int kRlptoStateDim = 26;
// What each entry of the state vector means (docs/rlpto.md, "State").
enum class RlptoFeature : int {
  kFree = 0,          // free GPUs / all GPUs
  kTopQueue,          // jobs in queue 0 / 100 (<= 2)
  kLowerQueues,       // jobs in the other queues / 100 (<= 2)
  kForecast,          // forecast GPU demand of the next window / all GPUs (<= 2)
  kLevel,             // the job's queue level / (levels - 1); 0 when running
  kRequest,           // log2(requested GPUs) / 6
  kRemaining,         // log10(estimated remaining s on its fastest type + 1) / 6 (<= 2; 1 if unknown)
  kWaited,            // time waiting / (levels x age) (<= 2); 0 when running
  kMinimum,           // minimum GPUs / requested
  kFreeOverRequest,   // min(1, free GPUs / requested)
  kPriority,          // omega / 3 (user priority)
  kBias,              // 1
  kRunning,           // 1 running, 0 waiting
  kHeldShare,         // GPUs held / requested (<= 2); 0 when waiting
  kHeldSpeed,         // speed of the type held relative to the job's fastest; 0 when waiting
  kProgress,          // fraction of the stated iterations done
  kConverging,        // 1 once the job's loss curve has flattened (ConvergenceModel)
  kSlotSpeed,         // kRlptoTypeSlots entries: speed of type slot k relative to slot 0 (0: none)
  kSlotFree = kSlotSpeed + kRlptoTypeSlots,  // kRlptoTypeSlots entries: free GPUs of slot k (+ its own) / requested (<= 2)
  // Session 16 (not seen by legacy agents): what the yielding rule looks at.
  kHeadBlocked = kSlotFree + kRlptoTypeSlots,  // 1 if queue 0's head requests more GPUs than are free
  kServiceShare,      // attained service (GPU-s) / yield_service (<= 2); 0 when waiting
  kRunShare,          // time since its last start / yield_after (<= 2); 0 when waiting
};
static_assert(static_cast<int>(RlptoFeature::kSlotFree) + kRlptoTypeSlots == kRlptoLegacyStateDim);
static_assert(static_cast<int>(RlptoFeature::kRunShare) + 1 == kRlptoStateDim);

constexpr int RlptoAction(int slot, int count_choice) { return 1 + slot * kRlptoCountChoices + count_choice; }

// GPUs of count choice `c` for a job requesting `requested` with minimum `min`: min,
// max(min, ceil(requested / 2)), requested, 2 x requested; never below 1.
int RlptoCount(int count_choice, int requested, int min);

// Convergence model (docs/rlpto.md): loss(f) = a (f + f0)^-b + c over the fraction f of the
// job's stated iterations done; "accuracy" = share of the achievable loss reduction reached,
// acc(f) = (L(0) - L(f)) / (L(0) - L(1)), independent of a and c. A job is converging once
// acc(f) >= 1 - epsilon (its loss curve has flattened: less than epsilon of the reduction left).
struct ConvergenceModel {
  double exponent = 0.5;   // b
  double offset = 0.01;    // f0
  double epsilon = 0.1;
  double Accuracy(double fraction) const;
  // The fraction f* at which acc(f*) = 1 - epsilon.
  double ConvergingFraction() const;
};

// The type-aware heuristic the agent is warm-started from (and `allocation=heuristic`), a
// function of the state vector alone: a waiting job gets its request on its fastest type with
// room for it, else waits; a running job keeps its allocation, except that a job holding its
// request, not converging, with an hour or more left, moves to its fastest type when that type
// is at least 1.25x faster and has room. With `yield`, a running job it would keep yields
// (kRlptoYield) when queue 0's head is blocked and the job's service and time since its start
// have both reached the thresholds (kServiceShare, kRunShare >= 1). REQUIRES: state.size() ==
// kRlptoStateDim with `yield`, >= kRlptoLegacyStateDim without (it reads no later feature).
int RlptoHeuristicAction(std::span<const float> state, bool yield = false);

// The yielding rule on a running job's state: queue 0's head blocked (kHeadBlocked, as the state
// was taken) and the job's thresholds met (RlptoYieldThresholdsMet). REQUIRES: state.size() ==
// kRlptoStateDim.
bool RlptoYieldRuleHolds(std::span<const float> state);
// The job's part of the rule: running, with its service and its time since its start at or past
// their thresholds (kServiceShare, kRunShare >= 1). REQUIRES: state.size() == kRlptoStateDim.
bool RlptoYieldThresholdsMet(std::span<const float> state);

// Smallest allocation of a job: max(1, ceil(num_gpus x min_share)). Shrinking never goes below.
int MinimumGpus(int requested, double min_share);

// What a training episode records. Per decision (in time order): its state, action, the
// heuristic's action, its time, the job it concerns, that job's reward from the decision until
// the next decision about the same job (or the job's end), and the index of that next decision
// (-1: none, the job finished or the episode ended). Per interval between scheduling calls: the
// cluster's reward (the sum over jobs of the same terms).
struct RlptoTrajectory {
  std::vector<float> states;                    // decisions x kRlptoStateDim
  std::vector<int> actions;                     // the action taken
  std::vector<int> teacher_actions;             // the heuristic's action in the same state
  std::vector<double> decision_time_s;
  std::vector<JobId> job;                       // the job each decision concerns
  std::vector<double> job_reward;               // that job's reward until its next decision
  std::vector<int64_t> next_decision;           // index of the job's next decision, -1: none
  std::vector<std::pair<double, double>> rewards;  // (time, cluster reward of the interval ending then)
};

struct RlptoTraining {
  std::shared_ptr<learn::AllocationAgent> agent;  // the agent to act with
  RlptoTrajectory* trajectory = nullptr;         // set: the reward recorder is attached
  uint64_t explore_seed = 1;
  bool explore = true;         // sample actions while recording (else the agent's most probable action)
  bool act_by_teacher = false;  // act with the heuristic (imitation data); `agent`, if set, only gives the states their shape
  // false: the heuristic (the teacher, and the decider without an agent) never yields, even with
  // the scheduler's option yield=true, which then only lets an agent's yield action act (a warm
  // start without yielding, for the agent to find it by itself).
  bool teacher_yield = true;
};

// Creates the scheduler from options (see docs/rlpto.md); with `training.agent` set it acts with
// that agent (sampling actions while it records), and with `training.trajectory` it records
// decisions and rewards there. The plain policy (no trajectory) records nothing.
Result<std::unique_ptr<JobScheduler>> MakeRlptoScheduler(const Options& options, RlptoTraining training = {});

}  // namespace hetsched
