// The HeterPS policy's partial-plan (dynamic) features, shared by heterps.cc and the planners
// benchmark (which times inference with them). Definitions and the feature list: heterps.cc.
#pragma once

#include <span>

#include "hetsched/planners/cost_model.h"

namespace hetsched {

inline constexpr int kHeterPsDynamicFeatures = 6;

// Writes the kHeterPsDynamicFeatures features of each pool type at layer l after `prefix` into
// `out` (type-major). `ref`: the reward's reference cost ($/h); `min_price`: the cheapest unit
// price of the pool.
void HeterPsPartialPlanFeatures(const StageCostModel& m, double ref, double min_price, int l, std::span<const int> prefix,
                                std::span<float> out);

}  // namespace hetsched
