#include "hetsched/learn/lstm_policy.h"

#include "hetsched/learn/backend.h"

namespace hetsched::learn {

LstmPolicy::LstmPolicy(std::unique_ptr<LstmPolicyBackend> backend) : backend_(std::move(backend)) {}
LstmPolicy::LstmPolicy(LstmPolicy&&) noexcept = default;
LstmPolicy& LstmPolicy::operator=(LstmPolicy&&) noexcept = default;
LstmPolicy::~LstmPolicy() = default;

const LstmPolicyConfig& LstmPolicy::config() const { return backend_->config(); }

Result<LstmPolicy> LstmPolicy::Create(const LstmPolicyConfig& config) {
  HETSCHED_RETURN_IF_ERROR(ValidateLstmPolicyConfig(config));
  HETSCHED_ASSIGN_OR_RETURN(const Backend* backend, LearnBackend());
  return LstmPolicy(backend->NewLstmPolicy(config));
}

Result<LstmPolicy> LstmPolicy::Load(const std::string& path) {
  HETSCHED_ASSIGN_OR_RETURN(const Backend* backend, LearnBackend());
  HETSCHED_ASSIGN_OR_RETURN(std::unique_ptr<LstmPolicyBackend> loaded, backend->LoadLstmPolicy(path));
  return LstmPolicy(std::move(loaded));
}

Result<std::vector<int>> LstmPolicy::Greedy(const StepFeatures& features, const ActionMaskFn& mask,
                                            const DynamicFeatureFn& dynamic) const {
  return backend_->Greedy(features, mask, dynamic);
}

Result<std::vector<int>> LstmPolicy::GreedyByLibTorchForTesting(const StepFeatures& features, const ActionMaskFn& mask,
                                                                const DynamicFeatureFn& dynamic) const {
  return backend_->GreedyByLibTorch(features, mask, dynamic);
}

Result<std::vector<std::vector<int>>> LstmPolicy::Sample(const StepFeatures& features, int count, uint64_t seed,
                                                         const ActionMaskFn& mask, const DynamicFeatureFn& dynamic) const {
  return backend_->Sample(features, count, seed, mask, dynamic);
}

Status LstmPolicy::Save(const std::string& path) const { return backend_->Save(path); }

}  // namespace hetsched::learn
