// The LibTorch side of LstmPolicy (learn/backend.h's LstmPolicyBackend), shared by
// lstm_policy_net.cc and reinforce_torch.cc only (it includes torch through the precompiled
// header; nothing outside learn/torch/ may include this file).
#pragma once

#include "hetsched/learn/backend.h"
#include "hetsched/learn/lstm_policy.h"
#include "hetsched/learn/torch/torch_pch.h"
#include "hetsched/util/rng.h"

namespace hetsched::learn {

struct LstmPolicyNet : torch::nn::Module {
  explicit LstmPolicyNet(const LstmPolicyConfig& c);
  torch::nn::Linear input{nullptr};
  torch::nn::Embedding action_embed{nullptr};  // index num_actions = "no previous action"
  torch::nn::LSTMCell cell{nullptr};
  torch::nn::Linear head{nullptr};
  torch::nn::Linear action_score{nullptr};  // hidden -> action_features (only when > 0)
};

// A pass's projected inputs, computed once: the LSTM inputs (steps x hidden) and the per-action
// features (steps x actions x action_features; undefined when the policy has none).
struct ProjectedInputs {
  torch::Tensor steps;
  torch::Tensor actions;
};

struct TorchLstmPolicy final : LstmPolicyBackend {
  // Seeds LibTorch and builds the network. REQUIRES: ValidateLstmPolicyConfig(config).ok().
  explicit TorchLstmPolicy(const LstmPolicyConfig& config);

  LstmPolicyConfig policy_config;
  std::shared_ptr<LstmPolicyNet> net;

  const LstmPolicyConfig& config() const override { return policy_config; }
  Result<std::vector<int>> Greedy(const StepFeatures& features, const ActionMaskFn& mask,
                                  const DynamicFeatureFn& dynamic) const override;
  Result<std::vector<int>> GreedyByLibTorch(const StepFeatures& features, const ActionMaskFn& mask,
                                            const DynamicFeatureFn& dynamic) const override;
  Result<std::vector<std::vector<int>>> Sample(const StepFeatures& features, int count, uint64_t seed,
                                               const ActionMaskFn& mask, const DynamicFeatureFn& dynamic) const override;
  Status Save(const std::string& path) const override;
  // Defined in reinforce_torch.cc.
  Result<ReinforceResult> TrainReinforce(const StepFeatures& features, const RewardFn& reward, const ActionMaskFn& mask,
                                         const ReinforceConfig& config, const DynamicFeatureFn& dynamic) override;

  // Checks that `features` matches the configuration.
  Status Check(const StepFeatures& features) const;
  ProjectedInputs ProjectInputs(const StepFeatures& features) const;
  // Step `step` for a batch: returns logits (batch x actions), with the repeat bias added unless
  // `with_repeat_bias` is false (greedy decoding adds it itself); updates h, c. `dynamic`: the
  // batch's dynamic features (batch x actions x dynamic_features), undefined when there are none.
  torch::Tensor Step(const ProjectedInputs& inputs, int step, const torch::Tensor& prev_actions, torch::Tensor* h,
                     torch::Tensor* c, const torch::Tensor& dynamic, bool with_repeat_bias = true) const;
  // Checks that a DynamicFeatureFn is given exactly when the configuration has dynamic features.
  Status CheckDynamic(const DynamicFeatureFn& dynamic) const;
  // Both checks: the inputs of a pass over `features`.
  Status Check(const StepFeatures& features, const DynamicFeatureFn& dynamic) const;
};

// One batch of sequences sampled from the policy (reinforce_torch.cc trains on it; Sample keeps the
// sequences): the actions, and per sequence the summed log-probability and the summed per-step
// entropy (with their autograd graph unless run under InferenceMode).
struct SampledBatch {
  std::vector<std::vector<int>> sequences;
  torch::Tensor logp_sum;
  torch::Tensor entropy_sum;
};
// `forced` (optional): sequences replayed as the batch's first rows (teacher forcing: their
// actions are taken, not sampled; their log-probabilities are computed all the same). The other
// n - forced->size() rows are sampled. REQUIRES: forced->size() <= n, every forced sequence
// valid under `mask`.
Result<SampledBatch> SampleBatch(const TorchLstmPolicy& policy, const StepFeatures& features, int n,
                                 const ActionMaskFn& mask, const DynamicFeatureFn& dynamic, Rng& rng,
                                 const std::vector<std::vector<int>>* forced = nullptr);

// Reads a policy written by TorchLstmPolicy::Save (LstmPolicy::Load).
Result<std::unique_ptr<LstmPolicyBackend>> LoadTorchLstmPolicy(const std::string& path);

// Adds -inf to the logits of disallowed actions (row i uses allowed[i * actions ...]).
torch::Tensor MaskLogits(const torch::Tensor& logits, const std::vector<uint8_t>& allowed);

}  // namespace hetsched::learn
