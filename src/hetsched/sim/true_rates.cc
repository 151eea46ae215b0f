#include "hetsched/sim/true_rates.h"

#include <algorithm>
#include <utility>

namespace hetsched::sim_internal {

double TrueRates::Measured(const JobSpec& spec, const RunState& job, const ActiveRun& run) const {
  const int count = static_cast<int>(run.plan.devices.size());
  const DeviceTypeId type = cluster_.device(run.plan.devices.front()).type;
  const double steps_per_s = count == spec.num_gpus
                                 ? options_.measured_throughputs->StepsPerSecond(
                                       job.measured_type, type, count,
                                       options_.measured_always_consolidated || run.estimate.span_nodes <= 1)
                                 : 0.0;
  return steps_per_s > 0 ? steps_per_s * ContentionSlowdown(job, run) : 0.0;
}

double TrueRates::ContentionSlowdown(const RunState& job, const ActiveRun& run) const {
  if (!options_.contention || run.nics.empty() || run.estimate.iteration_s <= 0) return 1.0;
  const IterationEstimate alone = EstimateUnderLoad(run.prepared, *job.model, run.plan, cluster_, LinkLoad{});
  return std::min(1.0, alone.iteration_s / run.estimate.iteration_s);
}

Result<double> TrueRates::PackedIterationS(DeviceTypeId type, const ModelProfile& model, int batch, int count) {
  auto it = calibrators_.find(type);
  if (it == calibrators_.end()) {
    HETSCHED_ASSIGN_OR_RETURN(RuntimeCalibrator made,
                              RuntimeCalibrator::Create(cluster_.device_catalog(), cluster_.link_catalog(),
                                                        cluster_.device_catalog().type(type).name));
    it = calibrators_.emplace(type, std::move(made)).first;
  }
  return it->second.IterationSeconds(model, batch, count);
}

Result<double> TrueRates::Runtime(const JobSpec& spec, const RunState& job, DeviceTypeId type, int count) {
  if (type == runtime_type_ && count == spec.num_gpus) return job.runtime_rate;  // the trace's own figure
  // Iterations are of spec.num_gpus x batch samples: compare sample throughputs.
  HETSCHED_ASSIGN_OR_RETURN(const double on_s, PackedIterationS(type, *job.model, spec.batch_size, count));
  HETSCHED_ASSIGN_OR_RETURN(const double ref_s,
                            PackedIterationS(runtime_type_, *job.model, spec.batch_size, spec.num_gpus));
  return job.runtime_rate * (static_cast<double>(count) / on_s) / (static_cast<double>(spec.num_gpus) / ref_s);
}

}  // namespace hetsched::sim_internal
