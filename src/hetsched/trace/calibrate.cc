#include "hetsched/trace/calibrate.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

#include "hetsched/perf/iteration_model.h"

namespace hetsched {

Result<RuntimeCalibrator> RuntimeCalibrator::Create(const DeviceCatalog& devices,
                                                    const LinkCatalog& links,
                                                    std::string_view reference_device) {
  Result<DeviceTypeId> type = devices.Lookup(reference_device);
  if (!type.ok()) {
    return Status::InvalidArgument("reference_device: " + type.status().message());
  }
  if (devices.type(*type).is_cpu) {
    return Status::InvalidArgument(fmt::format(
        "reference_device: '{}' is a CPU node; runtimes are calibrated on an accelerator",
        reference_device));
  }
  return RuntimeCalibrator(devices, links, *type);
}

Result<const Cluster*> RuntimeCalibrator::ClusterWithNodes(int nodes) {
  auto it = clusters_.find(nodes);
  if (it != clusters_.end()) return it->second.get();
  Result<Cluster> built = MakeShorthandCluster({{devices_->type(reference_type_).name,
                                                 nodes * kDevicesPerNode}},
                                               kDevicesPerNode, *devices_, *links_);
  if (!built.ok()) {
    return Status::Internal("runtime calibration: cannot build the reference cluster: " +
                            built.status().message());
  }
  auto [pos, inserted] = clusters_.emplace(nodes, std::make_unique<Cluster>(std::move(built).value()));
  (void)inserted;
  return pos->second.get();
}

Result<double> RuntimeCalibrator::IterationSeconds(const ModelProfile& model,
                                                   int batch_per_device, int num_gpus) {
  if (num_gpus < 1) return Status::InvalidArgument("runtime calibration: num_gpus must be >= 1");
  const int batch = batch_per_device > 0 ? batch_per_device : model.default_batch_size;
  const auto key = std::make_tuple(&model, batch, num_gpus);
  auto hit = iteration_s_.find(key);
  if (hit != iteration_s_.end()) return hit->second;

  const int nodes = (num_gpus + kDevicesPerNode - 1) / kDevicesPerNode;
  HETSCHED_ASSIGN_OR_RETURN(const Cluster* cluster, ClusterWithNodes(nodes));
  // Devices are numbered node by node, so 0..n-1 fill the first nodes completely: the packed
  // placement.
  Plan plan;
  plan.parallelism = num_gpus > 1 ? Parallelism::kDataRing : Parallelism::kSingle;
  plan.batch_per_device = batch > 0 ? batch : 1;
  plan.devices.resize(static_cast<size_t>(num_gpus));
  std::iota(plan.devices.begin(), plan.devices.end(), DeviceId{0});
  const IterationEstimate est = EstimateIteration(model, plan, *cluster);
  if (!std::isfinite(est.iteration_s) || est.iteration_s <= 0) {
    return Status::Internal(fmt::format(
        "runtime calibration: the perf model gives iteration time {} s for '{}' on {} x {}",
        est.iteration_s, model.name, num_gpus, devices_->type(reference_type_).name));
  }
  iteration_s_.emplace(key, est.iteration_s);
  return est.iteration_s;
}

Result<int64_t> RuntimeCalibrator::IterationsFor(const ModelProfile& model, int batch_per_device,
                                                 int num_gpus, double runtime_s) {
  HETSCHED_ASSIGN_OR_RETURN(double iteration_s, IterationSeconds(model, batch_per_device, num_gpus));
  const double n = std::round(runtime_s / iteration_s);
  // A job always does some work; 9e18 keeps the cast defined for absurd runtimes.
  if (!(n >= 1)) return int64_t{1};
  return static_cast<int64_t>(std::min(n, 9e18));
}

Result<int64_t> RuntimeToIterations(double runtime_s, const ModelProfile& model,
                                    int batch_per_device, int num_gpus,
                                    std::string_view reference_device,
                                    const DeviceCatalog& devices, const LinkCatalog& links) {
  HETSCHED_ASSIGN_OR_RETURN(RuntimeCalibrator calibrator,
                            RuntimeCalibrator::Create(devices, links, reference_device));
  return calibrator.IterationsFor(model, batch_per_device, num_gpus, runtime_s);
}

}  // namespace hetsched
