// gavel-ftf: finish-time fairness (Themis, Mahajan et al., NSDI 2020, as a Gavel policy:
// Narayanan et al., OSDI 2020, section 4.2). rho_j = (elapsed_j + remaining_j / T_j.X_j) /
// (total_j / equal_j): the job's finish time in the shared cluster over its finish time alone on
// a 1/n share. min max_j rho_j by bisection on rho: for a fixed rho each job needs
// T_j.X_j >= remaining_j / (rho D_j - elapsed_j), a linear feasibility LP whose rows change only
// in their bounds (warm-started). LP shape in docs/gavel.md.
#include <algorithm>
#include <cmath>
#include <utility>

#include "hetsched/policies/gavel_allocation.h"
#include "hetsched/policies/gavel_policy.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {

Result<Allocation> SolveFinishTimeFairness(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                           double tolerance) {
  const size_t types = problem.capacity.size();
  Allocation out = ZeroAllocation(problem);
  std::vector<const std::vector<double>*> rows;
  std::vector<int> gpus;
  std::vector<size_t> job_of;
  std::vector<double> best, isolated_s;
  for (size_t j = 0; j < problem.jobs.size(); ++j) {
    const double equal = EqualShareThroughput(problem, j);
    if (!Placeable(problem, j) || equal <= 0) {
      out.unplaceable.push_back(problem.jobs[j].id);
      continue;
    }
    const AllocationJob& job = problem.jobs[j];
    rows.push_back(&job.throughput);
    gpus.push_back(job.num_gpus);
    job_of.push_back(j);
    best.push_back(BestThroughput(problem, j));
    isolated_s.push_back(std::max(job.total_iterations, job.remaining_iterations) / equal);  // D_j
  }
  if (rows.empty()) return out;

  lp::LinearProgram program;
  const ShareVariables vars =
      AddShareVariables(program, rows, gpus, std::vector<double>(rows.size(), 1.0), problem.capacity);
  // Need rows: sum_k (T_jk / best_j) X_jk >= need_j(rho) / best_j; objective: the sum of the same
  // normalised throughputs, so the final LP is also work-conserving.
  std::vector<int> need_row(rows.size());
  std::vector<std::pair<int, double>> terms;
  for (size_t r = 0; r < rows.size(); ++r) {
    terms.clear();
    for (size_t k = 0; k < types; ++k) {
      const int v = vars.index[r][k];
      if (v < 0) continue;
      const double c = (*rows[r])[k] / best[r];
      terms.emplace_back(v, c);
      program.SetObjective(v, c);
    }
    need_row[r] = program.AddConstraint(terms, 0.0, lp::kInfinity);
  }
  program.SetSense(lp::Sense::kMaximize);

  // Sets the rows for `rho`; false if some job cannot reach it even alone on its best type.
  auto set_rho = [&](double rho) {
    for (size_t r = 0; r < rows.size(); ++r) {
      const AllocationJob& job = problem.jobs[job_of[r]];
      const double slack_s = rho * isolated_s[r] - job.elapsed_s;
      if (slack_s <= 0) return false;
      const double need = job.remaining_iterations / slack_s / best[r];
      if (need > 1.0 + 1e-12) return false;
      program.SetConstraintBounds(need_row[r], need, lp::kInfinity);
    }
    return true;
  };
  auto feasible = [&](double rho, lp::Solution* solution) -> Result<bool> {
    if (!set_rho(rho)) return false;
    HETSCHED_ASSIGN_OR_RETURN(*solution, solver.Solve(program));
    ++out.lp_solves;
    out.simplex_iterations += solution->iterations;
    return solution->status == lp::SolveStatus::kOptimal;
  };

  // Lower bound: every job alone on its best type. Upper bound: doubled until feasible.
  double lo = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    const AllocationJob& job = problem.jobs[job_of[r]];
    lo = std::max(lo, (job.elapsed_s + job.remaining_iterations / best[r]) / isolated_s[r]);
  }
  lp::Solution at_hi;
  double hi = std::max(lo, 1e-9);
  bool found = false;
  for (int i = 0; i < 80 && !found; ++i) {
    HETSCHED_ASSIGN_OR_RETURN(found, feasible(hi, &at_hi));
    if (!found) hi *= 2;
  }
  if (!found) {
    out.status = lp::SolveStatus::kInfeasible;
    return out;
  }
  while (hi - lo > tolerance * hi) {
    const double mid = 0.5 * (lo + hi);
    lp::Solution s;
    HETSCHED_ASSIGN_OR_RETURN(const bool ok, feasible(mid, &s));
    if (ok) {
      hi = mid;
      at_hi = std::move(s);
    } else {
      lo = mid;
    }
  }
  out.objective = hi;
  for (size_t r = 0; r < rows.size(); ++r) out.share[job_of[r]] = ReadShares(at_hi, vars, r, types);
  return out;
}

HETSCHED_REGISTER_IMPL(JobScheduler, kGavelFtfRegistered,
                       (MethodInfo{"gavel-ftf",
                                   "Gavel finish-time fairness (Themis rho), min max rho by bisection over LPs, rounds",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) sec. 4.2 / Themis (NSDI 2020) rho; "
                                   "bisection and 1/n-share reference [REC]"}),
                       [](const Options& o) -> Result<std::unique_ptr<JobScheduler>> {
                         HETSCHED_ASSIGN_OR_RETURN(const double tol, o.GetDouble("tolerance", 1e-3));
                         if (!(tol > 0 && tol < 1)) {
                           return Status::InvalidArgument("gavel-ftf: option 'tolerance' must be in (0, 1)");
                         }
                         return MakeLpRoundPolicy(o, "gavel-ftf", false,
                                                  [tol](const AllocationProblem& p, lp::WarmStartLpSolver& solver) {
                                                    return SolveFinishTimeFairness(p, solver, tol);
                                                  });
                       })

}  // namespace hetsched::gavel
