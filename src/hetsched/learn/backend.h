// learn/'s LibTorch back end, opened on first use. The public classes of learn/ (AllocationAgent,
// GruForecaster, LstmPolicy, TrainReinforce) are plain C++ shells; their tensors live in the
// module libhetsched_learn_torch.so (sources in learn/torch/), which this file's LearnBackend()
// dlopen's the first time a learned component is built. A process that never builds one (a FIFO
// simulation, `hetsched --version`) never maps LibTorch: its start costs milliseconds, not the
// ~0.6 s of CPU that loading and initialising libtorch_cpu takes.
//
// The interfaces below are what crosses the module border: plain C++ types only (the module and
// the program are built together, with the same compiler and standard library).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hetsched/learn/allocation_agent.h"
#include "hetsched/learn/gru_forecaster.h"
#include "hetsched/learn/lstm_policy.h"
#include "hetsched/learn/reinforce.h"
#include "hetsched/util/rng.h"
#include "hetsched/util/status.h"

namespace hetsched::learn {

// Bumped whenever an interface below changes: a module built from other sources is refused.
inline constexpr int kBackendAbiVersion = 2;

// The LibTorch side of AllocationAgent: the network and its optimizer (the shell keeps the
// configuration, validates arguments and owns the file format).
class AllocationNetBackend {
 public:
  virtual ~AllocationNetBackend() = default;
  virtual std::vector<int> Act(std::span<const float> states, int n, Rng* explore) const = 0;
  virtual std::vector<double> Probabilities(std::span<const float> state) const = 0;
  // REQUIRES: sizes and actions checked by the caller.
  virtual Result<double> Update(std::span<const float> states, std::span<const int> actions,
                                std::span<const double> advantages) = 0;
  // log pi(action | state) and the critic's V(state) of each row (no gradient).
  virtual void Evaluate(std::span<const float> states, std::span<const int> actions, std::vector<double>* log_probs,
                        std::vector<double>* values) const = 0;
  // One PPO step (AllocationAgent::PpoUpdate). REQUIRES: sizes checked by the caller.
  virtual Result<double> PpoUpdate(const PpoBatch& batch, const PpoConfig& config) = 0;
  // One Adam step of the critic alone towards `returns` (AllocationAgent::FitValue).
  virtual Result<double> FitValue(std::span<const float> states, std::span<const double> returns, double learning_rate) = 0;
  // REQUIRES: `other` built by the same back end with the same network sizes.
  virtual void CopyWeightsFrom(const AllocationNetBackend& other) = 0;
  // The weights as LibTorch's module archive (`path` names the file in errors).
  virtual Result<std::string> WeightsToBytes(const std::string& path) const = 0;
  virtual Status WeightsFromBytes(const std::string& bytes, const std::string& path) = 0;
};

// The LibTorch side of GruForecaster (training, prediction, weights).
class GruNetBackend {
 public:
  virtual ~GruNetBackend() = default;
  // GruForecaster::Fit after the shell's checks: standardises, trains, keeps the best epoch.
  virtual Status Fit(std::span<const double> series) = 0;
  // A trained network from saved standardisation and weights.
  virtual Status Restore(double mean, double scale, const std::string& weights, const std::string& path) = 0;
  virtual std::vector<double> OneStepPredictions(std::span<const double> series) const = 0;
  virtual double mean() const = 0;
  virtual double scale() const = 0;
  virtual const std::vector<double>& loss_history() const = 0;
  virtual const std::vector<double>& validation_history() const = 0;
  virtual int best_epoch() const = 0;
  virtual Result<std::string> WeightsToBytes(const std::string& path) const = 0;
};

// The LibTorch side of LstmPolicy and its REINFORCE trainer (learn/reinforce.h).
class LstmPolicyBackend {
 public:
  virtual ~LstmPolicyBackend() = default;
  virtual const LstmPolicyConfig& config() const = 0;
  virtual Result<std::vector<int>> Greedy(const StepFeatures& features, const ActionMaskFn& mask,
                                          const DynamicFeatureFn& dynamic) const = 0;
  virtual Result<std::vector<int>> GreedyByLibTorch(const StepFeatures& features, const ActionMaskFn& mask,
                                                    const DynamicFeatureFn& dynamic) const = 0;
  virtual Result<std::vector<std::vector<int>>> Sample(const StepFeatures& features, int count, uint64_t seed,
                                                       const ActionMaskFn& mask, const DynamicFeatureFn& dynamic) const = 0;
  virtual Status Save(const std::string& path) const = 0;
  virtual Result<ReinforceResult> TrainReinforce(const StepFeatures& features, const RewardFn& reward,
                                                 const ActionMaskFn& mask, const ReinforceConfig& config,
                                                 const DynamicFeatureFn& dynamic) = 0;
};

// What the module provides: factories and LibTorch's process-wide settings (torch_runtime).
class Backend {
 public:
  virtual ~Backend() = default;
  // REQUIRES: config.Validate().ok(). Seeds LibTorch with config.seed, as every build does.
  virtual std::unique_ptr<AllocationNetBackend> NewAllocationNet(const AllocationAgentConfig& config) const = 0;
  // REQUIRES: config.Validate().ok().
  virtual std::unique_ptr<GruNetBackend> NewGruNet(const GruForecasterConfig& config) const = 0;
  // REQUIRES: ValidateLstmPolicyConfig(config).ok().
  virtual std::unique_ptr<LstmPolicyBackend> NewLstmPolicy(const LstmPolicyConfig& config) const = 0;
  // A policy written by LstmPolicyBackend::Save, with its configuration.
  virtual Result<std::unique_ptr<LstmPolicyBackend>> LoadLstmPolicy(const std::string& path) const = 0;
  // LibTorch's intra-op thread count: set (REQUIRES threads >= 1), read; and its version.
  virtual void ConfigureThreads(int threads) const = 0;
  virtual int Threads() const = 0;
  virtual std::string TorchVersion() const = 0;
};

// The back end, opened on the first call (thread-safe; the module stays loaded for the life of
// the process). Looks for libhetsched_learn_torch.so beside the running program, then in
// ../lib/hetsched relative to it (the build tree's bin/, tests/ and bench/, and the installed
// layout `cmake --install` writes). Error: the module is missing, cannot be loaded (its message
// says why: e.g. LibTorch is not installed) or was built from other sources; the message names
// every path tried. The error is kept: later calls return it without retrying.
Result<const Backend*> LearnBackend();

// Opens the module at exactly `path` (tests, and LearnBackend's search). Each call dlopen's.
Result<const Backend*> OpenLearnBackendAt(const std::string& path);

// LstmPolicy::Create's checks (inline: the module applies them to the files it loads).
inline Status ValidateLstmPolicyConfig(const LstmPolicyConfig& config) {
  if (config.feature_dim < 1 || config.num_actions < 1 || config.hidden < 1 || config.action_embedding < 1 ||
      config.threads < 1) {
    return Status::InvalidArgument("LSTM policy: feature_dim, num_actions, hidden, action_embedding and threads must be >= 1");
  }
  if (config.action_features < 0 || config.dynamic_features < 0 ||
      static_cast<long long>(config.num_actions) * config.action_features > config.feature_dim) {
    return Status::InvalidArgument(
        "LSTM policy: action_features and dynamic_features must be >= 0 and num_actions x action_features <= "
        "feature_dim");
  }
  return Status::Ok();
}

}  // namespace hetsched::learn

// The module's one exported symbol: returns its back end, or null when `abi_version` differs
// from the module's kBackendAbiVersion.
extern "C" {
using HetschedLearnBackendFn = const hetsched::learn::Backend* (*)(int abi_version);
}
#define HETSCHED_LEARN_BACKEND_SYMBOL "hetsched_learn_backend"
