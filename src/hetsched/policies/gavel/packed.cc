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
  layout.pair.assign(problem.pairs.size(), std::vector<int>(types, -1));
  if (!with_pairs) return layout;
  for (size_t p = 0; p < problem.pairs.size(); ++p) {
    const AllocationPair& pair = problem.pairs[p];
    if (pair.a >= n || pair.b >= n || pair.a == pair.b) continue;
    const int ra = layout.row_of[pair.a], rb = layout.row_of[pair.b];
    if (ra < 0 || rb < 0) continue;
    const int g = problem.jobs[pair.a].num_gpus;
    if (problem.jobs[pair.b].num_gpus != g) continue;  // Gavel never pairs different GPU counts
    for (size_t k = 0; k < types; ++k) {
      const double ta = RateOn(pair.throughput_a, k), tb = RateOn(pair.throughput_b, k);
      if (!(ta > 0) || !(tb > 0) || g > problem.capacity[k]) continue;
      const int c = static_cast<int>(layout.columns.size());
      layout.columns.push_back({static_cast<int>(p), -1, k, g});
      layout.pair[p][k] = c;
      layout.terms[static_cast<size_t>(ra)].emplace_back(c, ta);
      layout.terms[static_cast<size_t>(rb)].emplace_back(c, tb);
    }
  }
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
                                             lp::WarmStartLpSolver& solver) {
  Allocation out = ZeroAllocation(problem);
  const PackedLayout layout = MakePackedLayout(problem, &out);
  if (layout.rows() == 0) return out;
  lp::LinearProgram program;
  // As SolveMaxMinFairness lays its LP out (z, then the shares): without pairs the same program.
  const int z = program.AddVariable(0, lp::kInfinity, 1.0);
  program.SetVariableKey(z, JobKey(KeyKind::kTheta));
  const int first = AddPackedShares(program, problem, layout, /*keyed=*/true);
  std::vector<double> second(static_cast<size_t>(program.num_variables()), 0.0);
  std::vector<std::pair<int, double>> terms;
  for (size_t r = 0; r < layout.rows(); ++r) {
    const size_t j = layout.job_of[r];
    const AllocationJob& job = problem.jobs[j];
    // (T / w) g_c / P_i (max_min_fairness.py:305-316); every combination of job i has g_c = g_i.
    // Computed as SolveMaxMinFairness computes its proportional coefficients (bit for bit).
    const double norm = ProportionalThroughput(problem, j) / job.num_gpus;
    terms.assign(1, {z, -1.0});
    for (const auto& [c, t] : layout.terms[r]) {
      const double coef = t / (job.weight * norm);
      terms.emplace_back(first + c, coef);
      second[static_cast<size_t>(first + c)] += coef;
    }
    const int row = program.AddConstraint(terms, 0.0, lp::kInfinity);
    program.SetConstraintKey(row, JobKey(KeyKind::kNeed, job.id));
  }
  HETSCHED_ASSIGN_OR_RETURN(const lp::Solution solution,
                            SolveEpigraphTwoPhase(program, z, options.second_phase ? second : std::vector<double>{},
                                                  solver, &out));
  out.status = solution.status;
  if (solution.status != lp::SolveStatus::kOptimal) return out;
  out.objective = solution.values[static_cast<size_t>(z)];
  ReadPackedShares(solution.values, first, problem, layout, &out);
  return out;
}

// ---- finish_time_fairness_packed ----

