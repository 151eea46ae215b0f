// gavel-makespan: Gavel's minimum-makespan policy (Narayanan et al., OSDI 2020, section 4.2):
// minimise the time until every active job finishes, max_j remaining_j / (T_j . X_j). With
// theta = 1/makespan the constraint remaining_j / (T_j . X_j) <= 1/theta is linear:
// T_j . X_j >= remaining_j * theta, so one LP (max theta) replaces Gavel's bisection. LP shape in
// docs/gavel.md. Option bisection=true: Gavel's simulator's own search instead
// (SolveMinTotalDurationBisection, gavel_allocation.h).
#include <algorithm>
#include <cmath>
#include <utility>

#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/centre.h"
#include "hetsched/policies/gavel/policy.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {

namespace {
// theta is measured per hour so that its coefficients (T / remaining x 3600) are of order one.
constexpr double kThetaUnitS = 3600;
}  // namespace

namespace {

// The LP both solve functions share: share variables and, per placeable job r,
// sum_k (3600 T_rk / remaining_r) X_rk - theta >= 0 (theta = 3600 / makespan); the second-phase
// objective (the sum of each job's throughput as a fraction of its best) is written to `second`.
struct MakespanProgram {
  lp::LinearProgram program;
  int theta = -1;
  ShareVariables vars;
  std::vector<double> second;
  int work_row = -1;  // TieBreak::kRanked's (AddWorkRow)
};

MakespanProgram BuildMakespanProgram(const AllocationProblem& problem, const PlaceableRows& placeable,
                                     TieBreak tie_break = TieBreak::kNone) {
  const size_t types = problem.capacity.size();
  MakespanProgram m;
  m.theta = m.program.AddVariable(0, lp::kInfinity, 1.0);
  m.program.SetVariableKey(m.theta, JobKey(KeyKind::kTheta));
  m.vars = AddShareVariables(m.program, placeable.throughput, placeable.gpus,
                             std::vector<double>(placeable.size(), 1.0), problem.capacity, placeable.id);
  m.second.assign(static_cast<size_t>(m.program.num_variables()), 0.0);
  std::vector<std::pair<int, double>> terms;
  for (size_t r = 0; r < placeable.size(); ++r) {
    const AllocationJob& job = problem.jobs[placeable.job_of[r]];
    const double best = BestThroughput(problem, placeable.job_of[r]);
    const double remaining = std::max(job.remaining_iterations, 1e-9);
    terms.assign(1, {m.theta, -1.0});
    for (size_t k = 0; k < types; ++k) {
      const int v = m.vars.index[r][k];
      if (v < 0) continue;
      terms.emplace_back(v, kThetaUnitS * job.throughput[k] / remaining);
      m.second[static_cast<size_t>(v)] = job.throughput[k] / best;
    }
    const int row = m.program.AddConstraint(terms, 0.0, lp::kInfinity);
    m.program.SetConstraintKey(row, JobKey(KeyKind::kNeed, placeable.id[r]));
  }
  if (tie_break == TieBreak::kRanked) m.work_row = AddWorkRow(m.program, m.second);
  return m;
}

void ReadAllShares(const lp::Solution& solution, const MakespanProgram& m, const PlaceableRows& placeable,
                   size_t types, Allocation* out) {
  for (size_t r = 0; r < placeable.size(); ++r) {
    out->share[placeable.job_of[r]] = ReadShares(solution, m.vars, r, types);
  }
}

}  // namespace

Result<Allocation> SolveMinMakespan(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                    TieBreak tie_break) {
  const size_t types = problem.capacity.size();
  Allocation out = ZeroAllocation(problem);
  const PlaceableRows placeable = CollectPlaceableRows(problem, &out);
  if (placeable.empty()) return out;
  MakespanProgram m = BuildMakespanProgram(problem, placeable, tie_break);
  // Tie-broken, each phase starts from the same phase's basis of the previous solve (solver slots
  // 1, 2 and kTieBreakSlot): the last basis, the tie-break's, is far from the first phase's optimum.
  HETSCHED_ASSIGN_OR_RETURN(lp::Solution solution, SolveEpigraphTwoPhase(m.program, m.theta, m.second, solver, &out,
                                                                         m.work_row >= 0 ? 1 : 0));
  out.status = solution.status;
  if (solution.status != lp::SolveStatus::kOptimal) return out;
  if (m.work_row >= 0) {
    double work = 0;
    for (size_t v = 0; v < m.second.size(); ++v) work += m.second[v] * solution.values[v];
    // Ranked by the time left alone on the best type, least first.
    std::vector<double> key(placeable.size());
    for (size_t r = 0; r < placeable.size(); ++r) {
      key[r] = problem.jobs[placeable.job_of[r]].remaining_iterations / BestThroughput(problem, placeable.job_of[r]);
    }
    HETSCHED_ASSIGN_OR_RETURN(solution, SolveTieBreak(m.program, m.work_row, m.second, work, m.vars, placeable.id, key,
                                                      std::move(solution), solver, &out));
  }
  const double t = solution.values[static_cast<size_t>(m.theta)];
  out.objective = t > 0 ? kThetaUnitS / t : lp::kInfinity;
  ReadAllShares(solution, m, placeable, types, &out);
  return out;
}

