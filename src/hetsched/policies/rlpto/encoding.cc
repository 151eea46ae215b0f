// RLPTO's agent-facing encoding (rlpto.h): the convergence model, the count of each action's
// count choice, the minimum allocation, and the heuristic the agent is warm-started from. Free
// functions of plain values, so that the agent's view can be tested without a scheduler.
#include <algorithm>
#include <cmath>

#include "hetsched/policies/rlpto/rlpto.h"

namespace hetsched {

double ConvergenceModel::Accuracy(double f) const {
  f = std::clamp(f, 0.0, 1.0);
  const auto loss = [&](double x) { return std::pow(x + offset, -exponent); };  // a = 1, c = 0
  return (loss(0) - loss(f)) / (loss(0) - loss(1));
}

double ConvergenceModel::ConvergingFraction() const {
  // Solve (L0 - L(f)) / (L0 - L1) = 1 - eps for f: L(f) = L0 - (1 - eps)(L0 - L1).
  const double l0 = std::pow(offset, -exponent), l1 = std::pow(1 + offset, -exponent);
  const double target = l0 - (1 - epsilon) * (l0 - l1);
  return std::clamp(std::pow(target, -1 / exponent) - offset, 0.0, 1.0);
}

int MinimumGpus(int requested, double min_share) {
  return std::max(1, static_cast<int>(std::ceil(requested * min_share - 1e-9)));
}

int RlptoCount(int count_choice, int requested, int min) {
  switch (count_choice) {
    case 0: return std::max(1, min);
    case 1: return std::max({1, min, (requested + 1) / 2});
    case 2: return std::max(1, requested);
    default: return std::max(1, 2 * requested);
  }
}

int RlptoHeuristicAction(std::span<const float> s, bool yield) {
  using F = RlptoFeature;
  const auto at = [&](F f) { return s[static_cast<size_t>(f)]; };
  constexpr int kRequest = 2;  // count choice "its request"
  if (at(F::kRunning) < 0.5f) {
    for (int slot = 0; slot < kRlptoTypeSlots; ++slot) {
      const auto k = static_cast<size_t>(F::kSlotSpeed) + static_cast<size_t>(slot);
      if (s[k] > 0 && s[k + kRlptoTypeSlots] >= 1.0f) return RlptoAction(slot, kRequest);
    }
    return 0;
  }
  // A running job on its request, not converging, with an hour or more left (log10(3601) / 6),
  // moves to its fastest type when that is >= 1.25x faster and has room for it.
  const bool upgrade = at(F::kConverging) < 0.5f && at(F::kHeldShare) > 0.99f && at(F::kHeldShare) < 1.01f &&
                       at(F::kRemaining) >= 0.5927f && at(F::kHeldSpeed) > 0 && at(F::kHeldSpeed) * 1.25f <= at(F::kSlotSpeed) &&
                       at(F::kSlotFree) >= 1.0f;
  if (upgrade) return RlptoAction(0, kRequest);
  return yield && RlptoYieldRuleHolds(s) ? kRlptoYield : 0;
}

bool RlptoYieldThresholdsMet(std::span<const float> s) {
  using F = RlptoFeature;
  const auto at = [&](F f) { return s[static_cast<size_t>(f)]; };
  return at(F::kRunning) > 0.5f && at(F::kServiceShare) >= 1.0f && at(F::kRunShare) >= 1.0f;
}

bool RlptoYieldRuleHolds(std::span<const float> s) {
  return s[static_cast<size_t>(RlptoFeature::kHeadBlocked)] > 0.5f && RlptoYieldThresholdsMet(s);
}

}  // namespace hetsched
