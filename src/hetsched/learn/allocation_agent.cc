#include "hetsched/learn/allocation_agent.h"

#include <cmath>
#include <fmt/format.h>

#include "hetsched/learn/model_file.h"
#include "hetsched/learn/module_archive_internal.h"
#include "hetsched/learn/torch_runtime.h"
#include "hetsched/util/file_io.h"

namespace hetsched::learn {
namespace {

constexpr const char* kMagic = "hetsched-allocation-agent v1";

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

}  // namespace

Status AllocationAgentConfig::Validate() const {
  auto bad = [](const char* field, const char* why) {
    return Status::InvalidArgument(fmt::format("allocation agent: field '{}' {}", field, why));
  };
  if (state_dim < 1 || state_dim > 4096) return bad("state_dim", "must be in 1..4096");
  if (actions < 2 || actions > 256) return bad("actions", "must be in 2..256");
  if (hidden < 1 || hidden > 4096) return bad("hidden", "must be in 1..4096");
  if (!(learning_rate > 0) || !std::isfinite(learning_rate)) return bad("learning_rate", "must be > 0");
  if (!(entropy_bonus >= 0) || !std::isfinite(entropy_bonus)) return bad("entropy_bonus", "must be >= 0");
  if (threads < 1 || threads > 1024) return bad("threads", "must be in 1..1024");
  return Status::Ok();
}

struct AllocationAgent::Impl {
  AllocationAgentConfig config;
  mutable PolicyNet net{nullptr};  // forward() is not const in LibTorch
  std::unique_ptr<torch::optim::Adam> optimizer;

