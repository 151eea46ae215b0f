// gavel-ftf: finish-time fairness (Themis, Mahajan et al., NSDI 2020, as a Gavel policy:
// Narayanan et al., OSDI 2020, section 4.2). rho_j = (elapsed_j + remaining_j / T_j.X_j) / D_j:
// the job's finish time in the shared cluster over its time in isolation. min max_j rho_j by
// bisection on rho: for a fixed rho each job needs T_j.X_j >= remaining_j / (rho D_j - elapsed_j),
// a linear feasibility LP whose rows change only in their bounds (warm-started). Two references
// D_j (option `reference`): hetsched's total_j over the job's throughput on a 1/n share now
// (`equal-share`, [REC]), or Gavel's simulator's cumulative isolated time (`gavel`,
// finish_time_fairness.py:75-99 with isolated.py). LP shape in docs/gavel.md.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/centre.h"
#include "hetsched/policies/gavel/cvxopt.h"
#include "hetsched/policies/gavel/policy.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {

double IsolatedShareScale(const AllocationProblem& problem, double gpus) {
  const double n = static_cast<double>(problem.jobs.size());
  double row = 0;
  for (int w : problem.capacity) row += w / (n * gpus);
  return 1.0 / std::max(row, 1.0);
}

double GavelIsolatedThroughput(const AllocationProblem& problem, size_t j) {
  const AllocationJob& job = problem.jobs[j];
  const double n = static_cast<double>(problem.jobs.size());
  const double scale = IsolatedShareScale(problem, job.num_gpus);
  double thr = 0;
  for (size_t k = 0; k < problem.capacity.size() && k < job.throughput.size(); ++k) {
    thr += job.throughput[k] * problem.capacity[k] / (n * job.num_gpus) * scale;
  }
  return thr;
}

std::vector<double> GavelFtfState::IsolatedTimes(const AllocationProblem& problem) {
  std::vector<double> out(problem.jobs.size());
  std::map<JobId, Seen> next;
  for (size_t j = 0; j < problem.jobs.size(); ++j) {
    const AllocationJob& job = problem.jobs[j];
    Seen seen;
    if (auto it = jobs_.find(job.id); it != jobs_.end()) {
      seen = it->second;
      // The steps made since the previous solve, at the isolated speed of that solve (:80-84).
      if (seen.in_previous && seen.isolated > 0) seen.cumulative_s += (seen.remaining - job.remaining_iterations) / seen.isolated;
    }
    seen.isolated = GavelIsolatedThroughput(problem, j);
    seen.remaining = job.remaining_iterations;
    seen.in_previous = true;
    out[j] = seen.isolated > 0 ? seen.cumulative_s + job.remaining_iterations / seen.isolated : 0.0;
    next.emplace(job.id, seen);
  }
  // Only active jobs are in a problem: the others have finished and are forgotten.
  jobs_ = std::move(next);
  return out;
}

