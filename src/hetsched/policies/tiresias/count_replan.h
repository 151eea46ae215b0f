// The counting re-plan of Tiresias' simulator's dlas family (dlas_sim_jobs, gittins_sim_jobs;
// SymbioticLab/Tiresias @ 959f9b0, simulator/run_sim.py:1094-1129 and 1378-1412): free devices
// start at the cluster's total (CLUSTER.empty_infra); walking the runnable jobs in the policy's
// order, a job runs if it fits in what is still free, else it is skipped (no head-of-line
// blocking, no reservation). Devices are counted, not placed. Running jobs left out are preempted
// (free in the peer), chosen pending jobs start.
//
// Heterogeneous clusters (the peer has one type): a running job is counted against its own type,
// a pending one against its usable type with the most devices still free (ties: catalog order).
// With count_only (placement=count) a chosen job starts on the lowest-id free devices of that
// type; otherwise it asks the placer, and stays pending if the placer finds no room.
#pragma once

#include <set>
#include <utility>
#include <vector>

#include "hetsched/sched/context.h"

namespace hetsched {

class TiresiasCountReplan {
 public:
  explicit TiresiasCountReplan(bool count_only) : count_only_(count_only) {}

  // Plans `order` (runnable jobs, pending or running, highest priority first), preempts and
  // starts. Cost: O(jobs x device types).
  void Apply(SchedContext& ctx, const std::vector<JobId>& order);
  // Whether `id` runs after the last Apply (kept or started).
  bool Runs(JobId id) const { return runs_.count(id) > 0; }

 private:
  bool count_only_;
  std::vector<JobId> stop_;  // scratch of Apply
  std::vector<std::pair<JobId, DeviceTypeId>> start_;
  std::set<JobId> runs_;
  std::vector<DeviceId> devices_;
};

}  // namespace hetsched