  void Build() {
    SeedTorch(config.seed);
    ConfigureTorchThreads(config.threads);
    net = PolicyNet(config.state_dim, config.hidden, config.actions);
    optimizer = std::make_unique<torch::optim::Adam>(net->parameters(), torch::optim::AdamOptions(config.learning_rate));
  }
  torch::Tensor States(std::span<const float> states, int n) const {
    return torch::from_blob(const_cast<float*>(states.data()), {n, config.state_dim}, torch::kFloat32);
  }
};

AllocationAgent::AllocationAgent(AllocationAgentConfig config) : impl_(std::make_unique<Impl>()) {
  impl_->config = config;
  if (config.Validate().ok()) impl_->Build();
}
AllocationAgent::~AllocationAgent() = default;
AllocationAgent::AllocationAgent(AllocationAgent&&) noexcept = default;
AllocationAgent& AllocationAgent::operator=(AllocationAgent&&) noexcept = default;
const AllocationAgentConfig& AllocationAgent::config() const { return impl_->config; }

std::vector<int> AllocationAgent::Act(std::span<const float> states, int n, Rng* explore) const {
  const Impl& m = *impl_;
  std::vector<int> out(static_cast<size_t>(std::max(0, n)), 0);
  if (n <= 0 || !m.net) return out;
  ConfigureTorchThreads(m.config.threads);
  torch::NoGradGuard no_grad;
  const torch::Tensor probs = torch::softmax(m.net->forward(m.States(states, n)), 1).contiguous();
  auto acc = probs.accessor<float, 2>();
  for (int i = 0; i < n; ++i) {
    int choice = 0;
    if (explore != nullptr) {
      double u = explore->Uniform();
      choice = m.config.actions - 1;
      for (int a = 0; a < m.config.actions; ++a) {
        u -= acc[i][a];
        if (u < 0) {
          choice = a;
          break;
        }
      }
    } else {
      for (int a = 1; a < m.config.actions; ++a) {
        if (acc[i][a] > acc[i][choice]) choice = a;
      }
    }
    out[static_cast<size_t>(i)] = choice;
  }
  return out;
}

std::vector<double> AllocationAgent::Probabilities(std::span<const float> state) const {
  const Impl& m = *impl_;
  torch::NoGradGuard no_grad;
  const torch::Tensor probs = torch::softmax(m.net->forward(m.States(state, 1)), 1).contiguous();
  std::vector<double> out;
  for (int a = 0; a < m.config.actions; ++a) out.push_back(probs[0][a].item<double>());
  return out;
}

Result<double> AllocationAgent::Update(std::span<const float> states, std::span<const int> actions,
                                       std::span<const double> advantages) {
  Impl& m = *impl_;
  HETSCHED_RETURN_IF_ERROR(m.config.Validate());
  const auto n = static_cast<int64_t>(actions.size());
  if (n == 0 || advantages.size() != actions.size() ||
      states.size() != static_cast<size_t>(n) * static_cast<size_t>(m.config.state_dim)) {
    return Status::InvalidArgument(fmt::format("allocation agent: update with {} states of {} values, {} actions, {} advantages",
                                               states.size(), m.config.state_dim, actions.size(), advantages.size()));
  }
  for (int a : actions) {
    if (a < 0 || a >= m.config.actions) return Status::InvalidArgument(fmt::format("allocation agent: action {} out of range", a));
  }
  ConfigureTorchThreads(m.config.threads);
  std::vector<int64_t> acts(actions.begin(), actions.end());
  std::vector<float> adv(advantages.begin(), advantages.end());
  const torch::Tensor a = torch::from_blob(acts.data(), {n}, torch::kInt64);
  const torch::Tensor g = torch::from_blob(adv.data(), {n}, torch::kFloat32);
  m.optimizer->zero_grad();
  const torch::Tensor log_probs = torch::log_softmax(m.net->forward(m.States(states, static_cast<int>(n))), 1);
  const torch::Tensor chosen = log_probs.gather(1, a.unsqueeze(1)).squeeze(1);
  const torch::Tensor entropy = -(log_probs.exp() * log_probs).sum(1).mean();
  const torch::Tensor loss = -(chosen * g).mean() - m.config.entropy_bonus * entropy;
  loss.backward();
  m.optimizer->step();
  return loss.item<double>();
}

Status AllocationAgent::CopyWeightsFrom(const AllocationAgent& other) {
  Impl& m = *impl_;
  const Impl& o = *other.impl_;
  const AllocationAgentConfig &a = m.config, &b = o.config;
  if (!m.net || !o.net || a.state_dim != b.state_dim || a.actions != b.actions || a.hidden != b.hidden) {
    return Status::InvalidArgument("allocation agent: cannot copy weights between networks of different sizes");
  }
  {
    torch::NoGradGuard no_grad;
    const auto to = m.net->parameters();
    const auto from = o.net->parameters();
    for (size_t i = 0; i < to.size(); ++i) to[i].copy_(from[i]);
  }
  m.optimizer = std::make_unique<torch::optim::Adam>(m.net->parameters(), torch::optim::AdamOptions(m.config.learning_rate));
  return Status::Ok();
}

// File format: learn/model_file.h.
Status AllocationAgent::Save(const std::string& path) const {
  const Impl& m = *impl_;
  HETSCHED_RETURN_IF_ERROR(m.config.Validate());
  const AllocationAgentConfig& c = m.config;
  HETSCHED_ASSIGN_OR_RETURN(const std::string weights, ModuleToBytes(*m.net, path));
  const ModelFields fields{{"state_dim", static_cast<double>(c.state_dim)},         {"actions", static_cast<double>(c.actions)},
                           {"hidden", static_cast<double>(c.hidden)},               {"learning_rate", c.learning_rate},
                           {"entropy_bonus", c.entropy_bonus}, {"seed", static_cast<double>(c.seed)},
                           {"threads", static_cast<double>(c.threads)}};
  return WriteFileAtomic(path, EncodeModelFile(kMagic, fields, weights));
}

Result<AllocationAgent> AllocationAgent::Load(const std::string& path) {
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  HETSCHED_ASSIGN_OR_RETURN(
      const DecodedModelFile file,
      DecodeModelFile(path, text, kMagic, {"state_dim", "actions", "hidden", "learning_rate", "entropy_bonus", "seed", "threads"}));
  const std::vector<double>& v = file.values;
  AllocationAgentConfig c;
  c.state_dim = static_cast<int>(v[0]);
  c.actions = static_cast<int>(v[1]);
  c.hidden = static_cast<int>(v[2]);
  c.learning_rate = v[3];
  c.entropy_bonus = v[4];
  c.seed = static_cast<uint64_t>(v[5]);
  c.threads = static_cast<int>(v[6]);
  if (Status st = c.Validate(); !st.ok()) return st.WithContext(path + ": ");
  AllocationAgent agent(c);
  HETSCHED_RETURN_IF_ERROR(ModuleFromBytes(*agent.impl_->net, file.weights, path));
  return agent;
}

}  // namespace hetsched::learn
