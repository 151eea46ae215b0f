// Gavel's AlloX policy ("AlloX_Perf"; stanford-futuredata/gavel @ c4fa400,
// scheduler/policies/allox.py, AlloXPolicy, after Le et al., "AlloX: compute allocation in hybrid
// clusters", EuroSys 2020): single-GPU jobs are assigned to GPUs as a min-cost bipartite matching
// of jobs to (worker, position) slots, and each worker's first job gets its type whole (X = 1)
// until it finishes. Registered as `gavel-allox` (allox.cc); docs/compat.md, "Gavel's AlloX".
//
// One call (Gavel's get_allocation, run by its simulator at each reset with a changed job set):
//   - jobs given a type by an earlier call keep it (X = 1 there: AlloX never preempts); they hold
//     one worker of that type each;
//   - the other jobs, oldest first (time since arrival, ties in id order), at most
//     max(int(alpha x m), n) of them (m such jobs, n free workers), form the rows; the columns are
//     n free workers (types by name, each type's workers in a row) times m positions: column
//     p n + w is "worker w, p-th job from the end", cost (p + 1) x remaining_i / T_i[type(w)] +
//     elapsed_i (T = 0 read as 1e-10), the processing time of a job counted once for it and
//     once for each job queued behind it, plus its wait so far (the same for every column);
//   - the matching of least total cost (lp::SolveLinearAssignment, SciPy's linear_sum_assignment
//     as Gavel calls it: identical workers make ties, and which job a worker runs first depends
//     on which optimal matching comes back); on each worker the job of the highest position runs
//     (X = 1 on the worker's type); the others wait for a later call.
// Gavel asserts that every job has a scale factor of 1. [REC] Here a job of more GPUs, before the
// matching and oldest first, takes the fastest type (ties: first by name) with room for it, for
// good, or waits; the matching has the GPUs left.
#pragma once

#include <map>

#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/util/status.h"

namespace hetsched::gavel {

class AlloxAllocation {
 public:
  // REQUIRES: alpha > 0 (Gavel's policy name allox_alpha=A; allox is 1).
  explicit AlloxAllocation(double alpha = 1.0) : alpha_(alpha) {}

  // One call of AlloXPolicy.get_allocation on the active jobs of `problem`. An empty problem
  // changes nothing (Gavel returns before its state is touched). Fails only where the assignment
  // does (it cannot: every cost is finite).
  Result<Allocation> Compute(const AllocationProblem& problem);

 private:
  double alpha_;
  std::map<JobId, size_t> running_;  // jobs given a type (index into the problem's types)
};

}  // namespace hetsched::gavel
