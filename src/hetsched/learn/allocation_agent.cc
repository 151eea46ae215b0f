#include "hetsched/learn/allocation_agent.h"

#include <cmath>
#include <fmt/format.h>

#include "hetsched/learn/backend.h"
#include "hetsched/learn/model_file.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/sha256.h"

namespace hetsched::learn {
namespace {

// v2: the weights hold the policy and the critic (v1 files held the policy only).
constexpr const char* kAgentMagic = "hetsched-allocation-agent v2";

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
  std::unique_ptr<AllocationNetBackend> net;
};

Result<AllocationAgent> AllocationAgent::Create(const AllocationAgentConfig& config) {
  HETSCHED_RETURN_IF_ERROR(config.Validate());
  HETSCHED_ASSIGN_OR_RETURN(const Backend* backend, LearnBackend());
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->net = backend->NewAllocationNet(config);
  return AllocationAgent(std::move(impl));
}

AllocationAgent::AllocationAgent(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AllocationAgent::~AllocationAgent() = default;
AllocationAgent::AllocationAgent(AllocationAgent&&) noexcept = default;
AllocationAgent& AllocationAgent::operator=(AllocationAgent&&) noexcept = default;
const AllocationAgentConfig& AllocationAgent::config() const { return impl_->config; }

std::vector<int> AllocationAgent::Act(std::span<const float> states, int n, Rng* explore) const {
  return impl_->net->Act(states, n, explore);
}

std::vector<double> AllocationAgent::Probabilities(std::span<const float> state) const {
  return impl_->net->Probabilities(state);
}

Result<double> AllocationAgent::Update(std::span<const float> states, std::span<const int> actions,
                                       std::span<const double> advantages) {
  const Impl& m = *impl_;
  const auto n = actions.size();
  if (n == 0 || advantages.size() != n || states.size() != n * static_cast<size_t>(m.config.state_dim)) {
    return Status::InvalidArgument(fmt::format("allocation agent: update with {} states of {} values, {} actions, {} advantages",
                                               states.size(), m.config.state_dim, actions.size(), advantages.size()));
  }
  for (int a : actions) {
    if (a < 0 || a >= m.config.actions) return Status::InvalidArgument(fmt::format("allocation agent: action {} out of range", a));
  }
  return impl_->net->Update(states, actions, advantages);
}

void AllocationAgent::Evaluate(std::span<const float> states, std::span<const int> actions, std::vector<double>* log_probs,
                               std::vector<double>* values) const {
  impl_->net->Evaluate(states, actions, log_probs, values);
}

Result<double> AllocationAgent::PpoUpdate(const PpoBatch& batch, const PpoConfig& config) {
  const Impl& m = *impl_;
  const auto n = batch.actions.size();
  if (n == 0 || batch.old_log_probs.size() != n || batch.advantages.size() != n || batch.returns.size() != n ||
      batch.states.size() != n * static_cast<size_t>(m.config.state_dim)) {
    return Status::InvalidArgument(fmt::format(
        "allocation agent: PPO update with {} state values ({} per state), {} actions, {} log probabilities, {} "
        "advantages, {} returns",
        batch.states.size(), m.config.state_dim, n, batch.old_log_probs.size(), batch.advantages.size(),
        batch.returns.size()));
  }
  if (!batch.teacher_actions.empty() && batch.teacher_actions.size() != n) {
    return Status::InvalidArgument(fmt::format("allocation agent: PPO update with {} actions and {} teacher actions", n,
                                               batch.teacher_actions.size()));
  }
  for (std::span<const int> list : {batch.actions, batch.teacher_actions}) {
    for (int a : list) {
      if (a < 0 || a >= m.config.actions) return Status::InvalidArgument(fmt::format("allocation agent: action {} out of range", a));
    }
  }
  if (!(config.imitation_coef >= 0) ||
      !(config.learning_rate > 0) || !(config.clip > 0 && config.clip < 1) || !(config.value_coef >= 0) || !(config.entropy_bonus >= 0) || !std::isfinite(config.max_grad_norm)) {
    return Status::InvalidArgument("allocation agent: PPO learning rate must be > 0, clip in (0, 1), value_coef and entropy_bonus >= 0, max_grad_norm finite");
  }
  return impl_->net->PpoUpdate(batch, config);
}

Result<double> AllocationAgent::FitValue(std::span<const float> states, std::span<const double> returns, double learning_rate) {
  const auto n = returns.size();
  if (n == 0 || states.size() != n * static_cast<size_t>(impl_->config.state_dim) || !(learning_rate > 0)) {
    return Status::InvalidArgument(fmt::format("allocation agent: value fit with {} state values, {} returns, learning rate {}",
                                               states.size(), n, learning_rate));
  }
  return impl_->net->FitValue(states, returns, learning_rate);
}

Status AllocationAgent::CopyWeightsFrom(const AllocationAgent& other) {
  const AllocationAgentConfig &a = impl_->config, &b = other.impl_->config;
  if (a.state_dim != b.state_dim || a.actions != b.actions || a.hidden != b.hidden) {
    return Status::InvalidArgument("allocation agent: cannot copy weights between networks of different sizes");
  }
  impl_->net->CopyWeightsFrom(*other.impl_->net);
  return Status::Ok();
}

// File format: learn/model_file.h.
Status AllocationAgent::Save(const std::string& path) const {
  const AllocationAgentConfig& c = impl_->config;
  HETSCHED_ASSIGN_OR_RETURN(const std::string weights, impl_->net->WeightsToBytes(path));
  const ModelFields fields{{"state_dim", static_cast<double>(c.state_dim)},         {"actions", static_cast<double>(c.actions)},
                           {"hidden", static_cast<double>(c.hidden)},               {"learning_rate", c.learning_rate},
                           {"entropy_bonus", c.entropy_bonus}, {"seed", static_cast<double>(c.seed)},
                           {"threads", static_cast<double>(c.threads)}};
  return WriteFileAtomic(path, EncodeModelFile(kAgentMagic, fields, weights));
}
Result<AllocationAgent> AllocationAgent::Load(const std::string& path, const std::string& expected_sha256) {
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFileOrEmbedded(path));
  if (!expected_sha256.empty()) {
    const std::string actual = Sha256Hex(text);
    if (actual != expected_sha256) {
      return Status::ParseError(fmt::format("{}: SHA-256 checksum mismatch: the file's is {}, expected {} (the file is corrupted "
                                            "or is not the agent that was measured)",
                                            path, actual, expected_sha256));
    }
  }
  HETSCHED_ASSIGN_OR_RETURN(
      const DecodedModelFile file,
      DecodeModelFile(path, text, kAgentMagic, {"state_dim", "actions", "hidden", "learning_rate", "entropy_bonus", "seed", "threads"}));
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
  HETSCHED_ASSIGN_OR_RETURN(AllocationAgent agent, Create(c));
  HETSCHED_RETURN_IF_ERROR(agent.impl_->net->WeightsFromBytes(file.weights, path));
  return agent;
}

}  // namespace hetsched::learn
