// The LibTorch side of LstmPolicy (learn/backend.h): the network, greedy decoding (on Eigen, with
// LibTorch as its tested reference), sampling and the policy file.
#include "hetsched/learn/torch/lstm_policy_net.h"

#include <filesystem>
#include <functional>
#include <limits>
#include <span>
#include <system_error>

#include <Eigen/Core>

#include "hetsched/learn/torch/torch_runtime.h"

namespace hetsched::learn {

LstmPolicyNet::LstmPolicyNet(const LstmPolicyConfig& c) {
  input = register_module("input", torch::nn::Linear(c.feature_dim, c.hidden));
  action_embed = register_module("action_embed", torch::nn::Embedding(c.num_actions + 1, c.action_embedding));
  const int dynamic_inputs = c.num_actions * c.dynamic_features;
  cell = register_module("cell", torch::nn::LSTMCell(c.hidden + c.action_embedding + dynamic_inputs, c.hidden));
  head = register_module("head", torch::nn::Linear(c.hidden, c.num_actions));
  const int scored = c.action_features + c.dynamic_features;
  if (scored > 0) action_score = register_module("action_score", torch::nn::Linear(c.hidden, scored));
}

Status TorchLstmPolicy::Check(const StepFeatures& f) const {
  if (f.steps < 1) return Status::InvalidArgument("policy: no steps");
  if (f.values.size() != static_cast<size_t>(f.steps) * static_cast<size_t>(policy_config.feature_dim)) {
    return Status::InvalidArgument("policy: " + std::to_string(f.values.size()) + " feature values for " +
                                   std::to_string(f.steps) + " steps of " + std::to_string(policy_config.feature_dim));
  }
  return Status::Ok();
}

Status TorchLstmPolicy::CheckDynamic(const DynamicFeatureFn& dynamic) const {
  if ((policy_config.dynamic_features > 0) != static_cast<bool>(dynamic)) {
    return Status::InvalidArgument(policy_config.dynamic_features > 0 ? "policy: dynamic features configured but none given"
                                                               : "policy: dynamic features given but not configured");
  }
  return Status::Ok();
}

Status TorchLstmPolicy::Check(const StepFeatures& features, const DynamicFeatureFn& dynamic) const {
  HETSCHED_RETURN_IF_ERROR(Check(features));
  return CheckDynamic(dynamic);
}

ProjectedInputs TorchLstmPolicy::ProjectInputs(const StepFeatures& f) const {
  const torch::Tensor x =
      torch::from_blob(const_cast<float*>(f.values.data()), {f.steps, policy_config.feature_dim}, torch::kFloat32);
  ProjectedInputs out;
  out.steps = torch::relu(net->input->forward(x));
  if (policy_config.action_features > 0) {
    const int64_t per_action = static_cast<int64_t>(policy_config.num_actions) * policy_config.action_features;
    out.actions = x.slice(1, policy_config.feature_dim - per_action, policy_config.feature_dim)
                      .reshape({f.steps, policy_config.num_actions, policy_config.action_features});
  }
  return out;
}

torch::Tensor TorchLstmPolicy::Step(const ProjectedInputs& inputs, int step, const torch::Tensor& prev_actions,
                                     torch::Tensor* h, torch::Tensor* c, const torch::Tensor& dynamic,
                                     bool with_repeat_bias) const {
  const int64_t batch = prev_actions.size(0);
  std::vector<torch::Tensor> parts = {inputs.steps[step].unsqueeze(0).expand({batch, policy_config.hidden}),
                                      net->action_embed->forward(prev_actions)};
  if (policy_config.dynamic_features > 0) parts.push_back(dynamic.reshape({batch, -1}));
  auto hc = net->cell->forward(torch::cat(parts, 1), std::make_tuple(*h, *c));
  *h = std::get<0>(hc);
  *c = std::get<1>(hc);
  torch::Tensor logits = net->head->forward(*h);
  if (policy_config.action_features > 0 && policy_config.dynamic_features == 0) {
    // (batch x F) x (F x actions): each action's features scored by w + U h.
    logits = logits + torch::matmul(net->action_score->forward(*h), inputs.actions[step].transpose(0, 1));
  } else if (policy_config.dynamic_features > 0) {
    // Per sequence: (actions x F') x (F' x 1), F' = static + dynamic features of each action.
    torch::Tensor features = dynamic;
    if (policy_config.action_features > 0) {
      features = torch::cat({inputs.actions[step].unsqueeze(0).expand({batch, policy_config.num_actions, policy_config.action_features}),
                             dynamic},
                            2);
    }
    logits = logits + torch::bmm(features, net->action_score->forward(*h).unsqueeze(2)).squeeze(2);
  }
  if (with_repeat_bias && policy_config.repeat_bias != 0) {
    // One-hot of the previous action (the "none" index num_actions falls off the slice).
    const torch::Tensor repeat =
        torch::one_hot(prev_actions, policy_config.num_actions + 1).slice(1, 0, policy_config.num_actions).to(torch::kFloat32);
    logits = logits + static_cast<float>(policy_config.repeat_bias) * repeat;
  }
  return logits;
}

torch::Tensor MaskLogits(const torch::Tensor& logits, const std::vector<uint8_t>& allowed) {
  std::vector<float> add(allowed.size());
  for (size_t i = 0; i < allowed.size(); ++i) add[i] = allowed[i] ? 0.0f : -std::numeric_limits<float>::infinity();
  const torch::Tensor t = torch::from_blob(add.data(), {logits.size(0), logits.size(1)}, torch::kFloat32).clone();
  return logits + t;
}

TorchLstmPolicy::TorchLstmPolicy(const LstmPolicyConfig& config) : policy_config(config) {
  ConfigureTorchThreads(config.threads);
  SeedTorch(config.seed);
  net = std::make_shared<LstmPolicyNet>(config);
}

namespace {

// Fills `logits` (num_actions) with the policy's logits at step `step` after the action `prev`
// (num_actions = none yet) and the step's dynamic features; keeps its own recurrent state.
using StepLogitsFn = std::function<void(int step, int prev, std::span<const float> dynamic, std::vector<float>* logits)>;

// Greedy decoding over a step function: the repeat bias and the mask are applied to the copied
// logits (the same decision as MaskLogits + argmax over the biased logits of TorchLstmPolicy::Step).
Result<std::vector<int>> DecodeGreedy(const LstmPolicyConfig& config, int steps, const ActionMaskFn& mask,
                                      const DynamicFeatureFn& dynamic, const StepLogitsFn& step_logits) {
  const int actions = config.num_actions;
  std::vector<float> dynamic_values(static_cast<size_t>(actions) * static_cast<size_t>(config.dynamic_features));
  std::vector<int> out;
  std::vector<uint8_t> allowed(static_cast<size_t>(actions), 1);
  std::vector<float> logits(static_cast<size_t>(actions));
  for (int step = 0; step < steps; ++step) {
    if (dynamic) dynamic(step, out, dynamic_values);
    step_logits(step, out.empty() ? actions : out.back(), dynamic_values, &logits);
    if (step > 0) logits[static_cast<size_t>(out.back())] += static_cast<float>(config.repeat_bias);
    if (mask) {
      std::fill(allowed.begin(), allowed.end(), 0);
      mask(step, out, &allowed);
    }
    int best = -1;
    for (int a = 0; a < actions; ++a) {
      if (allowed[static_cast<size_t>(a)] && (best < 0 || logits[static_cast<size_t>(a)] > logits[static_cast<size_t>(best)])) best = a;
    }
    if (best < 0) return Status::InvalidArgument("policy: the mask allows no action at step " + std::to_string(step));
    out.push_back(best);
  }
  return out;
}

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using ConstVectorMap = Eigen::Map<const Eigen::VectorXf>;

ConstMatrixMap AsMatrix(const torch::Tensor& t) { return {t.data_ptr<float>(), t.size(0), t.size(1)}; }
ConstVectorMap AsVector(const torch::Tensor& t) { return {t.data_ptr<float>(), t.numel()}; }

// The policy's weights for one-sequence decoding by Eigen: one greedy step is a few small
// matrix-vector products, where LibTorch would dispatch some twenty operators (about 130 us per
// step on our machine against a few us here). The step inputs' and the previous action's share
// of the LSTM gates are computed once for all steps and actions.
struct EigenStepper {
  EigenStepper(const TorchLstmPolicy& impl, const StepFeatures& features) : config(impl.policy_config), values(features.values) {
    const LstmPolicyNet& net = *impl.net;
    const int64_t H = config.hidden, E = config.action_embedding;
    const torch::Tensor w_ih = net.cell->weight_ih;
    gates_from_steps = torch::matmul(impl.ProjectInputs(features).steps, w_ih.slice(1, 0, H).t()).contiguous();
    gates_from_actions = torch::matmul(net.action_embed->weight, w_ih.slice(1, H, H + E).t()).contiguous();
    w_dynamic = w_ih.slice(1, H + E, w_ih.size(1)).contiguous();
    w_hh = net.cell->weight_hh.contiguous();
    bias = (net.cell->bias_ih + net.cell->bias_hh).contiguous();
    head_w = net.head->weight.contiguous();
    head_b = net.head->bias.contiguous();
    if (!net.action_score.is_empty()) {
      score_w = net.action_score->weight.contiguous();
      score_b = net.action_score->bias.contiguous();
    }
    h = Eigen::VectorXf::Zero(H);
    c = Eigen::VectorXf::Zero(H);
  }

