#include "hetsched/planners/cost_search.h"

#include <cmath>

#include <fmt/format.h>

#include "hetsched/planners/cost_mip.h"
#include "hetsched/util/units.h"

namespace hetsched {

std::vector<int> CostDpAssignment(const StageCostModel& m, double* cost, long long* evaluations) {
  const int L = m.num_layers(), D = m.num_types();
  // f[j * D + d]; from[j * D + d] = first layer of the last stage in the best plan for (j, d).
  std::vector<double> f(static_cast<size_t>(L) * D, kInf);
  std::vector<int> from(static_cast<size_t>(L) * D, -1);
  // best / second best of f(j, .) and the type of the best, for min over d' != d.
  std::vector<double> best1(static_cast<size_t>(L), kInf), best2(static_cast<size_t>(L), kInf);
  std::vector<int> arg1(static_cast<size_t>(L), -1);
  long long evals = 0;
  for (int j = 0; j < L; ++j) {
    for (int d = 0; d < D; ++d) {
      double best = kInf;
      int best_i = -1;
      for (int i = 0; i <= j; ++i) {
        double prefix = 0;
        if (i > 0) {
          const size_t p = static_cast<size_t>(i - 1);
          prefix = arg1[p] == d ? best2[p] : best1[p];
          if (prefix == kInf) continue;
        }
        ++evals;
        const double c = m.StageCost(i, j, d);
        if (prefix + c < best) {
          best = prefix + c;
          best_i = i;
        }
      }
      const size_t at = static_cast<size_t>(j) * D + static_cast<size_t>(d);
      f[at] = best;
      from[at] = best_i;
      const size_t js = static_cast<size_t>(j);
      if (best < best1[js]) {
        best2[js] = best1[js];
        best1[js] = best;
        arg1[js] = d;
      } else if (best < best2[js]) {
        best2[js] = best;
      }
    }
  }
  if (evaluations != nullptr) *evaluations = evals;
  const size_t last = static_cast<size_t>(L - 1);
  if (cost != nullptr) *cost = best1[last];
  if (best1[last] == kInf) return {};
  // Walk back: the stage ending at j on d starts at from(j, d); the stage before it is the best
  // type other than d at from - 1 (ties broken towards the lowest type index, as computed).
  std::vector<int> assignment(static_cast<size_t>(L), -1);
  int j = L - 1, d = arg1[last];
  while (j >= 0) {
    const int i = from[static_cast<size_t>(j) * D + static_cast<size_t>(d)];
    for (int l = i; l <= j; ++l) assignment[static_cast<size_t>(l)] = d;
    if (i == 0) break;
    const size_t p = static_cast<size_t>(i - 1);
    const double target = arg1[p] == d ? best2[p] : best1[p];
    int next = -1;
    for (int e = 0; e < D; ++e) {
      if (e != d && f[p * D + static_cast<size_t>(e)] == target) {
        next = e;
        break;
      }
    }
    j = i - 1;
    d = next;
  }
  return assignment;
}

Result<HeteroPlan> SolveCostDp(const StageCostModel& m) {
  double cost = kInf;
  long long evals = 0;
  std::vector<int> assignment = CostDpAssignment(m, &cost, &evals);
  if (assignment.empty()) {
    return Status::Infeasible(fmt::format("no plan sustains {:.6g} samples/s on this pool (memory or unit caps)",
                                          m.throughput_limit()));
  }
  auto plan = m.EvaluateAssignment(assignment, "dp");
  if (!plan.ok()) {
    // Only a cap shared by several stages of one type can break the DP's plan (see the header):
    // the MIP (cost_mip.h) is exact under such caps.
    auto exact = SolveCostMip(m);
    if (exact.ok()) {
      exact->planner = "dp";
      exact->note = "per-type caps bind across stages: solved by the MIP (CBC); " + exact->note;
    }
    return exact;
  }
  plan->evaluations = evals;
  return plan;
}

Result<HeteroPlan> SolveCostBruteForce(const StageCostModel& m, long long max_plans) {
  const int L = m.num_layers(), D = m.num_types();
  const double plans = std::pow(static_cast<double>(D), L);
  if (plans > static_cast<double>(max_plans)) {
    return Status::InvalidArgument(fmt::format("brute force: {}^{} = {:.3g} plans exceed the limit of {}", D, L, plans,
                                               max_plans));
  }
  std::vector<int> a(static_cast<size_t>(L), 0), best;
  double best_cost = kInf;
  long long evals = 0;
  while (true) {
    ++evals;
    const double c = m.AssignmentCost(a);
    if (c < best_cost) {
      best_cost = c;
      best = a;
    }
    int pos = L - 1;  // odometer increment, last layer fastest
    while (pos >= 0 && ++a[static_cast<size_t>(pos)] == D) a[static_cast<size_t>(pos--)] = 0;
    if (pos < 0) break;
  }
  if (best.empty()) return Status::Infeasible(fmt::format("no plan sustains {:.6g} samples/s", m.throughput_limit()));
  auto plan = m.EvaluateAssignment(best, "brute-force");
  if (plan.ok()) plan->evaluations = evals;
  return plan;
}

Result<HeteroPlan> SolveCostSingleType(const StageCostModel& m, SingleTypeRule rule) {
  const int L = m.num_layers();
  int chosen = -1;
  double key_best = kInf;
  std::string reasons;
  for (int t = 0; t < m.num_types(); ++t) {
    if (m.StageCost(0, L - 1, t) == kInf) {
      reasons += (reasons.empty() ? "" : ", ") + m.type(t).name;
      continue;
    }
    const double key = rule == SingleTypeRule::kFastest ? m.ComputeS(0, L - 1, t) : m.type(t).price_per_hour;
    if (key < key_best) {
      key_best = key;
      chosen = t;
    }
  }
  const std::string name = rule == SingleTypeRule::kFastest ? "greedy-fastest" : "greedy-cheapest";
  if (chosen < 0) {
    return Status::Infeasible(name + ": the whole model fits on no type within its caps (" + reasons + ")");
  }
  auto plan = m.EvaluateAssignment(std::vector<int>(static_cast<size_t>(L), chosen), name);
  if (plan.ok()) plan->evaluations = m.num_types();
  return plan;
}

Result<HeteroPlan> SolveCostGreedyPerLayer(const StageCostModel& m) {
  const int L = m.num_layers();
  std::vector<int> a(static_cast<size_t>(L), 0);
  for (int l = 0; l < L; ++l) {
    double best = kInf;
    for (int t = 0; t < m.num_types(); ++t) {
      // Layer time without the stage's fixed costs: cost per sample of this layer alone.
      const double s = m.ComputeS(l, l, t) - m.type(t).iteration_overhead_s;
      const double key = m.type(t).price_per_hour * s;
      if (m.StageCost(l, l, t) < kInf && key < best) {
        best = key;
        a[static_cast<size_t>(l)] = t;
      }
    }
  }
  auto plan = m.EvaluateAssignment(a, "greedy-per-layer");
  if (plan.ok()) plan->evaluations = static_cast<long long>(L) * m.num_types();
  return plan;
}

}  // namespace hetsched