namespace {

// min_x max_j alpha_j + beta_j / T_j.X_j (alpha_j = elapsed_j / D_j, beta_j = remaining_j / D_j) as
// the peers' cvxpy stand-in solves Gavel's finish_time_fairness_perf (gavel_cvxpy_shim.py,
// _solve_min_max_ratio): bisection on the level t from lo = max alpha; at t the level LP
// max z s.t. z <= T_j.X_j (t - alpha_j) / beta_j gives g(t) = z* and a point x; g >= 1 makes
// f(x) = max_j alpha_j + beta_j / T_j.X_j the new upper bound (if lower), g < 1 raises lo to
// min_j alpha_j + (t - alpha_j) / g; stops when hi - lo <= tolerance |hi|. The allocation is the
// point that last lowered hi. Returns false where the search cannot run as the stand-in's does
// (a job with nothing left, a level LP without an answer): the caller then searches its own way.
Result<bool> StandInSearch(const AllocationProblem& problem, const std::vector<const std::vector<double>*>& rows,
                           const std::vector<int>& gpus, const std::vector<size_t>& job_of,
                           const std::vector<double>& isolated_s, double tolerance, Allocation* out) {
  const size_t n = rows.size(), types = problem.capacity.size();
  std::vector<double> alpha(n), beta(n);
  for (size_t r = 0; r < n; ++r) {
    const AllocationJob& job = problem.jobs[job_of[r]];
    alpha[r] = job.elapsed_s / isolated_s[r];
    beta[r] = job.remaining_iterations / isolated_s[r];
    if (!(beta[r] > 0)) return false;
  }
  auto level = [&](double t) {
    CentreProblem p{CentreProblem::Mode::kMaxMin, {}, {}, gpus, std::vector<double>(n, 1.0), problem.capacity};
    for (size_t r = 0; r < n; ++r) {
      const double w = (t - alpha[r]) / beta[r];
      p.a.emplace_back(types, 0.0);
      for (size_t k = 0; k < types && k < rows[r]->size(); ++k) p.a.back()[k] = (*rows[r])[k] * w;
    }
    ++out->lp_solves;
    return CvxoptShares(p);
  };
  auto worst = [&](const CentreResult& c) {
    double f = -std::numeric_limits<double>::infinity();
    for (size_t r = 0; r < n; ++r) {
      double e = 0;
      for (size_t k = 0; k < types && k < rows[r]->size(); ++k) e += (*rows[r])[k] * c.share[r][k];
      f = std::max(f, e > 0 ? alpha[r] + beta[r] / e : std::numeric_limits<double>::infinity());
    }
    return f;
  };
  double lo = *std::max_element(alpha.begin(), alpha.end());
  Result<CentreResult> first = level(lo + std::max(1.0, std::abs(lo)));
  if (!first.ok()) return false;
  double hi = first->z > 0 ? worst(*first) : std::numeric_limits<double>::infinity();
  if (!std::isfinite(hi)) return false;  // some job can get no throughput
  CentreResult best = std::move(*first);
  for (int i = 0; i < 200 && hi - lo > tolerance * std::abs(hi); ++i) {
    const double t = 0.5 * (lo + hi);
    Result<CentreResult> c = level(t);
    if (!c.ok()) return false;
    const double g = c->z;
    if (g >= 1) {
      const double f = worst(*c);
      if (f < hi) {
        hi = f;
        best = std::move(*c);
      }
    } else if (g <= 0) {
      lo = std::max(lo, t);
    } else {
      double bound = std::numeric_limits<double>::infinity();
      for (size_t r = 0; r < n; ++r) bound = std::min(bound, alpha[r] + (t - alpha[r]) / g);
      lo = std::max(lo, bound);
    }
  }
  out->objective = hi;
  for (size_t r = 0; r < n; ++r) out->share[job_of[r]] = best.share[r];
  return true;
}

}  // namespace

