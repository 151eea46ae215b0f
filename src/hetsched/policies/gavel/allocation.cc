// Shared pieces of Gavel's allocation LPs: share variables with the base constraints, the
// equal-share normaliser and the two-phase epigraph solve. Formulations: docs/gavel.md.
#include "hetsched/policies/gavel/allocation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace hetsched::gavel {

double EffectiveThroughput(const AllocationJob& job, const std::vector<double>& share) {
  double sum = 0;
  for (size_t k = 0; k < share.size() && k < job.throughput.size(); ++k) sum += job.throughput[k] * share[k];
  return sum;
}

namespace {
bool Usable(const AllocationProblem& problem, const AllocationJob& job, size_t k) {
  return k < job.throughput.size() && job.throughput[k] > 0 && job.num_gpus <= problem.capacity[k];
}
}  // namespace

bool Placeable(const AllocationProblem& problem, size_t j) {
  const AllocationJob& job = problem.jobs[j];
  for (size_t k = 0; k < problem.capacity.size(); ++k) {
    if (Usable(problem, job, k)) return true;
  }
  return false;
}

PlaceableRows CollectPlaceableRows(const AllocationProblem& problem, Allocation* allocation) {
  PlaceableRows rows;
  for (size_t j = 0; j < problem.jobs.size(); ++j) {
    if (!Placeable(problem, j)) {
      allocation->unplaceable.push_back(problem.jobs[j].id);
      continue;
    }
    rows.throughput.push_back(&problem.jobs[j].throughput);
    rows.gpus.push_back(problem.jobs[j].num_gpus);
    rows.job_of.push_back(j);
    rows.id.push_back(problem.jobs[j].id);
  }
  return rows;
}

double BestThroughput(const AllocationProblem& problem, size_t j) {
  const AllocationJob& job = problem.jobs[j];
  double best = 0;
  for (size_t k = 0; k < problem.capacity.size(); ++k) {
    if (Usable(problem, job, k)) best = std::max(best, job.throughput[k]);
  }
  return best;
}

double EqualShareThroughput(const AllocationProblem& problem, size_t j) {
  const AllocationJob& job = problem.jobs[j];
  const double n = static_cast<double>(problem.jobs.size());
  double devices = 0;
  for (size_t k = 0; k < problem.capacity.size(); ++k) {
    if (Usable(problem, job, k)) devices += problem.capacity[k];
  }
  if (devices <= 0 || n <= 0) return 0;
  // Job j's 1/n share is devices/n device-seconds per second: with g_j devices at a time that is
  // a time fraction devices / (n g_j), at most 1, spread over the types in proportion to W_k.
  const double fraction = std::min(1.0, devices / (n * job.num_gpus));
  double thr = 0;
  for (size_t k = 0; k < problem.capacity.size(); ++k) {
    if (Usable(problem, job, k)) thr += job.throughput[k] * fraction * problem.capacity[k] / devices;
  }
  return thr;
}

std::span<double> ShareRows::operator[](size_t row) {
  const size_t types = zero_.size();
  auto [it, added] = offset_.try_emplace(row, values_.size());
  if (added) {
    values_.resize(values_.size() + types, 0.0);
    written_.push_back(row);
  }
  return {values_.data() + it->second, types};
}

std::span<const double> ShareRows::operator[](size_t row) const {
  const auto it = offset_.find(row);
  if (it == offset_.end()) return zero_;
  return {values_.data() + it->second, zero_.size()};
}

Allocation ZeroAllocation(const AllocationProblem& problem) {
  Allocation out;
  out.share.assign(problem.jobs.size(), std::vector<double>(problem.capacity.size(), 0.0));
  out.pair_share = ShareRows(problem.pairs.size(), problem.capacity.size());
  return out;
}

std::vector<size_t> TypesByName(const AllocationProblem& problem) {
  std::vector<size_t> by_name(problem.capacity.size());
  std::iota(by_name.begin(), by_name.end(), size_t{0});
  if (problem.type_names.size() == by_name.size()) {
    std::stable_sort(by_name.begin(), by_name.end(),
                     [&](size_t a, size_t b) { return problem.type_names[a] < problem.type_names[b]; });
  }
  return by_name;
}

