// Water filling's bottleneck MILPs (water_filling_internal.h): which growing jobs can reach slack x
// their level together, as Gavel's _get_bottleneck_jobs (max_min_fairness_water_filling.py:
// 154-233) asks, with its big M or, where that is exact, without it over the packed columns held.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "hetsched/policies/gavel/water_filling_internal.h"

namespace hetsched::gavel::water_filling_internal {
namespace {

// The bottleneck MILPs by branch and cut to a proven optimum (gap 0, GLPK's default, as cvxpy's
// GLPK_MI runs them for Gavel, max_min_fairness_water_filling.py:229), stopped after at most this
// many nodes rather than after a time: where a time limit stopped CBC (60 s, on the overloaded
// case at 8:8:8 before session 47), the answer was the machine's speed's. [REC]
constexpr long long kBottleneckMaxNodes = 500;

// The MILP solved, and its z (one per row, -1: none) read: an optimum's, or where CBC stopped at
// the node limit, its best point's (a set that can grow together, perhaps not the largest);
// empty where it has neither (no point, as Gavel's except path reads a failed solve).
Result<std::vector<bool>> SolveBottleneckMilp(const lp::LinearProgram& mip, const std::vector<int>& z,
                                              Allocation* out) {
  lp::SolveOptions solve;
  solve.relative_gap = 0;
  solve.time_limit_s = lp::kInfinity;
  solve.max_nodes = kBottleneckMaxNodes;
  HETSCHED_ASSIGN_OR_RETURN(const lp::Solution sol, lp::SolveMip(mip, solve));
  ++out->lp_solves;
  const bool answered = sol.status == lp::SolveStatus::kOptimal || sol.status == lp::SolveStatus::kLimitReached;
  if (!answered || sol.values.empty()) return std::vector<bool>{};
  std::vector<bool> grows(z.size(), false);
  for (size_t r = 0; r < z.size(); ++r) grows[r] = z[r] >= 0 && sol.values[static_cast<size_t>(z[r])] > 0.5;
  return grows;
}

// The bottleneck MILP without its big M (SolveBottleneckTight) over the pair columns of `set`, by
// branch and cut: z, empty where it has no optimum.
Result<std::vector<bool>> SolveTightMilp(const AllocationProblem& problem, const Rows& rows, const LevelTerms& terms,
                                         const WaterFillingOptions& options, const std::vector<char>& must_grow,
                                         const PackedColumnSet& set, Allocation* out) {
  lp::LinearProgram mip;
  mip.SetSense(lp::Sense::kMaximize);
  AddPackedShares(mip, problem, set.layout());  // variable = column
  std::vector<int> z(rows.size(), -1);
  std::vector<std::pair<int, double>> row;
  for (size_t r = 0; r < rows.size(); ++r) {
    const double s = terms.floor[r];
    HeldNormalisedTerms(set, rows, r, &row);
    for (auto& [v, coef] : row) coef /= s;
    if (terms.mult[r] > 0) {
      z[r] = mip.AddVariable(must_grow[r] ? 1 : 0, 1, 1.0, /*integer=*/true);
      row.emplace_back(z[r], -(options.slack - 1));
    }
    mip.AddConstraint(row, 1.0, lp::kInfinity);
  }
  return SolveBottleneckMilp(mip, z, out);
}

// The bottleneck MILP without its big M, where that is exact: a job held at z = 0 must stay in
// [level, slack x level - epsilon], but shrinking a job's shares only frees capacity, so where that
// interval is not empty (slack x level - epsilon >= level) and no job's cap at z = 1
// (n <= M + slack x level - epsilon) can bind, the sets of jobs that can grow together are those of
//   max sum_j z_j  s.t.  x feasible, n_j >= level_j (every job),
//                        n_j / level_j - (slack - 1) z_j >= 1 (each growing job),
// whose relaxation most often answers it (one LP: where its point, fractions rounded down, reaches
// the bound). Which of several largest sets
// comes back may differ from the big-M MILP's. Returns nothing where the conditions fail.
// A growing job whose interval is empty (a level below epsilon / (slack - 1), 0.1 by Gavel's
// figures) has no point at z = 0 in the big-M MILP: its z is 1 in every point, and it is so fixed
// here (`must_grow`); the argument above holds for the jobs left at z = 0, whose intervals are not
// empty. Without it every level with jobs on both sides of 0.1 went to the big-M MILP over every
// pair column: on the overloaded 1,928-job case at 8:8:8, CBC ran into its 60 s limit there (and
// a limit's answer is the machine's, not the program's).
Result<std::optional<std::vector<bool>>> SolveBottleneckTight(const AllocationProblem& problem,
                                                              const Rows& rows, const LevelTerms& terms,
                                                              const WaterFillingOptions& options,
                                                              PackedColumnSet& columns, Allocation* out) {
  std::vector<char> must_grow(rows.size(), 0);
  for (size_t r = 0; r < rows.size(); ++r) {
    const double s = terms.floor[r];
    if (!(s > 0)) return std::optional<std::vector<bool>>{};
    if (options.slack * s - options.epsilon < s) {
      if (!(terms.mult[r] > 0)) return std::optional<std::vector<bool>>{};  // no point: the big-M MILP says so
      must_grow[r] = 1;
    }
    if (terms.mult[r] > 0 && rows.best[r] > rows.big_m + options.slack * s - options.epsilon) {
      return std::optional<std::vector<bool>>{};
    }
  }
  std::vector<std::pair<int, double>> row;
  // The relaxation, rows scaled by 1 / level_r (the growth it tests is (slack - 1) = 1e-4 of the
  // level: against absolute rows the solver's tolerance would blur it), one column z_r per row (0
  // where not growing).
  // Over the pair columns of `columns` (those of the level LP's point among them, so that it is
  // feasible), priced in until none left out could raise the sum; where it is infeasible over
  // them, over every column. `bound`: its optimum (over every column, as priced).
  // Where some jobs must grow, a first phase asks whether they all can (max the sum of their z,
  // every other z at 0: feasible over the columns held, as above, and priced alike); where they
  // cannot, over every column, the MILP has no point. Else the second phase (their z fixed at 1)
  // starts feasible over the columns the first priced in, where a relaxation infeasible over the
  // columns held would otherwise hold every pair column (230,000 at 8:8:8 on the overloaded case).
  double bound = std::numeric_limits<double>::infinity();
  bool phase1 = std::find(must_grow.begin(), must_grow.end(), 1) != must_grow.end();
  for (;;) {
    lp::LinearProgram relax;
    relax.SetSense(lp::Sense::kMaximize);
    AddPackedShares(relax, problem, columns.layout());  // variable = column
    const int base = relax.num_constraints();           // row r's at base + r
    std::vector<int> z(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      const bool growing = terms.mult[r] > 0;
      if (phase1) {
        z[r] = relax.AddVariable(0, must_grow[r] ? 1.0 : 0.0, must_grow[r] ? 1.0 : 0.0);
      } else {
        z[r] = relax.AddVariable(must_grow[r] ? 1.0 : 0.0, growing ? 1.0 : 0.0, growing ? 1.0 : 0.0);
      }
      HeldNormalisedTerms(columns, rows, r, &row);
      for (auto& [v, coef] : row) coef /= terms.floor[r];
      row.emplace_back(z[r], -(options.slack - 1));
      relax.AddConstraint(row, 1.0, lp::kInfinity);
    }
    // Solved cold: where several largest sets exist the vertex decides which jobs freeze, and a
    // start from the last level's basis picks otherwise than Gavel's GLPK on the validation cases
    // (a cold start agrees with it there); the dual simplex from the last relaxation's basis
    // declares many of them infeasible (their floors are the level LP's point, on the edge).
    // Without Clp's presolve: it removes nothing here and took 60% of the solve (the same pivots).
    lp::SolveOptions cold;
    cold.presolve = false;
    HETSCHED_ASSIGN_OR_RETURN(const lp::Solution relaxed, lp::SolveLp(relax, cold));
    ++out->lp_solves;
    if (!columns.holds_every_column()) {
      if (relaxed.status == lp::SolveStatus::kInfeasible) {
        columns.HoldEveryColumn();
        continue;
      }
      if (relaxed.status == lp::SolveStatus::kOptimal) {
        // A unit of job r's effective throughput moves its row by 1 / (floor_r P_r).
        std::vector<double> per_rate(rows.size());
        for (size_t r = 0; r < rows.size(); ++r) {
          per_rate[r] = relaxed.duals[static_cast<size_t>(base) + r] / (terms.floor[r] * rows.p[r]);
        }
        if (columns.PriceIn(relaxed.duals, 0, per_rate, kPricingTolerance, PricingBatch(rows.size())) > 0) continue;
      }
    }
    if (relaxed.status == lp::SolveStatus::kInfeasible)
      return std::optional<std::vector<bool>>{std::vector<bool>{}};
    if (phase1 && relaxed.status == lp::SolveStatus::kOptimal) {
      for (size_t r = 0; r < rows.size(); ++r) {
        if (must_grow[r] && relaxed.values[static_cast<size_t>(z[r])] < 1 - 1e-9) {
          return std::optional<std::vector<bool>>{std::vector<bool>{}};
        }
      }
      phase1 = false;
      continue;
    }
    if (relaxed.status == lp::SolveStatus::kOptimal) {
      bound = relaxed.objective;
      // The relaxation's point with its fractional z rounded down meets the MILP (a job's row only
      // eases) and is optimal where it reaches the bound's floor: so where the relaxation is
      // integral, and where the fractions are the solvers' noise (z of 1e-9-1e-6 on every reset of
      // the overloaded 1,928-job case, whose optimum freezes every job).
      std::vector<bool> grows(rows.size(), false);
      size_t whole = 0;
      for (size_t r = 0; r < rows.size(); ++r) {
        grows[r] = terms.mult[r] > 0 && relaxed.values[static_cast<size_t>(z[r])] >= 1 - 1e-9;
        whole += grows[r] ? 1 : 0;
      }
      if (static_cast<double>(whole) >= std::floor(bound + 1e-6)) {
        return std::optional<std::vector<bool>>{std::move(grows)};
      }
    }
    break;
  }
  // Short of the bound: branch and cut on the tight MILP, over the pair columns held where its optimum
  // reaches the relaxation's over every column (no larger set can grow then), else over all.
  HETSCHED_ASSIGN_OR_RETURN(std::vector<bool> grows, SolveTightMilp(problem, rows, terms, options, must_grow, columns, out));
  if (!columns.holds_every_column()) {
    const double held_best = static_cast<double>(std::count(grows.begin(), grows.end(), true));
    if (grows.empty() || held_best < std::floor(bound + 1e-6)) {
      HETSCHED_ASSIGN_OR_RETURN(grows, SolveTightMilp(problem, rows, terms, options, must_grow,
                                                      PackedColumnSet(problem, nullptr, PairColumns::kAll), out));
    }
  }
  return std::optional<std::vector<bool>>{std::move(grows)};
}

}  // namespace

std::optional<std::vector<bool>> BottleneckWithoutSolve(const Rows& rows, const LevelTerms& terms,
                                                        const WaterFillingOptions& options,
                                                        const LevelOptimum* level) {
  // Row r's window at z = 0, [floor, slack x floor - epsilon] (the floor row is left out at floor
  // 0, where n >= 0 holds anyway: every term is >= 0): open, closed or too near to tell.
  enum class Window { kOpen, kClosed, kUnsure };
  auto window = [&](size_t r) {
    const double width = (options.slack - 1) * terms.floor[r] - options.epsilon;
    return width >= kDecidedMargin ? Window::kOpen : width <= -kDecidedMargin ? Window::kClosed : Window::kUnsure;
  };
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!(terms.mult[r] > 0) && window(r) == Window::kClosed) return std::vector<bool>{};  // its z is 0
  }
  bool any_growing = false, every_growing_must_grow = true, every_growing_held = true;
  for (size_t r = 0; r < rows.size(); ++r) {
    const Window w = window(r);
    if (w == Window::kUnsure) return std::nullopt;
    if (!(terms.mult[r] > 0)) continue;
    any_growing = true;
    every_growing_must_grow = every_growing_must_grow && w == Window::kClosed;
    const std::vector<double>* duals = level ? level->epigraph_dual : nullptr;
    every_growing_held = every_growing_held && duals && r < duals->size() && std::abs((*duals)[r]) > kDecidedDual;
  }
  if (!level || !any_growing) return std::nullopt;
  if (every_growing_held) {
    // No job can grow; where one must, there is no point.
    for (size_t r = 0; r < rows.size(); ++r) {
      if (terms.mult[r] > 0 && window(r) == Window::kClosed) return std::vector<bool>{};
    }
    return std::vector<bool>(rows.size(), false);
  }
  // Such a point meets every row of the level LP (slack x new level >= old level) at
  // t >= min(slack x c, M) (its t is bounded by M where a row does not grow): beyond c by the
  // margin, unless c is too small or near M for the test to be sure.
  const double c = level->c;
  if (!every_growing_must_grow || !((options.slack - 1) * c > kDecidedMargin) ||
      !(options.slack * c + kDecidedMargin < rows.big_m)) {
    return std::nullopt;
  }
  return std::vector<bool>{};
}

