// RLPTO's resource-allocation agent (ALGORITHMS.md 3.4): a small policy network (MLP, softmax
// over a discrete set of allocation choices) and a critic (an MLP of the same size estimating
// the value of a state), trained by REINFORCE with a baseline (Williams 1992; `Update`, the
// critic unused) or by PPO with the critic as baseline (Schulman et al. 2017; `PpoUpdate`). The
// job scheduler builds the state vectors and maps actions to GPU counts; this class only knows
// vectors, actions, advantages and returns. Plain C++ interface (pimpl): the network lives in
// learn's LibTorch back end (learn/backend.h), loaded by the first Create or Load.
// Deterministic: LibTorch seeded from config.seed, sampling with hetsched::Rng, threads set explicitly.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hetsched/util/rng.h"
#include "hetsched/util/status.h"

namespace hetsched::learn {

// PPO's objective (Schulman et al. 2017, eq. 9): clipped surrogate + value_coef x value loss -
// entropy_bonus x entropy.
struct PpoConfig {
  double learning_rate = 1e-3;  // Adam over policy and critic (set by the first PPO step)
  double clip = 0.2;          // epsilon of the clipped ratio
  double value_coef = 0.5;    // weight of the critic's squared error
  double entropy_bonus = 0.01;
  // Weight of a cross-entropy towards PpoBatch::teacher_actions (a behaviour-cloning anchor,
  // as in DAPG: Rajeswaran et al., RSS 2018): keeps the policy at the teacher's choice where the
  // advantages say nothing consistent. 0: off.
  double imitation_coef = 0;
  double max_grad_norm = 1.0; // each network's gradient clipped to this norm (<= 0: not clipped)
};

// One minibatch of decisions for PpoUpdate: n states (row-major), the actions taken, their log
// probabilities under the policy that acted, their advantages and the critic's targets.
struct PpoBatch {
  std::span<const float> states;
  std::span<const int> actions;
  std::span<const double> old_log_probs;
  std::span<const double> advantages;
  std::span<const double> returns;
  std::span<const int> teacher_actions;  // empty, or the teacher's action in each state (imitation_coef)
};

struct AllocationAgentConfig {
  int state_dim = 12;
  int actions = 5;
  int hidden = 32;
  double learning_rate = 3e-3;  // Adam
  double entropy_bonus = 0.01;  // keeps exploring early on
  uint64_t seed = 1;
  int threads = 1;
  Status Validate() const;
};

class AllocationAgent {
 public:
  // A new agent (weights initialised from config.seed). Errors: a bad config (the message names
  // the field), or LibTorch's back end cannot be loaded.
  static Result<AllocationAgent> Create(const AllocationAgentConfig& config);
  ~AllocationAgent();
  AllocationAgent(AllocationAgent&&) noexcept;
  AllocationAgent& operator=(AllocationAgent&&) noexcept;

  // Chooses an action for each of `n` states (row-major, n x state_dim) with one forward pass:
  // sampled from the policy with `explore`, the most probable action without (ties: lowest).
  // REQUIRES: states.size() == n x state_dim.
  std::vector<int> Act(std::span<const float> states, int n, Rng* explore) const;
  // Action probabilities of one state (tests, diagnostics).
  std::vector<double> Probabilities(std::span<const float> state) const;

  // One policy-gradient step: minimises -mean(advantage x log pi(action | state)) - entropy
  // bonus. Returns the loss. REQUIRES: sizes agree (n states, n actions, n advantages).
  Result<double> Update(std::span<const float> states, std::span<const int> actions,
                        std::span<const double> advantages);

  // log pi(action | state) and the critic's value of each of the rows (one forward pass each).
  // REQUIRES: states.size() == actions.size() x state_dim.
  void Evaluate(std::span<const float> states, std::span<const int> actions, std::vector<double>* log_probs,
                std::vector<double>* values) const;

  // One PPO step on policy and critic together (Adam, the same learning rate): minimises
  // -mean(min(ratio A, clip(ratio, 1 - clip, 1 + clip) A)) + value_coef mean((V - return)^2)
  // - entropy_bonus x entropy, ratio = pi(a|s) / exp(old_log_prob). Returns the loss. Errors:
  // sizes disagree, an action out of range, a bad config.
  Result<double> PpoUpdate(const PpoBatch& batch, const PpoConfig& config);

  // One step of the critic alone (its own Adam, `learning_rate`) minimising mean((V - return)^2):
  // fits the critic to a fixed policy's returns before PPO starts. Returns the loss.
  Result<double> FitValue(std::span<const float> states, std::span<const double> returns, double learning_rate);

  // Makes this agent's weights equal to `other`'s (e.g. to keep the best agent seen while
  // training). The optimizer state is reset. Error: different network sizes.
  Status CopyWeightsFrom(const AllocationAgent& other);

  const AllocationAgentConfig& config() const;
  // Configuration and weights (policy and critic) in one file (atomic write); Load restores an
  // identical agent. Errors name the file: not an agent file, a truncated or altered one.
  Status Save(const std::string& path) const;
  // Reads `path` from disk, else the copy built into the binary (data/ files, ReadFileOrEmbedded).
  // With `expected_sha256` (64 hex digits) the file's SHA-256 must equal it: a corrupted or
  // replaced file is refused, and the message names the file and both digests.
  static Result<AllocationAgent> Load(const std::string& path, const std::string& expected_sha256 = "");

 private:
  struct Impl;
  explicit AllocationAgent(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hetsched::learn
