#include "hetsched/planners/job_pipeline.h"

#include <fmt/format.h>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/planners/hetero_problem.h"

namespace hetsched {

namespace {

// Hex floats: exact, so two keys are equal only when the problems are.
std::string CacheKey(const PlanningProblem& p, std::string_view planner, const Cluster& cluster) {
  std::string key = fmt::format("{}|{}|{}|{}", planner, p.model->name, p.global_batch, p.micro_batches);
  for (DeviceId d : p.devices) key += "|" + cluster.device_catalog().type(cluster.device(d).type).name;
  for (size_t a = 0; a < p.devices.size(); ++a) {
    for (size_t b = a + 1; b < p.devices.size(); ++b) {
      const DeviceId pair[2] = {p.devices[a], p.devices[b]};
      const PathCapacity path = BottleneckOf(cluster, pair, {});
      key += fmt::format("|{:a},{:a}", path.bandwidth_Bps, path.latency_s);
    }
  }
  return key;
}

}  // namespace

const PipelinePlanCache::Stages* PipelinePlanCache::Find(const std::string& key) const {
  const auto it = plans_.find(key);
  if (it == plans_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  return &it->second;
}

Result<PlannedJob> PlanJobAsPipeline(const JobSpec& job, const ModelProfile& model, std::span<const DeviceId> devices,
                                     const Cluster& cluster, PipelinePlanCache* cache) {
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
  PlannedJob planned;
  Plan& plan = planned.plan;
  plan.parallelism = Parallelism::kPipeline;
  plan.batch_per_device = problem.global_batch;  // one device per stage: the stage sees the whole mini-batch
  plan.micro_batches = problem.micro_batches;
  plan.devices.assign(devices.begin(), devices.end());
  const std::string key = cache != nullptr ? CacheKey(problem, job.intra_job_planner, cluster) : std::string();
  const PipelinePlanCache::Stages* cached = cache != nullptr ? cache->Find(key) : nullptr;
  if (cached != nullptr) {
    for (const auto& [first, last, g] : *cached) {
      plan.stages.push_back({first, last, {devices[static_cast<size_t>(g)]}});
    }
  } else {
    auto solved = SolveWith(job.intra_job_planner, problem);
    if (!solved.ok()) {
      return solved.status().WithContext(fmt::format("job {} ({}): intra-job planner '{}'", job.id, model.name,
                                                     job.intra_job_planner));
    }
    PipelinePlanCache::Stages stages;
    for (const PlannedStage& s : solved->stages) {
      plan.stages.push_back({s.first_layer, s.last_layer, s.devices});
      int g = 0;
      while (g < n && devices[static_cast<size_t>(g)] != s.devices.at(0)) ++g;
      stages.push_back({s.first_layer, s.last_layer, g});
    }
    if (cache != nullptr) cache->Insert(key, std::move(stages));
  }
  planned.estimate = EstimateIteration(model, plan, cluster);
  if (!planned.estimate.fits_in_memory) {
    return Status::Infeasible(fmt::format("job {} ({}): the pipeline does not fit in memory", job.id, model.name));
  }
  return planned;
}

}  // namespace hetsched