Result<std::vector<bool>> SolveBottleneck(const AllocationProblem& problem, const Rows& rows,
                                          const LevelTerms& terms, const WaterFillingOptions& options,
                                          PackedColumnSet& columns, Allocation* out) {
  if (options.tight_milp) {
    HETSCHED_ASSIGN_OR_RETURN(std::optional<std::vector<bool>> tight,
                              SolveBottleneckTight(problem, rows, terms, options, columns, out));
    if (tight) return std::move(*tight);
  }
  const double m = rows.big_m;
  lp::LinearProgram mip;
  mip.SetSense(lp::Sense::kMaximize);
  const PackedColumnSet every(problem, nullptr, PairColumns::kAll);
  const int first = AddPackedShares(mip, problem, every.layout());
  std::vector<int> z(rows.size());
  std::vector<std::pair<int, double>> row;
  for (size_t r = 0; r < rows.size(); ++r) {
    z[r] = mip.AddVariable(0, terms.mult[r] > 0 ? 1 : 0, 1.0, /*integer=*/true);
    HeldNormalisedTerms(every, rows, r, &row);
    for (auto& term : row) term.first += first;
    const double s = options.slack * terms.floor[r];
    if (terms.floor[r] > 0) mip.AddConstraint(row, terms.floor[r], lp::kInfinity);  // n >= floor
    // M (1 - z) >= s - n and M z >= n - s + eps: s - M <= n - M z <= s - eps.
    row.emplace_back(z[r], -m);
    mip.AddConstraint(row, s - m, s - options.epsilon);
  }
  return SolveBottleneckMilp(mip, z, out);
}

}  // namespace hetsched::gavel::water_filling_internal
