// Building blocks shared by the perf/ sources (not part of the public contract in
// iteration_model.h): a roofline over a layer range with a fractional batch, one-pass layer
// sums, the path capacity between two device sets, and grouping of devices by node without
// allocating in the hot path. Formulas and sources: docs/perf-model.md.
#pragma once

#include <span>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/iteration_model.h"

namespace hetsched::perf_internal {

// What the roofline needs from a device type: sustained FLOP/s (peak FP32 x efficiency),
// memory bandwidth and the per-iteration overhead kappa.
struct RooflineRates {
  double flops_per_s = 0;
  double bytes_per_s = 0;
  double overhead_s = 0;
};
RooflineRates RatesOf(const DeviceType& type);

// Bytes of memory traffic per sample that the roofline charges to layer `index`: the input
// activations (the previous layer's output; none for layer 0) and the output activations,
// each touched twice (forward read/write, backward gradient write/read), plus the embedding
// rows touched, twice (gather forward, scatter of their gradients backward).
double BytesTouchedPerSample(const ModelProfile& model, int index);

// Roofline time of layers [first, last] for `batch` samples (may be fractional: a pipeline
// micro-batch split over a stage's data-parallel devices), plus kappa, plus the model's
// host_seconds_per_iteration when first == 0 and batch > 0. REQUIRES: the range is already
// clamped to the model.
double RooflineTime(const ModelProfile& model, int first, int last, double batch,
                    const RooflineRates& rates);

// Compute time of the slowest device among `devices` (distinct types computed once each).
double SlowestComputeTime(const ModelProfile& model, int first, int last, double batch,
                          const Cluster& cluster, std::span<const DeviceId> devices);

// Ring all-gather in which each of `n` members contributes `bytes_per_member` (sparse
// gradient rows): every chunk travels n-1 hops, (n-1) alpha + (n-1) S_m / B. Zero for n <= 1.
double RingAllGatherTime(int n, double bytes_per_member, double bandwidth_Bps, double latency_s);

// Per-layer quantities summed over [first, last] in one pass.
struct LayerSums {
  double param_bytes = 0;
  double embedding_table_bytes = 0;
  double sparse_bytes_per_sample = 0;
  double activation_bytes_per_sample = 0;
};
LayerSums SumLayers(const ModelProfile& model, int first, int last);

// Clamps [first, last] into the model's layer range. Returns false when the range is empty.
bool ClampLayerRange(const ModelProfile& model, int* first, int* last);

// Capacity of the slowest link crossed by traffic among the union of `a` and `b`: see
// BottleneckOf in iteration_model.h. `b` may be empty.
PathCapacity PathBetween(const Cluster& cluster, std::span<const DeviceId> a,
                         std::span<const DeviceId> b, const LinkLoad& load);

// PathBetween for `num_devices` devices whose distinct nodes are `nodes` (any order; the rack
// test done by the caller): the same result, without reading the devices.
PathCapacity PathOverNodes(const Cluster& cluster, size_t num_devices, std::span<const NodeId> nodes,
                           bool crosses_racks, const LinkLoad& load);

// Effective NIC bandwidth of `node` shared by its flows, and across racks also limited by the
// rack uplink's share; latency of the links crossed.
PathCapacity NicPath(const Cluster& cluster, NodeId node, bool crosses_racks, const LinkLoad& load);

// True when every device of `a` and `b` is on the node of the first one.
bool OnOneNode(const Cluster& cluster, std::span<const DeviceId> a, std::span<const DeviceId> b);

struct NodeCount {
  NodeId node = 0;
  int devices = 0;
};
// The distinct nodes of `devices` in first-appearance order with how many devices each holds.
// O(|devices|); uses a per-thread scratch index, so after warm-up it does not allocate.
void GroupByNode(const Cluster& cluster, std::span<const DeviceId> devices,
                 std::vector<NodeCount>* out);

// The estimators behind EstimateIteration, one per family (data_parallel.cc, pipeline.cc).
// REQUIRES: plan.devices non-empty.
IterationEstimate EstimateDataParallel(const ModelProfile& model, const Plan& plan,
                                       const Cluster& cluster, const LinkLoad& load,
                                       const PerfOptions& options);
// EstimateDataParallel's two halves (PrepareEstimate / EstimateUnderLoad): the load-free part,
// then the synchronisation under `load` and what follows from it. `keep_nodes`: also list the
// plan's nodes (PreparedEstimate::nodes), for a preparation finished under many loads; a one-off
// estimate leaves them out (no allocation) and finds the ring's path from the devices. The
// second form writes into `out`, every field afresh but for the nodes' storage, which is reused.
PreparedEstimate PrepareDataParallel(const ModelProfile& model, const Plan& plan, const Cluster& cluster,
                                     const PerfOptions& options, bool keep_nodes = true);
void PrepareDataParallel(const ModelProfile& model, const Plan& plan, const Cluster& cluster,
                         const PerfOptions& options, bool keep_nodes, PreparedEstimate* out);
IterationEstimate FinishDataParallel(const PreparedEstimate& prepared, const Plan& plan, const Cluster& cluster,
                                     const LinkLoad& load, const PerfOptions& options);
IterationEstimate EstimatePipeline(const ModelProfile& model, const Plan& plan,
                                   const Cluster& cluster, const LinkLoad& load,
                                   const PerfOptions& options);

// Container parameter-server plans (ps_containers.cc): the estimate, and the bytes per iteration
// each node's NIC / each rack's uplink carries out and in (push + pull).
IterationEstimate EstimateContainerPS(const ModelProfile& model, const Plan& plan, const Cluster& cluster,
                                      const LinkLoad& load, const PerfOptions& options);
std::vector<LinkBytes> ContainerNicBytes(const ModelProfile& model, const Plan& plan, const Cluster& cluster);
std::vector<LinkBytes> ContainerUplinkBytes(const ModelProfile& model, const Plan& plan, const Cluster& cluster);
// Nodes whose NIC a container plan's exchange crosses, sorted (any model: shards' shares only).
std::vector<NodeId> ContainerNicsUsed(const Plan& plan);

// Smallest device memory among `devices` (bytes).
double MinDeviceMemory(const Cluster& cluster, std::span<const DeviceId> devices);

}  // namespace hetsched::perf_internal
