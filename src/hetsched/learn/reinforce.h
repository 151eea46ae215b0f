// REINFORCE (Williams 1992) for learn::LstmPolicy: each update samples a batch of action
// sequences, scores them with the caller's reward, and follows the policy gradient with a
// moving-average baseline (advantage = reward - baseline, scaled by the batch's standard
// deviation) and an entropy bonus (optionally annealed), optimised by Adam (ALGORITHMS.md 2.4, 4.3).
// Keeps the best sequence ever sampled; at the end also decodes greedily and returns the better.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "hetsched/learn/lstm_policy.h"
#include "hetsched/util/status.h"

namespace hetsched::learn {

struct ReinforceConfig {
  int episodes = 2000;           // sampled sequences in all (episodes / batch updates)
  int batch = 16;                // sequences per update
  double learning_rate = 5e-3;   // Adam
  double baseline_decay = 0.9;   // b <- decay b + (1 - decay) mean(R)
  double entropy_bonus = 0.01;   // weight of the mean per-step entropy at the first update
  // Weight at the last update: the weight moves linearly from entropy_bonus to this over the
  // updates (an entropy schedule: explore early, commit late). < 0: constant entropy_bonus.
  double entropy_final = -1;
  int patience = 0;              // stop after this many episodes without a better sequence (0: never)
  // Risk-seeking policy gradient (Petersen et al., ICLR 2021, "Deep symbolic regression"): when
  // in (0, 1), only the sequences of each batch whose reward reaches the batch's (1 - risk)
  // quantile R_q are reinforced, with advantage R - R_q (no moving baseline): the gradient of the
  // best cases, not of the mean, which is what a planner that keeps its best plan wants.
  // 0 (or 1): plain REINFORCE with the moving baseline.
  double risk = 0;
  // Priority-queue training (Abolafia et al. 2018, "Neural program synthesis with priority queue
  // training"): the `elite` best distinct sequences sampled so far are replayed in every update
  // and their log-likelihood is maximised with weight `imitation`, beside the policy gradient, so
  // the policy keeps sampling around the best plans it has found. imitation 0: off.
  int elite = 16;
  double imitation = 0;
  uint64_t seed = 1;             // sampling (hetsched::Rng)
};

// Higher is better. Called once per sampled sequence, from the calling thread.
using RewardFn = std::function<double(std::span<const int> actions)>;

struct ReinforceResult {
  std::vector<int> best_actions;
  double best_reward = 0;
  int episodes = 0;                  // sequences sampled
  int best_episode = 0;              // 1-based episode at which best_actions was first sampled
  std::vector<double> mean_reward;   // per update: the batch's mean reward (learning curve)
};

// `dynamic`: the policy's dynamic features (REQUIRED exactly when config().dynamic_features > 0).
Result<ReinforceResult> TrainReinforce(LstmPolicy& policy, const StepFeatures& features, const RewardFn& reward,
                                       const ActionMaskFn& mask, const ReinforceConfig& config,
                                       const DynamicFeatureFn& dynamic = {});

}  // namespace hetsched::learn
