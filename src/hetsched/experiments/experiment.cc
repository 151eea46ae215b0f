#include "hetsched/experiments/experiment.h"

#include <algorithm>

namespace hetsched {

std::function<void(long long, long long)> PartProgress(const ExperimentContext& ctx, int part, int parts) {
  if (!ctx.progress || parts <= 0) return nullptr;
  constexpr long long kWhole = 1'000'000;
  return [report = ctx.progress, part, parts](long long done, long long total) {
    const double within = total > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) : 1.0;
    report(static_cast<long long>((part + within) / parts * kWhole), kWhole);
  };
}

}  // namespace hetsched
