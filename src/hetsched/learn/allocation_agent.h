// RLPTO's resource-allocation agent (ALGORITHMS.md 3.4): a small policy network (MLP, softmax
// over a discrete set of allocation choices) trained by REINFORCE with a baseline (Williams
// 1992). The job scheduler builds the state vectors and maps actions to GPU counts; this class
// only knows vectors, actions and advantages. Plain C++ interface (pimpl): the network lives in
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

  // Makes this agent's weights equal to `other`'s (e.g. to keep the best agent seen while
  // training). The optimizer state is reset. Error: different network sizes.
  Status CopyWeightsFrom(const AllocationAgent& other);

  const AllocationAgentConfig& config() const;
  // Configuration and weights in one file (atomic write); Load restores an identical agent.
  Status Save(const std::string& path) const;
  static Result<AllocationAgent> Load(const std::string& path);

 private:
  struct Impl;
  explicit AllocationAgent(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hetsched::learn
