// Exact and greedy solvers of the cost objective (ALGORITHMS.md 2.5) on a StageCostModel.
//
// DP over layer cuts and types (exact). Let c(i, j, d) be the hourly cost of a stage of layers
// [i, j] on type d provisioned for the limit (cost_model.h; infinite when infeasible). A plan is a
// per-layer type assignment whose maximal runs are the stages, so adjacent stages differ in type.
//   F(j, d) = min over i <= j of c(i, j, d) + [i > 0] min_{d' != d} F(i - 1, d')
//   optimum = min_d F(L - 1, d)
// min_{d' != d} is read from the best and second-best F(i - 1, .) in O(1), so the DP costs
// O(L^2 D) stage evaluations of O(1) each, O(L D) memory. It is exact because c depends only on
// (i, j, d) and on whether j is the last layer, i.e. the objective is additive over stages.
// Per-type unit caps that bind *across* stages (two stages on one type) are not part of the
// recurrence: when the DP's plan breaks such a cap, SolveCostDp solves the MIP of cost_mip.h
// instead (exact under shared caps).
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "hetsched/planners/cost_model.h"

namespace hetsched {

// The DP optimum, or Infeasible when no plan meets the limit.
Result<HeteroPlan> SolveCostDp(const StageCostModel& model);
// The per-layer assignment of the DP optimum (pool indexes), or empty when infeasible.
std::vector<int> CostDpAssignment(const StageCostModel& model, double* cost, long long* evaluations);

// Every assignment (D^L of them). REQUIRES: D^L <= max_plans, else InvalidArgument.
Result<HeteroPlan> SolveCostBruteForce(const StageCostModel& model, long long max_plans = 20'000'000);

// All layers on one type: the fastest for the whole model (kFastest) or the cheapest per hour
// (kCheapest), among the types the model fits on.
enum class SingleTypeRule { kFastest, kCheapest };
Result<HeteroPlan> SolveCostSingleType(const StageCostModel& model, SingleTypeRule rule);
// Each layer on the type with the lowest price x layer compute time (cost per sample).
Result<HeteroPlan> SolveCostGreedyPerLayer(const StageCostModel& model);

}  // namespace hetsched

namespace hetsched {

// Local search from a per-layer assignment [REC, ours; not in the paper]: repeatedly applies the
// best of (a) moving one boundary between two adjacent stages anywhere between their outer ends,
// (b) putting one stage on another type, (c) splitting a stage by putting its prefix or suffix
// on another type, (d) exchanging the types of two stages, until none lowers `cost` (any
// function of a per-layer assignment, +infinity when infeasible). O(L^2 + L D + S^2) cost
// evaluations of O(L) each per pass.
// Returns the number of improving moves made.
int ImproveAssignmentLocally(std::vector<int>* assignment, int num_types,
                             const std::function<double(std::span<const int>)>& cost);

}  // namespace hetsched
