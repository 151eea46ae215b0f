// The trainer's observer of the `rlpto` scheduler (internal to policies/rlpto/; attached by
// MakeRlptoScheduler when RlptoTraining::trajectory is set): it records every decision (its state
// in the trained agent's shape, the action taken, the heuristic's action in the same state) and
// the rewards of ALGORITHMS.md 3.4 into an RlptoTrajectory: the cluster's reward per interval
// between scheduling calls, and each job's own share credited to the last decision about it
// (docs/rlpto.md, "Per-job credit").
#pragma once

#include <memory>

#include "hetsched/policies/rlpto/observer.h"
#include "hetsched/policies/rlpto/scheduler.h"

namespace hetsched::rlpto_internal {

// REQUIRES: trajectory not null, outliving the recorder. `state_dim`: the trained agent's (states
// are recorded with its first state_dim features); `teacher_yields`: the heuristic's action
// recorded for each state includes its yield (kRlptoYield).
std::unique_ptr<RlptoObserver> MakeRlptoRewardRecorder(RlptoTrajectory* trajectory,
                                                       const RlptoRewardConfig& reward,
                                                       const ConvergenceModel& convergence, int state_dim,
                                                       bool teacher_yields);

}  // namespace hetsched::rlpto_internal
