// The `rlpto` job scheduler itself (internal to policies/rlpto/): its configuration, read from
// options by MakeRlptoScheduler (rlpto.cc), and its factory. The scheduler ages the priority
// queues, shrinks converging jobs, forecasts demand (forecast.h) and allocates by the rule or by
// its decider (decider.h: the heuristic, the agent, the legacy adapter; docs/rlpto.md); an
// observer (observer.h), attached only by the trainer, records decisions and rewards.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hetsched/perf/validation.h"
#include "hetsched/policies/priority_queues.h"
#include "hetsched/policies/rlpto/rlpto.h"

namespace hetsched {

enum class RlptoAllocation { kRule, kHeuristic };

// Reward (ALGORITHMS.md 3.4), recorded only while training (reward_recorder.h): per interval dt,
// -w_time x sum(omega) x dt / t_ref over jobs in the system, -w_res x busy GPUs x dt / (N t_ref),
// +w_acc x omega x accuracy gained by running jobs, +w_done x omega per finished job; omega = 3,
// 2, 1 for user priority high/normal/low. The same terms per job (its omega, its GPUs, its
// accuracy, its end) are each job's reward, credited to the last decision about that job
// (RlptoTrajectory::job_reward).
struct RlptoRewardConfig {
  double w_time = 0.5, w_res = 0.3, w_acc = 1, w_done = 1, t_ref_s = 3600;
  // Share of a waiting job's time term charged to the running jobs, by GPUs held (option
  // `congestion_share`, docs/rlpto.md "Per-job credit").
  double congestion_share = 0.5;
  // Share of a running job's lost time (its time term x (1 - its speed relative to its fastest
  // type)) charged to the jobs holding its fastest type, by GPUs held there, while that type has
  // no room for it (option `type_share`, docs/rlpto.md "Per-job credit").
  double type_share = 0;
};

struct RlptoConfig {
  PriorityClassConfig classes;
  double round_s = 300;
  double min_share = 0.25;
  bool shrink = true;
  ConvergenceModel convergence;
  double forecast_window_s = 3600;
  double reserve_fraction = 0.5;
  int window = 64;
  int moves = 8;  // running jobs resized or moved per round at most
  RlptoAllocation allocation = RlptoAllocation::kRule;
  std::vector<GavelThroughputRow> profile;  // measured throughputs the policy may use (option `profile`)
  std::string profile_origin;
  RlptoRewardConfig reward;  // training only
  // Yielding (option `yield`, off by default; docs/rlpto.md, "Yielding") [REC]: at a round tick,
  // while the head of queue 0 has fewer free devices than it requests, a running job that the
  // agent or the heuristic keeps, has run `yield_after_s` since its last start and has attained
  // `yield_service_gpu_s` GPU-seconds, is preempted and re-queued (its level by its priority and
  // remaining size), within the `moves` per round; the waiting jobs are then decided again.
  bool yield = false;
  double yield_service_gpu_s = 8 * 3600;  // default: the queues' large-job size (large_gpu_h)
  double yield_after_s = 3600;
};

namespace rlpto_internal {
class RlptoDecider;
class RlptoObserver;
}  // namespace rlpto_internal

// REQUIRES: config checked (MakeRlptoScheduler). `decider`: null allocates by the rule
// (ALGORITHMS.md 3.2); `observer`: null for the plain policy.
std::unique_ptr<JobScheduler> NewRlptoScheduler(RlptoConfig config, std::unique_ptr<rlpto_internal::RlptoDecider> decider,
                                                std::unique_ptr<rlpto_internal::RlptoObserver> observer);

}  // namespace hetsched
