// Gavel's space-sharing ("packed") allocation policies (packed.h): the packed LP's share variables
// and the solve functions of max_min_fairness_packed, finish_time_fairness_packed,
// min_total_duration_packed and fifo_packed (water filling's is in water_filling.cc, beside the
// machinery it shares with the non-packed one). Formulations: docs/space_sharing.md.
#include "hetsched/policies/gavel/packed.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "hetsched/policies/gavel/packed_columns.h"

namespace hetsched::gavel {

namespace {

double RateOn(std::span<const double> t, size_t k) { return k < t.size() ? t[k] : 0.0; }

std::pair<size_t, size_t> Unordered(size_t a, size_t b) { return {std::min(a, b), std::max(a, b)}; }

// A 48-bit mix of a pair's two job ids (the key of its columns; a collision only costs a warm
// start's match).
JobId PairKeyId(JobId a, JobId b) {
  uint64_t h = static_cast<uint64_t>(a) * 0x9E3779B97F4A7C15ull;
  h ^= static_cast<uint64_t>(b) + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return static_cast<JobId>(h & ((uint64_t{1} << 48) - 1));
}

// Job i's effective throughput at the LP's values (columns from `first`).
double RowRate(const PackedLayout& layout, size_t r, const std::vector<double>& values, int first) {
  double e = 0;
  for (const auto& [c, t] : layout.terms[r]) {
    e += t * std::clamp(values[static_cast<size_t>(first + c)], 0.0, 1.0);
  }
  return e;
}

}  // namespace

PackedLayout MakePackedLayout(const AllocationProblem& problem, Allocation* allocation, bool with_pairs) {
  const size_t types = problem.capacity.size();
  const size_t n = problem.jobs.size();
  PackedLayout layout;
  layout.row_of.assign(n, -1);
  for (size_t j = 0; j < n; ++j) {
    if (!Placeable(problem, j)) {
      if (allocation != nullptr) allocation->unplaceable.push_back(problem.jobs[j].id);
      continue;
    }
    layout.row_of[j] = static_cast<int>(layout.job_of.size());
    layout.job_of.push_back(j);
  }
  const size_t rows = layout.job_of.size();
  layout.single.assign(rows, std::vector<int>(types, -1));
  layout.terms.resize(rows);
  for (size_t r = 0; r < rows; ++r) {
    const AllocationJob& job = problem.jobs[layout.job_of[r]];
    for (size_t k = 0; k < types; ++k) {
      const double t = RateOn(job.throughput, k);
      if (!(t > 0) || job.num_gpus > problem.capacity[k]) continue;
      const int c = static_cast<int>(layout.columns.size());
      layout.columns.push_back({-1, static_cast<int>(r), k, job.num_gpus});
      layout.single[r][k] = c;
      layout.terms[r].emplace_back(c, t);
    }
  }
  if (!with_pairs) return layout;
  ForEachPairColumn(problem, layout.row_of, [&](const PairColumn& pc) {
    const int c = static_cast<int>(layout.columns.size());
    layout.columns.push_back({static_cast<int>(pc.pair), -1, pc.type, pc.gpus});
    layout.terms[static_cast<size_t>(pc.row_a)].emplace_back(c, pc.t_a);
    layout.terms[static_cast<size_t>(pc.row_b)].emplace_back(c, pc.t_b);
  });
  return layout;
}

int AddPackedShares(lp::LinearProgram& program, const AllocationProblem& problem, const PackedLayout& layout,
                    bool keyed) {
  const int first = program.num_variables();
  for (const PackedLayout::Column& col : layout.columns) {
    const int v = program.AddVariable(0, 1, 0);
    if (!keyed) continue;
    if (col.pair < 0) {
      program.SetVariableKey(v, JobKey(KeyKind::kShare, problem.jobs[layout.job_of[static_cast<size_t>(col.row)]].id,
                                       col.type));
    } else {
      const AllocationPair& pair = problem.pairs[static_cast<size_t>(col.pair)];
      program.SetVariableKey(v, JobKey(KeyKind::kPairShare, PairKeyId(problem.jobs[pair.a].id, problem.jobs[pair.b].id),
                                       col.type));
    }
  }
  std::vector<std::pair<int, double>> terms;
  for (size_t r = 0; r < layout.rows(); ++r) {
    terms.clear();
    for (const auto& [c, t] : layout.terms[r]) terms.emplace_back(first + c, 1.0);
    if (terms.empty()) continue;
    const int row = program.AddConstraint(terms, -lp::kInfinity, 1.0);
    if (keyed) program.SetConstraintKey(row, JobKey(KeyKind::kTime, problem.jobs[layout.job_of[r]].id));
  }
  for (size_t k = 0; k < problem.capacity.size(); ++k) {
    terms.clear();
    for (size_t c = 0; c < layout.columns.size(); ++c) {
      if (layout.columns[c].type == k) terms.emplace_back(first + static_cast<int>(c), layout.columns[c].gpus);
    }
    if (terms.empty()) continue;
    const int row = program.AddConstraint(terms, -lp::kInfinity, problem.capacity[k]);
    if (keyed) program.SetConstraintKey(row, JobKey(KeyKind::kCapacity, 0, k));
  }
  return first;
}

void ReadPackedShares(const std::vector<double>& values, int first, const AllocationProblem& problem,
                      const PackedLayout& layout, Allocation* allocation) {
  (void)problem;
  for (size_t c = 0; c < layout.columns.size(); ++c) {
    const PackedLayout::Column& col = layout.columns[c];
    const double v = std::clamp(values[static_cast<size_t>(first) + c], 0.0, 1.0);
    if (col.pair < 0) {
      allocation->share[layout.job_of[static_cast<size_t>(col.row)]][col.type] = v;
    } else {
      allocation->pair_share[static_cast<size_t>(col.pair)][col.type] = v;
    }
  }
}

double PackedEffectiveThroughput(const AllocationProblem& problem, const Allocation& allocation, size_t j) {
  double e = EffectiveThroughput(problem.jobs[j], allocation.share[j]);
  for (size_t p = 0; p < problem.pairs.size() && p < allocation.pair_share.size(); ++p) {
    const AllocationPair& pair = problem.pairs[p];
    if (pair.a != j && pair.b != j) continue;
    const std::span<const double> t = pair.a == j ? pair.throughput_a : pair.throughput_b;
    const std::span<const double> x = allocation.pair_share[p];
    for (size_t k = 0; k < x.size(); ++k) e += RateOn(t, k) * x[k];
  }
  return e;
}

double PackedTimeShare(const AllocationProblem& problem, const Allocation& allocation, size_t j) {
  double s = std::accumulate(allocation.share[j].begin(), allocation.share[j].end(), 0.0);
  for (size_t p = 0; p < problem.pairs.size() && p < allocation.pair_share.size(); ++p) {
    if (problem.pairs[p].a != j && problem.pairs[p].b != j) continue;
    const std::span<const double> x = allocation.pair_share[p];
    s += std::accumulate(x.begin(), x.end(), 0.0);
  }
  return s;
}

// ---- max_min_fairness_packed ----

Result<Allocation> SolveMaxMinFairnessPacked(const AllocationProblem& problem, const MaxMinPackedOptions& options,
                                             lp::WarmStartLpSolver& solver, PairColumnMemory* memory) {
  Allocation out = ZeroAllocation(problem);
  PackedColumnSet columns(problem, &out, options.columns);
  if (memory != nullptr) columns.HoldRemembered(*memory);
  const PackedLayout& layout = columns.layout();
  if (layout.rows() == 0) return out;
  // (T / w) g_c / P_i (max_min_fairness.py:305-316); every combination of job i has g_c = g_i.
  // Computed as SolveMaxMinFairness computes its proportional coefficients (bit for bit).
  std::vector<double> weight_norm(layout.rows());
  for (size_t r = 0; r < layout.rows(); ++r) {
    const size_t j = layout.job_of[r];
    weight_norm[r] = problem.jobs[j].weight * (ProportionalThroughput(problem, j) / problem.jobs[j].num_gpus);
  }
  // As SolveMaxMinFairness lays its LP out (z, then the shares): without pairs the same program.
  // `phase` 2: z held at `best` (less 1e-7 relative), the sum of the rows' terms maximised.
  int z = 0, first = 0;
  std::vector<int> need_row(layout.rows());
  std::vector<double> second;
  auto pose = [&](lp::LinearProgram& program, int phase, double best) {
    z = program.AddVariable(0, lp::kInfinity, phase == 1 ? 1.0 : 0.0);
    program.SetVariableKey(z, JobKey(KeyKind::kTheta));
    first = AddPackedShares(program, problem, layout, /*keyed=*/true);
    second.assign(static_cast<size_t>(program.num_variables()), 0.0);
    std::vector<std::pair<int, double>> terms;
    for (size_t r = 0; r < layout.rows(); ++r) {
      terms.assign(1, {z, -1.0});
      for (const auto& [c, t] : layout.terms[r]) {
        const double coef = t / weight_norm[r];
        terms.emplace_back(first + c, coef);
        second[static_cast<size_t>(first + c)] += coef;
      }
      need_row[r] = program.AddConstraint(terms, 0.0, lp::kInfinity);
      program.SetConstraintKey(need_row[r], JobKey(KeyKind::kNeed, problem.jobs[layout.job_of[r]].id));
    }
    if (phase == 2) {
      program.SetVariableBounds(z, best - 1e-7 * std::max(1.0, std::abs(best)), lp::kInfinity);
      for (int v = 0; v < program.num_variables(); ++v) program.SetObjective(v, second[static_cast<size_t>(v)]);
    }
    program.SetSense(lp::Sense::kMaximize);
    return 0;
  };
  lp::Solution solution;
  if (options.columns == PairColumns::kAll) {
    lp::LinearProgram program;
    pose(program, 1, 0.0);
    HETSCHED_ASSIGN_OR_RETURN(
        solution,
        SolveEpigraphTwoPhase(program, z, options.second_phase ? second : std::vector<double>{}, solver, &out));
  } else {
    // Per unit of job r's rate, its need row moves by 1 / (w P / g); in the second phase the
    // objective gains as much.
    int phase = 1;
    double best = 0;
    PairColumnPricing pricing;
    pricing.pose = [&](lp::LinearProgram& program) { return pose(program, phase, best); };
    pricing.per_rate = [&](const lp::Solution& s, std::vector<double>* per_rate) {
      for (size_t r = 0; r < layout.rows(); ++r) {
        (*per_rate)[r] = (s.duals[static_cast<size_t>(need_row[r])] - (phase == 2 ? 1.0 : 0.0)) / weight_norm[r];
      }
    };
    HETSCHED_ASSIGN_OR_RETURN(solution, SolvePricingIn(columns, pricing, solver, &out));
    if (solution.status == lp::SolveStatus::kOptimal && options.second_phase) {
      phase = 2;
      best = solution.values[static_cast<size_t>(z)];
      const double objective = best;
      const PackedLayout first_layout = layout;
      HETSCHED_ASSIGN_OR_RETURN(lp::Solution second_solution, SolvePricingIn(columns, pricing, solver, &out));
      if (second_solution.status == lp::SolveStatus::kOptimal) {
        solution = std::move(second_solution);
      } else {
        // Keep the first phase's optimum, over the columns it had.
        out.status = lp::SolveStatus::kOptimal;
        out.objective = objective;
        ReadPackedShares(solution.values, first, problem, first_layout, &out);
        if (memory != nullptr) memory->Remember(problem, first_layout, solution.values, first);
        return out;
      }
    }
  }
  out.status = solution.status;
  if (solution.status != lp::SolveStatus::kOptimal) return out;
  out.objective = solution.values[static_cast<size_t>(z)];
  ReadPackedShares(solution.values, first, problem, layout, &out);
  if (memory != nullptr) memory->Remember(problem, layout, solution.values, first);
  return out;
}

// ---- finish_time_fairness_packed ----

Result<Allocation> SolveFinishTimeFairnessPacked(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                                 const std::vector<double>& isolated_s,
                                                 const FtfPackedOptions& options, PairColumnMemory* memory) {
  if (isolated_s.size() != problem.jobs.size()) {
    return Status::InvalidArgument("finish-time fairness (packed): one isolated time per job expected");
  }
  Allocation out = ZeroAllocation(problem);
  // A job with work left but no isolated time (D_i <= 0) has no finite rho: left out, with every
  // pair it is in (its rates set to 0 in a copy of the problem).
  auto no_rho = [&](size_t j) {
    const double d = isolated_s[j];
    return Placeable(problem, j) && problem.jobs[j].remaining_iterations > 0 && !(d > 0 && std::isfinite(d));
  };
  std::optional<AllocationProblem> kept;
  for (size_t j = 0; j < problem.jobs.size() && !kept; ++j) {
    if (no_rho(j)) kept = problem;
  }
  if (kept) {
    for (size_t j = 0; j < problem.jobs.size(); ++j) {
      if (!Placeable(problem, j)) out.unplaceable.push_back(problem.jobs[j].id);
    }
    for (size_t j = 0; j < problem.jobs.size(); ++j) {
      if (!no_rho(j)) continue;
      out.unplaceable.push_back(problem.jobs[j].id);
      kept->jobs[j].throughput.assign(problem.capacity.size(), 0.0);
    }
  }
  PackedColumnSet columns(kept ? *kept : problem, kept ? nullptr : &out, options.columns);
  if (memory != nullptr) columns.HoldRemembered(*memory);
  const PackedLayout& layout = columns.layout();
  const size_t n = layout.rows();
  if (n == 0) return out;
  // Rates over w (finish_time_fairness.py:137-140); best_r bounds job r's rate (time share <= 1).
  // Over every pair column where they are priced in (the rates of those not posed count too).
  std::vector<double> inv_w(n), best(n, 0.0);
  for (size_t r = 0; r < n; ++r) {
    inv_w[r] = 1.0 / problem.jobs[layout.job_of[r]].weight;
    for (const auto& [c, t] : layout.terms[r]) best[r] = std::max(best[r], t * inv_w[r]);
  }
  const bool priced = !columns.holds_every_column();
  if (priced) {
    ForEachPairColumn(kept ? *kept : problem, layout.row_of, [&](const PairColumn& pc) {
      const size_t a = static_cast<size_t>(pc.row_a), b = static_cast<size_t>(pc.row_b);
      best[a] = std::max(best[a], pc.t_a * inv_w[a]);
      best[b] = std::max(best[b], pc.t_b * inv_w[b]);
    });
  }
  auto active = [&](size_t r) { return problem.jobs[layout.job_of[r]].remaining_iterations > 0; };
  // The need rows' lower bounds at `rho`; false where some job cannot reach it even with its best
  // rate full time.
  std::vector<double> need(n, 0.0);
  auto set_rho = [&](double rho) {
    for (size_t r = 0; r < n; ++r) {
      if (!active(r)) continue;
      const AllocationJob& job = problem.jobs[layout.job_of[r]];
      const double slack_s = rho * isolated_s[layout.job_of[r]] - job.elapsed_s;
      if (slack_s <= 0) return false;
      need[r] = job.remaining_iterations / slack_s / best[r];
      if (need[r] > 1.0 + 1e-12) return false;
    }
    return true;
  };
  // The feasibility LP at the current `need`: max the sum of thr_i^w / best_i (second phase) or 0,
  // s.t. thr_i^w / best_i >= need_i. kPriced: every active row has an elastic slack (>= 0, -1 in the
  // objective; held at most `slack_cap` where given, the second phase then maximising the rates alone).
  std::vector<int> need_row(n, -1), slack(n, -1);
  int first = 0;
  bool elastic = priced, second_phase = options.second_phase && !priced;
  const std::vector<double>* slack_cap = nullptr;
  auto pose = [&](lp::LinearProgram& program) {
    first = AddPackedShares(program, problem, layout, /*keyed=*/true);
    std::vector<std::pair<int, double>> terms;
    for (size_t r = 0; r < n; ++r) {
      terms.clear();
      for (const auto& [c, t] : layout.terms[r]) {
        const double coef = t * inv_w[r] / best[r];
        terms.emplace_back(first + c, coef);
        if (second_phase) {
          program.SetObjective(first + c, program.objective()[static_cast<size_t>(first + c)] + coef);
        }
      }
      slack[r] = -1;
      if (elastic && active(r)) {
        const double cap = slack_cap != nullptr ? (*slack_cap)[r] : lp::kInfinity;
        slack[r] = program.AddVariable(0, cap, slack_cap != nullptr ? 0.0 : -1.0);
        program.SetVariableKey(slack[r], JobKey(KeyKind::kWork, problem.jobs[layout.job_of[r]].id));
        terms.emplace_back(slack[r], 1.0);
      }
      need_row[r] = program.AddConstraint(terms, active(r) ? need[r] : 0.0, lp::kInfinity);
      program.SetConstraintKey(need_row[r], JobKey(KeyKind::kNeed, problem.jobs[layout.job_of[r]].id));
    }
    program.SetSense(lp::Sense::kMaximize);
    return first;
  };
  // Clp's primal feasibility tolerance (1e-7 a row): the slacks so small are the LP's rounding.
  auto slacks_zero = [&](const lp::Solution& s) {
    for (size_t r = 0; r < n; ++r) {
      if (slack[r] >= 0 && s.values[static_cast<size_t>(slack[r])] > 1e-7) return false;
    }
    return true;
  };
  lp::LinearProgram program;
  pose(program);
  auto feasible = [&](double rho, lp::Solution* s) -> Result<bool> {
    if (!set_rho(rho)) return false;
    if (priced) {
      program = lp::LinearProgram();
      pose(program);
    } else {
      for (size_t r = 0; r < n; ++r) {
        if (active(r)) program.SetConstraintBounds(need_row[r], need[r], lp::kInfinity);
      }
    }
    HETSCHED_ASSIGN_OR_RETURN(*s, solver.Solve(program));
    ++out.lp_solves;
    out.simplex_iterations += s->iterations;
    return s->status == lp::SolveStatus::kOptimal && (!priced || slacks_zero(*s));
  };
  double lo = 0;
  bool any = false;
  for (size_t r = 0; r < n; ++r) {
    if (!active(r)) continue;
    any = true;
    const AllocationJob& job = problem.jobs[layout.job_of[r]];
    lo = std::max(lo, (job.elapsed_s + job.remaining_iterations / best[r]) / isolated_s[layout.job_of[r]]);
  }
  const double tolerance = any ? options.tolerance : std::numeric_limits<double>::infinity();
  lp::Solution at_hi;
  double hi = 0;
  HETSCHED_ASSIGN_OR_RETURN(bool found, LeastFeasible(feasible, lo, tolerance, &hi, &at_hi));
  // kPriced: the columns at_hi was solved over, and its slacks (by row).
  PackedLayout at_hi_layout;
  std::vector<double> hi_slack(n, 0.0);
  auto keep_hi = [&] {
    if (!priced || !found) return;
    at_hi_layout = layout;
    for (size_t r = 0; r < n; ++r) {
      hi_slack[r] = slack[r] >= 0 ? std::max(0.0, at_hi.values[static_cast<size_t>(slack[r])]) : 0.0;
    }
  };
  keep_hi();
  // kPriced: is the LP over every column feasible just below the bracket? Pricing the elastic LP
  // there either makes it feasible (the bisection runs again over the columns so grown) or proves
  // it is not (the bracket stands: hi is within the tolerance of the least feasible rho).
  while (priced && found && any && set_rho(hi * (1 - tolerance))) {
    PairColumnPricing pricing;
    pricing.pose = pose;
    pricing.per_rate = [&](const lp::Solution& s, std::vector<double>* per_rate) {
      for (size_t r = 0; r < n; ++r) {
        (*per_rate)[r] = s.duals[static_cast<size_t>(need_row[r])] * inv_w[r] / best[r];
      }
    };
    pricing.enough = slacks_zero;
    const size_t held = layout.columns.size();
    HETSCHED_ASSIGN_OR_RETURN(const lp::Solution below, SolvePricingIn(columns, pricing, solver, &out));
    if (below.status != lp::SolveStatus::kOptimal || !slacks_zero(below) || layout.columns.size() == held) break;
    HETSCHED_ASSIGN_OR_RETURN(found, LeastFeasible(feasible, lo, tolerance, &hi, &at_hi));
    keep_hi();
  }
  if (!found) {
    out.status = lp::SolveStatus::kInfeasible;
    return out;
  }
  const PackedLayout& hi_layout = priced ? at_hi_layout : layout;
  if (priced && options.second_phase && set_rho(hi)) {
    // The rates at hi maximised, each slack held at most where it was.
    slack_cap = &hi_slack;
    second_phase = true;
    PairColumnPricing pricing;
    pricing.pose = pose;
    pricing.per_rate = [&](const lp::Solution& s, std::vector<double>* per_rate) {
      for (size_t r = 0; r < n; ++r) {
        (*per_rate)[r] = (s.duals[static_cast<size_t>(need_row[r])] - 1.0) * inv_w[r] / best[r];
      }
    };
    HETSCHED_ASSIGN_OR_RETURN(lp::Solution rates, SolvePricingIn(columns, pricing, solver, &out));
    if (rates.status == lp::SolveStatus::kOptimal) {
      at_hi = std::move(rates);
      at_hi_layout = layout;
    }
  }
  ReadPackedShares(at_hi.values, first, problem, hi_layout, &out);
  if (memory != nullptr) memory->Remember(kept ? *kept : problem, hi_layout, at_hi.values, first);
  // The objective at the allocation returned: max_i rho_i (<= hi).
  double worst = 0;
  for (size_t r = 0; r < n; ++r) {
    if (!active(r)) continue;
    const AllocationJob& job = problem.jobs[layout.job_of[r]];
    const double rate = RowRate(hi_layout, r, at_hi.values, first) * inv_w[r];
    worst = std::max(worst, rate > 0 ? (job.elapsed_s + job.remaining_iterations / rate) / isolated_s[layout.job_of[r]]
                                     : std::numeric_limits<double>::infinity());
  }
  out.objective = worst;
  return out;
}

// ---- min_total_duration_packed ----

Result<Allocation> SolveMinTotalDurationPacked(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                               SharePoint point, PairColumns pair_columns, PairColumnMemory* memory) {
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
  // kAll: feasibility at theta's fixed value; kPriced: max theta <= 3600 / 100 s (the search's
  // horizons are longer).
  auto pose = [&](lp::LinearProgram& program) {
    theta = program.AddVariable(0, priced ? kThetaUnit / 100 : lp::kInfinity, priced ? 1.0 : 0.0);
    program.SetVariableKey(theta, JobKey(KeyKind::kTheta));
    first = AddPackedShares(program, problem, layout, /*keyed=*/true);
    std::vector<std::pair<int, double>> terms;
    for (size_t r = 0; r < layout.rows(); ++r) {
      const AllocationJob& job = problem.jobs[layout.job_of[r]];
      if (!(job.remaining_iterations > 0)) continue;  // nothing to finish: always met
      terms.assign(1, {theta, -1.0});
      for (const auto& [c, t] : layout.terms[r]) {
        terms.emplace_back(first + c, kThetaUnit * t / job.remaining_iterations);
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
  ReadPackedShares(last_feasible.values, first, problem, layout, &out);
  if (memory != nullptr) memory->Remember(problem, layout, last_feasible.values, first);
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

// ---- fifo_packed ----

Allocation SolveFifoPacked(const AllocationProblem& problem, const FifoPackedOptions& options) {
  const size_t types = problem.capacity.size();
  const size_t n = problem.jobs.size();
  Allocation out = ZeroAllocation(problem);
  for (size_t j = 0; j < n; ++j) {
    if (!Placeable(problem, j)) out.unplaceable.push_back(problem.jobs[j].id);
  }
  if (n == 0 || types == 0) return out;
  std::vector<size_t> queue(n);  // arrival order = job id order (fifo.py:88-90)
  std::iota(queue.begin(), queue.end(), size_t{0});
  std::stable_sort(queue.begin(), queue.end(),
                   [&](size_t a, size_t b) { return problem.jobs[a].id < problem.jobs[b].id; });
  const std::vector<size_t> by_name = TypesByName(problem);
  std::vector<int> available = problem.capacity;
  auto any_free = [&] {
    for (int a : available) {
      if (a > 0) return true;
    }
    return false;
  };
  // Allocated singles in allocation order (fifo.py's dict order), -1 once packed.
  std::vector<std::pair<size_t, size_t>> allocated;  // (job, type)
  size_t next = 0;
  while (next < queue.size() && any_free()) {  // fifo.py:129-165
    const size_t j = queue[next++];
    const AllocationJob& job = problem.jobs[j];
    double best = -1;
    std::optional<size_t> type;
    for (size_t k : by_name) {
      if (available[k] <= 0 || available[k] < job.num_gpus) continue;
      const double t = RateOn(job.throughput, k);
      if (t > best) {
        best = t;
        type = k;
      }
    }
    if (!type) break;  // the head fits nowhere: lost for this call (fifo.py:141-142)
    if (!(best > 0)) continue;  // passed over (fifo.py:157)
    available[*type] -= job.num_gpus;
    allocated.emplace_back(j, *type);
    out.share[j][*type] = 1.0;
  }
  if (next >= queue.size() || allocated.empty()) return out;
  // _pack (fifo.py:23-71): the rest of the queue, in order, while each head finds a partner. The
  // pair of an allocated single and another job: the first of problem.pairs with the two, found
  // through per-job lists of the pairs with an allocated single (one pass over the pairs, not a
  // table of all O(jobs^2) of them).
  std::vector<int> allocated_at(n, -1);  // job -> index into allocated
  for (size_t i = 0; i < allocated.size(); ++i) allocated_at[allocated[i].first] = static_cast<int>(i);
  std::vector<std::vector<std::pair<int, size_t>>> with_allocated(n);  // job -> (allocated index, pair)
  for (size_t p = 0; p < problem.pairs.size(); ++p) {
    const std::pair<size_t, size_t> key = Unordered(problem.pairs[p].a, problem.pairs[p].b);
    if (key.first == key.second || key.second >= n) continue;
    if (allocated_at[key.first] >= 0) with_allocated[key.second].emplace_back(allocated_at[key.first], p);
    if (allocated_at[key.second] >= 0) with_allocated[key.first].emplace_back(allocated_at[key.second], p);
  }
  std::vector<long> pair_with(allocated.size(), -1);  // the head's pair with each allocated single
  std::vector<bool> in_pair(n, false);
  for (; next < queue.size(); ++next) {
    const size_t h = queue[next];
    for (const auto& [i, p] : with_allocated[h]) {
      if (pair_with[static_cast<size_t>(i)] < 0) pair_with[static_cast<size_t>(i)] = static_cast<long>(p);
    }
    double best_gain = options.threshold;
    std::optional<size_t> partner;  // index into allocated
    for (size_t i = 0; i < allocated.size(); ++i) {
      const auto [s, k] = allocated[i];
      if (in_pair[s] || problem.jobs[s].num_gpus != problem.jobs[h].num_gpus) continue;
      if (pair_with[i] < 0) continue;
      const AllocationPair& pair = problem.pairs[static_cast<size_t>(pair_with[i])];
      const double ts = RateOn(pair.a == s ? pair.throughput_a : pair.throughput_b, k);
      const double th = RateOn(pair.a == h ? pair.throughput_a : pair.throughput_b, k);
      if (!(ts > 0) || !(th > 0)) continue;  // a pair its mechanism never runs [REC]
      const double is = RateOn(problem.jobs[s].throughput, k), ih = RateOn(problem.jobs[h].throughput, k);
      const double gain = ts / is + (ih > 0 ? th / ih : 0.0);  // s runs on k alone: is > 0
      if (gain > best_gain) {
        best_gain = gain;
        partner = i;
      }
    }
    if (!partner) break;  // nobody jumps the queue
    const auto [s, k] = allocated[*partner];
    out.share[s][k] = 0.0;
    in_pair[s] = in_pair[h] = true;
    out.pair_share[static_cast<size_t>(pair_with[*partner])][k] = 1.0;
    for (const auto& [i, p] : with_allocated[h]) pair_with[static_cast<size_t>(i)] = -1;
  }
  return out;
}

}  // namespace hetsched::gavel
