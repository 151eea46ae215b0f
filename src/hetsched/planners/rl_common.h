// Shared by the learned planners (heterps.cc, tapp.cc): the per-layer feature vector the LSTM
// policy reads (ALGORITHMS.md 2.4: layer kind one-hot, log FLOPs, log parameter bytes, log sparse
// bytes, log activation bytes, position) and the REINFORCE options every learned planner takes.
#pragma once

#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "hetsched/learn/lstm_policy.h"
#include "hetsched/learn/reinforce.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/sched/options.h"

namespace hetsched {

// One row per layer: the generic layer features (those above, then the share of the model's
// FLOPs before the layer), then `extra(layer)` appended (per-resource
// features of the planner). Logs are log10(1 + x) / 10, so rows are O(1).
learn::StepFeatures LayerFeatures(const ModelProfile& model, int extra_dim,
                                  const std::function<void(int layer, std::vector<float>* row)>& extra);
int LayerFeatureDim();

struct LearnedPlannerOptions {
  learn::ReinforceConfig reinforce;
  int hidden = 64;
  double repeat_bias = 3.0;  // prior towards keeping the previous layer's resource (lstm_policy.h)
  std::string save_path;  // write the trained policy here (with its configuration)
  bool polish = true;     // local search after RL (ImproveAssignmentLocally)
  bool action_head = true;  // score each action from its own features (LstmPolicyConfig::action_features)
  bool dynamic = true;      // partial-plan features (LstmPolicyConfig::dynamic_features), when the planner has them
  int restarts = 1;         // independent trainings (seeds seed, seed + 1, ...); the best plan is kept
  // Sequences sampled from each trained policy after training, no gradient, the best kept
  // (sampling at inference, Bello et al. 2016, "Neural combinatorial optimization with RL").
  int samples = 0;
};
// Each planner's defaults for the options it tunes.
struct LearnedPlannerDefaults {
  int episodes = 2000;  // per training run
  int batch = 16;       // sequences per update
  double risk = 0;      // risk-seeking quantile (ReinforceConfig::risk; 0 = plain REINFORCE)
  int elite = 16;       // priority queue of the best sequences (ReinforceConfig::elite)
  double imitation = 0; // its log-likelihood weight (0 = off)
  int restarts = 1;
  int samples = 0;
  double lr = 1e-3;
  double entropy = 0.01;         // entropy weight at the first update
  double entropy_final = -1;     // at the last update (< 0: constant)
};
// The learned planners' defaults [REC, ours; measured in docs/experiments/heterps.md, tapp.md]:
// one training of 6,000 episodes in batches of 64, risk-seeking gradient on the best 10 % of
// each batch, priority-queue imitation of the 16 best plans (weight 0.1), then 256 samples.
inline constexpr LearnedPlannerDefaults kHeterPsDefaults{
    .episodes = 6000, .batch = 64, .risk = 0.1, .elite = 16, .imitation = 0.1, .restarts = 1, .samples = 256,
    .lr = 1e-3, .entropy = 0.01, .entropy_final = -1};
inline constexpr LearnedPlannerDefaults kTappDefaults = kHeterPsDefaults;

// Reads episodes, batch, lr, entropy, entropy_final, baseline_decay, patience, hidden,
// repeat_bias, seed, save, polish, action_head, dynamic, restarts, samples, risk, elite, imitation.
Result<LearnedPlannerOptions> ReadLearnedPlannerOptions(const Options& options, const LearnedPlannerDefaults& defaults);

// What the learned planners share after building their features and reward: create the LSTM
// policy (configuration from `o`), train it with REINFORCE, save it when asked, and polish the
// best sequence with ImproveAssignmentLocally on `objective` (lower is better) when o.polish.
struct LearnedAssignment {
  std::vector<int> actions;        // after polish
  double learned_objective = 0;    // objective of the RL sequence itself (before polish)
  double trained_objective = 0;    // best over the training episodes and greedy decoding only
  int polish_moves = 0;
  int episodes = 0;                // training episodes, over all restarts
  int episodes_to_best = 0;        // sequences (training episodes, then inference samples, counted
                                   // over the restarts in turn) until the learned plan first came
  int samples = 0;                 // sequences sampled at inference, over all restarts
};
// The dynamic features a planner gives its policy (empty fn and 0 when none).
struct DynamicFeatures {
  int per_action = 0;
  learn::DynamicFeatureFn fn;
};
// The last num_actions x action_features values of each feature row are per-action features
// (used when o.action_head).
Result<LearnedAssignment> LearnAssignment(const LearnedPlannerOptions& o, const learn::StepFeatures& features,
                                          int num_actions, int action_features, const learn::RewardFn& reward,
                                          const learn::ActionMaskFn& mask,
                                          const std::function<double(std::span<const int>)>& objective,
                                          const DynamicFeatures& dynamic = {});

// The training's figures (episodes, episodes to best, samples, the learned and trained
// objectives) in the plan made of learned.actions; evaluations counts the training episodes.
void RecordLearning(const LearnedAssignment& learned, HeteroPlan* plan);

// The options ReadLearnedPlannerOptions reads, for a planner's one-line summary.
inline constexpr std::string_view kLearnedPlannerOptionList =
    "episodes, batch, lr, entropy, entropy_final, baseline_decay, hidden, repeat_bias, patience, seed, save, polish, "
    "action_head, dynamic, restarts, samples, risk, elite, imitation";

// log10(x / ref) clipped to [-2, 2] and halved (1 when x is infinite): a cost or time relative to
// a reference, as a feature of order 1.
float RelativeLogFeature(double x, double ref);

}  // namespace hetsched
