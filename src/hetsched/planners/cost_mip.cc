#include "hetsched/planners/cost_mip.h"

#include <cmath>

#include <fmt/format.h>

#include "hetsched/lp/linear_program.h"

namespace hetsched {

namespace {
struct StageVar {
  int first, last, type;
};
}  // namespace

Result<HeteroPlan> SolveCostMip(const StageCostModel& m, const CostMipOptions& options) {
  const int L = m.num_layers(), D = m.num_types();
  lp::LinearProgram program;
  std::vector<StageVar> vars;
  // Rows are built from per-boundary lists: stages starting at b, stages ending at b - 1.
  std::vector<std::vector<int>> starts(static_cast<size_t>(L) + 1), ends(static_cast<size_t>(L) + 1);
  std::vector<std::vector<std::pair<int, double>>> cap_terms(static_cast<size_t>(D));
  for (int i = 0; i < L; ++i) {
    for (int j = i; j < L; ++j) {
      for (int d = 0; d < D; ++d) {
        const int k = m.StageUnits(i, j, d);
        if (k == 0 || (m.max_units(d) > 0 && k > m.max_units(d))) continue;
        const int v = program.AddVariable(0, 1, k * m.type(d).price_per_hour, /*integer=*/true);
        vars.push_back({i, j, d});
        starts[static_cast<size_t>(i)].push_back(v);
        ends[static_cast<size_t>(j) + 1].push_back(v);
        if (m.max_units(d) > 0) cap_terms[static_cast<size_t>(d)].emplace_back(v, k);
      }
    }
  }
  const auto infeasible = [&] {
    return Status::Infeasible(fmt::format("no plan sustains {:.6g} samples/s on this pool (memory or unit caps)",
                                          m.throughput_limit()));
  };
  if (vars.empty()) return infeasible();
  std::vector<std::pair<int, double>> terms;
  for (int v : starts[0]) terms.emplace_back(v, 1.0);
  program.AddConstraint(terms, 1, 1, "start");
  for (int b = 1; b < L; ++b) {
    terms.clear();
    for (int v : ends[static_cast<size_t>(b)]) terms.emplace_back(v, 1.0);
    for (int v : starts[static_cast<size_t>(b)]) terms.emplace_back(v, -1.0);
    if (!terms.empty()) program.AddConstraint(terms, 0, 0, fmt::format("flow{}", b));
    for (int d = 0; d < D; ++d) {
      terms.clear();
      for (int v : ends[static_cast<size_t>(b)]) {
        if (vars[static_cast<size_t>(v)].type == d) terms.emplace_back(v, 1.0);
      }
      for (int v : starts[static_cast<size_t>(b)]) {
        if (vars[static_cast<size_t>(v)].type == d) terms.emplace_back(v, 1.0);
      }
      if (terms.size() > 1) program.AddConstraint(terms, 0, 1, fmt::format("merge{}_{}", b, d));
    }
  }
  for (int d = 0; d < D; ++d) {
    if (!cap_terms[static_cast<size_t>(d)].empty()) {
      program.AddConstraint(cap_terms[static_cast<size_t>(d)], 0, m.max_units(d), fmt::format("cap{}", d));
    }
  }
  lp::SolveOptions so;
  so.time_limit_s = options.time_limit_s;
  so.max_nodes = options.max_nodes;
  HETSCHED_ASSIGN_OR_RETURN(const lp::Solution sol, lp::SolveMip(program, so));
  if (sol.status == lp::SolveStatus::kInfeasible) return infeasible();
  if (sol.values.empty()) {
    return Status::Infeasible(fmt::format("CBC found no plan within {} nodes{}", options.max_nodes,
                                          std::isfinite(options.time_limit_s)
                                              ? fmt::format(" or {:.3g} s", options.time_limit_s)
                                              : std::string()));
  }
  std::vector<int> assignment(static_cast<size_t>(L), -1);
  for (size_t v = 0; v < vars.size(); ++v) {
    if (sol.values[v] < 0.5) continue;
    for (int l = vars[v].first; l <= vars[v].last; ++l) assignment[static_cast<size_t>(l)] = vars[v].type;
  }
  for (int a : assignment) {
    if (a < 0) return Status::Internal("MIP: the chosen stages do not cover every layer");
  }
  auto plan = m.EvaluateAssignment(assignment, "mip");
  if (!plan.ok()) return Status::Internal("MIP: the chosen plan is infeasible: " + plan.status().message());
  plan->evaluations = sol.iterations;
  plan->note = fmt::format("CBC over {} stage variables{}", vars.size(),
                           sol.status == lp::SolveStatus::kLimitReached ? " (node or time limit: best plan found, not proven optimal)" : "");
  return plan;
}

}  // namespace hetsched
