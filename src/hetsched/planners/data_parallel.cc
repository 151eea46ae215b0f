// Data-parallel planner: every device holds a full replica and processes its own per-device
// batch; gradients are synchronised by ring all-reduce (default) or parameter servers
// (spec.parallelism == kDataPS). One device: kSingle. A job whose spec names an intra_job_planner
// and holds 2 to 8 devices is laid out as a pipeline by that planner (job_pipeline.h; plans are
// cached per model and device shape for the planner's lifetime, so a learned planner trains once
// per shape, not at every job start); other pipeline jobs are planned as data parallel. The estimate is the visible performance model's
// (perf/iteration_model.h), without contention.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/planners/job_pipeline.h"
#include "hetsched/sched/planner.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace {

// "16 GiB", "21.3 GiB": one decimal unless it is a whole number.
std::string FormatGiB(double bytes) {
  const double gib = bytes / kGiB;
  const double rounded = std::round(gib * 10.0) / 10.0;
  if (rounded == std::round(rounded)) return fmt::format("{:.0f} GiB", rounded);
  return fmt::format("{:.1f} GiB", rounded);
}

class DataParallelPlanner : public Planner {
 public:
  std::string_view name() const override { return "data-parallel"; }

  // What PlanJobInto reads of the job but for its id (which only errors name): the parallelism
  // (single, PS or ring), the batch per device and whether it is a goodput job; a pipeline job
  // (its intra-job planner, 2-8 devices) is planned by PlanJobAsPipeline and not memoised.
  std::optional<uint64_t> PlanKey(const JobSpec& job, const ModelProfile& model,
                                  size_t num_devices) const override {
    if (!job.intra_job_planner.empty() && num_devices >= 2 && num_devices <= 8) return std::nullopt;
    const int batch = job.batch_size > 0 ? job.batch_size : model.default_batch_size;
    if (batch <= 0) return std::nullopt;
    const uint64_t kind = num_devices == 1 ? 0 : job.parallelism == Parallelism::kDataPS ? 1 : 2;
    return (static_cast<uint64_t>(static_cast<uint32_t>(batch)) << 3) | (kind << 1) |
           (job.application.empty() ? 0u : 1u);
  }

  Result<PlannedJob> PlanJob(const JobSpec& job, const ModelProfile& model, std::span<const DeviceId> devices,
                             const Cluster& cluster) override {
    PlannedJob planned;
    HETSCHED_RETURN_IF_ERROR(PlanJobInto(job, model, devices, cluster, &planned));
    return planned;
  }

  Status PlanJobInto(const JobSpec& job, const ModelProfile& model, std::span<const DeviceId> devices,
                     const Cluster& cluster, PlannedJob* out) override {
    if (devices.empty()) {
      return Status::InvalidArgument("job " + std::to_string(job.id) + ": no devices to plan on");
    }
    if (!job.intra_job_planner.empty() && devices.size() >= 2 && devices.size() <= 8) {
      HETSCHED_ASSIGN_OR_RETURN(*out, PlanJobAsPipeline(job, model, devices, cluster, &pipeline_plans_));
      return Status::Ok();
    }
    // Every field afresh but the device list's storage (the nodes' is PrepareEstimate's to reuse).
    std::vector<DeviceId> device_storage = std::move(out->plan.devices);
    out->plan = Plan{};
    out->plan.devices = std::move(device_storage);
    out->estimate = IterationEstimate{};
    PlannedJob& planned = *out;
    Plan& plan = planned.plan;
    if (devices.size() == 1) {
      plan.parallelism = Parallelism::kSingle;
    } else if (job.parallelism == Parallelism::kDataPS) {
      plan.parallelism = Parallelism::kDataPS;
    } else {
      plan.parallelism = Parallelism::kDataRing;  // kDataRing, and kPipeline treated as data parallel
    }
    plan.batch_per_device = job.batch_size > 0 ? job.batch_size : model.default_batch_size;
    if (plan.batch_per_device <= 0) {
      return Status::InvalidArgument("job " + std::to_string(job.id) + " (" + model.name +
                                     "): no batch size (job and model default are both 0)");
    }
    plan.devices.assign(devices.begin(), devices.end());
    PrepareEstimate(model, plan, cluster, &planned.prepared);
    planned.estimate = EstimateUnderLoad(planned.prepared, model, plan, cluster);
    // A goodput job's memory is its profile's: it runs at the local batches measured on the type
    // (docs/goodput.md), whatever the zoo's estimate of its model at the trace's batch says.
    if (!job.application.empty()) planned.estimate.fits_in_memory = true;
    if (!planned.estimate.fits_in_memory) {
      // Name the smallest device memory among the devices: that is the one that overflows.
      DeviceTypeId smallest = cluster.device(devices[0]).type;
      for (DeviceId d : devices) {
        const DeviceTypeId t = cluster.device(d).type;
        if (cluster.device_catalog().type(t).memory_bytes < cluster.device_catalog().type(smallest).memory_bytes) {
          smallest = t;
        }
      }
      const DeviceType& type = cluster.device_catalog().type(smallest);
      return Status::Infeasible("job " + std::to_string(job.id) + " (" + model.name + ", batch " +
                                std::to_string(plan.batch_per_device) + ") does not fit in " +
                                FormatGiB(type.memory_bytes) + " of " + type.name + ": needs " +
                                FormatGiB(planned.estimate.memory_per_device_bytes));
    }
    return Status::Ok();
  }

 private:
  PipelinePlanCache pipeline_plans_;
};

Result<std::unique_ptr<Planner>> MakeDataParallel(const Options& /*options*/) {
  return std::unique_ptr<Planner>(std::make_unique<DataParallelPlanner>());
}

const MethodInfo kDataParallelInfo{
    "data-parallel",
    "data parallel on the given devices: ring all-reduce (default) or parameter servers; pipeline jobs planned as data parallel",
    "[CLASSIC] synchronous data parallelism: ring all-reduce (Patarasuk & Yuan 2009), parameter server (Li et al., OSDI 2014)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Planner, kDataParallelRegistered, kDataParallelInfo, MakeDataParallel)

}  // namespace hetsched