Result<Allocation> SolveFinishTimeFairnessPacked(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                                 const std::vector<double>& isolated_s,
                                                 const FtfPackedOptions& options) {
  if (isolated_s.size() != problem.jobs.size()) {
    return Status::InvalidArgument("finish-time fairness (packed): one isolated time per job expected");
  }
  Allocation out = ZeroAllocation(problem);
  PackedLayout layout = MakePackedLayout(problem, &out);
  // A job with work left but no isolated time (D_i <= 0) has no finite rho: left out.
  bool dropped = false;
  for (size_t r = 0; r < layout.rows(); ++r) {
    const size_t j = layout.job_of[r];
    const double d = isolated_s[j];
    if (problem.jobs[j].remaining_iterations > 0 && !(d > 0 && std::isfinite(d))) {
      out.unplaceable.push_back(problem.jobs[j].id);
      dropped = true;
    }
  }
  if (dropped) {
    // Rebuild without those jobs: their rows, and every pair they are in, go.
    AllocationProblem kept = problem;
    for (size_t j : layout.job_of) {
      const double d = isolated_s[j];
      if (problem.jobs[j].remaining_iterations > 0 && !(d > 0 && std::isfinite(d))) {
        kept.jobs[j].throughput.assign(problem.capacity.size(), 0.0);
      }
    }
    layout = MakePackedLayout(kept, nullptr);
  }
  const size_t n = layout.rows();
  if (n == 0) return out;
  // Rates over w (finish_time_fairness.py:137-140); best_r bounds job r's rate (time share <= 1).
  std::vector<double> inv_w(n), best(n, 0.0);
  for (size_t r = 0; r < n; ++r) {
    inv_w[r] = 1.0 / problem.jobs[layout.job_of[r]].weight;
    for (const auto& [c, t] : layout.terms[r]) best[r] = std::max(best[r], t * inv_w[r]);
  }
  lp::LinearProgram program;
  const int first = AddPackedShares(program, problem, layout, /*keyed=*/true);
  std::vector<int> need_row(n, -1);
  std::vector<std::pair<int, double>> terms;
  for (size_t r = 0; r < n; ++r) {
    terms.clear();
    for (const auto& [c, t] : layout.terms[r]) {
      const double coef = t * inv_w[r] / best[r];
      terms.emplace_back(first + c, coef);
      if (options.second_phase) {
        program.SetObjective(first + c, program.objective()[static_cast<size_t>(first + c)] + coef);
      }
    }
    need_row[r] = program.AddConstraint(terms, 0.0, lp::kInfinity);
    program.SetConstraintKey(need_row[r], JobKey(KeyKind::kNeed, problem.jobs[layout.job_of[r]].id));
  }
  program.SetSense(lp::Sense::kMaximize);
  auto active = [&](size_t r) { return problem.jobs[layout.job_of[r]].remaining_iterations > 0; };
  // The rows for `rho`; false where some job cannot reach it even with its best rate full time.
  auto set_rho = [&](double rho) {
    for (size_t r = 0; r < n; ++r) {
      if (!active(r)) continue;
      const AllocationJob& job = problem.jobs[layout.job_of[r]];
      const double slack_s = rho * isolated_s[layout.job_of[r]] - job.elapsed_s;
      if (slack_s <= 0) return false;
      const double need = job.remaining_iterations / slack_s / best[r];
      if (need > 1.0 + 1e-12) return false;
      program.SetConstraintBounds(need_row[r], need, lp::kInfinity);
    }
    return true;
  };
  auto feasible = [&](double rho, lp::Solution* s) -> Result<bool> {
    if (!set_rho(rho)) return false;
    HETSCHED_ASSIGN_OR_RETURN(*s, solver.Solve(program));
    ++out.lp_solves;
    out.simplex_iterations += s->iterations;
    return s->status == lp::SolveStatus::kOptimal;
  };
  double lo = 0;
  bool any = false;
  for (size_t r = 0; r < n; ++r) {
    if (!active(r)) continue;
    any = true;
    const AllocationJob& job = problem.jobs[layout.job_of[r]];
    lo = std::max(lo, (job.elapsed_s + job.remaining_iterations / best[r]) / isolated_s[layout.job_of[r]]);
  }
  lp::Solution at_hi;
  double hi = 0;
  HETSCHED_ASSIGN_OR_RETURN(const bool found, LeastFeasible(feasible, lo, any ? options.tolerance : std::numeric_limits<double>::infinity(), &hi, &at_hi));
  if (!found) {
    out.status = lp::SolveStatus::kInfeasible;
    return out;
  }
  ReadPackedShares(at_hi.values, first, problem, layout, &out);
  // The objective at the allocation returned: max_i rho_i (<= hi).
  double worst = 0;
  for (size_t r = 0; r < n; ++r) {
    if (!active(r)) continue;
    const AllocationJob& job = problem.jobs[layout.job_of[r]];
    const double rate = RowRate(layout, r, at_hi.values, first) * inv_w[r];
    worst = std::max(worst, rate > 0 ? (job.elapsed_s + job.remaining_iterations / rate) / isolated_s[layout.job_of[r]]
                                     : std::numeric_limits<double>::infinity());
  }
  out.objective = worst;
  return out;
}

// ---- min_total_duration_packed ----

