// The LibTorch side of AllocationAgent (learn/backend.h): RLPTO's policy network (an MLP with a
// softmax over the allocation choices), its critic (an MLP with one output) and their Adam
// optimizers: one over the policy alone (REINFORCE's Update, as before the critic existed) and one
// over both (PPO).
#include <mutex>

#include "hetsched/learn/backend.h"
#include "hetsched/learn/torch/module_archive.h"
#include "hetsched/learn/torch/torch_backend.h"
#include "hetsched/learn/torch/torch_runtime.h"

namespace hetsched::learn {
namespace {

struct PolicyNetImpl : torch::nn::Module {
  PolicyNetImpl(int in, int hidden, int out)
      : l1(register_module("l1", torch::nn::Linear(in, hidden))),
        l2(register_module("l2", torch::nn::Linear(hidden, hidden))),
        head(register_module("head", torch::nn::Linear(hidden, out))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return head->forward(torch::tanh(l2->forward(torch::tanh(l1->forward(x)))));  // logits
  }
  torch::nn::Linear l1, l2, head;
};
TORCH_MODULE(PolicyNet);

struct ValueNetImpl : torch::nn::Module {
  ValueNetImpl(int in, int hidden)
      : l1(register_module("l1", torch::nn::Linear(in, hidden))),
        l2(register_module("l2", torch::nn::Linear(hidden, hidden))),
        head(register_module("head", torch::nn::Linear(hidden, 1))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return head->forward(torch::tanh(l2->forward(torch::tanh(l1->forward(x))))).squeeze(1);
  }
  torch::nn::Linear l1, l2, head;
};
TORCH_MODULE(ValueNet);

// Both networks in one module, so that one archive holds them. The policy is built first: its
// initial weights for a seed are those of the agent before the critic was added.
struct AgentNetImpl : torch::nn::Module {
  AgentNetImpl(int in, int hidden, int out)
      : policy(register_module("policy", PolicyNet(in, hidden, out))), critic(register_module("critic", ValueNet(in, hidden))) {}
  PolicyNet policy;
  ValueNet critic;
};
TORCH_MODULE(AgentNet);

// Serialises the agents' forward passes across threads. Agents evaluated in parallel runs
// (`experiment rlpto`, RunMany) raced in LibTorch's process-wide state (thread settings): the
// compared results of the same agent files changed from run to run; measured in session 11,
// deterministic again with this lock (and with -j 1 before it). A forward pass is microseconds.
std::mutex& InferenceMutex() {
  static std::mutex m;
  return m;
}

class TorchAllocationNet final : public AllocationNetBackend {
 public:
  explicit TorchAllocationNet(const AllocationAgentConfig& config) : config_(config) {
    SeedTorch(config_.seed);
    ConfigureTorchThreads(config_.threads);
    net_ = AgentNet(config_.state_dim, config_.hidden, config_.actions);
    ResetOptimizer();
  }

  std::vector<int> Act(std::span<const float> states, int n, Rng* explore) const override {
    std::vector<int> out(static_cast<size_t>(std::max(0, n)), 0);
    if (n <= 0) return out;
    const std::lock_guard<std::mutex> lock(InferenceMutex());
    ConfigureTorchThreads(config_.threads);
    torch::NoGradGuard no_grad;
    const torch::Tensor probs = torch::softmax(net_->policy->forward(States(states, n)), 1).contiguous();
    auto acc = probs.accessor<float, 2>();
    for (int i = 0; i < n; ++i) {
      int choice = 0;
      if (explore != nullptr) {
        double u = explore->Uniform();
        choice = config_.actions - 1;
        for (int a = 0; a < config_.actions; ++a) {
          u -= acc[i][a];
          if (u < 0) {
            choice = a;
            break;
          }
        }
      } else {
        for (int a = 1; a < config_.actions; ++a) {
          if (acc[i][a] > acc[i][choice]) choice = a;
        }
      }
      out[static_cast<size_t>(i)] = choice;
    }
    return out;
  }