namespace hetsched {

int ImproveAssignmentLocally(std::vector<int>* a, int num_types, const std::function<double(std::span<const int>)>& cost) {
  std::vector<int>& x = *a;
  const int L = static_cast<int>(x.size());
  double current = cost(x);
  int moves = 0;
  std::vector<int> trial, best_trial;
  while (true) {
    double best = current;
    // Stage starts: positions where a new stage begins.
    std::vector<int> starts;
    for (int l = 0; l < L; ++l) {
      if (l == 0 || x[static_cast<size_t>(l)] != x[static_cast<size_t>(l - 1)]) starts.push_back(l);
    }
    starts.push_back(L);
    const int stages = static_cast<int>(starts.size()) - 1;
    // (a) boundary between stage s and s + 1 moved to any cut inside [start(s)+1, end(s+1)].
    for (int s = 0; s + 1 < stages; ++s) {
      const int lo = starts[static_cast<size_t>(s)] + 1, hi = starts[static_cast<size_t>(s + 2)] - 1;
      const int left = x[static_cast<size_t>(starts[static_cast<size_t>(s)])];
      const int right = x[static_cast<size_t>(starts[static_cast<size_t>(s + 1)])];
      for (int cut = lo; cut <= hi; ++cut) {
        if (cut == starts[static_cast<size_t>(s + 1)]) continue;
        trial = x;
        for (int l = starts[static_cast<size_t>(s)]; l <= hi; ++l) trial[static_cast<size_t>(l)] = l < cut ? left : right;
        const double c = cost(trial);
        if (c < best) {
          best = c;
          best_trial = trial;
        }
      }
    }
    // (b) stage s on another type.
    for (int s = 0; s < stages; ++s) {
      for (int t = 0; t < num_types; ++t) {
        if (t == x[static_cast<size_t>(starts[static_cast<size_t>(s)])]) continue;
        trial = x;
        for (int l = starts[static_cast<size_t>(s)]; l < starts[static_cast<size_t>(s + 1)]; ++l) trial[static_cast<size_t>(l)] = t;
        const double c = cost(trial);
        if (c < best) {
          best = c;
          best_trial = trial;
        }
      }
    }
    // (c) a stage split in two: its prefix or its suffix on another type.
    for (int s = 0; s < stages; ++s) {
      const int first = starts[static_cast<size_t>(s)], end = starts[static_cast<size_t>(s + 1)];
      for (int cut = first + 1; cut < end; ++cut) {
        for (int t = 0; t < num_types; ++t) {
          if (t == x[static_cast<size_t>(first)]) continue;
          for (int side = 0; side < 2; ++side) {
            trial = x;
            const int lo = side == 0 ? first : cut, hi = side == 0 ? cut : end;
            for (int l = lo; l < hi; ++l) trial[static_cast<size_t>(l)] = t;
            const double c = cost(trial);
            if (c < best) {
              best = c;
              best_trial = trial;
            }
          }
        }
      }
    }
    // (d) two stages exchange their types (devices, for pipelines).
    for (int s = 0; s < stages; ++s) {
      for (int u = s + 1; u < stages; ++u) {
        const int ts = x[static_cast<size_t>(starts[static_cast<size_t>(s)])];
        const int tu = x[static_cast<size_t>(starts[static_cast<size_t>(u)])];
        if (ts == tu) continue;
        trial = x;
        for (int l = starts[static_cast<size_t>(s)]; l < starts[static_cast<size_t>(s + 1)]; ++l) trial[static_cast<size_t>(l)] = tu;
        for (int l = starts[static_cast<size_t>(u)]; l < starts[static_cast<size_t>(u + 1)]; ++l) trial[static_cast<size_t>(l)] = ts;
        const double c = cost(trial);
        if (c < best) {
          best = c;
          best_trial = trial;
        }
      }
    }
    if (!(best < current)) break;
    x = best_trial;
    current = best;
    ++moves;
  }
  return moves;
}

}  // namespace hetsched