  void operator()(int step, int prev, std::span<const float> dynamic, std::vector<float>* logits) {
    const int64_t H = config.hidden;
    const int A = config.num_actions, Fs = config.action_features, Fd = config.dynamic_features;
    Eigen::VectorXf gates = AsMatrix(gates_from_steps).row(step).transpose() +
                            AsMatrix(gates_from_actions).row(prev).transpose() + AsVector(bias) + AsMatrix(w_hh) * h;
    if (Fd > 0) gates.noalias() += AsMatrix(w_dynamic) * Eigen::Map<const Eigen::VectorXf>(dynamic.data(), std::ssize(dynamic));
    // LibTorch's LSTMCell gate order: input, forget, cell, output.
    const auto sigmoid = [](const auto& x) { return (1.0f + (-x).exp()).inverse(); };
    const Eigen::ArrayXf i = sigmoid(gates.segment(0, H).array()), f = sigmoid(gates.segment(H, H).array()),
                         g = gates.segment(2 * H, H).array().tanh(), o = sigmoid(gates.segment(3 * H, H).array());
    c = (f * c.array() + i * g).matrix();
    h = (o * c.array().tanh()).matrix();
    Eigen::VectorXf l = AsMatrix(head_w) * h + AsVector(head_b);
    if (Fs + Fd > 0) {
      // Each action's features (static, then dynamic) scored by w + U h, as in TorchLstmPolicy::Step.
      const Eigen::VectorXf s = AsMatrix(score_w) * h + AsVector(score_b);
      const size_t row = static_cast<size_t>(step) * static_cast<size_t>(config.feature_dim);
      const size_t static_at = row + static_cast<size_t>(config.feature_dim - A * Fs);
      for (int a = 0; a < A; ++a) {
        float score = 0;
        for (int k = 0; k < Fs; ++k) score += values[static_at + static_cast<size_t>(a * Fs + k)] * s[k];
        for (int k = 0; k < Fd; ++k) score += dynamic[static_cast<size_t>(a * Fd + k)] * s[Fs + k];
        l[a] += score;
      }
    }
    std::copy_n(l.data(), A, logits->begin());
  }

