#include "hetsched/experiments/planner_experiments.h"

#include <algorithm>

namespace hetsched {

Options LearnedPlannerOptionsOf(const ExperimentContext& ctx, long long episodes) {
  Options out;
  out.Set("episodes", std::to_string(episodes));
  out.Set("seed", std::to_string(ctx.seed));
  constexpr std::string_view kPrefix = "rl.";
  for (const auto& [key, value] : ctx.options.values()) {
    if (key.rfind(kPrefix, 0) != 0) continue;
    out.Set(key.substr(kPrefix.size()), ctx.options.GetString(key, value));  // marks the key used
  }
  return out;
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

}  // namespace hetsched
