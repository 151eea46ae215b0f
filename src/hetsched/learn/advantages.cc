#include "hetsched/learn/advantages.h"

#include <cmath>
#include <fmt/format.h>

namespace hetsched::learn {

Result<Advantages> ChainAdvantages(const ChainedDecisions& d, double gamma, double lambda) {
  const size_t n = d.reward.size();
  if (d.next.size() != n || d.gap.size() != n || d.value.size() != n) {
    return Status::InvalidArgument(fmt::format("advantages: {} rewards, {} successors, {} gaps, {} values", n, d.next.size(),
                                               d.gap.size(), d.value.size()));
  }
  if (!(gamma >= 0 && gamma <= 1) || !(lambda >= 0 && lambda <= 1)) {
    return Status::InvalidArgument("advantages: gamma and lambda must be in [0, 1]");
  }
  Advantages out;
  out.advantage.assign(n, 0.0);
  out.target.assign(n, 0.0);
  // Backwards: a successor's advantage is known before its predecessor's.
  for (size_t i = n; i-- > 0;) {
    const int64_t j = d.next[i];
    if (j != -1 && (j <= static_cast<int64_t>(i) || j >= static_cast<int64_t>(n))) {
      return Status::InvalidArgument(fmt::format("advantages: decision {} has successor {} (must be later, < {})", i, j, n));
    }
    if (!(d.gap[i] >= 0)) return Status::InvalidArgument(fmt::format("advantages: decision {} has gap {}", i, d.gap[i]));
    double delta = d.reward[i] - d.value[i];
    double a = delta;
    if (j >= 0) {
      const double discount = std::pow(gamma, d.gap[i]);
      const auto k = static_cast<size_t>(j);
      a = delta + discount * d.value[k] + std::pow(gamma * lambda, d.gap[i]) * out.advantage[k];
    }
    out.advantage[i] = a;
    out.target[i] = a + d.value[i];
  }
  return out;
}

}  // namespace hetsched::learn
