// The cost objective as a mixed-integer program, solved with CBC (lp/), for what the DP of
// cost_search.h cannot express: per-type unit caps shared by several stages of one type (the
// DP's recurrence sees one stage at a time, so a budget summed over stages breaks its
// additivity) [REC, ours; ALGORITHMS.md 2.1's constraint sum_{s: d_s = d} k_s <= K_d^max].
//
// A plan is a path of stages from layer 0 to layer L through the layer boundaries. One binary
// y(i, j, d) per stage [i, j] on type d that fits in memory and whose own units k(i, j, d) are
// within d's cap (k and the hourly cost c(i, j, d) = k p_d come from the StageCostModel):
//   min  sum c(i, j, d) y(i, j, d)
//   s.t. sum_{i = 0} y = 1                                   (the first stage starts at layer 0)
//        sum_{j + 1 = b} y = sum_{i = b} y   for 0 < b < L    (a stage ending before b is followed
//                                                             by one starting at b)
//        sum_{j + 1 = b, d} y + sum_{i = b, d} y <= 1   for 0 < b < L, each d
//                                                            (adjacent stages on different types:
//                                                             a plan is a per-layer assignment)
//        sum_{i, j} k(i, j, d) y(i, j, d) <= K_d            for each capped type d
// L(L+1)/2 D binaries, L + (L-1) D + D rows. Without binding caps its optimum equals the DP's.
#pragma once

#include "hetsched/lp/linear_program.h"
#include "hetsched/planners/cost_model.h"

namespace hetsched {

// CBC stops by branch-and-bound nodes (`max_nodes`), so that where it stops, and the plan it returns,
// repeat on any machine; a time limit (off by default) is a wall-clock guard whose answer, where it
// is reached, is the machine speed's. A plan found by either limit is returned with a note; none
// is an error.
struct CostMipOptions {
  long long max_nodes = 100000;
  double time_limit_s = lp::kInfinity;
};

// The optimum under shared caps, or Infeasible. `evaluations` of the plan = CBC's nodes.
Result<HeteroPlan> SolveCostMip(const StageCostModel& model, const CostMipOptions& options = {});

}  // namespace hetsched
