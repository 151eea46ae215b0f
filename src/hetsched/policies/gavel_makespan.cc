// gavel-makespan: Gavel's minimum-makespan policy (Narayanan et al., OSDI 2020, section 4.2):
// minimise the time until every active job finishes, max_j remaining_j / (T_j . X_j). With
// theta = 1/makespan the constraint remaining_j / (T_j . X_j) <= 1/theta is linear:
// T_j . X_j >= remaining_j * theta, so one LP (max theta) replaces Gavel's bisection. LP shape in
// docs/gavel.md.
#include <algorithm>
#include <utility>

#include "hetsched/policies/gavel_allocation.h"
#include "hetsched/policies/gavel_policy.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {

namespace {
// theta is measured per hour so that its coefficients (T / remaining x 3600) are of order one.
constexpr double kThetaUnitS = 3600;
}  // namespace

Result<Allocation> SolveMinMakespan(const AllocationProblem& problem, lp::WarmStartLpSolver& solver) {
  const size_t types = problem.capacity.size();
  Allocation out;
  out.share.assign(problem.jobs.size(), std::vector<double>(types, 0.0));
  const PlaceableRows placeable = CollectPlaceableRows(problem, &out);
  if (placeable.empty()) return out;
  const auto& rows = placeable.throughput;
  const auto& gpus = placeable.gpus;
  const auto& job_of = placeable.job_of;
  lp::LinearProgram program;
  const int theta = program.AddVariable(0, lp::kInfinity, 1.0);
  const ShareVariables vars =
      AddShareVariables(program, rows, gpus, std::vector<double>(rows.size(), 1.0), problem.capacity);
  std::vector<double> second(static_cast<size_t>(program.num_variables()), 0.0);
  std::vector<std::pair<int, double>> terms;
  for (size_t r = 0; r < rows.size(); ++r) {
    const AllocationJob& job = problem.jobs[job_of[r]];
    const double best = BestThroughput(problem, job_of[r]);
    const double remaining = std::max(job.remaining_iterations, 1e-9);
    terms.assign(1, {theta, -1.0});
    for (size_t k = 0; k < types; ++k) {
      const int v = vars.index[r][k];
      if (v < 0) continue;
      // Row j scaled by 1/remaining_j: sum_k (3600 T_jk / remaining_j) X_jk - theta >= 0.
      terms.emplace_back(v, kThetaUnitS * job.throughput[k] / remaining);
      // Second phase: the sum of normalised throughputs (fraction of each job's best).
      second[static_cast<size_t>(v)] = job.throughput[k] / best;
    }
    program.AddConstraint(terms, 0.0, lp::kInfinity);
  }
  HETSCHED_ASSIGN_OR_RETURN(const lp::Solution solution, SolveEpigraphTwoPhase(program, theta, second, solver, &out));
  out.status = solution.status;
  if (solution.status != lp::SolveStatus::kOptimal) return out;
  const double t = solution.values[static_cast<size_t>(theta)];
  out.objective = t > 0 ? kThetaUnitS / t : lp::kInfinity;
  for (size_t r = 0; r < rows.size(); ++r) out.share[job_of[r]] = ReadShares(solution, vars, r, types);
  return out;
}

HETSCHED_REGISTER_IMPL(JobScheduler, kGavelMakespanRegistered,
                       (MethodInfo{"gavel-makespan",
                                   "Gavel minimum makespan over the active jobs (one LP, theta = 1/makespan), rounds",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) sec. 4.2 makespan; linearisation and "
                                   "second phase [REC]"}),
                       [](const Options& o) { return MakeLpRoundPolicy(o, "gavel-makespan", false, SolveMinMakespan); })

}  // namespace hetsched::gavel
