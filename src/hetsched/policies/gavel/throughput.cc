// gavel-throughput: Gavel's max_sum_throughput_perf (Narayanan et al., OSDI 2020; stanford-
// futuredata/gavel scheduler/policies/max_sum_throughput.py, ThroughputSumWithPerf, MIT): maximise
// the cluster's total throughput sum_j sum_k T[j][k] X[j][k], each job's time shares summing to
// at most 1 and each type's GPUs within its capacity. The baseline Sia's simulator runs as its
// `gavel` (with the workload's fixed GPU counts and batches). LP shape in docs/gavel.md.
#include <utility>

#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/cvxopt.h"
#include "hetsched/policies/gavel/policy.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {

Result<Allocation> SolveMaxSumThroughput(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                         SharePoint point) {
  const size_t types = problem.capacity.size();
  Allocation out = ZeroAllocation(problem);
  const PlaceableRows placeable = CollectPlaceableRows(problem, &out);
  if (placeable.empty()) return out;
  if (point == SharePoint::kCvxopt) {
    // The point cvxopt's interior-point method stops at (the peers' stand-ins for ECOS), one row
    // per job: where the optimum is not unique it lies inside the optimal face.
    CentreProblem centre{CentreProblem::Mode::kMaxSum, {}, {}, placeable.gpus, {}, problem.capacity};
    for (const std::vector<double>* t : placeable.throughput) centre.a.push_back(*t);
    centre.count.assign(centre.a.size(), 1.0);
    Result<CentreResult> c = CvxoptShares(centre);
    if (c.ok()) {
      ++out.lp_solves;
      for (size_t r = 0; r < placeable.throughput.size(); ++r) out.share[placeable.job_of[r]] = c->share[r];
      for (size_t r = 0; r < placeable.throughput.size(); ++r) {
        for (size_t k = 0; k < types; ++k) out.objective += (*placeable.throughput[r])[k] * c->share[r][k];
      }
      return out;
    }
    // cvxopt stopping without an answer falls back to the LP's vertex below.
  }
  lp::LinearProgram program;
  program.SetSense(lp::Sense::kMaximize);
  const ShareVariables vars = AddShareVariables(program, placeable.throughput, placeable.gpus,
                                                std::vector<double>(placeable.throughput.size(), 1.0), problem.capacity);
  for (size_t r = 0; r < placeable.throughput.size(); ++r) {
    for (size_t k = 0; k < types; ++k) {
      const int v = vars.index[r][k];
      if (v >= 0) program.SetObjective(v, (*placeable.throughput[r])[k]);
    }
  }
  HETSCHED_ASSIGN_OR_RETURN(const lp::Solution solution, solver.Solve(program));
  ++out.lp_solves;
  out.simplex_iterations += solution.iterations;
  out.status = solution.status;
  if (solution.status != lp::SolveStatus::kOptimal) return out;
  out.objective = solution.objective;
  for (size_t r = 0; r < placeable.throughput.size(); ++r) {
    out.share[placeable.job_of[r]] = ReadShares(solution, vars, r, types);
  }
  return out;
}

HETSCHED_REGISTER_IMPL(JobScheduler, kGavelThroughputRegistered,
                       (MethodInfo{"gavel-throughput",
                                   "Gavel max-sum-throughput: the cluster's total throughput over time shares, rounds",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) max_sum_throughput_perf "
                                   "(scheduler/policies/max_sum_throughput.py); the optimum kept where not unique: the simplex's vertex [REC], "
                                   "or cvxopt's interior point (point=cvxopt)"}),
                       [](const Options& o) -> Result<std::unique_ptr<JobScheduler>> {
                         HETSCHED_ASSIGN_OR_RETURN(const SharePoint point, PointOption(o));
                         if (point == SharePoint::kCentre) {
                           return Status::InvalidArgument(
                               "gavel-throughput: option 'point' must be 'vertex' or 'cvxopt' (no central-path point "
                               "for a max-sum LP)");
                         }
                         return MakeLpRoundPolicy(o, "gavel-throughput", false,
                                                  [point](const AllocationProblem& p, lp::WarmStartLpSolver& s) {
                                                    return SolveMaxSumThroughput(p, s, point);
                                                  });
                       })

}  // namespace hetsched::gavel
