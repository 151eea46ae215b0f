// Internal to policies/gavel/: what water filling's level LPs and bottleneck MILPs share
// (water_filling.cc: the levels; water_filling_bottleneck.cc: which jobs can still grow).
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "hetsched/lp/linear_program.h"
#include "hetsched/policies/gavel/packed.h"
#include "hetsched/policies/gavel/packed_columns.h"
#include "hetsched/policies/gavel/water_filling.h"

namespace hetsched::gavel::water_filling_internal {


// One level's terms: per LP row (a placeable job), its weighted gain factor g/w (0: frozen or
// weight 0, whose term is the constant M instead) and its floor.
struct LevelTerms {
  std::vector<double> mult;
  std::vector<double> floor;
  std::vector<double>
      base;  // g/w with the job's own weight: a non-growing row's coefficient (keeps the LP's matrix)
};

// The rows of the LPs: the placeable jobs (MakePackedLayout's rows, in its order), their
// normalised throughputs b[r][k] = T[j][k] / P_j over every type of the cluster (0 where the job
// cannot run), and Gavel's big M. The share variables are the columns of a PackedColumnSet over
// the problem (its second form: the singles, as AddShareVariables poses them, and for the packed
// policy the pair columns held); row r's normalised terms are its terms there over P_r
// (HeldNormalisedTerms). No layout of every pair column is kept: the overloaded 1,928-job case at
// 8:8:8 has up to 3 million (docs/PERFORMANCE.md, "Water filling packed on the overloaded case").
struct Rows {
  std::vector<size_t> job_of;
  std::vector<std::vector<double>> b;
  std::vector<int> gpus;
  double big_m = 0;
  std::vector<double> p;     // P_j of row r's job
  std::vector<double> best;  // max of row r's normalised coefficients (b over every type, and its pairs')
  size_t pair_columns = 0;   // the problem's usable pair columns
  bool packed() const { return pair_columns > 0; }
  size_t size() const { return job_of.size(); }
};

// A level LP's point: the singles' shares [row][type] (every type, as cvxopt returns them), the
// pairs' with a value other than 0 (in column order), and each row's normalised share n_r there,
// all unclipped.
struct LevelPoint {
  std::vector<std::vector<double>> single;
  std::vector<PairShare> pair;
  std::vector<double> normalised;
  // Per row, its epigraph row's dual at the simplex's optimum (over every column, pair columns
  // priced in); empty at cvxopt's point.
  std::vector<double> epigraph_dual;
};

// Row r's normalised terms over the columns `columns` holds, (program column, T / P_r), in the
// held layout's order (its singles by type, then its pair columns).
inline void HeldNormalisedTerms(const PackedColumnSet& columns, const Rows& rows, size_t r,
                                std::vector<std::pair<int, double>>* out) {
  out->clear();
  for (const auto& [c, t] : columns.layout().terms[r]) out->emplace_back(c, t / rows.p[r]);
}

// A pair column left out of a level LP or a bottleneck relaxation: packed_columns.h's pricing.
constexpr double kPricingTolerance = kPairPricingTolerance;
inline size_t PricingBatch(size_t rows) { return PairPricingBatch(rows); }

// Gavel's bottleneck MILP (_get_bottleneck_jobs, max_min_fairness_water_filling.py:154-233): the
// most jobs z_r = 1 that can reach slack x their level together while every job keeps its floor;
// a job with z_r = 0 must stay below slack x level - epsilon; frozen and weight-0 jobs have
// z_r = 0. Returns z, or an empty vector where the MILP has no optimum. With options.tight_milp,
// the MILP without its big M where that is exact, over the pair columns of `columns` (priced in
// as needed: water_filling_bottleneck.cc).
Result<std::vector<bool>> SolveBottleneck(const AllocationProblem& problem, const Rows& rows,
                                          const LevelTerms& terms, const WaterFillingOptions& options,
                                          PackedColumnSet& columns, Allocation* out);

// The bottleneck MILP's answer where it follows from its rows and the level LP just solved,
// without a solve: "no point" (an empty vector), "no job grows" (all false), or nothing where a
// solve must decide. `level`: that LP's level c (LevelAt) and its point's epigraph duals, null
// where it had no optimum. Three tests, each exact (docs/gavel.md, "Water filling"):
// - A job with z = 0 must keep n in [level, slack x level - epsilon], empty below a level of
//   epsilon / (slack - 1) (0.1 by Gavel's figures): a job that cannot grow (frozen, weight 0)
//   there leaves the MILP no point.
// - Where every growing job's epigraph row has a dual > 0 at the level LP's optimum, every optimal
//   point of that LP holds each at exactly its new level (complementary slackness), and a point of
//   the MILP is one (it keeps each growing job at its new level, so t >= c): no job can reach
//   slack x its level, and the one answer is z = 0 for all (no point where some must grow).
// - Where every growing job must grow (its window empty), such a point would give the level LP
//   t >= slack x c > c: no point.
// Each holds by a margin (kDecidedMargin, kDecidedDual) beyond the solvers' tolerances, else a
// solve decides. A solver's tolerances can let it answer otherwise: on the overloaded 1,928-job
// case CBC found 11 jobs "growing" after the first level, whose next level LP raised them by 1e-7.
struct LevelOptimum {
  double c = 0;
  const std::vector<double>* epigraph_dual = nullptr;  // LevelPoint::epigraph_dual (may be empty)
};
std::optional<std::vector<bool>> BottleneckWithoutSolve(const Rows& rows, const LevelTerms& terms,
                                                        const WaterFillingOptions& options,
                                                        const LevelOptimum* level);
constexpr double kDecidedMargin = 1e-6;
constexpr double kDecidedDual = 1e-8;

}  // namespace hetsched::gavel::water_filling_internal