Result<Allocation> SolveMinTotalDurationBisection(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                                  SharePoint point) {
  const size_t types = problem.capacity.size();
  Allocation out = ZeroAllocation(problem);
  const PlaceableRows placeable = CollectPlaceableRows(problem, &out);
  if (placeable.empty()) return out;
  MakespanProgram m = BuildMakespanProgram(problem, placeable);
  m.program.SetSense(lp::Sense::kMaximize);
  for (int v = 0; v < m.program.num_variables(); ++v) m.program.SetObjective(v, 0.0);  // feasibility only
  // Writes the solution only where feasible: the search keeps the last feasible one.
  auto feasible_at = [&](double makespan_s, lp::Solution* at) -> Result<bool> {
    m.program.SetVariableBounds(m.theta, kThetaUnitS / makespan_s, kThetaUnitS / makespan_s);
    HETSCHED_ASSIGN_OR_RETURN(lp::Solution s, solver.Solve(m.program));
    ++out.lp_solves;
    out.simplex_iterations += s.iterations;
    if (s.status != lp::SolveStatus::kOptimal) return false;
    *at = std::move(s);
    return true;
  };
  // min_total_duration.py:74-96; the last feasible point is the allocation.
  lp::Solution last_feasible;
  HETSCHED_ASSIGN_OR_RETURN(const double feasible_makespan_s, GavelHorizonSearch(feasible_at, &last_feasible, "gavel-makespan"));
  out.status = lp::SolveStatus::kOptimal;
  out.objective = kThetaUnitS / last_feasible.values[static_cast<size_t>(m.theta)];
  if (point != SharePoint::kVertex) {
    // The rows of min_total_duration.py:45-49: T_j.X_j >= remaining_j / T, over every type.
    CentreProblem c{CentreProblem::Mode::kFeasible, {}, {}, {}, {}, problem.capacity};
    for (size_t r = 0; r < placeable.size(); ++r) {
      const AllocationJob& job = problem.jobs[placeable.job_of[r]];
      c.a.push_back(job.throughput);
      c.a.back().resize(types, 0.0);
      c.floor.push_back(job.remaining_iterations / feasible_makespan_s);
      c.gpus.push_back(job.num_gpus);
      c.count.push_back(1);
    }
    Result<CentreResult> interior = InteriorShares(point, c);
    if (interior.ok()) {
      for (size_t r = 0; r < placeable.size(); ++r) out.share[placeable.job_of[r]] = interior->share[r];
      return out;
    }
    // No interior point (the bracket's end is the optimum itself): keep the vertex.
  }
  ReadAllShares(last_feasible, m, placeable, types, &out);
  return out;
}

namespace {

// `agnostic`: Gavel's min_total_duration (every type at the job's V100 throughput).
Result<std::unique_ptr<JobScheduler>> MakeMakespan(const Options& options, bool agnostic) {
  const std::string name = agnostic ? "gavel-makespan-agnostic" : "gavel-makespan";
  const std::string reference = agnostic ? "v100" : "";
  HETSCHED_ASSIGN_OR_RETURN(const bool bisection, options.GetBool("bisection", false));
  HETSCHED_ASSIGN_OR_RETURN(const SharePoint point, PointOption(options));
  HETSCHED_ASSIGN_OR_RETURN(const TieBreak tie_break, TieBreakOption(options));
  // Gavel's bisection (--compat gavel) keeps its cold, untie-broken solves; the one-LP form starts
  // each re-solve from the previous one's bases by job.
  HETSCHED_ASSIGN_OR_RETURN(const lp::WarmStartMatch warm_start,
                            WarmStartOption(options, bisection || tie_break == TieBreak::kNone ? "same-shape" : "by-job"));
  if (point != SharePoint::kVertex && !bisection) {
    return Status::InvalidArgument(name + ": option 'point' other than 'vertex' needs 'bisection=true'");
  }
  if (bisection) {
    return MakeLpRoundPolicy(options, name, agnostic,
                             [point](const AllocationProblem& p, lp::WarmStartLpSolver& solver) {
                               return SolveMinTotalDurationBisection(p, solver, point);
                             }, warm_start, reference);
  }
  return MakeLpRoundPolicy(options, name, agnostic,
                           [tie_break](const AllocationProblem& p, lp::WarmStartLpSolver& solver) {
                             return SolveMinMakespan(p, solver, tie_break);
                           }, warm_start, reference);
}

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kGavelMakespanRegistered,
                       (MethodInfo{"gavel-makespan",
                                   "Gavel minimum makespan over the active jobs (one LP, theta = 1/makespan), rounds",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) sec. 4.2 makespan; linearisation and "
                                   "second phase [REC]"}),
                       [](const Options& o) { return MakeMakespan(o, false); })
HETSCHED_REGISTER_IMPL(JobScheduler, kGavelMakespanAgnosticRegistered,
                       (MethodInfo{"gavel-makespan-agnostic",
                                   "Gavel minimum makespan, heterogeneity-blind: every type at the job's V100 throughput, rounds",
                                   "[SRC] Gavel's min_total_duration (scheduler/policies/min_total_duration.py "
                                   "MinTotalDurationPolicy); [REC] as gavel-makespan, the largest throughput where "
                                   "there is no V100"}),
                       [](const Options& o) { return MakeMakespan(o, true); })

}  // namespace hetsched::gavel
