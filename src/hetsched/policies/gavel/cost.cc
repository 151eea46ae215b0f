// gavel-cost: Gavel's cost policy (Narayanan et al., OSDI 2020, section 4.2, "minimize cost"
// with optional SLOs): maximise the total normalised throughput per dollar,
//   sum_j sum_k (T_jk / T_j^max) X_jk / (g_j p_k),
// with each SLO as a constraint T_j.X_j >= remaining_j / (deadline_j - now). LP shape in
// docs/gavel.md.
#include <algorithm>
#include <cmath>
#include <utility>

#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/policy.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {

namespace {
// A device with no price in the catalog would make its throughput per dollar infinite: it is
// charged one cent per hour instead.
constexpr double kMinPricePerHour = 0.01;
}  // namespace

Result<Allocation> SolveMaxThroughputPerDollar(const AllocationProblem& problem, lp::WarmStartLpSolver& solver) {
  const size_t types = problem.capacity.size();
  Allocation out = ZeroAllocation(problem);
  const PlaceableRows placeable = CollectPlaceableRows(problem, &out);
  if (placeable.empty()) return out;
  const auto& rows = placeable.throughput;
  const auto& gpus = placeable.gpus;
  const auto& job_of = placeable.job_of;

  auto build = [&](bool with_slos, int* slos_dropped) {
    lp::LinearProgram program;
    program.SetSense(lp::Sense::kMaximize);
    const ShareVariables vars =
        AddShareVariables(program, rows, gpus, std::vector<double>(rows.size(), 1.0), problem.capacity);
    std::vector<std::pair<int, double>> terms;
    for (size_t r = 0; r < rows.size(); ++r) {
      const AllocationJob& job = problem.jobs[job_of[r]];
      const double best = BestThroughput(problem, job_of[r]);
      terms.clear();
      for (size_t k = 0; k < types; ++k) {
        const int v = vars.index[r][k];
        if (v < 0) continue;
        const double price = k < problem.price_per_hour.size() ? problem.price_per_hour[k] : 0.0;
        program.SetObjective(v, (job.throughput[k] / best) / (job.num_gpus * std::max(price, kMinPricePerHour)));
        terms.emplace_back(v, job.throughput[k] / best);
      }
      if (!with_slos || !std::isfinite(job.deadline_in_s)) continue;
      // An SLO already missed, or one that even the best type full-time cannot meet, is dropped.
      const double need = job.deadline_in_s > 0 ? job.remaining_iterations / job.deadline_in_s / best : 2.0;
      if (need > 1.0) {
        ++*slos_dropped;
        continue;
      }
      program.AddConstraint(terms, need, lp::kInfinity);
    }
    return std::make_pair(std::move(program), vars);
  };

  int dropped = 0;
  auto [program, vars] = build(true, &dropped);
  HETSCHED_ASSIGN_OR_RETURN(lp::Solution solution, solver.Solve(program));
  ++out.lp_solves;
  out.simplex_iterations += solution.iterations;
  if (solution.status == lp::SolveStatus::kInfeasible) {
    int unused = 0;
    auto [relaxed, relaxed_vars] = build(false, &unused);
    HETSCHED_ASSIGN_OR_RETURN(solution, solver.Solve(relaxed));
    ++out.lp_solves;
    out.simplex_iterations += solution.iterations;
    vars = relaxed_vars;
    out.note = "SLOs jointly infeasible: solved without them";
  } else if (dropped > 0) {
    out.note = std::to_string(dropped) + " SLO(s) unreachable even alone on the best type: dropped";
  }
  out.status = solution.status;
  if (solution.status != lp::SolveStatus::kOptimal) return out;
  out.objective = solution.objective;
  for (size_t r = 0; r < rows.size(); ++r) out.share[job_of[r]] = ReadShares(solution, vars, r, types);
  return out;
}

HETSCHED_REGISTER_IMPL(JobScheduler, kGavelCostRegistered,
                       (MethodInfo{"gavel-cost",
                                   "Gavel cost policy: max normalised throughput per dollar, SLOs as constraints, rounds",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) sec. 4.2 cost/SLO policies; "
                                   "normalisation and SLO relaxation [REC]"}),
                       [](const Options& o) { return MakeLpRoundPolicy(o, "gavel-cost", false, SolveMaxThroughputPerDollar); })

}  // namespace hetsched::gavel