double ProportionalThroughput(const AllocationProblem& problem, size_t j) {
  const AllocationJob& job = problem.jobs[j];
  double total = 0;
  double thr = 0;
  for (size_t k = 0; k < problem.capacity.size(); ++k) {
    total += problem.capacity[k];
    if (k < job.throughput.size()) thr += job.throughput[k] * problem.capacity[k];
  }
  return total > 0 ? thr / total : 0.0;
}

lp::Key JobKey(KeyKind kind, JobId id, size_t type) {
  constexpr uint64_t kIdMask = (uint64_t{1} << 48) - 1;
  return (static_cast<uint64_t>(kind) << 56) | ((static_cast<uint64_t>(id) & kIdMask) << 8) | (type & 0xff);
}

ShareVariables AddShareVariables(lp::LinearProgram& program, const std::vector<const std::vector<double>*>& throughput,
                                 const std::vector<int>& gpus, const std::vector<double>& count,
                                 const std::vector<int>& capacity, const std::vector<JobId>& row_ids) {
  const size_t types = capacity.size();
  const bool keyed = !row_ids.empty();
  ShareVariables vars;
  vars.index.assign(throughput.size(), std::vector<int>(types, -1));
  std::vector<std::pair<int, double>> terms;
  for (size_t r = 0; r < throughput.size(); ++r) {
    terms.clear();
    for (size_t k = 0; k < types; ++k) {
      if (k < throughput[r]->size() && (*throughput[r])[k] > 0 && gpus[r] <= capacity[k]) {
        vars.index[r][k] = program.AddVariable(0, 1, 0);
        if (keyed) program.SetVariableKey(vars.index[r][k], JobKey(KeyKind::kShare, row_ids[r], k));
        terms.emplace_back(vars.index[r][k], 1.0);
      }
    }
    if (terms.empty()) continue;
    const int row = program.AddConstraint(terms, -lp::kInfinity, 1.0);
    if (keyed) program.SetConstraintKey(row, JobKey(KeyKind::kTime, row_ids[r]));
  }
  for (size_t k = 0; k < types; ++k) {
    terms.clear();
    for (size_t r = 0; r < throughput.size(); ++r) {
      if (vars.index[r][k] >= 0) terms.emplace_back(vars.index[r][k], count[r] * gpus[r]);
    }
    if (terms.empty()) continue;
    const int row = program.AddConstraint(terms, -lp::kInfinity, capacity[k]);
    if (keyed) program.SetConstraintKey(row, JobKey(KeyKind::kCapacity, 0, k));
  }
  return vars;
}

std::vector<double> ReadShares(const lp::Solution& solution, const ShareVariables& vars, size_t row, size_t types) {
  std::vector<double> share(types, 0.0);
  for (size_t k = 0; k < types; ++k) {
    const int v = vars.index[row][k];
    // Clip solver round-off into [0, 1].
    if (v >= 0) share[k] = std::clamp(solution.values[static_cast<size_t>(v)], 0.0, 1.0);
  }
  return share;
}

Result<lp::Solution> SolveEpigraphTwoPhase(lp::LinearProgram& program, int epigraph,
                                           const std::vector<double>& second_objective,
                                           lp::WarmStartLpSolver& solver, Allocation* allocation, int first_slot) {
  program.SetSense(lp::Sense::kMaximize);
  HETSCHED_ASSIGN_OR_RETURN(lp::Solution first, solver.Solve(program, first_slot));
  ++allocation->lp_solves;
  allocation->simplex_iterations += first.iterations;
  if (first.status != lp::SolveStatus::kOptimal || second_objective.empty()) return first;
  const double best = first.values[static_cast<size_t>(epigraph)];
  program.SetVariableBounds(epigraph, best - 1e-7 * std::max(1.0, std::abs(best)), lp::kInfinity);
  for (int v = 0; v < program.num_variables(); ++v) program.SetObjective(v, second_objective[static_cast<size_t>(v)]);
  HETSCHED_ASSIGN_OR_RETURN(lp::Solution second, solver.Solve(program, first_slot > 0 ? first_slot + 1 : 0));
  ++allocation->lp_solves;
  allocation->simplex_iterations += second.iterations;
  if (second.status != lp::SolveStatus::kOptimal) return first;  // keep the phase-1 optimum
  return second;
}

