// The simulator-facing side of the heterogeneous planners: a job whose spec names an
// intra_job_planner (model/job.h) is laid out as a pipeline over the devices the placer gave it,
// with the step-time objective (TAPP, ALGORITHMS.md 4), and becomes a kPipeline Plan that
// perf/ EstimateIteration prices exactly as the planner did (step_time_model.h).
#pragma once

#include <array>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "hetsched/sched/planner.h"

namespace hetsched {

// Plans already made, keyed by everything the planning problem depends on: the planner, the
// model, the global batch and micro-batches, and the devices' shape (their types in order and
// the bandwidth and latency between every pair). A learned planner (tapp) trains once per key;
// later jobs with the same model on devices of the same shape reuse the plan, mapped onto their
// own devices, instead of retraining at every job start. One cache per planner instance (one
// simulation run); not thread-safe.
class PipelinePlanCache {
 public:
  // A stage as (first layer, last layer, index of its device in the job's device list).
  using Stages = std::vector<std::array<int, 3>>;
  const Stages* Find(const std::string& key) const;
  void Insert(const std::string& key, Stages stages) { plans_[key] = std::move(stages); }
  long long hits() const { return hits_; }
  long long misses() const { return misses_; }
  size_t size() const { return plans_.size(); }

 private:
  std::unordered_map<std::string, Stages> plans_;
  mutable long long hits_ = 0, misses_ = 0;
};

// The global batch is the job's per-device batch x the number of devices; micro-batches: the
// largest divisor of it not above 8. REQUIRES: 2 <= devices.size() <= 8. With a cache, a plan
// for the same key is reused and a new one stored.
Result<PlannedJob> PlanJobAsPipeline(const JobSpec& job, const ModelProfile& model, std::span<const DeviceId> devices,
                                     const Cluster& cluster, PipelinePlanCache* cache = nullptr);

}  // namespace hetsched
