#include "hetsched/learn/reinforce.h"

#include "hetsched/learn/backend.h"

namespace hetsched::learn {

// The training loop runs in the LibTorch back end (learn/torch/reinforce_torch.cc).
Result<ReinforceResult> TrainReinforce(LstmPolicy& policy, const StepFeatures& features, const RewardFn& reward,
                                       const ActionMaskFn& mask, const ReinforceConfig& config,
                                       const DynamicFeatureFn& dynamic) {
  return policy.backend().TrainReinforce(features, reward, mask, config, dynamic);
}

}  // namespace hetsched::learn
