// Internal to sim/: a running job's true speed where the simulator's truth is not its
// performance model: Gavel's measured table (steps/s for the job's GPU type, count and layout:
// Gavel's simulator finishes a job after total_steps / steps_per_second, and our iterations are
// Gavel's steps), or the trace's run time (on the workload's reference type, scaled to other
// types and counts by the model's packed estimates); each times the model's slowdown from link
// contention.
#pragma once

#include <map>

#include "hetsched/model/cluster.h"
#include "hetsched/model/job.h"
#include "hetsched/sim/run_state.h"
#include "hetsched/sim/simulator.h"
#include "hetsched/trace/calibrate.h"
#include "hetsched/util/status.h"

namespace hetsched::sim_internal {

class TrueRates {
 public:
  // `options` (its measured table, its layout and contention switches) outlives this.
  TrueRates(const Cluster& cluster, const SimOptions& options) : cluster_(cluster), options_(options) {}
  // The device type the trace's run times were measured on (Workload::runtime_device).
  void set_runtime_type(DeviceTypeId type) { runtime_type_ = type; }
  DeviceTypeId runtime_type() const { return runtime_type_; }

  // The measured truth of the running `job` (a measured job type): the table's steps/s for its
  // run's type and count, consolidated or spread as its run is (always consolidated under
  // SimOptions::measured_always_consolidated), times ContentionSlowdown; 0 when the table lacks
  // that configuration (the model's rate is then the truth).
  double Measured(const JobSpec& spec, const RunState& job, const ActiveRun& run) const;
  // A job with a trace run time, contention-free, on `count` devices of `type`: total_iterations
  // / runtime_s on spec.num_gpus devices of the reference type; other types and counts scale it
  // by the model's packed estimates (RuntimeCalibrator), whatever the layout. Fails when the
  // model cannot run the job there.
  Result<double> Runtime(const JobSpec& spec, const RunState& job, DeviceTypeId type, int count);
  // The model's slowdown of the run from link contention: iteration time alone / under the
  // current load, at most 1 (1 when contention is off or the job is on one node).
  double ContentionSlowdown(const RunState& job, const ActiveRun& run) const;

 private:
  Result<double> PackedIterationS(DeviceTypeId type, const ModelProfile& model, int batch, int count);

  const Cluster& cluster_;
  const SimOptions& options_;
  DeviceTypeId runtime_type_ = kNoDeviceType;
  std::map<DeviceTypeId, RuntimeCalibrator> calibrators_;  // packed estimates, by type
};

}  // namespace hetsched::sim_internal