Result<Allocation> SolveFinishTimeFairness(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                           const FtfOptions& options, const std::vector<double>* isolated_s_of) {
  const double tolerance = options.tolerance;
  const size_t types = problem.capacity.size();
  Allocation out = ZeroAllocation(problem);
  std::vector<const std::vector<double>*> rows;
  std::vector<int> gpus;
  std::vector<size_t> job_of;
  std::vector<JobId> ids;
  std::vector<double> best, isolated_s;
  for (size_t j = 0; j < problem.jobs.size(); ++j) {
    const double equal = EqualShareThroughput(problem, j);
    const double isolated = isolated_s_of != nullptr ? (*isolated_s_of)[j]
                                                     : std::max(problem.jobs[j].total_iterations,
                                                                problem.jobs[j].remaining_iterations) / std::max(equal, 1e-300);
    if (!Placeable(problem, j) || equal <= 0 || !(isolated > 0) || !std::isfinite(isolated)) {
      out.unplaceable.push_back(problem.jobs[j].id);
      continue;
    }
    const AllocationJob& job = problem.jobs[j];
    rows.push_back(&job.throughput);
    gpus.push_back(job.num_gpus);
    job_of.push_back(j);
    ids.push_back(job.id);
    best.push_back(BestThroughput(problem, j));
    isolated_s.push_back(isolated);  // D_j
  }
  if (rows.empty()) return out;
  if (options.point == SharePoint::kCvxopt && !options.second_phase) {
    // The yardstick's own search, each level LP solved as cvxopt solves it.
    HETSCHED_ASSIGN_OR_RETURN(const bool done, StandInSearch(problem, rows, gpus, job_of, isolated_s, options.tolerance, &out));
    if (done) return out;
  }

  lp::LinearProgram program;
  const ShareVariables vars =
      AddShareVariables(program, rows, gpus, std::vector<double>(rows.size(), 1.0), problem.capacity, ids);
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
    program.SetConstraintKey(need_row[r], JobKey(KeyKind::kNeed, ids[r]));
  }
  program.SetSense(lp::Sense::kMaximize);
  const bool tie_break =
      options.tie_break == TieBreak::kRanked && options.second_phase && options.point == SharePoint::kVertex;
  const std::vector<double> work = program.objective();
  const int work_row = tie_break ? AddWorkRow(program, work) : -1;

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
    HETSCHED_ASSIGN_OR_RETURN(*solution, solver.Solve(program, tie_break ? 1 : 0));
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
  double hi = 0;
  HETSCHED_ASSIGN_OR_RETURN(const bool found, LeastFeasible(feasible, lo, tolerance, &hi, &at_hi));
  if (!found) {
    out.status = lp::SolveStatus::kInfeasible;
    return out;
  }
  out.objective = hi;
  if (options.point != SharePoint::kVertex) {  // the level LP's interior point: no second phase
    CentreProblem level{CentreProblem::Mode::kMaxMin, {}, {}, gpus, std::vector<double>(rows.size(), 1.0),
                        problem.capacity};
    for (size_t r = 0; r < rows.size(); ++r) {
      const AllocationJob& job = problem.jobs[job_of[r]];
      const double need = job.remaining_iterations / (hi * isolated_s[r] - job.elapsed_s);
      level.a.emplace_back(types, 0.0);
      for (size_t k = 0; k < types && k < rows[r]->size(); ++k) level.a.back()[k] = (*rows[r])[k] / need;
    }
    Result<CentreResult> c = InteriorShares(options.point, level);
    if (c.ok()) {
      for (size_t r = 0; r < rows.size(); ++r) out.share[job_of[r]] = c->share[r];
      return out;
    }
  }
  if (!options.second_phase) {
    // Gavel's stand-in keeps the level LP's point: max z s.t. T_j.X_j >= z need_j(rho) (no
    // objective on the rest). The need rows become T_j.X_j / need_j - z >= 0 at rho = hi.
    lp::LinearProgram level;
    const ShareVariables lv = AddShareVariables(level, rows, gpus, std::vector<double>(rows.size(), 1.0), problem.capacity);
    const int z = level.AddVariable(0, lp::kInfinity, 1.0);
    for (size_t r = 0; r < rows.size(); ++r) {
      const AllocationJob& job = problem.jobs[job_of[r]];
      const double need = job.remaining_iterations / (hi * isolated_s[r] - job.elapsed_s);
      terms.clear();
      for (size_t k = 0; k < types; ++k) {
        if (lv.index[r][k] >= 0) terms.emplace_back(lv.index[r][k], (*rows[r])[k] / need);
      }
      terms.emplace_back(z, -1.0);
      level.AddConstraint(terms, 0.0, lp::kInfinity);
    }
    level.SetSense(lp::Sense::kMaximize);
    lp::WarmStartLpSolver fresh;
    HETSCHED_ASSIGN_OR_RETURN(lp::Solution s, fresh.Solve(level));
    ++out.lp_solves;
    out.simplex_iterations += s.iterations;
    if (s.status == lp::SolveStatus::kOptimal) {
      for (size_t r = 0; r < rows.size(); ++r) out.share[job_of[r]] = ReadShares(s, lv, r, types);
      return out;
    }
  }
  if (tie_break) {
    set_rho(hi);
    double at_optimum = 0;
    for (size_t v = 0; v < work.size(); ++v) at_optimum += work[v] * at_hi.values[v];
    // Ranked by the rho bound alone on the best type, largest first (the job nearest the max).
    std::vector<double> key(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      const AllocationJob& job = problem.jobs[job_of[r]];
      key[r] = -(job.elapsed_s + job.remaining_iterations / best[r]) / isolated_s[r];
    }
    HETSCHED_ASSIGN_OR_RETURN(at_hi, SolveTieBreak(program, work_row, work, at_optimum, vars, ids, key, std::move(at_hi),
                                                   solver, &out));
  }
  for (size_t r = 0; r < rows.size(); ++r) out.share[job_of[r]] = ReadShares(at_hi, vars, r, types);
  return out;
}

