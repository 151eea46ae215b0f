// The LibTorch side of AllocationAgent (learn/backend.h): RLPTO's policy network (an MLP with a
// softmax over the allocation choices) and its Adam optimizer.
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

class TorchAllocationNet final : public AllocationNetBackend {
 public:
  explicit TorchAllocationNet(const AllocationAgentConfig& config) : config_(config) {
    SeedTorch(config_.seed);
    ConfigureTorchThreads(config_.threads);
    net_ = PolicyNet(config_.state_dim, config_.hidden, config_.actions);
    ResetOptimizer();
  }

  std::vector<int> Act(std::span<const float> states, int n, Rng* explore) const override {
    std::vector<int> out(static_cast<size_t>(std::max(0, n)), 0);
    if (n <= 0) return out;
    ConfigureTorchThreads(config_.threads);
    torch::NoGradGuard no_grad;
    const torch::Tensor probs = torch::softmax(net_->forward(States(states, n)), 1).contiguous();
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
    torch::NoGradGuard no_grad;
    const torch::Tensor probs = torch::softmax(net_->forward(States(state, 1)), 1).contiguous();
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
    const torch::Tensor log_probs = torch::log_softmax(net_->forward(States(states, static_cast<int>(n))), 1);
    const torch::Tensor chosen = log_probs.gather(1, a.unsqueeze(1)).squeeze(1);
    const torch::Tensor entropy = -(log_probs.exp() * log_probs).sum(1).mean();
    const torch::Tensor loss = -(chosen * g).mean() - config_.entropy_bonus * entropy;
    loss.backward();
    optimizer_->step();
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
    optimizer_ = std::make_unique<torch::optim::Adam>(net_->parameters(), torch::optim::AdamOptions(config_.learning_rate));
  }
  torch::Tensor States(std::span<const float> states, int n) const {
    return torch::from_blob(const_cast<float*>(states.data()), {n, config_.state_dim}, torch::kFloat32);
  }

  AllocationAgentConfig config_;
  mutable PolicyNet net_{nullptr};  // forward() is not const in LibTorch
  std::unique_ptr<torch::optim::Adam> optimizer_;
};

}  // namespace

std::unique_ptr<AllocationNetBackend> NewTorchAllocationNet(const AllocationAgentConfig& config) {
  return std::make_unique<TorchAllocationNet>(config);
}

}  // namespace hetsched::learn
