// An autoregressive LSTM policy over a sequence of steps (layers of a model): at step l it reads
// the step's feature vector and the action it took at step l-1, and outputs a distribution over
// `num_actions` actions (resource types for HeterPS, devices for TAPP). Plain C++ interface: the
// network lives in learn's LibTorch back end (learn/backend.h), loaded by the first Create or
// Load. Trained by learn/reinforce.h.
//
// Determinism: the weights are initialised from `seed` (LibTorch seeded) with LibTorch's
// intra-op threads set explicitly, and sampling uses hetsched::Rng, so the same seed and inputs
// give the same actions, run after run.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::learn {

struct LstmPolicyConfig {
  int feature_dim = 0;        // inputs per step (> 0)
  int num_actions = 0;        // actions per step (> 0)
  int hidden = 64;            // LSTM hidden size
  int action_embedding = 16;  // embedding of the previous action
  // Added to the logit of the previous step's action: a prior towards runs of one action (for
  // planners, few stages) that the training can still overrule. 0 = none.
  double repeat_bias = 0;
  // Per-action features: the last num_actions x action_features values of each step's row are
  // features of each action (action-major). Each action's logit gets the score
  // f_a . (w + U h) (a pointer-style head shared by the actions [REC, ours]), so what is learnt
  // about one action carries over to actions with similar features. 0 = none.
  int action_features = 0;
  // Dynamic per-action features: num_actions x dynamic_features values computed at each step
  // from the actions taken so far (a DynamicFeatureFn; for planners, what each action would do
  // to the partial plan). They are appended to the action's static features in the head above
  // and, flattened, to the LSTM input. 0 = none.
  int dynamic_features = 0;
  uint64_t seed = 1;          // weight initialisation
  int threads = 1;            // LibTorch intra-op threads
};

// Which actions step `step` may take after `prefix` (the actions of steps 0..step-1): sets
// (*allowed)[a] = 1 for allowed actions, 0 otherwise. An empty function allows every action.
// At least one action must stay allowed.
using ActionMaskFn = std::function<void(int step, std::span<const int> prefix, std::vector<uint8_t>* allowed)>;

// Dynamic features of step `step` after `prefix` (the actions of steps 0..step-1): writes
// num_actions x dynamic_features floats (action-major) into `out`. Called once per step and
// sequence; must be deterministic. REQUIRED when config.dynamic_features > 0.
using DynamicFeatureFn = std::function<void(int step, std::span<const int> prefix, std::span<float> out)>;

// Step features: `steps` rows of `feature_dim` floats, row-major.
struct StepFeatures {
  int steps = 0;
  std::vector<float> values;
};

class LstmPolicyBackend;  // learn/backend.h

class LstmPolicy {
 public:
  // Errors: a bad config, or LibTorch's back end cannot be loaded.
  static Result<LstmPolicy> Create(const LstmPolicyConfig& config);
  // Reads a policy written by Save, with its configuration.
  static Result<LstmPolicy> Load(const std::string& path);

  LstmPolicy(LstmPolicy&&) noexcept;
  LstmPolicy& operator=(LstmPolicy&&) noexcept;
  ~LstmPolicy();

  const LstmPolicyConfig& config() const;
  // The most likely action at every step (greedy decoding; the forward pass runs on Eigen, not
  // LibTorch: one sequence, so operator dispatch would dominate). REQUIRES: features match config.
  Result<std::vector<int>> Greedy(const StepFeatures& features, const ActionMaskFn& mask = {},
                                  const DynamicFeatureFn& dynamic = {}) const;
  // The same decoding through LibTorch's modules, the reference Greedy is tested against.
  Result<std::vector<int>> GreedyByLibTorchForTesting(const StepFeatures& features, const ActionMaskFn& mask = {},
                                                      const DynamicFeatureFn& dynamic = {}) const;
  // `count` sequences sampled from the policy with `seed` (hetsched::Rng), no gradient: sampling
  // at inference, as in Bello et al. 2016 (the caller keeps the best by its reward).
  Result<std::vector<std::vector<int>>> Sample(const StepFeatures& features, int count, uint64_t seed,
                                               const ActionMaskFn& mask = {}, const DynamicFeatureFn& dynamic = {}) const;
  // Writes the weights and the configuration (atomically: a temporary file, then rename).
  Status Save(const std::string& path) const;

  // The LibTorch side (learn/ only: TrainReinforce uses it).
  LstmPolicyBackend& backend() { return *backend_; }

 private:
  explicit LstmPolicy(std::unique_ptr<LstmPolicyBackend> backend);
  std::unique_ptr<LstmPolicyBackend> backend_;
};

}  // namespace hetsched::learn
