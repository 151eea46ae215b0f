// The LibTorch side of LstmPolicy, shared by lstm_policy.cc and reinforce.cc only (it includes
// torch through the precompiled header; nothing outside learn/ may include this file).
#pragma once

#include "hetsched/learn/lstm_policy.h"
#include "hetsched/learn/torch_pch.h"

namespace hetsched::learn {

struct LstmPolicyNet : torch::nn::Module {
  explicit LstmPolicyNet(const LstmPolicyConfig& c);
  torch::nn::Linear input{nullptr};
  torch::nn::Embedding action_embed{nullptr};  // index num_actions = "no previous action"
  torch::nn::LSTMCell cell{nullptr};
  torch::nn::Linear head{nullptr};
};

struct LstmPolicy::Impl {
  LstmPolicyConfig config;
  std::shared_ptr<LstmPolicyNet> net;

  // Checks that `features` matches the configuration.
  Status Check(const StepFeatures& features) const;
  // Projected step inputs (steps x hidden), computed once per pass.
  torch::Tensor ProjectInputs(const StepFeatures& features) const;
  // One step for a batch: returns logits (batch x actions), with the repeat bias added unless
  // `with_repeat_bias` is false (greedy decoding adds it itself); updates h, c.
  torch::Tensor Step(const torch::Tensor& step_input, const torch::Tensor& prev_actions, torch::Tensor* h,
                     torch::Tensor* c, bool with_repeat_bias = true) const;
};

// Adds -inf to the logits of disallowed actions (row i uses allowed[i * actions ...]).
torch::Tensor MaskLogits(const torch::Tensor& logits, const std::vector<uint8_t>& allowed);

}  // namespace hetsched::learn
