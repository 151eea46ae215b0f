#include "hetsched/planners/job_pipeline.h"

#include <fmt/format.h>

#include "hetsched/planners/hetero_problem.h"

namespace hetsched {

Result<PlannedJob> PlanJobAsPipeline(const JobSpec& job, const ModelProfile& model, std::span<const DeviceId> devices,
                                     const Cluster& cluster) {
  const int n = static_cast<int>(devices.size());
  const int batch = job.batch_size > 0 ? job.batch_size : model.default_batch_size;
  PlanningProblem problem;
  problem.model = &model;
  problem.objective = PlanObjective::kStepTime;
  problem.cluster = &cluster;
  problem.devices.assign(devices.begin(), devices.end());
  problem.global_batch = batch * n;
  problem.micro_batches = 8;
  while (problem.global_batch % problem.micro_batches != 0) --problem.micro_batches;
  problem.seed = static_cast<unsigned long long>(job.id) + 1;
  auto solved = SolveWith(job.intra_job_planner, problem);
  if (!solved.ok()) {
    return solved.status().WithContext(fmt::format("job {} ({}): intra-job planner '{}'", job.id, model.name,
                                                   job.intra_job_planner));
  }
  PlannedJob planned;
  Plan& plan = planned.plan;
  plan.parallelism = Parallelism::kPipeline;
  plan.batch_per_device = problem.global_batch;  // one device per stage: the stage sees the whole mini-batch
  plan.micro_batches = problem.micro_batches;
  plan.devices.assign(devices.begin(), devices.end());
  for (const PlannedStage& s : solved->stages) plan.stages.push_back({s.first_layer, s.last_layer, s.devices});
  planned.estimate = EstimateIteration(model, plan, cluster);
  if (!planned.estimate.fits_in_memory) {
    return Status::Infeasible(fmt::format("job {} ({}): the pipeline does not fit in memory", job.id, model.name));
  }
  return planned;
}

}  // namespace hetsched
