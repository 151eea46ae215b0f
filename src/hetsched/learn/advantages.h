// Generalised advantage estimation (Schulman et al., ICLR 2016, "High-dimensional continuous
// control using generalized advantage estimation") over *chains* of decisions: each decision
// names its successor in its own chain (for RLPTO: the next decision about the same job), so a
// decision is credited with the rewards of what it concerns, not with everything that happened
// in the cluster at the same time. Plain C++ (no torch): the trainer calls it between episodes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::learn {

struct ChainedDecisions {
  // Per decision i, in time order (a successor always comes later: next[i] > i, or -1):
  std::span<const double> reward;  // reward between decision i and its successor (or the chain's end)
  std::span<const int64_t> next;   // index of the successor, -1 when the chain ends after i
  std::span<const double> gap;     // time from decision i to its successor, in discount periods (>= 0)
  std::span<const double> value;   // the critic's V(s_i)
};

struct Advantages {
  std::vector<double> advantage;  // A_i
  std::vector<double> target;     // A_i + V(s_i): the critic's regression target (lambda-return)
};

// delta_i = r_i + gamma^gap_i V(s_next(i)) - V(s_i)   (no V term when the chain ends: terminal)
// A_i     = delta_i + (gamma lambda)^gap_i A_next(i)
// (gap in discount periods: both discounts are per period of time, not per decision, so a job
// decided on at every event and one decided on once per round look equally far ahead).
// Errors: sizes differ, a successor not after its decision, a negative gap, gamma or lambda
// outside [0, 1]. O(n).
Result<Advantages> ChainAdvantages(const ChainedDecisions& decisions, double gamma, double lambda);

}  // namespace hetsched::learn
