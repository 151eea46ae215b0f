// Runtime -> iteration-count conversion for traces that say how long a job ran (Philly, PAI,
// Helios, Tiresias' durations, synthetic runtimes) rather than how much work it is. The work is
// what the simulator needs (JobTruth::total_iterations), so a runtime is read as "measured on
// num_gpus devices of the reference type, packed onto as few nodes as possible" and divided by
// the perf model's iteration time for that placement (perf::EstimateIteration, no contention).
// docs/formats-trace.md, "Runtime calibration".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string_view>
#include <tuple>

#include "hetsched/model/cluster.h"
#include "hetsched/model/device.h"
#include "hetsched/model/link.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/util/status.h"

namespace hetsched {

// Caches one iteration time per (model, batch, GPU count) and one reference cluster per node
// count, so converting a million runtimes costs a million divisions. Not thread-safe.
// REQUIRES: the catalogs and the model profiles passed in outlive the calibrator.
class RuntimeCalibrator {
 public:
  // Reference servers hold 8 devices, the common size of the servers in the Philly, Helios and
  // PAI clusters and of DGX-1/DGX-A100 boxes [REC]; a job of n > 8 GPUs spans ceil(n/8) of them.
  static constexpr int kDevicesPerNode = 8;

  // Fails when `reference_device` is not in `devices` or is a CPU node.
  static Result<RuntimeCalibrator> Create(const DeviceCatalog& devices, const LinkCatalog& links,
                                          std::string_view reference_device);

  // Seconds per iteration of `model` with `batch_per_device` samples per device (0 = the
  // model's default) on `num_gpus` reference devices. REQUIRES: num_gpus >= 1.
  Result<double> IterationSeconds(const ModelProfile& model, int batch_per_device, int num_gpus);

  // round(runtime_s / IterationSeconds(...)), at least 1. REQUIRES: runtime_s finite, >= 0.
  Result<int64_t> IterationsFor(const ModelProfile& model, int batch_per_device, int num_gpus,
                                double runtime_s);

  DeviceTypeId reference_type() const { return reference_type_; }

 private:
  RuntimeCalibrator(const DeviceCatalog& devices, const LinkCatalog& links, DeviceTypeId type)
      : devices_(&devices), links_(&links), reference_type_(type) {}
  Result<const Cluster*> ClusterWithNodes(int nodes);

  const DeviceCatalog* devices_;
  const LinkCatalog* links_;
  DeviceTypeId reference_type_;
  std::map<int, std::unique_ptr<Cluster>> clusters_;  // by node count
  std::map<std::tuple<const ModelProfile*, int, int>, double> iteration_s_;
};

// The conversion on its own, for one-off callers (no cache kept).
Result<int64_t> RuntimeToIterations(double runtime_s, const ModelProfile& model,
                                    int batch_per_device, int num_gpus,
                                    std::string_view reference_device,
                                    const DeviceCatalog& devices, const LinkCatalog& links);

}  // namespace hetsched