namespace {

// `agnostic`: Gavel's finish_time_fairness (every type at the job's V100 throughput).
Result<std::unique_ptr<JobScheduler>> MakeFtf(const Options& o, bool agnostic) {
  const std::string name = agnostic ? "gavel-ftf-agnostic" : "gavel-ftf";
  const std::string blind_reference = agnostic ? "v100" : "";
  FtfOptions ftf;
  HETSCHED_ASSIGN_OR_RETURN(ftf.tolerance, o.GetDouble("tolerance", 1e-3));
  if (!(ftf.tolerance > 0 && ftf.tolerance < 1)) {
    return Status::InvalidArgument(name + ": option 'tolerance' must be in (0, 1)");
  }
  HETSCHED_ASSIGN_OR_RETURN(ftf.second_phase, o.GetBool("second_phase", true));
  HETSCHED_ASSIGN_OR_RETURN(ftf.point, PointOption(o));
  HETSCHED_ASSIGN_OR_RETURN(ftf.tie_break, TieBreakOption(o));
  // The tie-broken form starts each re-solve from the previous basis by job; the stand-in's
  // (--compat gavel) keeps its cold solves.
  const bool tie_broken = ftf.tie_break == TieBreak::kRanked && ftf.second_phase && ftf.point == SharePoint::kVertex;
  HETSCHED_ASSIGN_OR_RETURN(const lp::WarmStartMatch warm_start, WarmStartOption(o, tie_broken ? "by-job" : "same-shape"));
  const std::string reference = o.GetString("reference", "equal-share");
  if (reference != "equal-share" && reference != "gavel") {
    return Status::InvalidArgument(name + ": option 'reference' must be 'equal-share' or 'gavel', got '" + reference + "'");
  }
  if (reference == "equal-share") {
    return MakeLpRoundPolicy(o, name, agnostic,
                             [ftf](const AllocationProblem& p, lp::WarmStartLpSolver& solver) {
                               return SolveFinishTimeFairness(p, solver, ftf);
                             }, warm_start, blind_reference);
  }
  auto state = std::make_shared<GavelFtfState>();
  return MakeLpRoundPolicy(o, name, agnostic,
                           [ftf, state](const AllocationProblem& p, lp::WarmStartLpSolver& solver) {
                             const std::vector<double> isolated = state->IsolatedTimes(p);
                             return SolveFinishTimeFairness(p, solver, ftf, &isolated);
                           }, warm_start, blind_reference);
}

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kGavelFtfRegistered,
                       (MethodInfo{"gavel-ftf",
                                   "Gavel finish-time fairness (Themis rho), min max rho by bisection over LPs, rounds",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) sec. 4.2 / Themis (NSDI 2020) rho; "
                                   "reference=gavel: Gavel's simulator's isolated time [SRC]; "
                                   "bisection and the equal-share reference [REC]"}),
                       [](const Options& o) { return MakeFtf(o, false); })
HETSCHED_REGISTER_IMPL(JobScheduler, kGavelFtfAgnosticRegistered,
                       (MethodInfo{"gavel-ftf-agnostic",
                                   "Gavel finish-time fairness, heterogeneity-blind: every type at the job's V100 throughput, rounds",
                                   "[SRC] Gavel's finish_time_fairness (scheduler/policies/finish_time_fairness.py "
                                   "FinishTimeFairnessPolicy); [REC] as gavel-ftf, the largest throughput where there is "
                                   "no V100"}),
                       [](const Options& o) { return MakeFtf(o, true); })

}  // namespace hetsched::gavel
