// Exact solvers for small GADGET instances, the baselines its guarantee is tested against
// (tests/policies/gadget_exact_test.cc). Not registered as methods: they solve one decision,
// not an online schedule. Exhaustive (dynamic programming and enumeration) rather than a MIP:
// the instances are tiny, and the answers need no solver tolerance.
#pragma once

#include <span>

#include "hetsched/policies/gadget/core.h"

namespace hetsched::gadget {

// The best allocation of at most `capacity` workers (dynamic programming over jobs and
// capacity: O(items x capacity x W_max)). A job may take any count up to its table's end.
Allocation ExactAllocate(std::span<const AllocItem> items, int capacity);

// The best joint decision: every way of giving each job y_jh workers on each server h (within
// the servers' free GPUs and the job's max), valued by value(job, sum_h y_jh, #{h : y_jh > 0}).
// Exponential: meant for <= 4 servers, <= 4 free GPUs each, <= 3 jobs.
JointDecision ExactJoint(const JointInstance& instance);

}  // namespace hetsched::gadget
