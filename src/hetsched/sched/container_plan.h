// The plan of a parameter-server container job once a placer has put its containers: data
// parallel through the servers, shards as perf/ShardParameters splits the model, and the
// contention-free estimate. Shared by SchedContext (starting jobs) and placers that compare
// layouts.
#pragma once

#include <span>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/job.h"
#include "hetsched/sched/planner.h"

namespace hetsched {

// The plan alone (no checks): devices of every container, batch (the job's or the model's
// default), shards, containers.
Plan MakeContainerPlan(const JobSpec& job, const ModelProfile& model, std::span<const ContainerPlacement> containers);

// Errors when the containers do not match the job (counts, requests, devices) or the model does
// not fit the workers' device memory.
Result<PlannedJob> PlanContainerJob(const JobSpec& job, const ModelProfile& model,
                                    std::span<const ContainerPlacement> containers, const Cluster& cluster);

// A what-if layout on the cluster's shape, ignoring who holds what: workers on the nodes of
// `type` with the most accelerators first (GPU counts only), servers round-robin on the nodes
// the workers use. Empty when the cluster lacks the accelerators.
std::vector<ContainerPlacement> PackedContainerLayout(const JobSpec& job, DeviceTypeId type, const Cluster& cluster);

}  // namespace hetsched
