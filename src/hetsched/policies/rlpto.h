// RLPTO job scheduler (Lu et al., IEEE TPDS 2023; ALGORITHMS.md 3): multi-priority queues with
// aging (priority_queues.h), convergence-driven shrinking, a task-volume forecast (ARIMA on the
// GPU demand the scheduler has seen arrive), and an allocation agent (learn/allocation_agent.h)
// that picks how many GPUs each waiting job gets. Registered as `rlpto`; with no `model` option
// it allocates by the rule of ALGORITHMS.md 3.2 instead of the agent. The model of convergence
// and every rule are in docs/rlpto.md.
//
// This header exists for the trainer (experiments/rlpto_training.h): it builds the scheduler with
// an agent in exploration mode and a trajectory to record into.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "hetsched/learn/allocation_agent.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/options.h"
#include "hetsched/util/rng.h"

namespace hetsched {

inline constexpr int kRlptoStateDim = 12;
// Actions: 0 wait, 1 the job's minimum, 2 half its request, 3 its request, 4 twice its request.
inline constexpr int kRlptoActions = 5;

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

// Smallest allocation of a job: max(1, ceil(num_gpus x min_share)). Shrinking never goes below.
int MinimumGpus(int requested, double min_share);

struct RlptoTrajectory {
  std::vector<float> states;                    // decisions x kRlptoStateDim
  std::vector<int> actions;
  std::vector<double> decision_time_s;
  std::vector<std::pair<double, double>> rewards;  // (time, reward of the interval ending then)
};

struct RlptoTraining {
  std::shared_ptr<learn::AllocationAgent> agent;  // the agent to act with (exploring)
  RlptoTrajectory* trajectory = nullptr;
  uint64_t explore_seed = 1;
};

// Creates the scheduler from options (see docs/rlpto.md); with `training.agent` set it acts with
// that agent, sampling actions, and records decisions and rewards.
Result<std::unique_ptr<JobScheduler>> MakeRlptoScheduler(const Options& options, RlptoTraining training = {});

}  // namespace hetsched
