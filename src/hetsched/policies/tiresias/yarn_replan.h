// The whole-cluster re-plan of Tiresias' simulator's preemptive policies other than dlas
// (smallest_first_sim_jobs and shortest_first_sim_jobs, SymbioticLab/Tiresias @ 959f9b0,
// simulator/run_sim.py:530-559 and 675-704): at every event the cluster is emptied
// (CLUSTER.empty_infra) and the runnable jobs, pending and running, are placed one by one in the
// policy's order by the `yarn` rule (try_get_job_res, switch.py:46-195): up to a node's GPUs, the
// first node with room; beyond, the first floor(n/g) wholly free nodes and the first other node
// with the rest. A job that does not fit is skipped (no head-of-line blocking). Running jobs left
// out are preempted (free in the peer), chosen pending ones start.
//
// Only the set of running jobs matters to the peer's figures (no contention, no layout effect),
// so the plan is kept as counts per node and a chosen job starts on the lowest-id free devices
// (as `dlas` with placement=count). The peer has one GPU type and enough cores: here nodes of a
// type the job cannot use are skipped, a cross-node job takes nodes of one type, a running job is
// planned on the type it runs on (so each type's counts hold on its devices), and cores and
// memory are not counted. Not reproduced: the peer never gives memory back between plans
// (empty_infra calls node.init_node without `mem`, cluster.py:98, node.py:31-40), so each
// placement leaks 5 GB of its node until no job fits and its run ends early; the policies built
// on this match the peer with that line fixed (docs/validation.md, "Tiresias").
#pragma once

#include <map>
#include <vector>

#include "hetsched/sched/context.h"

namespace hetsched {

// Starts job `id` on the `n` lowest-id free devices of `type` (Tiresias' dlas and re-plans count
// devices and place nothing). False, changing nothing, when fewer are free; else StartOn's answer.
// `scratch` is reused storage.
bool StartOnLowestFree(SchedContext& ctx, JobId id, int n, DeviceTypeId type, std::vector<DeviceId>* scratch);

class TiresiasYarnReplan {
 public:
  // Plans `order` (runnable jobs, pending or running, highest priority first) on the empty
  // cluster, preempts the running jobs left out and starts the chosen pending ones.
  // Cost: O(jobs x nodes).
  void Apply(SchedContext& ctx, const std::vector<JobId>& order);

 private:
  // The yarn rule on this plan's free counts, on type `only` (kNoDeviceType: the job's usable
  // types in catalog order); takes the devices from free_. Returns the type planned on, or
  // kNoDeviceType when the job does not fit.
  DeviceTypeId PlanYarn(const JobSpec& spec, const Cluster& cluster, DeviceTypeId only);

  std::vector<int> free_;                 // this plan's free devices per node
  std::map<JobId, DeviceTypeId> chosen_;  // this plan's jobs and the type each is counted on
  std::vector<NodeId> picked_;            // scratch of PlanYarn
  std::vector<DeviceId> devices_;         // scratch of StartOnLowestFree
};

}  // namespace hetsched
