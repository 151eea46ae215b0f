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
        SolveEpigraphTwoPhase(program, z,
                              options.second_phase != PackedSecondPhase::kOff ? second : std::vector<double>{},
                              solver, &out));
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
    if (solution.status == lp::SolveStatus::kOptimal && options.second_phase != PackedSecondPhase::kOff) {
      if (options.second_phase == PackedSecondPhase::kHeld) pricing.enough = [](const lp::Solution&) { return true; };
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

// kPriced's tangent steps at most (each a priced LP): a guard; the overloaded 1,928 jobs of msr
// 6214e9 at 8:8:8 took at most 6 a reset (2.3 on average under `--compat gavel`, 1.6 in the
// default mode, where the last reset's rho is nearer).
constexpr int kMaxTangentSteps = 50;

Result<Allocation> SolveFinishTimeFairnessPacked(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                                 const std::vector<double>& isolated_s,
                                                 const FtfPackedOptions& options, PairColumnMemory* memory,
                                                 double* last_rho) {
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
  // The least rho any allocation could reach: where some job needs its best rate full time.
  double lo = 0;
  bool any = false;
  for (size_t r = 0; r < n; ++r) {
    if (!active(r)) continue;
    any = true;
    const AllocationJob& job = problem.jobs[layout.job_of[r]];
    lo = std::max(lo, (job.elapsed_s + job.remaining_iterations / best[r]) / isolated_s[layout.job_of[r]]);
  }
  // Row r's need at `rho`: the share of its best rate job r must reach for rho_r <= rho,
  // g_r(rho) = remaining_r / (best_r (rho D_r - elapsed_r)), convex and decreasing in rho.
  auto need_at = [&](size_t r, double rho, double* slope) {
    const AllocationJob& job = problem.jobs[layout.job_of[r]];
    const double d = isolated_s[layout.job_of[r]];
    const double slack_s = rho * d - job.elapsed_s;
    const double g = job.remaining_iterations / slack_s / best[r];
    if (slope != nullptr) *slope = -g * d / slack_s;
    return g;
  };
  // The need rows' lower bounds at `rho`; false where some job cannot reach it even with its best
  // rate full time.
  std::vector<double> need(n, 0.0);
  auto set_rho = [&](double rho) {
    for (size_t r = 0; r < n; ++r) {
      if (!active(r)) continue;
      const AllocationJob& job = problem.jobs[layout.job_of[r]];
      if (rho * isolated_s[layout.job_of[r]] - job.elapsed_s <= 0) return false;
      need[r] = need_at(r, rho, nullptr);
      if (need[r] > 1.0 + 1e-12) return false;
    }
    return true;
  };
  // The feasibility LP at `need`: max the sum of thr_i^w / best_i (second phase) or 0, s.t.
  // thr_i^w / best_i >= need_i. With `rho_var`, the need rows are tangents instead (below).
  std::vector<int> need_row(n, -1);
  int first = 0, rho_var = -1;
  // Every feasibility LP maximises the rates: kPriced over every column.
  bool second_phase = options.second_phase == PackedSecondPhase::kPriced && !priced, tangents = priced;
  std::vector<double> tangent_slope(n, 0.0), tangent_bound(n, 0.0);
  double rho_floor = lo;
  auto pose = [&](lp::LinearProgram& program) {
    first = AddPackedShares(program, problem, layout, /*keyed=*/true);
    rho_var = -1;
    if (tangents) {
      rho_var = program.AddVariable(rho_floor, lp::kInfinity, -1.0);
      program.SetVariableKey(rho_var, JobKey(KeyKind::kTheta));
    }
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
      double bound = active(r) ? need[r] : 0.0;
      if (tangents && active(r)) {
        terms.emplace_back(rho_var, -tangent_slope[r]);
        bound = tangent_bound[r];
      }
      need_row[r] = program.AddConstraint(terms, bound, lp::kInfinity);
      program.SetConstraintKey(need_row[r], JobKey(KeyKind::kNeed, problem.jobs[layout.job_of[r]].id));
    }
    program.SetSense(lp::Sense::kMaximize);
    return first;
  };
  // max_i rho_i at the allocation `values` over `lay`: what it reaches.
  auto reached = [&](const PackedLayout& lay, const std::vector<double>& values) {
    double worst = 0;
    for (size_t r = 0; r < n; ++r) {
      if (!active(r)) continue;
      const AllocationJob& job = problem.jobs[layout.job_of[r]];
      const double rate = RowRate(lay, r, values, first) * inv_w[r];
      worst = std::max(worst, rate > 0 ? (job.elapsed_s + job.remaining_iterations / rate) / isolated_s[layout.job_of[r]]
                                       : std::numeric_limits<double>::infinity());
    }
    return worst;
  };
  lp::Solution at_hi;
  double hi = 0;
  PackedLayout at_hi_layout;  // kPriced: the columns at_hi was solved over (the pricing grows them)
  if (!priced) {
    lp::LinearProgram program;
    pose(program);
    // Each step of the search moves the need rows' bounds alone: the dual simplex from the last
    // step's basis.
    auto feasible = [&](double rho, lp::Solution* s) -> Result<bool> {
      if (!set_rho(rho)) return false;
      for (size_t r = 0; r < n; ++r) {
        if (active(r)) program.SetConstraintBounds(need_row[r], need[r], lp::kInfinity);
      }
      HETSCHED_ASSIGN_OR_RETURN(*s, solver.Solve(program));
      ++out.lp_solves;
      out.simplex_iterations += s->iterations;
      return s->status == lp::SolveStatus::kOptimal;
    };
    const double tolerance = any ? options.tolerance : std::numeric_limits<double>::infinity();
    HETSCHED_ASSIGN_OR_RETURN(const bool found, LeastFeasible(feasible, lo, tolerance, &hi, &at_hi));
    if (!found) {
      out.status = lp::SolveStatus::kInfeasible;
      return out;
    }
  } else {
    // kPriced [REC]: the least rho by tangent cuts (Kelley's method on a convex program). The set
    // {(x, rho): thr_r(x) / best_r >= g_r(rho)} is convex (g_r convex), and each g_r lies above its
    // tangents, so the LP "min rho s.t. thr_r(x) / best_r >= g_r's tangent at rho_k", rho >= the
    // last such optimum, priced over every pair column, bounds the least rho from below; the
    // allocation it returns reaches some rho (`reached`) from above. The next tangents are taken
    // at the new lower bound: Newton's step on the whole program, not on one slack. It ends where
    // the two meet within the tolerance, or where a step no longer raises the bound (the LP's own
    // tolerance: the allocation is then within it of its rows).
    PairColumnPricing pricing;
    pricing.pose = pose;
    pricing.per_rate = [&](const lp::Solution& s, std::vector<double>* per_rate) {
      for (size_t r = 0; r < n; ++r) {
        (*per_rate)[r] = s.duals[static_cast<size_t>(need_row[r])] * inv_w[r] / best[r];
      }
    };
    hi = std::numeric_limits<double>::infinity();
    for (int step = 0; step < kMaxTangentSteps; ++step) {
      // The first tangents at the last solve's least rho where every job can reach it (a tangent
      // anywhere lies below its g_r: the LP's optimum still bounds rho from below); rho changes
      // little from one reset to the next, and from there the first step lands near it.
      const double at = step == 0 && last_rho != nullptr && *last_rho > rho_floor && set_rho(*last_rho) ? *last_rho
                                                                                                      : rho_floor;
      for (size_t r = 0; r < n; ++r) {
        if (!active(r)) continue;
        const double g = need_at(r, at, &tangent_slope[r]);
        tangent_bound[r] = g - tangent_slope[r] * at;
      }
      // The first from another reset's basis (kPricedWarmAlgorithm); each next one from the last
      // step's, whose point the new tangents cut off: the dual simplex.
      pricing.first_algorithm = step == 0 ? kPricedWarmAlgorithm : lp::WarmAlgorithm::kDual;
      HETSCHED_ASSIGN_OR_RETURN(lp::Solution s, SolvePricingIn(columns, pricing, solver, &out));
      if (s.status != lp::SolveStatus::kOptimal) break;
      const double bound = std::max(rho_floor, s.values[static_cast<size_t>(rho_var)]);
      const double rho = reached(layout, s.values);
      if (rho < hi) {
        hi = rho;
        at_hi = std::move(s);
        at_hi_layout = layout;
      }
      // No progress from tangents at the bound itself: the LP's tolerance (from tangents elsewhere,
      // the last solve's rho, the next step takes them at the bound).
      const bool stalled = at == rho_floor && !(bound > rho_floor * (1 + 0.5 * options.tolerance));
      rho_floor = bound;
      if (hi <= rho_floor * (1 + options.tolerance) || stalled) break;
    }
    if (!std::isfinite(hi)) {
      out.status = lp::SolveStatus::kInfeasible;
      return out;
    }
    if (last_rho != nullptr) *last_rho = hi;
  }
  // The second phase at hi, after the search: the rates maximised over the columns held (held:
  // one solve) or priced in (kPriced, true). From the search's basis by the primal simplex (its
  // point at hi meets the rows).
  const bool after = priced ? options.second_phase != PackedSecondPhase::kOff
                            : options.second_phase == PackedSecondPhase::kHeld;
  if (after && set_rho(hi)) {
    tangents = false;
    second_phase = true;
    PairColumnPricing rates;
    rates.pose = pose;
    rates.per_rate = [&](const lp::Solution& s, std::vector<double>* per_rate) {
      for (size_t r = 0; r < n; ++r) {
        (*per_rate)[r] = (s.duals[static_cast<size_t>(need_row[r])] - 1.0) * inv_w[r] / best[r];
      }
    };
    if (options.second_phase == PackedSecondPhase::kHeld) rates.enough = [](const lp::Solution&) { return true; };
    rates.first_algorithm = lp::WarmAlgorithm::kPrimal;
    HETSCHED_ASSIGN_OR_RETURN(lp::Solution best_rates, SolvePricingIn(columns, rates, solver, &out));
    if (best_rates.status == lp::SolveStatus::kOptimal) {
      at_hi = std::move(best_rates);
      at_hi_layout = layout;
    }
  }
  const PackedLayout& hi_layout = priced ? at_hi_layout : layout;
  ReadPackedShares(at_hi.values, first, problem, hi_layout, &out);
  if (memory != nullptr) memory->Remember(kept ? *kept : problem, hi_layout, at_hi.values, first);
  // The objective at the allocation returned: max_i rho_i (<= hi).
  out.objective = reached(hi_layout, at_hi.values);
  return out;
}

}  // namespace hetsched::gavel
