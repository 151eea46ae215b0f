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
  // starts. Cost: O(jobs x device types). The same as Begin, Offer for each job, Finish.
  void Apply(SchedContext& ctx, const std::vector<JobId>& order);
  // The same walk one job at a time, for a caller that skips jobs that cannot run: Begin empties
  // the plan (every device free); Offer plans the next job and says whether it is kept or chosen;
  // Finish preempts and starts. A pending job asking more devices than MaxFree() would be skipped
  // by Offer, and MaxFree() never grows between Begin and Finish.
  void Begin(const SchedContext& ctx);
  bool Offer(const SchedContext& ctx, JobId id);
  int MaxFree() const { return max_free_; }
  // Keeps running jobs that use `need[t]` devices of each type t, all at once, when they all fit
  // in what is free (true); else changes nothing (false). Offered one by one they would all be
  // kept too, but Runs() does not list them.
  bool KeepAll(const std::vector<int>& need);
  void Finish(SchedContext& ctx);
  // Whether `id` runs after the last Apply (kept or started).
  bool Runs(JobId id) const { return runs_.count(id) > 0; }

 private:
  bool count_only_;
  std::vector<int> free_;  // this plan's free devices per type
  int max_free_ = 0;       // the largest of free_
  std::vector<JobId> stop_;  // scratch of Apply
  std::vector<std::pair<JobId, DeviceTypeId>> start_;
  std::set<JobId> runs_;
  std::vector<DeviceId> devices_;
};

}  // namespace hetsched
