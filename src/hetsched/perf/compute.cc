// Compute time on one device: a per-layer roofline (Williams, Waterman & Patterson, CACM 2009)
// summed over a layer range, plus a fixed per-iteration overhead (ALGORITHMS.md 1.4-1), plus
// the model's host-side cost where the range takes the model's input (docs/perf-model.md 1).
#include <algorithm>
#include <array>
#include <utility>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/perf/perf_internal.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace perf_internal {

RooflineRates RatesOf(const DeviceType& type) {
  return RooflineRates{type.fp32_flops * type.efficiency, type.memory_bandwidth_Bps,
                       type.iteration_overhead_s};
}

double BytesTouchedPerSample(const ModelProfile& model, int index) {
  const auto& layers = model.layers;
  const LayerProfile& layer = layers[static_cast<size_t>(index)];
  const double input_bytes =
      index > 0 ? layers[static_cast<size_t>(index - 1)].activation_bytes_per_sample : 0.0;
  return 2.0 * (input_bytes + layer.activation_bytes_per_sample) +
         2.0 * layer.sparse_bytes_per_sample;
}

double RooflineTime(const ModelProfile& model, int first, int last, double batch,
                    const RooflineRates& rates) {
  if (batch <= 0) return rates.overhead_s;
  double total_s = 0;
  for (int i = first; i <= last; ++i) {
    const LayerProfile& layer = model.layers[static_cast<size_t>(i)];
    const double flops = batch * (layer.fwd_flops_per_sample + layer.bwd_flops_per_sample);
    const double bytes = batch * BytesTouchedPerSample(model, i);
    // A zero rate with work to do never finishes; with no work it costs nothing.
    const double flop_s = flops <= 0 ? 0.0 : (rates.flops_per_s > 0 ? flops / rates.flops_per_s : kInf);
    const double mem_s = bytes <= 0 ? 0.0 : (rates.bytes_per_s > 0 ? bytes / rates.bytes_per_s : kInf);
    total_s += std::max(flop_s, mem_s);
  }
  // The host-side work (environment steps, CPU data loading) produces the input of layer 0, so
  // the device running layer 0 waits for it, once per call, as for kappa; the accelerator's
  // speed does not change it.
  const double host_s = first == 0 ? model.host_seconds_per_iteration : 0.0;
  return total_s + rates.overhead_s + host_s;
}

double SlowestComputeTime(const ModelProfile& model, int first, int last, double batch,
                          const Cluster& cluster, std::span<const DeviceId> devices) {
  // Clusters hold a handful of types: remember the first few computed so that a 64-device job
  // of one type runs the layer loop once. Beyond the memo's size types are simply recomputed.
  constexpr size_t kMemo = 8;
  std::array<std::pair<DeviceTypeId, double>, kMemo> memo{};
  size_t memo_size = 0;
  double slowest_s = 0;
  for (DeviceId d : devices) {
    const DeviceTypeId type = cluster.device(d).type;
    double t = -1;
    for (size_t i = 0; i < memo_size; ++i) {
      if (memo[i].first == type) t = memo[i].second;
    }
    if (t < 0) {
      t = RooflineTime(model, first, last, batch, RatesOf(cluster.device_catalog().type(type)));
      if (memo_size < kMemo) memo[memo_size++] = {type, t};
    }
    slowest_s = std::max(slowest_s, t);
  }
  return slowest_s;
}

LayerSums SumLayers(const ModelProfile& model, int first, int last) {
  LayerSums sums;
  for (int i = first; i <= last; ++i) {
    const LayerProfile& layer = model.layers[static_cast<size_t>(i)];
    sums.param_bytes += layer.param_bytes;
    sums.embedding_table_bytes += layer.embedding_table_bytes;
    sums.sparse_bytes_per_sample += layer.sparse_bytes_per_sample;
    sums.activation_bytes_per_sample += layer.activation_bytes_per_sample;
  }
  return sums;
}

bool ClampLayerRange(const ModelProfile& model, int* first, int* last) {
  const int num_layers = static_cast<int>(model.layers.size());
  *first = std::max(*first, 0);
  *last = std::min(*last, num_layers - 1);
  return *first <= *last;
}

}  // namespace perf_internal

double ComputeTime(const ModelProfile& model, int first_layer, int last_layer, int batch,
                   const DeviceType& type) {
  const auto rates = perf_internal::RatesOf(type);
  if (!perf_internal::ClampLayerRange(model, &first_layer, &last_layer)) return rates.overhead_s;
  return perf_internal::RooflineTime(model, first_layer, last_layer, static_cast<double>(batch), rates);
}

}  // namespace hetsched
