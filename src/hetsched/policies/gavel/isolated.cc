// gavel-isolated: Gavel's isolated policy (stanford-futuredata/gavel scheduler/policies/isolated.py,
// IsolatedPolicy, MIT): the cluster split evenly over the n active jobs, no LP. Job j (g_j GPUs
// a step) gets X[j][k] = W_k / (n g_j) of type k, the row scaled down to a total of at most 1
// (isolated.py:33-47; a job's scale factor is its GPU count). It is the reference of Gavel's
// finish-time fairness (GavelIsolatedThroughput); as a policy it runs under the round mechanism
// like every Gavel policy, its types shuffled each round under Gavel's mechanism (its name has no
// "Perf", scheduler.py:879-881). [REC] X is 0 on a type the job cannot run on (throughput 0),
// the row's scale unchanged: Gavel gives every job a share of every type, and its traces have a
// throughput for every job on every type.
#include <algorithm>

#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/policy.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {

Allocation SolveIsolated(const AllocationProblem& problem) {
  Allocation out = ZeroAllocation(problem);
  const PlaceableRows placeable = CollectPlaceableRows(problem, &out);
  const double n = static_cast<double>(problem.jobs.size());
  for (size_t r = 0; r < placeable.size(); ++r) {
    const double g = placeable.gpus[r];
    const double scale = IsolatedShareScale(problem, g);
    std::vector<double>& share = out.share[placeable.job_of[r]];
    for (size_t k = 0; k < problem.capacity.size(); ++k) {
      if ((*placeable.throughput[r])[k] > 0) share[k] = problem.capacity[k] / (n * g) * scale;
    }
    out.objective += EffectiveThroughput(problem.jobs[placeable.job_of[r]], share);
  }
  return out;
}

HETSCHED_REGISTER_IMPL(JobScheduler, kGavelIsolatedRegistered,
                       (MethodInfo{"gavel-isolated",
                                   "Gavel's isolated: every active job an equal share of every GPU type, rounds",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) isolated (scheduler/policies/isolated.py), "
                                   "the reference of its finish-time fairness; [REC] no share of a type a job cannot run on"}),
                       [](const Options& o) -> Result<std::unique_ptr<JobScheduler>> {
                         return MakeLpRoundPolicy(o, "gavel-isolated", /*heterogeneity_blind=*/true,
                                                  [](const AllocationProblem& p, lp::WarmStartLpSolver&) {
                                                    return Result<Allocation>(SolveIsolated(p));
                                                  });
                       })

}  // namespace hetsched::gavel
