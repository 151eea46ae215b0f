// GADGET's per-slot re-allocation of running rings (ALGORITHMS.md 5.3, "online wrapper";
// docs/gadget.md section 2.5): where a running job's ring may go, and the rule that keeps the
// scheduler from thrashing. Pure functions over ClusterState, tested by hand
// (tests/policies/gadget_realloc_test.cc); the policy (gadget.cc) prices each candidate with
// the back end's resize cost (SchedContext::ResizePauseS) and its ring model.
#pragma once

#include <span>
#include <vector>

#include "hetsched/sched/cluster_state.h"

namespace hetsched::gadget {

// The anti-thrashing rule [REC]: a change of a running job from progress rate x0 to x1
// (iterations per second) that stops it for `pause_s` must pay for itself within the horizon
// H' = min(horizon_s, R / x0) (R: iterations left; a job that ends sooner than the horizon at its
// current rate must end sooner with the change): it pays iff x1 (H' - pause_s) > x0 H', i.e. the
// work done over H' with the change exceeds the work done without it.
// EffectiveRate returns x1 (H' - pause_s)^+ / H', the change's rate averaged over H', so that the
// rule reads EffectiveRate(...) > x0. REQUIRES: horizon_s > 0, x0 >= 0, x1 >= 0, pause_s >= 0.
double EffectiveRate(double x0, double x1, double pause_s, double remaining_iterations, double horizon_s);
inline bool PaysForItself(double x0, double x1, double pause_s, double remaining_iterations, double horizon_s) {
  return EffectiveRate(x0, x1, pause_s, remaining_iterations, horizon_s) > x0;
}

// A ring a running job could move to: devices in ring order (server by server, the job's own
// devices first on each server), and the servers it spans.
struct RingCandidate {
  std::vector<DeviceId> devices;
  int span = 0;
  int kept = 0;  // how many of the job's devices it keeps
};

// The rings of exactly `workers` devices of the job's type that a running job holding `own` can
// move to now (free devices or its own), appended to `out`:
//   1. one server it already uses whose own + free devices hold `workers` (span 1; of those, the
//      server where it keeps the most devices, ties: lowest node id);
//   2. the best-fit server (fewest free devices that hold `workers`; ClusterState::BestFitNode)
//      when it is not one of its own: a move that keeps no worker;
//   3. when `workers` exceeds what candidate 1 can hold: its own servers, own + free devices,
//      servers with the most own devices first (span = the servers used), when they hold `workers`.
// Each keeps the job's own devices before taking free ones. Cost O(own + workers + log N).
// REQUIRES: own is non-empty, all of one type, held by the job.
void RingCandidates(const ClusterState& state, std::span<const DeviceId> own, int workers,
                    std::vector<RingCandidate>* out);

}  // namespace hetsched::gadget
