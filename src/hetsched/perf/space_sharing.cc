// Space sharing's co-location model [REC]: the roofline's two sides summed over a step, shared.
#include "hetsched/perf/space_sharing.h"

#include <algorithm>

#include "hetsched/perf/perf_internal.h"

namespace hetsched {

DeviceDemand DemandOf(const ModelProfile& model, int batch_per_device, const Cluster& cluster,
                      std::span<const DeviceId> devices, const IterationEstimate& alone) {
  DeviceDemand demand;
  demand.memory_bytes = alone.memory_per_device_bytes;
  if (!(alone.iteration_s > 0) || devices.empty()) return demand;
  const double batch = static_cast<double>(batch_per_device);
  // The slowest device sets the step (perf_internal::SlowestComputeTime); its sums are the job's.
  double slowest_s = -1;
  for (DeviceId d : devices) {
    const DeviceType& type = cluster.device_catalog().type(cluster.device(d).type);
    const perf_internal::RooflineRates rates = perf_internal::RatesOf(type);
    double flop_s = 0, memory_s = 0;
    for (size_t i = 0; i < model.layers.size(); ++i) {
      const LayerProfile& layer = model.layers[i];
      const double flops = batch * (layer.fwd_flops_per_sample + layer.bwd_flops_per_sample);
      const double bytes = batch * perf_internal::BytesTouchedPerSample(model, static_cast<int>(i));
      if (flops > 0 && rates.flops_per_s > 0) flop_s += flops / rates.flops_per_s;
      if (bytes > 0 && rates.bytes_per_s > 0) memory_s += bytes / rates.bytes_per_s;
    }
    const double step_s = perf_internal::RooflineTime(model, 0, static_cast<int>(model.layers.size()) - 1, batch, rates);
    if (step_s <= slowest_s) continue;
    slowest_s = step_s;
    demand.flop_share = std::min(1.0, flop_s / alone.iteration_s);
    demand.memory_share = std::min(1.0, memory_s / alone.iteration_s);
  }
  return demand;
}

double CoLocationFactor(const DeviceDemand& a, const DeviceDemand& b) {
  const double load = std::max({1.0, a.flop_share + b.flop_share, a.memory_share + b.memory_share});
  return 1.0 / load;
}

bool FitsTogether(const DeviceDemand& a, const DeviceDemand& b, const Cluster& cluster,
                  std::span<const DeviceId> devices) {
  for (DeviceId d : devices) {
    if (a.memory_bytes + b.memory_bytes > cluster.device_catalog().type(cluster.device(d).type).memory_bytes) return false;
  }
  return true;
}

}  // namespace hetsched
