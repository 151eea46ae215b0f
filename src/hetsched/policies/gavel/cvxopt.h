// The point cvxopt's LP solver returns for Gavel's share LPs. The peers' yardstick runs Gavel's
// simulator with a cvxpy stand-in whose reference LP solver is cvxopt (solvers.lp, an
// interior-point method like the ECOS Gavel uses through cvxpy). Where the optimal face of a share
// LP is wide (every job can reach the max-min level in many ways), the point an interior-point
// solver stops at is set by its own start and steps, not by the central path alone (docs/gavel.md,
// "Interior point"), and Gavel's round mechanism turns those small shares into queue priorities.
// This reproduces cvxopt 1.3's conelp for the non-negative orthant step by step: the homogeneous
// self-dual embedding, the least-squares start (x0 = argmin ||Gx - h||, z0 = -G (G'G)^-1 c, shifted
// to be positive), Nesterov-Todd scaling, Mehrotra's predictor-corrector (sigma = (1 - step)^3,
// step 0.99 of the way to the boundary), one step of iterative refinement and cvxopt's stopping
// test, at the stand-in's tolerances (1e-8). The LP is the one the stand-in hands to cvxopt
// (peers' gavel_cvxpy_shim.py, _lp and _cvxopt_lp): rows G u <= h in the order capacity, job,
// epigraph (or floor), x >= 0. Its KKT systems are solved by the structure of the LP (per job a
// block of one variable per GPU type, per type one capacity row: Woodbury), not by a dense or
// sparse Cholesky factor of the whole normal matrix as cvxopt does; the iterates agree to rounding.
// Where that ends without an answer (cvxopt's status "unknown"), the LP is solved again with the
// whole KKT matrix factored, as the stand-in re-solves with kktsolver="ldl".
#pragma once

#include "hetsched/policies/gavel/centre.h"
#include "hetsched/util/status.h"

namespace hetsched::gavel {

// How the KKT systems are solved: kAuto as the stand-in does (cvxopt's default chol2, its normal
// matrix's factor in product form, and where that ends with status "unknown", no convergence or a
// singular KKT matrix, a re-solve with kktsolver="ldl", for LPs of up to 1,024 variables + rows);
// kLdl: "ldl" alone; kDense: kAuto with the explicit dense factor at every size (kAuto's up to
// 1,024 variables before session 43; for tests: cvxopt_kkt.h, NormalFactor).
enum class CvxoptKkt { kAuto, kLdl, kDense };

// Rows with count[r] > 1 are expanded into that many identical jobs (counts must be whole
// numbers): cvxopt's start depends on the number of rows, so classes are not merged here.
// kInfeasible status when cvxopt would report the LP primal infeasible; kInternal when it stops
// without an answer (the caller keeps its vertex).
Result<CentreResult> CvxoptShares(const CentreProblem& problem, CvxoptKkt kkt = CvxoptKkt::kAuto);
// The same for a kMaxMin problem with water filling's rows (WaterLevelRows); fills
// CentreResult::unclipped.
Result<CentreResult> CvxoptShares(const CentreProblem& problem, const WaterLevelRows& level);

}  // namespace hetsched::gavel
