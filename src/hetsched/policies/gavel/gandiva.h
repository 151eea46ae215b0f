// Gavel's Gandiva policy ("Gandiva_Packing"; stanford-futuredata/gavel @ c4fa400,
// scheduler/policies/gandiva.py, GandivaPolicy, after Xiao et al., "Gandiva: introspective cluster
// scheduling for deep learning", OSDI 2018): random pairs of jobs share GPUs when the cluster is
// oversubscribed, a pair is kept while it helps, and the time is split evenly over the
// combinations. Registered as `gavel-gandiva` (packed_policies.cc: Gavel's mechanism with pairs);
// docs/space_sharing.md, "Gavel's gandiva".
//
// One call (Gavel's get_allocation, at each reset with a changed job set):
//   1. Pairs kept from earlier calls are dropped when a member has left or when the pair's
//      normalised throughput is below 1: sum over the types (by name) and both members of
//      paired rate / the member's rate alone, 0 as soon as one paired rate is <= 0 (a single
//      job's is 0, so a job left alone is re-drawn at every call).
//   2. If the jobs ask for no more GPUs than the cluster has, every job is a combination (no
//      packing; the kept pairs are not used but stay). Otherwise the jobs in no kept pair (in id
//      order) are drawn two at a time by Python's random.sample(list, 2) from Random(seed), at
//      most as many draws as there were such jobs; a draw of two GPU counts is thrown away, any
//      other becomes a pair; the jobs left are combinations alone. The combinations are then
//      every kept or new pair and those jobs.
//   3. Each of the m combinations c (g_c GPUs) gets X[c][k] = (W_k / m) / g_c of every type k,
//      its row divided by max(sum_k X[c][k], 1) (summed over the types by name, as numpy does).
// A pair may so get time on a type where it cannot run (a paired rate 0): Gavel's mechanism never
// runs it there (scheduler.py:821-827), nor does ours.
#pragma once

#include <cstdint>
#include <set>
#include <utility>

#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/util/python_random.h"
#include "hetsched/util/status.h"

namespace hetsched::gavel {

class GandivaAllocation {
 public:
  // Gavel seeds the policy's Random with the run's seed (utils.py get_policy: GandivaPolicy(seed)).
  explicit GandivaAllocation(uint64_t seed) : rng_(seed) {}

  // One call of GandivaPolicy.get_allocation. The problem's pairs must include every pair of its
  // jobs with one GPU count (RoundPolicy::SetPacking gives them); the allocation gives time to
  // the pairs formed (pair_share) and to the jobs alone (share). An empty problem changes nothing
  // (Gavel returns before its state is touched). InvalidArgument where a pair formed is not
  // among the problem's pairs.
  Result<Allocation> Compute(const AllocationProblem& problem);

  // The pairs kept now, (lower id, higher id).
  const std::set<std::pair<JobId, JobId>>& pairs() const { return pairs_; }

 private:
  PythonRandom rng_;
  std::set<std::pair<JobId, JobId>> pairs_;
};

}  // namespace hetsched::gavel
