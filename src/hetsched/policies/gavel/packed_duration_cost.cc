// Gavel's min_total_duration_packed (the shortest horizon by bisection, GavelHorizonSearch) and
// max_sum_throughput_normalized_by_cost_packed_SLOs (packed.h), over the packed LP's share
// variables of packed.cc and the pair columns of packed_columns.h. Formulations:
// docs/space_sharing.md.
#include "hetsched/policies/gavel/packed.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "hetsched/policies/gavel/packed_columns.h"

namespace hetsched::gavel {

// ---- min_total_duration_packed ----

Result<Allocation> SolveMinTotalDurationPacked(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                               SharePoint point, PairColumns pair_columns, PairColumnMemory* memory,
                                               PackedSecondPhase second_phase) {
  Allocation out = ZeroAllocation(problem);
  PackedColumnSet columns(problem, &out, pair_columns);
  if (memory != nullptr) columns.HoldRemembered(*memory);
  const PackedLayout& layout = columns.layout();
  if (layout.rows() == 0) return out;
  bool pairs = !columns.holds_every_column();  // kPriced with pairs to price
  for (const PackedLayout::Column& c : layout.columns) pairs = pairs || c.pair >= 0;
  if (!pairs && point != SharePoint::kVertex) {
    // No pair can run: the non-packed problem, whose interior points exist.
    HETSCHED_ASSIGN_OR_RETURN(Allocation single, SolveMinTotalDurationBisection(problem, solver, point));
    single.pair_share = out.pair_share;
    return single;
  }
  if (point != SharePoint::kVertex) out.note = "packed: only the simplex's vertex where pairs can run";
  constexpr double kThetaUnit = 3600;  // theta = 3600 / T, coefficients of order one (makespan.cc)
  const bool priced = !columns.holds_every_column();
  int theta = 0, first = 0;
  std::vector<int> need_row(layout.rows(), -1);
  // The second phase's: theta fixed there, each rate over its row's best in the objective (< 0:
  // the search's programs).
  double fixed_theta = -1;
  std::vector<double> best_rate(layout.rows(), 0.0);
  // kAll: feasibility at theta's fixed value; kPriced: max theta <= 3600 / 100 s (the search's
  // horizons are longer).
  auto pose = [&](lp::LinearProgram& program) {
    if (fixed_theta >= 0) {
      theta = program.AddVariable(fixed_theta, fixed_theta, 0.0);
    } else {
      theta = program.AddVariable(0, priced ? kThetaUnit / 100 : lp::kInfinity, priced ? 1.0 : 0.0);
    }
    program.SetVariableKey(theta, JobKey(KeyKind::kTheta));
    first = AddPackedShares(program, problem, layout, /*keyed=*/true);
    std::vector<std::pair<int, double>> terms;
    for (size_t r = 0; r < layout.rows(); ++r) {
      const AllocationJob& job = problem.jobs[layout.job_of[r]];
      if (!(job.remaining_iterations > 0)) continue;  // nothing to finish: always met
      terms.assign(1, {theta, -1.0});
      for (const auto& [c, t] : layout.terms[r]) {
        terms.emplace_back(first + c, kThetaUnit * t / job.remaining_iterations);
        if (fixed_theta >= 0) {
          program.SetObjective(first + c, program.objective()[static_cast<size_t>(first + c)] + t / best_rate[r]);
        }
      }
      need_row[r] = program.AddConstraint(terms, 0.0, lp::kInfinity);
      program.SetConstraintKey(need_row[r], JobKey(KeyKind::kNeed, job.id));
    }
    program.SetSense(lp::Sense::kMaximize);
    return 0;
  };
  lp::LinearProgram program;
  lp::Solution best;  // kPriced: the optimum of max theta
  if (priced) {
    PairColumnPricing pricing;
    pricing.first_algorithm = kPricedWarmAlgorithm;
    pricing.pose = pose;
    pricing.per_rate = [&](const lp::Solution& s, std::vector<double>* per_rate) {
      for (size_t r = 0; r < layout.rows(); ++r) {
        if (need_row[r] < 0) continue;
        (*per_rate)[r] = s.duals[static_cast<size_t>(need_row[r])] * kThetaUnit /
                         problem.jobs[layout.job_of[r]].remaining_iterations;
      }
    };
    HETSCHED_ASSIGN_OR_RETURN(best, SolvePricingIn(columns, pricing, solver, &out));
    if (best.status != lp::SolveStatus::kOptimal) {
      out.status = best.status;
      return out;
    }
  } else {
    pose(program);
  }
  auto feasible_at = [&](double t_s, lp::Solution* at) -> Result<bool> {
    if (priced) {
      if (!(kThetaUnit / t_s <= best.values[static_cast<size_t>(theta)] * (1 + 1e-9))) return false;
      *at = best;
      return true;
    }
    program.SetVariableBounds(theta, kThetaUnit / t_s, kThetaUnit / t_s);
    HETSCHED_ASSIGN_OR_RETURN(lp::Solution s, solver.Solve(program));
    ++out.lp_solves;
    out.simplex_iterations += s.iterations;
    if (s.status != lp::SolveStatus::kOptimal) return false;
    *at = std::move(s);
    return true;
  };
  // min_total_duration.py:145-166.
  lp::Solution last_feasible;
  HETSCHED_ASSIGN_OR_RETURN(const double feasible_t,
                            GavelHorizonSearch(feasible_at, &last_feasible, "min_total_duration_packed"));
  out.objective = feasible_t;
  const PackedLayout* point_layout = &layout;  // the columns last_feasible was solved over
  PackedLayout searched;
  if (second_phase != PackedSecondPhase::kOff) {
    // Among the points feasible at the T found (Gavel's: any one), the most work: each job's rate
    // as a fraction of its best over the columns held, summed; from the search's point by the
    // primal simplex. kPriced at the max-theta optimum's theta (as las packed's held phase keeps
    // its least share; at the T found, 3600 / T below it, the LP moved most jobs and took the
    // overloaded case at 8:8:8 from 52 to 121 s), kAll at the T found (its search knows no theta*).
    for (size_t r = 0; r < layout.rows(); ++r) {
      for (const auto& [c, t] : layout.terms[r]) best_rate[r] = std::max(best_rate[r], t);
    }
    fixed_theta = priced ? best.values[static_cast<size_t>(theta)] : kThetaUnit / feasible_t;
    PairColumnPricing rates;
    rates.pose = pose;
    rates.per_rate = [&](const lp::Solution& s, std::vector<double>* per_rate) {
      for (size_t r = 0; r < layout.rows(); ++r) {
        if (need_row[r] < 0) continue;
        (*per_rate)[r] = s.duals[static_cast<size_t>(need_row[r])] * kThetaUnit /
                             problem.jobs[layout.job_of[r]].remaining_iterations -
                         1.0 / best_rate[r];
      }
    };
    if (second_phase == PackedSecondPhase::kHeld) rates.enough = [](const lp::Solution&) { return true; };
    rates.first_algorithm = lp::WarmAlgorithm::kPrimal;
    // kPriced may grow the columns: the search's point is over those it had.
    if (second_phase == PackedSecondPhase::kPriced) searched = layout;
    HETSCHED_ASSIGN_OR_RETURN(lp::Solution most, SolvePricingIn(columns, rates, solver, &out));
    if (most.status == lp::SolveStatus::kOptimal) {
      last_feasible = std::move(most);
    } else if (second_phase == PackedSecondPhase::kPriced) {
      point_layout = &searched;
    }
  }
  ReadPackedShares(last_feasible.values, first, problem, *point_layout, &out);
  if (memory != nullptr) memory->Remember(problem, *point_layout, last_feasible.values, first);
  return out;
}

// ---- max_sum_throughput_normalized_by_cost_packed_SLOs ----

Result<Allocation> SolveMaxThroughputPerCostPacked(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                                   PairColumns pair_columns, PairColumnMemory* memory) {
  Allocation out = ZeroAllocation(problem);
  PackedColumnSet columns(problem, &out, pair_columns);
  if (memory != nullptr) columns.HoldRemembered(*memory);
  const PackedLayout& layout = columns.layout();
  if (layout.rows() == 0) return out;
  const bool has_prices = problem.price_per_hour.size() == problem.capacity.size();
  std::vector<double> gain_per_type(problem.capacity.size());
  for (size_t k = 0; k < gain_per_type.size(); ++k) {
    gain_per_type[k] = 1.0 / (has_prices ? problem.price_per_hour[k] : 1.0);
  }
  std::vector<int> slo_rows, slo_row_of(layout.rows(), -1);
  bool with_slos = true;
  auto pose = [&](lp::LinearProgram& program) {
    const int first = AddPackedShares(program, problem, layout, /*keyed=*/true);
    std::vector<double> objective(layout.columns.size(), 0.0);
    std::vector<std::pair<int, double>> terms;
    slo_rows.clear();
    for (size_t r = 0; r < layout.rows(); ++r) {
      const AllocationJob& job = problem.jobs[layout.job_of[r]];
      terms.clear();
      for (const auto& [c, t] : layout.terms[r]) {
        const size_t k = layout.columns[static_cast<size_t>(c)].type;
        objective[static_cast<size_t>(c)] += t / (has_prices ? problem.price_per_hour[k] : 1.0);
        terms.emplace_back(first + c, t);
      }
      if (std::isfinite(job.deadline_in_s) && job.remaining_iterations > 0) {
        // A deadline already passed asks for the impossible: the LP is then infeasible (Gavel's
        // division by a non-positive SLO gives a negative or infinite bound; left to the fallback).
        const double need = job.deadline_in_s > 0 ? job.remaining_iterations / job.deadline_in_s : lp::kInfinity;
        slo_rows.push_back(
            program.AddConstraint(terms, with_slos ? std::min(need, 1e29) : -lp::kInfinity, lp::kInfinity));
        program.SetConstraintKey(slo_rows.back(), JobKey(KeyKind::kNeed, job.id));
        slo_row_of[r] = slo_rows.back();
      }
    }
    for (size_t c = 0; c < objective.size(); ++c) program.SetObjective(first + static_cast<int>(c), objective[c]);
    program.SetSense(lp::Sense::kMaximize);
    return first;
  };
  PairColumnPricing pricing;
  pricing.pose = pose;
  pricing.per_rate = [&](const lp::Solution& s, std::vector<double>* per_rate) {
    for (size_t r = 0; r < layout.rows(); ++r) {
      if (slo_row_of[r] >= 0) (*per_rate)[r] = s.duals[static_cast<size_t>(slo_row_of[r])];
    }
  };
  pricing.gain_per_type = gain_per_type;
  lp::LinearProgram program;
  pose(program);
  auto solve = [&]() -> Result<lp::Solution> {
    if (columns.holds_every_column()) {
      HETSCHED_ASSIGN_OR_RETURN(lp::Solution s, solver.Solve(program));
      ++out.lp_solves;
      out.simplex_iterations += s.iterations;
      return s;
    }
    return SolvePricingIn(columns, pricing, solver, &out);
  };
  HETSCHED_ASSIGN_OR_RETURN(lp::Solution s, solve());
  if (s.status == lp::SolveStatus::kInfeasible && !slo_rows.empty() && !columns.holds_every_column()) {
    // Over the columns held the SLOs cannot be met: only every column can tell whether they can.
    columns.HoldEveryColumn();
    program = lp::LinearProgram();
    pose(program);
    HETSCHED_ASSIGN_OR_RETURN(s, solve());
  }
  if (s.status == lp::SolveStatus::kInfeasible && !slo_rows.empty()) {
    for (const int row : slo_rows) program.SetConstraintBounds(row, -lp::kInfinity, lp::kInfinity);
    with_slos = false;
    HETSCHED_ASSIGN_OR_RETURN(s, solve());
    out.note = "SLOs infeasible: solved without them";
  }
  out.status = s.status;
  if (s.status != lp::SolveStatus::kOptimal) return out;
  out.objective = s.objective;
  ReadPackedShares(s.values, 0, problem, layout, &out);
  if (memory != nullptr) memory->Remember(problem, layout, s.values, 0);
  return out;
}

}  // namespace hetsched::gavel
