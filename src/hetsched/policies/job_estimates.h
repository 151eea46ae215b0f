// Runtime estimates and preemption-victim selection shared by the job schedulers of this folder.
// Everything here reads only what a scheduler may see (JobSpec, JobStatus, the visible
// performance model through SchedContext), never the simulator's truth.
#pragma once

#include <string>
#include <vector>

#include "hetsched/sched/context.h"
#include "hetsched/util/function_ref.h"

namespace hetsched {

// Device types `spec` may run on that exist in `cluster`, in catalog order.
std::vector<DeviceTypeId> UsableTypes(const JobSpec& spec, const Cluster& cluster);

// Estimated seconds the job still needs on `num_gpus` devices of `type`, from now:
//  - the user's runtime estimate (spec.estimated_runtime_s, like Slurm --time) minus the time
//    already executed, if the user gave one;
//  - else the iterations not yet done x the visible model's iteration time on that type;
//  - else infinity (nothing is known about the job's length).
// Never negative: a job that overran its estimate is "about to end" (0).
double RemainingEstimateS(SchedContext& ctx, JobId id, DeviceTypeId type);

// RemainingEstimateS on the job's fastest usable type (for a job never run: its estimated total
// length). Infinity when unknown.
double RemainingOnFastestS(SchedContext& ctx, JobId id);

// Walks running jobs that may be preempted for a pending job, best victim first; the visitor
// returns false to stop the walk. References, not std::function: a preemption search runs at
// every blocked start, and neither callable outlives it.
using VictimVisit = FunctionRef<bool(JobId)>;
using VictimWalk = FunctionRef<void(DeviceTypeId type, VictimVisit visit)>;

struct VictimChoice {
  DeviceTypeId type = kNoDeviceType;  // kNoDeviceType: no set of victims frees enough devices
  std::vector<JobId> victims;         // in walk order
  std::vector<JobId> trial;           // ChooseVictims' scratch: the walk of the type at hand
};

// For each usable type of `job`, takes victims of that type in walk order until the free devices
// of the type plus the victims' devices reach the job's request (spec.num_gpus). Chooses the
// type that needs the fewest preempted devices (ties: catalog order), or type kNoDeviceType.
// Writes into `out`, whose lists' storage is reused (a policy keeps one VictimChoice: the search
// runs at every blocked start). Cost: O(victims walked).
void ChooseVictims(SchedContext& ctx, JobId job, VictimWalk walk, VictimChoice* out);

// Parses a ';'-separated list of strictly increasing positive numbers ("3600;36000").
// `what` names the option in errors.
Result<std::vector<double>> ParseIncreasingList(const std::string& text, const std::string& what);

}  // namespace hetsched
