// Internal to experiments/: the learner steps of RLPTO's trainer (rlpto_training.cc): an
// episode simulated with the rlpto scheduler recording its decisions, and the REINFORCE and PPO
// updates and the critic's warm-up on such episodes. Every draw comes from the trainer's Rng.
#pragma once

#include <memory>
#include <vector>

#include "hetsched/experiments/rlpto_training.h"
#include "hetsched/learn/allocation_agent.h"
#include "hetsched/policies/rlpto/rlpto.h"
#include "hetsched/util/rng.h"

namespace hetsched::rlpto_learner {

struct EpisodeResult {
  RunRecord record;
  RlptoTrajectory trajectory;
};

// Simulates `window` with the rlpto scheduler acting as `training` says (with a trajectory to
// record into unless `record` is false).
Result<EpisodeResult> RunEpisode(const Cluster& cluster, const ModelZoo& zoo, const Workload& window,
                                 const RlptoTrainingOptions& options, RlptoTraining training, bool record,
                                 const SimOptions& sim);

// REINFORCE on one episode (the cluster's discounted return after each decision, optionally
// minus the greedy agent's on the same window; normalised within the episode).
Status ReinforceStep(const Cluster& cluster, const ModelZoo& zoo, const Workload& w, const RlptoTrainingOptions& options,
                     const std::shared_ptr<learn::AllocationAgent>& agent, const SimOptions& sim,
                     const RlptoTrajectory& trajectory, Rng& rng);

// PPO on one episode: per-job GAE with the critic, advantages normalised within the episode,
// `ppo_epochs` passes over shuffled minibatches. The critic estimates value / value_scale (1
// unless options.ppo_value_scaling).
Status PpoStep(const RlptoTrainingOptions& options, double entropy_bonus, double value_scale, learn::AllocationAgent& agent,
               const RlptoTrajectory& t, Rng& rng);

// Fits the critic to the discounted per-job returns of the warm-start episodes (acted by the
// heuristic, which the warm-started policy imitates): minibatches drawn with `rng`. Returns the
// scale the critic works in: with options.ppo_value_scaling the returns' standard deviation
// (the critic learns return / scale: long jobs' undiscounted returns reach hundreds), else 1.
Result<double> WarmUpCritic(const RlptoTrainingOptions& options, learn::AllocationAgent& agent,
                            const std::vector<RlptoTrajectory>& episodes, Rng& rng);

}  // namespace hetsched::rlpto_learner