Result<Allocation> SolveMinTotalDurationPacked(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                               SharePoint point) {
  Allocation out = ZeroAllocation(problem);
  const PackedLayout layout = MakePackedLayout(problem, &out);
  if (layout.rows() == 0) return out;
  bool pairs = false;
  for (const PackedLayout::Column& c : layout.columns) pairs = pairs || c.pair >= 0;
  if (!pairs && point != SharePoint::kVertex) {
    // No pair can run: the non-packed problem, whose interior points exist.
    HETSCHED_ASSIGN_OR_RETURN(Allocation single, SolveMinTotalDurationBisection(problem, solver, point));
    single.pair_share = out.pair_share;
    return single;
  }
  if (point != SharePoint::kVertex) out.note = "packed: only the simplex's vertex where pairs can run";
  constexpr double kThetaUnit = 3600;  // theta = 3600 / T, coefficients of order one (makespan.cc)
  lp::LinearProgram program;
  const int theta = program.AddVariable(0, lp::kInfinity, 0.0);
  program.SetVariableKey(theta, JobKey(KeyKind::kTheta));
  const int first = AddPackedShares(program, problem, layout, /*keyed=*/true);
  std::vector<std::pair<int, double>> terms;
  for (size_t r = 0; r < layout.rows(); ++r) {
    const AllocationJob& job = problem.jobs[layout.job_of[r]];
    if (!(job.remaining_iterations > 0)) continue;  // nothing to finish: always met
    terms.assign(1, {theta, -1.0});
    for (const auto& [c, t] : layout.terms[r]) terms.emplace_back(first + c, kThetaUnit * t / job.remaining_iterations);
    const int row = program.AddConstraint(terms, 0.0, lp::kInfinity);
    program.SetConstraintKey(row, JobKey(KeyKind::kNeed, job.id));
  }
  program.SetSense(lp::Sense::kMaximize);
  auto feasible_at = [&](double t_s, lp::Solution* at) -> Result<bool> {
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
  return out;
}

// ---- max_sum_throughput_normalized_by_cost_packed_SLOs ----

Result<Allocation> SolveMaxThroughputPerCostPacked(const AllocationProblem& problem, lp::WarmStartLpSolver& solver) {
  Allocation out = ZeroAllocation(problem);
  const PackedLayout layout = MakePackedLayout(problem, &out);
  if (layout.rows() == 0) return out;
  const bool priced = problem.price_per_hour.size() == problem.capacity.size();
  lp::LinearProgram program;
  const int first = AddPackedShares(program, problem, layout, /*keyed=*/true);
  std::vector<double> objective(layout.columns.size(), 0.0);
  std::vector<std::pair<int, double>> terms;
  std::vector<int> slo_rows;
  for (size_t r = 0; r < layout.rows(); ++r) {
    const AllocationJob& job = problem.jobs[layout.job_of[r]];
    terms.clear();
    for (const auto& [c, t] : layout.terms[r]) {
      const size_t k = layout.columns[static_cast<size_t>(c)].type;
      objective[static_cast<size_t>(c)] += t / (priced ? problem.price_per_hour[k] : 1.0);
      terms.emplace_back(first + c, t);
    }
    if (std::isfinite(job.deadline_in_s) && job.remaining_iterations > 0) {
      // A deadline already passed asks for the impossible: the LP is then infeasible (Gavel's
      // division by a non-positive SLO gives a negative or infinite bound; left to the fallback).
      const double need = job.deadline_in_s > 0 ? job.remaining_iterations / job.deadline_in_s : lp::kInfinity;
      slo_rows.push_back(program.AddConstraint(terms, std::min(need, 1e29), lp::kInfinity));
      program.SetConstraintKey(slo_rows.back(), JobKey(KeyKind::kNeed, job.id));
    }
  }
  for (size_t c = 0; c < objective.size(); ++c) program.SetObjective(first + static_cast<int>(c), objective[c]);
  program.SetSense(lp::Sense::kMaximize);
  HETSCHED_ASSIGN_OR_RETURN(lp::Solution s, solver.Solve(program));
  ++out.lp_solves;
  out.simplex_iterations += s.iterations;
  if (s.status == lp::SolveStatus::kInfeasible && !slo_rows.empty()) {
    for (const int row : slo_rows) program.SetConstraintBounds(row, -lp::kInfinity, lp::kInfinity);
    HETSCHED_ASSIGN_OR_RETURN(s, solver.Solve(program));
    ++out.lp_solves;
    out.simplex_iterations += s.iterations;
    out.note = "SLOs infeasible: solved without them";
  }
  out.status = s.status;
  if (s.status != lp::SolveStatus::kOptimal) return out;
  out.objective = s.objective;
  ReadPackedShares(s.values, first, problem, layout, &out);
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
