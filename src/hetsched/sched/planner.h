// Plug point 3: the planner decides how one job runs on its devices (data parallel, parameter
// server, pipeline stages) and estimates its speed from the visible performance model.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "hetsched/model/cluster.h"
#include "hetsched/model/job.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/iteration_model.h"
#include "hetsched/util/status.h"

namespace hetsched {

struct PlannedJob {
  Plan plan;
  IterationEstimate estimate;  // without contention from other jobs
  // The load-free part of the estimate, where the planner computed the estimate through it
  // (prepared.split; then estimate == EstimateUnderLoad(prepared, ..., LinkLoad{})): the
  // simulator re-times the job from it instead of preparing the plan again. It describes `plan`
  // as prepared (its devices, their nodes): code that edits the plan afterwards must prepare it
  // again or reset `prepared` to {}.
  PreparedEstimate prepared;
};

class Planner {
 public:
  static constexpr std::string_view kKind = "planner";
  virtual ~Planner() = default;
  virtual std::string_view name() const = 0;
  // Lays `job` out on `devices`. Errors when the job cannot run there (e.g. out of memory).
  virtual Result<PlannedJob> PlanJob(const JobSpec& job, const ModelProfile& model,
                                     std::span<const DeviceId> devices, const Cluster& cluster) = 0;
  // PlanJob into `out`, whose storage a planner may reuse (SchedContext plans into one PlannedJob
  // at every start attempt); `out` is unspecified after an error. The default moves PlanJob's.
  virtual Status PlanJobInto(const JobSpec& job, const ModelProfile& model, std::span<const DeviceId> devices,
                             const Cluster& cluster, PlannedJob* out) {
    HETSCHED_ASSIGN_OR_RETURN(*out, PlanJob(job, model, devices, cluster));
    return Status::Ok();
  }
  // A planner whose successful PlanJobInto is a function of the model, the devices, the cluster
  // and a few fields of the job may name those fields' values as a key: then two jobs with equal
  // keys and models get the same plan on the same devices of the same cluster, and a caller may
  // reuse it (SchedContext::StartOn memoises its starts: a time-slicing policy starts jobs on
  // the same devices millions of times). The key is exact, not a hash: equal keys promise equal
  // plans. nullopt (the default): not memoisable, for this job or at all.
  virtual std::optional<uint64_t> PlanKey(const JobSpec& /*job*/, const ModelProfile& /*model*/,
                                          size_t /*num_devices*/) const {
    return std::nullopt;
  }
};

}  // namespace hetsched
