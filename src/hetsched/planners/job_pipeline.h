// The simulator-facing side of the heterogeneous planners: a job whose spec names an
// intra_job_planner (model/job.h) is laid out as a pipeline over the devices the placer gave it,
// with the step-time objective (TAPP, ALGORITHMS.md 4), and becomes a kPipeline Plan that
// perf/ EstimateIteration prices exactly as the planner did (step_time_model.h).
#pragma once

#include <span>

#include "hetsched/sched/planner.h"

namespace hetsched {

// The global batch is the job's per-device batch x the number of devices; micro-batches: the
// largest divisor of it not above 8. REQUIRES: 2 <= devices.size() <= 8.
Result<PlannedJob> PlanJobAsPipeline(const JobSpec& job, const ModelProfile& model, std::span<const DeviceId> devices,
                                     const Cluster& cluster);

}  // namespace hetsched
