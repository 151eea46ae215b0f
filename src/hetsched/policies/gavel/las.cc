// gavel-las and gavel-las-agnostic: Gavel's (heterogeneity-aware) least-attained-service policy,
// i.e. weighted max-min fairness over normalised effective throughputs (Narayanan et al.,
// OSDI 2020, section 4.1). LP shape in docs/gavel.md.
#include <map>
#include <utility>

#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/centre.h"
#include "hetsched/policies/gavel/policy.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {

Result<Allocation> SolveMaxMinFairness(const AllocationProblem& problem, const MaxMinOptions& options,
                                       lp::WarmStartLpSolver& solver) {
  const size_t types = problem.capacity.size();
  Allocation out = ZeroAllocation(problem);
  // Rows: one per job, or one per class of identical jobs (same g and normalised T row).
  std::vector<std::vector<double>> coef;  // normalised throughput coefficients per row
  std::vector<int> gpus;
  std::vector<double> count;
  std::vector<int> row_of(problem.jobs.size(), -1);
  std::map<std::pair<int, std::vector<double>>, int> classes;
  for (size_t j = 0; j < problem.jobs.size(); ++j) {
    const AllocationJob& job = problem.jobs[j];
    if (!Placeable(problem, j)) {
      out.unplaceable.push_back(job.id);
      continue;
    }
    const double norm = !options.normalise  ? 1.0
                        : options.proportional ? ProportionalThroughput(problem, j) / job.num_gpus
                                               : EqualShareThroughput(problem, j);
    std::vector<double> a(types, 0.0);
    for (size_t k = 0; k < types && k < job.throughput.size(); ++k) {
      a[k] = job.throughput[k] / (job.weight * norm);
    }
    if (options.aggregate) {
      auto [it, added] = classes.try_emplace({job.num_gpus, a}, static_cast<int>(coef.size()));
      if (!added) {
        count[static_cast<size_t>(it->second)] += 1;
        row_of[j] = it->second;
        continue;
      }
    }
    row_of[j] = static_cast<int>(coef.size());
    coef.push_back(std::move(a));
    gpus.push_back(job.num_gpus);
    count.push_back(1);
  }
  if (coef.empty()) return out;  // nothing to allocate: an optimal empty allocation
  if (options.point != SharePoint::kVertex) {  // the one LP's interior point: no second phase
    // A class of c identical jobs is one row of weight c: the point is symmetric in them.
    CentreProblem centre{CentreProblem::Mode::kMaxMin, coef, {}, gpus, count, problem.capacity};
    Result<CentreResult> c = InteriorShares(options.point, centre);
    if (c.ok()) {
      out.objective = c->z;
      for (size_t j = 0; j < problem.jobs.size(); ++j) {
        if (row_of[j] >= 0) out.share[j] = c->share[static_cast<size_t>(row_of[j])];
      }
      return out;
    }
    // A centring that fails numerically falls back to the LP's vertex below.
  }

  lp::LinearProgram program;
  const int z = program.AddVariable(0, lp::kInfinity, 1.0);
  std::vector<const std::vector<double>*> rows;
  for (const auto& a : coef) rows.push_back(&a);
  const ShareVariables vars = AddShareVariables(program, rows, gpus, count, problem.capacity);
  // Epigraph rows: sum_k a[r][k] X[r][k] - z >= 0.
  std::vector<double> second(static_cast<size_t>(program.num_variables()), 0.0);
  std::vector<std::pair<int, double>> terms;
  for (size_t r = 0; r < coef.size(); ++r) {
    terms.assign(1, {z, -1.0});
    for (size_t k = 0; k < types; ++k) {
      const int v = vars.index[r][k];
      if (v < 0) continue;
      terms.emplace_back(v, coef[r][k]);
      second[static_cast<size_t>(v)] = count[r] * coef[r][k];
    }
    program.AddConstraint(terms, 0.0, lp::kInfinity);
  }
  HETSCHED_ASSIGN_OR_RETURN(const lp::Solution solution,
                            SolveEpigraphTwoPhase(program, z, options.second_phase ? second : std::vector<double>{},
                                                  solver, &out));
  out.status = solution.status;
  if (solution.status != lp::SolveStatus::kOptimal) return out;
  out.objective = solution.values[static_cast<size_t>(z)];
  for (size_t j = 0; j < problem.jobs.size(); ++j) {
    if (row_of[j] >= 0) out.share[j] = ReadShares(solution, vars, static_cast<size_t>(row_of[j]), types);
  }
  return out;
}

namespace {

Result<std::unique_ptr<JobScheduler>> MakeLas(const Options& options, const std::string& name, bool blind) {
  MaxMinOptions mm;
  HETSCHED_ASSIGN_OR_RETURN(mm.aggregate, options.GetBool("aggregate", true));
  HETSCHED_ASSIGN_OR_RETURN(mm.second_phase, options.GetBool("second_phase", true));
  const std::string normaliser = options.GetString("normaliser", "equal-share");
  if (normaliser != "equal-share" && normaliser != "proportional") {
    return Status::InvalidArgument("option 'normaliser' must be 'equal-share' or 'proportional', got '" + normaliser + "'");
  }
  mm.proportional = normaliser == "proportional";
  HETSCHED_ASSIGN_OR_RETURN(mm.point, PointOption(options));
  return MakeLpRoundPolicy(options, name, blind, [mm](const AllocationProblem& p, lp::WarmStartLpSolver& solver) {
    return SolveMaxMinFairness(p, mm, solver);
  });
}

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kGavelLasRegistered,
                       (MethodInfo{"gavel-las",
                                   "Gavel heterogeneity-aware LAS: max-min fairness of normalised effective throughput, rounds",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) sec. 4.1 + round mechanism sec. 5; "
                                   "equal-share normaliser and second phase [REC]"}),
                       [](const Options& o) { return MakeLas(o, "gavel-las", false); })
HETSCHED_REGISTER_IMPL(JobScheduler, kGavelLasAgnosticRegistered,
                       (MethodInfo{"gavel-las-agnostic",
                                   "Gavel LAS with every throughput = 1 (heterogeneity-blind max-min time shares), rounds",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) heterogeneity-agnostic LAS baseline"}),
                       [](const Options& o) { return MakeLas(o, "gavel-las-agnostic", true); })

}  // namespace hetsched::gavel
