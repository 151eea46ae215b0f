// The point an interior-point LP solver returns for Gavel's share LPs, where hetsched's simplex
// returns a vertex. Gavel's simulator solves its allocation LPs with ECOS (an interior-point
// method, policies/policy.py:11): where the optimum is not unique it returns a point inside the
// optimal face, with small positive shares where a vertex has zeros, and Gavel's round mechanism
// gives a job's share of a type it has not run on yet a priority of share x 1e9
// (scheduler.py:2443-2463), so those small shares reorder its queues. This follows the central
// path of the log barrier (the path primal-dual interior-point solvers follow) to a duality gap
// of 1e-8 (the tolerances the cvxpy stand-in gives its interior-point solver, like ECOS's under
// cvxpy), exploiting the LP's structure: per job, a block of one variable per GPU type; per
// type, one capacity row (Newton steps by Woodbury, O(rows x types^3)). docs/gavel.md,
// "Interior point".
#pragma once

#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::gavel {

// Rows r (a job, or `count[r]` identical jobs sharing one row) over every GPU type k of the
// cluster (Gavel's allocation matrix has a column per type, usable or not):
//   X[r][k] >= 0,  sum_k X[r][k] <= 1,  sum_r count[r] gpus[r] X[r][k] <= capacity[k],
// and one more row per r: a[r].X[r] >= z (kMaxMin: maximise z) or a[r].X[r] >= floor[r]
// (kFeasible: the analytic centre of the feasible set, which is what an interior-point solver
// returns for an LP without objective); kMaxSum has no such row and maximises sum_r a[r].X[r]
// (Gavel's max_sum_throughput_perf; cvxopt's point only, CvxoptShares).
struct CentreProblem {
  enum class Mode { kMaxMin, kFeasible, kMaxSum };
  Mode mode = Mode::kMaxMin;
  std::vector<std::vector<double>> a;  // [row][type], >= 0, some > 0 per row
  std::vector<double> floor;           // kFeasible only, > 0
  std::vector<int> gpus;
  std::vector<double> count;
  std::vector<int> capacity;
};

// Gavel's water filling's level LP (water_filling.h; cvxopt's point only, CvxoptShares): with
// these, kMaxMin's epigraph rows read a[r].X[r] + epi_rhs[r] >= z, and each row r has one more row
// before its epigraph row: b[r].X[r] >= lower[r]. One entry per row of the CentreProblem.
struct WaterLevelRows {
  std::vector<double> epi_rhs;
  std::vector<std::vector<double>> b;
  std::vector<double> lower;
};

struct CentreResult {
  std::vector<std::vector<double>> share;  // [row][type]
  double z = 0;                            // kMaxMin: the objective reached
  int newton_steps = 0;
  // CvxoptShares with water filling's rows (WaterLevelRows): the shares as cvxopt returns them, not
  // clipped to [0, 1] (Gavel's water filling reads its level off them).
  std::vector<std::vector<double>> unclipped;
};

// kInfeasible status when kFeasible has no interior point (the caller keeps its vertex).
Result<CentreResult> CentralShares(const CentreProblem& problem, double gap = 1e-8);

// Which optimal allocation an LP policy keeps where the optimum is not unique (option `point`):
// the simplex's vertex, the end of the central path (CentralShares), or the point cvxopt's
// solver stops at (CvxoptShares, gavel_cvxopt.h: what the peers' Gavel stand-in returns).
enum class SharePoint { kVertex, kCentre, kCvxopt };
// The interior point of `point` (kCentre or kCvxopt); an error where it has none (the caller
// then keeps its vertex).
Result<CentreResult> InteriorShares(SharePoint point, const CentreProblem& problem);

}  // namespace hetsched::gavel