  std::vector<double> Probabilities(std::span<const float> state) const override {
    const std::lock_guard<std::mutex> lock(InferenceMutex());
    torch::NoGradGuard no_grad;
    const torch::Tensor probs = torch::softmax(net_->policy->forward(States(state, 1)), 1).contiguous();
    std::vector<double> out;
    for (int a = 0; a < config_.actions; ++a) out.push_back(probs[0][a].item<double>());
    return out;
  }

  Result<double> Update(std::span<const float> states, std::span<const int> actions,
                        std::span<const double> advantages) override {
    const auto n = static_cast<int64_t>(actions.size());
    ConfigureTorchThreads(config_.threads);
    std::vector<int64_t> acts(actions.begin(), actions.end());
    std::vector<float> adv(advantages.begin(), advantages.end());
    const torch::Tensor a = torch::from_blob(acts.data(), {n}, torch::kInt64);
    const torch::Tensor g = torch::from_blob(adv.data(), {n}, torch::kFloat32);
    optimizer_->zero_grad();
    const torch::Tensor log_probs = torch::log_softmax(net_->policy->forward(States(states, static_cast<int>(n))), 1);
    const torch::Tensor chosen = log_probs.gather(1, a.unsqueeze(1)).squeeze(1);
    const torch::Tensor entropy = -(log_probs.exp() * log_probs).sum(1).mean();
    const torch::Tensor loss = -(chosen * g).mean() - config_.entropy_bonus * entropy;
    loss.backward();
    optimizer_->step();
    return loss.item<double>();
  }

  void Evaluate(std::span<const float> states, std::span<const int> actions, std::vector<double>* log_probs,
                std::vector<double>* values) const override {
    const auto n = static_cast<int>(actions.size());
    log_probs->assign(actions.size(), 0.0);
    values->assign(actions.size(), 0.0);
    if (n == 0) return;
    ConfigureTorchThreads(config_.threads);
    torch::NoGradGuard no_grad;
    const torch::Tensor x = States(states, n);
    const torch::Tensor logp = torch::log_softmax(net_->policy->forward(x), 1).contiguous();
    const torch::Tensor v = net_->critic->forward(x).contiguous();
    const auto lp = logp.accessor<float, 2>();
    const auto va = v.accessor<float, 1>();
    for (int i = 0; i < n; ++i) {
      (*log_probs)[static_cast<size_t>(i)] = lp[i][actions[static_cast<size_t>(i)]];
      (*values)[static_cast<size_t>(i)] = va[i];
    }
  }

  Result<double> PpoUpdate(const PpoBatch& batch, const PpoConfig& ppo) override {
    const auto n = static_cast<int64_t>(batch.actions.size());
    ConfigureTorchThreads(config_.threads);
    if (!ppo_optimizer_) {
      ppo_optimizer_ = std::make_unique<torch::optim::Adam>(net_->parameters(), torch::optim::AdamOptions(ppo.learning_rate));
    }
    std::vector<int64_t> acts(batch.actions.begin(), batch.actions.end());
    std::vector<float> old(batch.old_log_probs.begin(), batch.old_log_probs.end());
    std::vector<float> adv(batch.advantages.begin(), batch.advantages.end());
    std::vector<float> ret(batch.returns.begin(), batch.returns.end());
    const torch::Tensor a = torch::from_blob(acts.data(), {n}, torch::kInt64);
    const torch::Tensor old_lp = torch::from_blob(old.data(), {n}, torch::kFloat32);
    const torch::Tensor g = torch::from_blob(adv.data(), {n}, torch::kFloat32);
    const torch::Tensor target = torch::from_blob(ret.data(), {n}, torch::kFloat32);
    ppo_optimizer_->zero_grad();
    const torch::Tensor x = States(batch.states, static_cast<int>(n));
    const torch::Tensor log_probs = torch::log_softmax(net_->policy->forward(x), 1);
    const torch::Tensor chosen = log_probs.gather(1, a.unsqueeze(1)).squeeze(1);
    const torch::Tensor ratio = torch::exp(chosen - old_lp);
    const auto clip = static_cast<float>(ppo.clip);
    const torch::Tensor surrogate = torch::min(ratio * g, torch::clamp(ratio, 1 - clip, 1 + clip) * g).mean();
    const torch::Tensor value_loss = (net_->critic->forward(x) - target).pow(2).mean();
    const torch::Tensor entropy = -(log_probs.exp() * log_probs).sum(1).mean();
    torch::Tensor loss = -surrogate + static_cast<float>(ppo.value_coef) * value_loss -
                         static_cast<float>(ppo.entropy_bonus) * entropy;
    std::vector<int64_t> teacher(batch.teacher_actions.begin(), batch.teacher_actions.end());
    if (ppo.imitation_coef > 0 && !teacher.empty()) {
      const torch::Tensor t = torch::from_blob(teacher.data(), {n}, torch::kInt64);
      loss = loss - static_cast<float>(ppo.imitation_coef) * log_probs.gather(1, t.unsqueeze(1)).squeeze(1).mean();
    }
    loss.backward();
    if (ppo.max_grad_norm > 0) {  // each network apart: the critic's large early errors do not mute the policy
      torch::nn::utils::clip_grad_norm_(net_->policy->parameters(), ppo.max_grad_norm);
      torch::nn::utils::clip_grad_norm_(net_->critic->parameters(), ppo.max_grad_norm);
    }
    ppo_optimizer_->step();
    return loss.item<double>();
  }

