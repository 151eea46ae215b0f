// What the `rlpto` scheduler tells an observer (internal to policies/rlpto/): the jobs it admits
// and sees finish, each scheduling call, and the decisions it takes. Only the trainer attaches
// one (the reward recorder, reward_recorder.h, through RlptoTraining::trajectory); the scheduler
// calls it when set, and the plain policy has none.
#pragma once

#include <map>
#include <span>

#include "hetsched/policies/rlpto/decider.h"
#include "hetsched/policies/rlpto/job.h"
#include "hetsched/sched/context.h"

namespace hetsched::rlpto_internal {

class RlptoObserver {
 public:
  virtual ~RlptoObserver() = default;
  // `id` entered the scheduler's book at `now` (submitted, or running when the scheduler attached).
  virtual void OnAdmitted(JobId id, const RlptoJob& job, double now) = 0;
  // `id` finished; `job` as the scheduler held it until then.
  virtual void OnFinished(JobId id, const RlptoJob& job, SchedContext& ctx) = 0;
  // A scheduling call at ctx.now(), before anything changes; `jobs`: every job in the system.
  virtual void OnCall(SchedContext& ctx, const std::map<JobId, RlptoJob>& jobs) = 0;
  // The decisions about `jobs` (in the order of the rows of `state`, every feature) at `now`.
  virtual void OnDecided(std::span<const JobId> jobs, const RlptoDecisionState& state,
                         const RlptoDecisions& decisions, double now) = 0;
};

}  // namespace hetsched::rlpto_internal