  const LstmPolicyConfig& config;
  const std::vector<float>& values;
  torch::Tensor gates_from_steps, gates_from_actions, w_dynamic, w_hh, bias, head_w, head_b, score_w, score_b;
  Eigen::VectorXf h, c;
};

}  // namespace

Result<std::vector<int>> TorchLstmPolicy::Greedy(const StepFeatures& features, const ActionMaskFn& mask,
                                            const DynamicFeatureFn& dynamic) const {
  HETSCHED_RETURN_IF_ERROR(Check(features, dynamic));
  ConfigureTorchThreads(policy_config.threads);
  c10::InferenceMode inference;
  EigenStepper stepper(*this, features);
  return DecodeGreedy(policy_config, features.steps, mask, dynamic, std::ref(stepper));
}

Result<std::vector<int>> TorchLstmPolicy::GreedyByLibTorch(const StepFeatures& features, const ActionMaskFn& mask,
                                                         const DynamicFeatureFn& dynamic) const {
  HETSCHED_RETURN_IF_ERROR(Check(features, dynamic));
  ConfigureTorchThreads(policy_config.threads);
  c10::InferenceMode inference;
  const int actions = policy_config.num_actions, dynamic_features = policy_config.dynamic_features;
  const ProjectedInputs inputs = ProjectInputs(features);
  torch::Tensor h = torch::zeros({1, policy_config.hidden}), c = torch::zeros({1, policy_config.hidden});
  const StepLogitsFn step_logits = [&](int step, int prev, std::span<const float> dynamic_values,
                                       std::vector<float>* logits) {
    const torch::Tensor prev_tensor = torch::full({1}, prev, torch::kLong);
    torch::Tensor dynamic_tensor;
    if (dynamic_features > 0) {
      dynamic_tensor = torch::from_blob(const_cast<float*>(dynamic_values.data()), {1, actions, dynamic_features},
                                        torch::kFloat32);
    }
    const torch::Tensor t =
        Step(inputs, step, prev_tensor, &h, &c, dynamic_tensor, /*with_repeat_bias=*/false).contiguous();
    std::copy_n(t.data_ptr<float>(), actions, logits->begin());
  };
  return DecodeGreedy(policy_config, features.steps, mask, dynamic, step_logits);
}

Result<std::vector<std::vector<int>>> TorchLstmPolicy::Sample(const StepFeatures& features, int count, uint64_t seed,
                                                              const ActionMaskFn& mask,
                                                              const DynamicFeatureFn& dynamic) const {
  HETSCHED_RETURN_IF_ERROR(Check(features));
  if (count < 1) return Status::InvalidArgument("policy: sample count must be >= 1");
  ConfigureTorchThreads(policy_config.threads);
  c10::InferenceMode inference;
  Rng rng(seed);
  auto batch = SampleBatch(*this, features, count, mask, dynamic, rng);
  if (!batch.ok()) return batch.status();
  return std::move(batch->sequences);
}

namespace {
const char* const kConfigKeys[] = {"feature_dim", "num_actions", "hidden", "action_embedding", "threads"};
}  // namespace

Status TorchLstmPolicy::Save(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  try {
    torch::serialize::OutputArchive archive;
    const LstmPolicyConfig& c = policy_config;
    const int64_t values[] = {c.feature_dim, c.num_actions, c.hidden, c.action_embedding, c.threads};
    for (size_t i = 0; i < std::size(kConfigKeys); ++i) {
      archive.write(std::string("config.") + kConfigKeys[i], torch::tensor(values[i]));
    }
    archive.write("config.seed", torch::tensor(static_cast<int64_t>(c.seed)));
    archive.write("config.action_features", torch::tensor(static_cast<int64_t>(c.action_features)));
    archive.write("config.dynamic_features", torch::tensor(static_cast<int64_t>(c.dynamic_features)));
    archive.write("config.repeat_bias", torch::tensor(c.repeat_bias, torch::kFloat64));
    net->save(archive);
    archive.save_to(tmp);
  } catch (const c10::Error& e) {
    return Status::IoError(path + ": cannot write the policy: " + e.what_without_backtrace());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::IoError(path + ": cannot write the policy: " + ec.message());
  return Status::Ok();
}

Result<std::unique_ptr<LstmPolicyBackend>> LoadTorchLstmPolicy(const std::string& path) {
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    LstmPolicyConfig c;
    int64_t values[std::size(kConfigKeys)] = {};
    for (size_t i = 0; i < std::size(kConfigKeys); ++i) {
      torch::Tensor t;
      archive.read(std::string("config.") + kConfigKeys[i], t);
      values[i] = t.item<int64_t>();
    }
    torch::Tensor seed, repeat_bias, action_features, dynamic_features;
    archive.read("config.seed", seed);
    // Files written before per-action features existed have none.
    if (archive.try_read("config.action_features", action_features)) {
      c.action_features = static_cast<int>(action_features.item<int64_t>());
    }
    if (archive.try_read("config.dynamic_features", dynamic_features)) {
      c.dynamic_features = static_cast<int>(dynamic_features.item<int64_t>());
    }
    archive.read("config.repeat_bias", repeat_bias);
    c.repeat_bias = repeat_bias.item<double>();
    c.feature_dim = static_cast<int>(values[0]);
    c.num_actions = static_cast<int>(values[1]);
    c.hidden = static_cast<int>(values[2]);
    c.action_embedding = static_cast<int>(values[3]);
    c.threads = static_cast<int>(values[4]);
    c.seed = static_cast<uint64_t>(seed.item<int64_t>());
    // Create's checks, as Status::WithContext(path) words them (the module does not link util).
    if (Status st = ValidateLstmPolicyConfig(c); !st.ok()) return Status::InvalidArgument(path + ": " + st.message());
    auto policy = std::make_unique<TorchLstmPolicy>(c);
    policy->net->load(archive);
    return std::unique_ptr<LstmPolicyBackend>(std::move(policy));
  } catch (const c10::Error& e) {
    return Status::IoError(path + ": not a policy file written by LstmPolicy::Save: " + e.what_without_backtrace());
  }
}

}  // namespace hetsched::learn
