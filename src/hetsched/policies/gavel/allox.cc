// gavel-allox: AlloxAllocation (allox.h) under Gavel's round mechanism. Line numbers cite
// scheduler/policies/allox.py @ c4fa400.
#include "hetsched/policies/gavel/allox.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "hetsched/lp/linear_assignment.h"
#include "hetsched/policies/gavel/policy.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {

Result<Allocation> AlloxAllocation::Compute(const AllocationProblem& problem) {
  Allocation out = ZeroAllocation(problem);
  if (problem.jobs.empty()) return out;  // flatten() gives None: nothing changes (:19-21)
  // Jobs that hold a type since an earlier call keep it; the others are to be matched (:33-46).
  std::vector<int> free(problem.capacity.begin(), problem.capacity.end());
  std::vector<size_t> waiting;
  std::map<JobId, size_t> running;
  for (size_t j = 0; j < problem.jobs.size(); ++j) {
    const auto it = running_.find(problem.jobs[j].id);
    if (it == running_.end()) {
      waiting.push_back(j);
      continue;
    }
    running.emplace(it->first, it->second);
    out.share[j][it->second] = 1.0;
    free[it->second] -= problem.jobs[j].num_gpus;
  }
  const std::vector<size_t> by_name = TypesByName(problem);
  // Oldest first (a stable sort on -time since start: ties keep arrival order, :58-59).
  std::stable_sort(waiting.begin(), waiting.end(),
                   [&](size_t a, size_t b) { return problem.jobs[a].elapsed_s > problem.jobs[b].elapsed_s; });
  // [REC] Jobs of more than one GPU (Gavel asserts there are none, :26-29) go first: each takes
  // the fastest type (ties: first by name) with room for it, for good; the others wait.
  std::vector<size_t> single;
  for (size_t j : waiting) {
    const AllocationJob& job = problem.jobs[j];
    if (job.num_gpus == 1) {
      single.push_back(j);
      continue;
    }
    int best = -1;
    for (size_t k : by_name) {
      if (free[k] >= job.num_gpus && job.throughput[k] > 0 &&
          (best < 0 || job.throughput[k] > job.throughput[static_cast<size_t>(best)])) {
        best = static_cast<int>(k);
      }
    }
    if (best < 0) continue;
    out.share[j][static_cast<size_t>(best)] = 1.0;
    free[static_cast<size_t>(best)] -= job.num_gpus;
    running.emplace(job.id, static_cast<size_t>(best));
  }
  waiting = std::move(single);
  // The free workers, the types by name (Gavel's worker types are sorted, :48-56).
  std::vector<size_t> worker_type;
  for (size_t k : by_name) worker_type.insert(worker_type.end(), static_cast<size_t>(std::max(free[k], 0)), k);
  const size_t n = worker_type.size();
  // The oldest max(int(alpha m), n) (:60-61).
  const size_t keep = std::max(static_cast<size_t>(alpha_ * static_cast<double>(waiting.size())), n);
  if (waiting.size() > keep) waiting.resize(keep);
  const size_t m = waiting.size();
  // q[i][p n + w] = (p + 1) x remaining_i / T_i + elapsed_i, summed as numpy does: q_base,
  // i x q_base for the later blocks, then + d (:63-91).
  std::vector<double> cost(m * n * m);
  for (size_t i = 0; i < m; ++i) {
    const AllocationJob& job = problem.jobs[waiting[i]];
    for (size_t w = 0; w < n; ++w) {
      double throughput = job.throughput[worker_type[w]];
      if (throughput == 0.0) throughput = 1e-10;
      const double base = job.remaining_iterations / throughput;
      for (size_t p = 0; p < m; ++p) {
        const double scaled = p == 0 ? base : static_cast<double>(p + 1) * base;
        cost[i * n * m + p * n + w] = scaled + job.elapsed_s;
      }
    }
  }
  HETSCHED_ASSIGN_OR_RETURN(const std::vector<int> column, lp::SolveLinearAssignment(cost, m, n * m));
  // Each worker runs the job of its highest position (the first of its queue, :96-106).
  std::vector<int> first(n, -1);
  std::vector<size_t> first_position(n, 0);
  for (size_t i = 0; i < m; ++i) {
    if (column[i] < 0) continue;
    const size_t w = static_cast<size_t>(column[i]) % n;
    const size_t position = static_cast<size_t>(column[i]) / n;
    if (first[w] < 0 || position > first_position[w]) {
      first[w] = static_cast<int>(i);
      first_position[w] = position;
    }
  }
  for (size_t w = 0; w < n; ++w) {
    if (first[w] < 0) continue;
    const size_t j = waiting[static_cast<size_t>(first[w])];
    out.share[j][worker_type[w]] = 1.0;
    running.emplace(problem.jobs[j].id, worker_type[w]);
  }
  for (size_t j = 0; j < problem.jobs.size(); ++j) {
    if (!Placeable(problem, j)) out.unplaceable.push_back(problem.jobs[j].id);
  }
  running_ = std::move(running);  // finished jobs drop out (:108-125)
  return out;
}

namespace {

Result<std::unique_ptr<JobScheduler>> MakeGavelAllox(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const double round_s, RoundOption(options));
  HETSCHED_ASSIGN_OR_RETURN(GavelMechanismOptions mechanism, MechanismOption(options, "gavel"));
  if (!mechanism.enabled) {
    return Status::InvalidArgument("policy 'gavel-allox' runs only under Gavel's mechanism (mechanism=gavel)");
  }
  HETSCHED_ASSIGN_OR_RETURN(const double alpha, options.GetDouble("alpha", 1.0));
  if (!(alpha > 0 && alpha <= 1)) {
    return Status::InvalidArgument("gavel-allox: option 'alpha' (the share of the waiting jobs matched, Gavel's "
                                   "allox_alpha=) must be in (0, 1], got " + std::to_string(alpha));
  }
  mechanism.shuffle_types = false;  // "AlloX_Perf" holds "Perf" (scheduler.py:879-881)
  auto allox = std::make_shared<AlloxAllocation>(alpha);
  auto policy = std::make_unique<LpRoundPolicy>(
      "gavel-allox", round_s, /*heterogeneity_blind=*/false,
      [allox](const AllocationProblem& p, lp::WarmStartLpSolver&) { return allox->Compute(p); });
  HETSCHED_RETURN_IF_ERROR(ProfileOption(options, *policy));
  policy->SetGavelMechanism(mechanism);
  return std::unique_ptr<JobScheduler>(std::move(policy));
}

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kGavelAlloxRegistered,
                       (MethodInfo{"gavel-allox",
                                   "Gavel's AlloX: waiting single-GPU jobs matched to (GPU, queue position) slots at "
                                   "least total completion time; each GPU's first job keeps it to the end, Gavel's rounds",
                                   "[SRC] Gavel simulator (policies/allox.py, AlloXPolicy, after Le et al., EuroSys "
                                   "2020) under its round mechanism; the matching SciPy's linear_sum_assignment "
                                   "returns (Crouse 2016, shortest augmenting path, its tie-breaking); jobs of more than "
                                   "one GPU (Gavel's asserts none) take the fastest type with room first [REC]"}),
                       [](const Options& o) { return MakeGavelAllox(o); })

}  // namespace hetsched::gavel
