// REINFORCE for LstmPolicy (learn/reinforce.h), on LibTorch: batch sampling and the training loop.
#include <algorithm>
#include <cmath>
#include <functional>

#include "hetsched/learn/reinforce.h"
#include "hetsched/learn/torch/lstm_policy_net.h"
#include "hetsched/learn/torch/torch_runtime.h"
#include "hetsched/util/rng.h"

namespace hetsched::learn {

namespace {

// Samples one action from row `row` of `probs` with `rng`; actions of probability 0 (masked)
// are never chosen.
int SampleRow(const torch::TensorAccessor<float, 2>& probs, int64_t row, int actions, Rng& rng) {
  const double u = rng.Uniform();
  double cumulative = 0;
  int last_allowed = -1;
  for (int a = 0; a < actions; ++a) {
    const double p = probs[row][a];
    if (p <= 0) continue;
    last_allowed = a;
    cumulative += p;
    if (u < cumulative) return a;
  }
  return last_allowed;  // rounding left u above the total: the last allowed action
}

}  // namespace

Result<SampledBatch> SampleBatch(const TorchLstmPolicy& im, const StepFeatures& features, int n,
                                 const ActionMaskFn& mask, const DynamicFeatureFn& dynamic, Rng& rng,
                                 const std::vector<std::vector<int>>* forced) {
  HETSCHED_RETURN_IF_ERROR(im.CheckDynamic(dynamic));
  const int replayed = forced != nullptr ? static_cast<int>(forced->size()) : 0;
  if (replayed > n) return Status::InvalidArgument("policy: more replayed sequences than the batch holds");
  const int actions = im.policy_config.num_actions, steps = features.steps, hidden = im.policy_config.hidden;
  const int per_row = actions * im.policy_config.dynamic_features;
  SampledBatch out;
  out.sequences.assign(static_cast<size_t>(n), std::vector<int>(static_cast<size_t>(steps), 0));
  const ProjectedInputs inputs = im.ProjectInputs(features);
  torch::Tensor h = torch::zeros({n, hidden}), c = torch::zeros({n, hidden});
  torch::Tensor prev = torch::full({n}, actions, torch::kLong);
  out.logp_sum = torch::zeros({n});
  out.entropy_sum = torch::zeros({n});
  std::vector<uint8_t> allowed, row(static_cast<size_t>(actions));
  std::vector<float> dynamic_values(static_cast<size_t>(n) * static_cast<size_t>(per_row));
  std::vector<int64_t> chosen;
  for (int step = 0; step < steps; ++step) {
    torch::Tensor dynamic_tensor;
    if (dynamic) {
      for (int i = 0; i < n; ++i) {
        dynamic(step, std::span<const int>(out.sequences[static_cast<size_t>(i)].data(), static_cast<size_t>(step)),
                std::span<float>(dynamic_values.data() + static_cast<size_t>(i) * per_row, static_cast<size_t>(per_row)));
      }
      dynamic_tensor =
          torch::from_blob(dynamic_values.data(), {n, actions, im.policy_config.dynamic_features}, torch::kFloat32).clone();
    }
    torch::Tensor logits = im.Step(inputs, step, prev, &h, &c, dynamic_tensor);
    if (mask) {
      allowed.assign(static_cast<size_t>(n) * static_cast<size_t>(actions), 0);
      for (int i = 0; i < n; ++i) {
        std::fill(row.begin(), row.end(), 0);
        mask(step, std::span<const int>(out.sequences[static_cast<size_t>(i)].data(), static_cast<size_t>(step)), &row);
        std::copy(row.begin(), row.end(), allowed.begin() + static_cast<std::ptrdiff_t>(i) * actions);
      }
      logits = MaskLogits(logits, allowed);
    }
    const torch::Tensor logp = torch::log_softmax(logits, 1);
    const torch::Tensor probs = logp.exp();
    // Masked actions: p = 0 and log p = -inf; their entropy term is 0.
    out.entropy_sum = out.entropy_sum - (probs * torch::nan_to_num(logp, 0.0, 0.0, 0.0)).sum(1);
    const torch::Tensor p_cpu = probs.detach().contiguous();
    const auto acc = p_cpu.accessor<float, 2>();
    chosen.assign(static_cast<size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
      const int a = i < replayed ? (*forced)[static_cast<size_t>(i)][static_cast<size_t>(step)] : SampleRow(acc, i, actions, rng);
      if (a < 0) return Status::InvalidArgument("policy: the mask allows no action at step " + std::to_string(step));
      chosen[static_cast<size_t>(i)] = a;
      out.sequences[static_cast<size_t>(i)][static_cast<size_t>(step)] = a;
    }
    prev = torch::from_blob(chosen.data(), {n}, torch::kLong).clone();
    out.logp_sum = out.logp_sum + logp.gather(1, prev.unsqueeze(1)).squeeze(1);
  }
  return out;
}

Result<ReinforceResult> TorchLstmPolicy::TrainReinforce(const StepFeatures& features, const RewardFn& reward,
                                                        const ActionMaskFn& mask, const ReinforceConfig& config,
                                                        const DynamicFeatureFn& dynamic) {
  TorchLstmPolicy& im = *this;
  HETSCHED_RETURN_IF_ERROR(im.Check(features, dynamic));
  if (config.episodes < 1 || config.batch < 1 || !(config.learning_rate > 0) || config.baseline_decay < 0 ||
      config.baseline_decay >= 1 || config.entropy_bonus < 0 || config.patience < 0 || !(config.risk >= 0) ||
      config.risk > 1 || config.elite < 0 || !(config.imitation >= 0)) {
    return Status::InvalidArgument(
        "REINFORCE: episodes and batch must be >= 1, learning rate > 0, baseline decay in [0, 1), entropy bonus and "
        "patience >= 0, risk in [0, 1], elite and imitation >= 0");
  }
  if (!reward) return Status::InvalidArgument("REINFORCE: no reward function");
  ConfigureTorchThreads(im.policy_config.threads);
  torch::optim::Adam optimizer(im.net->parameters(), torch::optim::AdamOptions(config.learning_rate));
  Rng rng(config.seed);

  ReinforceResult result;
  result.best_reward = -std::numeric_limits<double>::infinity();
  bool have_baseline = false;
  double baseline = 0;
  int since_best = 0;
  std::vector<double> rewards, quantile;
  const bool risk_seeking = config.risk > 0 && config.risk < 1;
  // The priority queue of PQT: the `elite` best distinct sequences so far, best first.
  std::vector<std::pair<double, std::vector<int>>> queue;
  std::vector<std::vector<int>> replay;
  const size_t queue_size = config.imitation > 0 ? static_cast<size_t>(config.elite) : 0;
  while (result.episodes < config.episodes) {
    const int n = std::min(config.batch, config.episodes - result.episodes);
    replay.clear();
    for (const auto& entry : queue) replay.push_back(entry.second);
    const int q = static_cast<int>(replay.size());
    HETSCHED_ASSIGN_OR_RETURN(SampledBatch sampled, SampleBatch(im, features, n + q, mask, dynamic, rng, &replay));
    const std::vector<std::vector<int>>& seqs = sampled.sequences;  // rows [0, q) replayed, [q, q + n) sampled
    rewards.assign(static_cast<size_t>(n), 0.0);
    double mean = 0;
    for (int i = 0; i < n; ++i) {
      const std::vector<int>& seq = seqs[static_cast<size_t>(q + i)];
      const double r = reward(seq);
      rewards[static_cast<size_t>(i)] = r;
      mean += r / n;
      ++since_best;
      if (r > result.best_reward) {
        result.best_reward = r;
        result.best_actions = seq;
        result.best_episode = result.episodes + i + 1;
        since_best = 0;
      }
      if (queue_size > 0 && (queue.size() < queue_size || r > queue.back().first) &&
          std::none_of(queue.begin(), queue.end(), [&](const auto& e) { return e.second == seq; })) {
        const auto at = std::find_if(queue.begin(), queue.end(), [r](const auto& e) { return r > e.first; });
        queue.insert(at, {r, seq});
        if (queue.size() > queue_size) queue.pop_back();
      }
    }
    if (!have_baseline) {
      baseline = mean;
      have_baseline = true;
    }
    double var = 0;
    for (double r : rewards) var += (r - mean) * (r - mean) / n;
    const double scale = var > 1e-24 ? 1.0 / std::sqrt(var) : 1.0;
    std::vector<float> advantage(static_cast<size_t>(n));
    if (risk_seeking) {
      // R_q: the reward of rank ceil(risk n) from the top; sequences below it get no gradient.
      quantile = rewards;
      const size_t k = static_cast<size_t>(std::max(1.0, std::ceil(config.risk * n))) - 1;
      std::nth_element(quantile.begin(), quantile.begin() + static_cast<std::ptrdiff_t>(k), quantile.end(), std::greater<>());
      const double threshold = quantile[k];
      for (int i = 0; i < n; ++i) {
        const double r = rewards[static_cast<size_t>(i)];
        advantage[static_cast<size_t>(i)] = r >= threshold ? static_cast<float>((r - threshold) * scale) : 0.0f;
      }
    } else {
      for (int i = 0; i < n; ++i) {
        advantage[static_cast<size_t>(i)] = static_cast<float>((rewards[static_cast<size_t>(i)] - baseline) * scale);
      }
    }
    baseline = config.baseline_decay * baseline + (1.0 - config.baseline_decay) * mean;
    const torch::Tensor adv = torch::from_blob(advantage.data(), {n}, torch::kFloat32).clone();
    double entropy_weight = config.entropy_bonus;
    if (config.entropy_final >= 0) {
      const double progress = static_cast<double>(result.episodes) / std::max(1, config.episodes - n);
      entropy_weight += (config.entropy_final - config.entropy_bonus) * std::min(1.0, progress);
    }
    const torch::Tensor logp = sampled.logp_sum.slice(0, q, q + n);
    torch::Tensor loss = -(adv * logp).mean() -
                         static_cast<float>(entropy_weight) * (sampled.entropy_sum.slice(0, q, q + n) / features.steps).mean();
    if (q > 0) loss = loss - static_cast<float>(config.imitation) * sampled.logp_sum.slice(0, 0, q).mean();
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    result.episodes += n;
    result.mean_reward.push_back(mean);
    if (config.patience > 0 && since_best >= config.patience) break;
  }
  auto greedy = Greedy(features, mask, dynamic);
  if (!greedy.ok()) return greedy.status();
  const double r = reward(*greedy);
  if (r > result.best_reward) {
    result.best_reward = r;
    result.best_actions = std::move(greedy).value();
    result.best_episode = result.episodes;
  }
  return result;
}

}  // namespace hetsched::learn
