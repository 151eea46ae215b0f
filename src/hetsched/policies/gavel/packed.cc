// Gavel's space-sharing ("packed") allocation policies (packed.h): the packed LP's share variables
// and the solve functions of max_min_fairness_packed and finish_time_fairness_packed
// (min_total_duration_packed and the cost one are in packed_duration_cost.cc, fifo_packed in
// packed_fifo.cc, water filling's in water_filling.cc, beside the machinery it shares with the
// non-packed one). Formulations: docs/space_sharing.md.
#include "hetsched/policies/gavel/packed.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <utility>

#include "hetsched/policies/gavel/packed_columns.h"

namespace hetsched::gavel {

namespace {

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
      const double t = ThroughputOn(job.throughput, k);
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
    for (size_t k = 0; k < x.size(); ++k) e += ThroughputOn(t, k) * x[k];
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
    pricing.first_algorithm = kPricedWarmAlgorithm;
    pricing.pose = [&](lp::LinearProgram& program) { return pose(program, phase, best); };
    pricing.per_rate = [&](const lp::Solution& s, std::vector<double>* per_rate) {
      for (size_t r = 0; r < layout.rows(); ++r) {
        (*per_rate)[r] = (s.duals[static_cast<size_t>(need_row[r])] - (phase == 2 ? 1.0 : 0.0)) / weight_norm[r];
      }
    };
    HETSCHED_ASSIGN_OR_RETURN(solution, SolvePricingIn(columns, pricing, solver, &out));
    if (solution.status == lp::SolveStatus::kOptimal && options.second_phase) {
      if (!options.second_phase_priced) pricing.enough = [](const lp::Solution&) { return true; };
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
  // kPriced: the number of columns `program` was posed over; over the same columns a step of the
  // search moves its need rows' bounds alone (the program so changed is the one pose would build).
  size_t posed_columns = layout.columns.size();
  auto feasible = [&](double rho, lp::Solution* s) -> Result<bool> {
    if (!set_rho(rho)) return false;
    if (priced && layout.columns.size() != posed_columns) {
      program = lp::LinearProgram();
      pose(program);
      posed_columns = layout.columns.size();
    } else {
      for (size_t r = 0; r < n; ++r) {
        if (active(r)) program.SetConstraintBounds(need_row[r], need[r], lp::kInfinity);
      }
    }
    // The dual simplex from the last step's basis. Measured and not kept (session 48): the primal
    // for the steps of kPriced's elastic LP (which has a point at every rho) took the overloaded
    // 1,928 jobs of msr 6214e9 at 8:8:8 from 113.9 to 86.2 s under `--compat gavel --policy-opt
    // columns=priced` (55.4 -> 40.5 s in the default mode), but the point it returns at the least
    // rho moved the 100-job g1s6c71a0's average JCT by +4% to +22% (docs/PERFORMANCE.md, "A reset's
    // first solve").
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
  // kPriced: the elastic LP's least total slack S(rho) is convex and nonincreasing in rho (the need
  // rows' bounds are, and the optimum is convex and nondecreasing in them), so the least feasible
  // rho over the columns held is found by Newton's steps from below (LeastFeasibleConvex): S' =
  // sum_r y_r dneed_r/drho, y_r >= 0 the need row's dual (the slack's growth per unit of need),
  // dneed_r/drho = -need_r D_r / (rho D_r - elapsed_r). A few solves where the bisection takes ~20,
  // each from a nearby rho's basis (docs/PERFORMANCE.md, "Finish-time packed's search").
  // kPriced: the columns at_hi was solved over, and its slacks (by row).
  PackedLayout at_hi_layout;
  std::vector<double> hi_slack(n, 0.0);
  auto keep_feasible = [&](const lp::Solution& s) {
    at_hi_layout = layout;
    for (size_t r = 0; r < n; ++r) {
      hi_slack[r] = slack[r] >= 0 ? std::max(0.0, s.values[static_cast<size_t>(slack[r])]) : 0.0;
    }
  };
  auto elastic_at = [&](double rho, lp::Solution* s) -> Result<ElasticAnswer> {
    ElasticAnswer answer;
    HETSCHED_ASSIGN_OR_RETURN(answer.feasible, feasible(rho, s));
    if (answer.feasible) keep_feasible(*s);
    // Infeasible without a solve (a need above 1 at this rho: set_rho), or no optimum: no slope.
    if (answer.feasible || s->status != lp::SolveStatus::kOptimal || s->values.empty()) return answer;
    for (size_t r = 0; r < n; ++r) {
      if (slack[r] < 0) continue;
      answer.violation += std::max(0.0, s->values[static_cast<size_t>(slack[r])]);
      const size_t j = layout.job_of[r];
      const double y = std::max(0.0, -s->duals[static_cast<size_t>(need_row[r])]);
      answer.slope -= y * need[r] * isolated_s[j] / (rho * isolated_s[j] - problem.jobs[j].elapsed_s);
    }
    return answer;
  };
  lp::Solution at_hi;
  double hi = 0;
  bool found = false;
  if (priced) {
    HETSCHED_ASSIGN_OR_RETURN(found, LeastFeasibleConvex(elastic_at, lo, tolerance, 0.0, &hi, &at_hi));
  } else {
    HETSCHED_ASSIGN_OR_RETURN(found, LeastFeasible(feasible, lo, tolerance, &hi, &at_hi));
  }
  // kPriced: is the LP over every column feasible just below the bracket? Pricing the elastic LP
  // there either makes it feasible (the search runs again over the columns so grown) or proves
  // it is not (the bracket stands: hi is within the tolerance of the least feasible rho).
  // Each round ends below the last hi by the tolerance at least; the cap only guards a solver whose
  // tolerances would let the program stay feasible just below every hi it returns.
  for (int round = 0; round < 64 && priced && found && any && set_rho(hi * (1 - tolerance)); ++round) {
    PairColumnPricing pricing;
    pricing.pose = pose;
    pricing.per_rate = [&](const lp::Solution& s, std::vector<double>* per_rate) {
      for (size_t r = 0; r < n; ++r) {
        (*per_rate)[r] = s.duals[static_cast<size_t>(need_row[r])] * inv_w[r] / best[r];
      }
    };
    pricing.enough = slacks_zero;
    HETSCHED_ASSIGN_OR_RETURN(lp::Solution below, SolvePricingIn(columns, pricing, solver, &out));
    if (below.status != lp::SolveStatus::kOptimal || !slacks_zero(below)) break;
    // The search again, from below the point `below` found feasible (over the columns so grown, or
    // over the same ones: the search's lower end is a tangent's root, not a point found
    // infeasible, and the program may be feasible there to Clp's tolerance).
    keep_feasible(below);
    at_hi = std::move(below);
    HETSCHED_ASSIGN_OR_RETURN(found, LeastFeasibleConvex(elastic_at, lo, tolerance, hi * (1 - tolerance), &hi, &at_hi));
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

}  // namespace hetsched::gavel