int AddWorkRow(lp::LinearProgram& program, const std::vector<double>& objective) {
  std::vector<std::pair<int, double>> terms;
  for (int v = 0; v < program.num_variables(); ++v) {
    const double c = objective[static_cast<size_t>(v)];
    if (c != 0) terms.emplace_back(v, c);
  }
  const int row = program.AddConstraint(terms, -lp::kInfinity, lp::kInfinity);
  program.SetConstraintKey(row, JobKey(KeyKind::kWork));
  return row;
}

Result<lp::Solution> SolveTieBreak(lp::LinearProgram& program, int work_row, const std::vector<double>& objective,
                                   double optimum, const ShareVariables& vars, const std::vector<JobId>& row_ids,
                                   const std::vector<double>& key, lp::Solution at_optimum, lp::WarmStartLpSolver& solver,
                                   Allocation* allocation) {
  const size_t n = row_ids.size();
  std::vector<size_t> order(n);
  for (size_t r = 0; r < n; ++r) order[r] = r;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return key[a] != key[b] ? key[a] < key[b] : row_ids[a] < row_ids[b];
  });
  for (int v = 0; v < program.num_variables(); ++v) program.SetObjective(v, 0.0);
  for (size_t rank = 0; rank < n; ++rank) {
    const double weight = static_cast<double>(n - rank) / static_cast<double>(n);
    for (const int v : vars.index[order[rank]]) {
      if (v < 0) continue;
      // Squared, the weights are no combination of the rows' coefficients (a job's throughput and
      // time, a type's devices), which leave a job whose need and time rows bind free to move
      // between types: the faster type is worth more than its throughput.
      const double c = objective[static_cast<size_t>(v)];
      program.SetObjective(v, c * c * weight);
    }
  }
  program.SetConstraintBounds(work_row, optimum - 1e-7 * std::max(1.0, std::abs(optimum)), lp::kInfinity);
  program.SetSense(lp::Sense::kMaximize);
  HETSCHED_ASSIGN_OR_RETURN(lp::Solution s, solver.Solve(program, kTieBreakSlot));
  ++allocation->lp_solves;
  allocation->simplex_iterations += s.iterations;
  if (s.status != lp::SolveStatus::kOptimal) return at_optimum;
  return s;
}

Result<double> GavelHorizonSearch(const FeasibleAt& feasible_at, lp::Solution* at, const std::string& who) {
  double max_t = 1e6;
  double min_t = 100;
  double last_max_t = max_t;
  double feasible_t = 0;
  while (!(feasible_t > 0)) {
    if (!std::isfinite(last_max_t)) return Status::Internal(who + ": the bisection found no feasible horizon");
    while (1.05 * min_t < max_t) {
      const double t = (min_t + max_t) / 2;
      HETSCHED_ASSIGN_OR_RETURN(const bool feasible, feasible_at(t, at));
      if (feasible) {
        feasible_t = t;
        max_t = t;
      } else {
        min_t = t;
      }
    }
    max_t = last_max_t * 10;
    min_t = last_max_t;
    last_max_t *= 10;
  }
  return feasible_t;
}

Result<bool> LeastFeasible(const FeasibleAt& feasible_at, double lo, double tolerance, double* hi, lp::Solution* at_hi) {
  *hi = std::max(lo, 1e-9);
  bool found = false;
  for (int i = 0; i < 80 && !found; ++i) {
    HETSCHED_ASSIGN_OR_RETURN(found, feasible_at(*hi, at_hi));
    if (!found) *hi *= 2;
  }
  if (!found) return false;
  while (*hi - lo > tolerance * *hi) {
    const double mid = 0.5 * (lo + *hi);
    lp::Solution s;
    HETSCHED_ASSIGN_OR_RETURN(const bool ok, feasible_at(mid, &s));
    if (ok) {
      *hi = mid;
      *at_hi = std::move(s);
    } else {
      lo = mid;
    }
  }
  return true;
}

}  // namespace hetsched::gavel