  Result<double> FitValue(std::span<const float> states, std::span<const double> returns, double learning_rate) override {
    const auto n = static_cast<int64_t>(returns.size());
    ConfigureTorchThreads(config_.threads);
    if (!critic_optimizer_) {
      critic_optimizer_ = std::make_unique<torch::optim::Adam>(net_->critic->parameters(), torch::optim::AdamOptions(learning_rate));
    }
    std::vector<float> ret(returns.begin(), returns.end());
    const torch::Tensor target = torch::from_blob(ret.data(), {n}, torch::kFloat32);
    critic_optimizer_->zero_grad();
    const torch::Tensor loss = (net_->critic->forward(States(states, static_cast<int>(n))) - target).pow(2).mean();
    loss.backward();
    critic_optimizer_->step();
    return loss.item<double>();
  }

  void CopyWeightsFrom(const AllocationNetBackend& other) override {
    const auto& from_net = dynamic_cast<const TorchAllocationNet&>(other).net_;
    {
      torch::NoGradGuard no_grad;
      const auto to = net_->parameters();
      const auto from = from_net->parameters();
      for (size_t i = 0; i < to.size(); ++i) to[i].copy_(from[i]);
    }
    ResetOptimizer();
  }

  Result<std::string> WeightsToBytes(const std::string& path) const override { return ModuleToBytes(*net_, path); }
  Status WeightsFromBytes(const std::string& bytes, const std::string& path) override {
    return ModuleFromBytes(*net_, bytes, path);
  }

 private:
  void ResetOptimizer() {
    optimizer_ = std::make_unique<torch::optim::Adam>(net_->policy->parameters(), torch::optim::AdamOptions(config_.learning_rate));
    ppo_optimizer_.reset();
    critic_optimizer_.reset();
  }
  torch::Tensor States(std::span<const float> states, int n) const {
    return torch::from_blob(const_cast<float*>(states.data()), {n, config_.state_dim}, torch::kFloat32);
  }

  AllocationAgentConfig config_;
  mutable AgentNet net_{nullptr};  // forward() is not const in LibTorch
  std::unique_ptr<torch::optim::Adam> optimizer_;      // the policy's (REINFORCE, imitation)
  std::unique_ptr<torch::optim::Adam> ppo_optimizer_;     // policy and critic (PPO), made on first use
  std::unique_ptr<torch::optim::Adam> critic_optimizer_;  // the critic alone (FitValue), made on first use
};

}  // namespace

std::unique_ptr<AllocationNetBackend> NewTorchAllocationNet(const AllocationAgentConfig& config) {
  return std::make_unique<TorchAllocationNet>(config);
}

}  // namespace hetsched::learn
