// Data-parallel iterations (BSP): every device runs the whole model on its own batch, then the
// gradients are synchronised by a ring all-reduce (kSingle, kDataRing) or through parameter
// server shards (kDataPS). Formulas and their sources: docs/perf-model.md.
#include <algorithm>
#include <limits>
#include <vector>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/perf/perf_internal.h"

namespace hetsched::perf_internal {

namespace {

// Whether the nodes of `groups` are in more than one rack. REQUIRES: groups non-empty.
bool CrossesRacks(const Cluster& cluster, const std::vector<NodeCount>& groups) {
  const RackId first_rack = cluster.node(groups.front().node).rack;
  for (const NodeCount& g : groups) {
    if (cluster.node(g.node).rack != first_rack) return true;
  }
  return false;
}

// Ring all-reduce of the dense gradients plus all-gather of the sparse rows each member
// touched. The ring visits the members of one node consecutively (NCCL orders rings by
// topology), so each used node's NIC carries one ring flow per direction, and exactly
// `span_nodes` ring edges leave a node when the ring spans two or more nodes.
// The ring's slowest link is BottleneckOf(plan.devices), from the nodes PrepareDataParallel listed
// when it kept them.
void RingSync(const PreparedEstimate& prepared, const Plan& plan, const Cluster& cluster, const LinkLoad& load,
              IterationEstimate* est) {
  const double dense_bytes = prepared.dense_bytes;
  const double sparse_bytes_per_member = prepared.sparse_bytes_per_worker;
  const int span_nodes = est->span_nodes;
  const int n = static_cast<int>(plan.devices.size());
  const PathCapacity path =
      prepared.nodes.empty()
          ? BottleneckOf(cluster, plan.devices, load)
          : PathOverNodes(cluster, plan.devices.size(), prepared.nodes, prepared.crosses_racks, load);
  est->ring_path_Bps = path.bandwidth_Bps;
  est->communication_s =
      RingAllReduceTime(n, dense_bytes, path.bandwidth_Bps, path.latency_s) +
      RingAllGatherTime(n, sparse_bytes_per_member, path.bandwidth_Bps, path.latency_s);
  if (span_nodes >= 2 && n >= 2) {
    // Per ring edge: 2(n-1)/n S for the all-reduce, (n-1) S_m for the all-gather.
    const double per_edge = 2.0 * (n - 1) / n * dense_bytes + (n - 1) * sparse_bytes_per_member;
    est->cross_node_bytes = span_nodes * per_edge;
  }
}

// Parameter servers: P shards co-located round-robin on the used nodes (shard j on the j-th
// node in order of first use). A worker sends S/P to every shard and receives S/P from each.
// Traffic between a worker and a shard on its own node stays on the node (loopback, taken as
// free: ALGORITHMS.md 1.4-3); the rest crosses the NICs. Each phase (push, then pull) lasts
// as long as the busiest NIC direction; the pull phase mirrors the push phase.
void ParameterServerSync(double bytes_per_worker, const Plan& plan, const Cluster& cluster,
                         const LinkLoad& load, const std::vector<NodeCount>& groups,
                         IterationEstimate* est) {
  const int n = static_cast<int>(plan.devices.size());
  const int num_nodes = static_cast<int>(groups.size());
  const int shards = plan.num_parameter_servers > 0 ? plan.num_parameter_servers : num_nodes;
  const bool crosses_racks = CrossesRacks(cluster, groups);

  double slowest_s = 0;
  double cross_bytes = 0;
  for (int j = 0; j < num_nodes; ++j) {
    const NodeCount& g = groups[static_cast<size_t>(j)];
    const int local_shards = shards / num_nodes + (j < shards % num_nodes ? 1 : 0);
    const double remote_fraction = static_cast<double>(shards - local_shards) / shards;
    const double local_fraction = static_cast<double>(local_shards) / shards;
    // Push phase: local workers to remote shards (out), remote workers to local shards (in).
    const double out_bytes = g.devices * bytes_per_worker * remote_fraction;
    const double in_bytes = (n - g.devices) * bytes_per_worker * local_fraction;
    const double phase_bytes = std::max(out_bytes, in_bytes);
    if (phase_bytes > 0) {
      const PathCapacity nic = NicPath(cluster, g.node, crosses_racks, load);
      const double phase_s = nic.bandwidth_Bps > 0 ? phase_bytes / nic.bandwidth_Bps
                                                   : std::numeric_limits<double>::infinity();
      slowest_s = std::max(slowest_s, 2.0 * (phase_s + nic.latency_s));
    }
    // Bytes leaving node j: pushes to remote shards + pulls served to remote workers.
    cross_bytes += out_bytes + in_bytes;
  }
  est->communication_s = slowest_s;
  est->cross_node_bytes = cross_bytes;
}

}  // namespace

double MinDeviceMemory(const Cluster& cluster, std::span<const DeviceId> devices) {
  double min_bytes = std::numeric_limits<double>::infinity();
  for (DeviceId d : devices) {
    min_bytes = std::min(min_bytes, cluster.device_catalog().type(cluster.device(d).type).memory_bytes);
  }
  return min_bytes;
}

PreparedEstimate PrepareDataParallel(const ModelProfile& model, const Plan& plan, const Cluster& cluster,
                                     const PerfOptions& options, bool keep_nodes) {
  PreparedEstimate prepared;
  PrepareDataParallel(model, plan, cluster, options, keep_nodes, &prepared);
  return prepared;
}

void PrepareDataParallel(const ModelProfile& model, const Plan& plan, const Cluster& cluster,
                         const PerfOptions& options, bool keep_nodes, PreparedEstimate* out) {
  std::vector<NodeId> nodes = std::move(out->nodes);
  nodes.clear();
  *out = PreparedEstimate{};
  PreparedEstimate& prepared = *out;
  prepared.split = true;
  IterationEstimate& est = prepared.base;
  const double batch = plan.batch_per_device;
  int first = 0;
  int last = static_cast<int>(model.layers.size()) - 1;
  ClampLayerRange(model, &first, &last);  // an empty model leaves an empty loop below
  const LayerSums sums = SumLayers(model, first, last);
  est.compute_s = SlowestComputeTime(model, first, last, batch, cluster, plan.devices);

  thread_local std::vector<NodeCount> groups;
  GroupByNode(cluster, plan.devices, &groups);
  est.span_nodes = static_cast<int>(groups.size());
  if (keep_nodes) {
    nodes.reserve(groups.size());
    for (const NodeCount& g : groups) nodes.push_back(g.node);
    prepared.nodes = std::move(nodes);
    prepared.crosses_racks = CrossesRacks(cluster, groups);
  }

  const double sparse_per_worker = batch * sums.sparse_bytes_per_sample;
  prepared.sparse_bytes_per_worker = sparse_per_worker;
  if (plan.parallelism == Parallelism::kDataPS) {
    prepared.dense_bytes = sums.param_bytes + sparse_per_worker;  // pushed and pulled whole
    // Workers hold the dense weights and the rows they touched; the embedding tables and the
    // optimizer state live with the shards (host memory), not on the device.
    est.memory_per_device_bytes =
        sums.param_bytes + sparse_per_worker + batch * sums.activation_bytes_per_sample;
  } else {
    prepared.dense_bytes = sums.param_bytes;
    // Every replica holds all parameters (embedding tables included) and their optimizer state.
    const double params = sums.param_bytes + sums.embedding_table_bytes;
    est.memory_per_device_bytes = params * (1.0 + options.optimizer_state_factor) +
                                  batch * sums.activation_bytes_per_sample;
  }
  est.fits_in_memory = est.memory_per_device_bytes <= MinDeviceMemory(cluster, plan.devices);
}

IterationEstimate FinishDataParallel(const PreparedEstimate& prepared, const Plan& plan, const Cluster& cluster,
                                     const LinkLoad& load, const PerfOptions& options) {
  IterationEstimate est = prepared.base;
  if (plan.parallelism == Parallelism::kDataPS) {
    thread_local std::vector<NodeCount> groups;
    GroupByNode(cluster, plan.devices, &groups);
    ParameterServerSync(prepared.dense_bytes, plan, cluster, load, groups, &est);
  } else {
    RingSync(prepared, plan, cluster, load, &est);
  }
  est.iteration_s = est.compute_s + (1.0 - options.overlap) * est.communication_s;
  const double samples = plan.batch_per_device * static_cast<double>(plan.devices.size());
  est.samples_per_s = est.iteration_s > 0 ? samples / est.iteration_s : 0.0;
  return est;
}

IterationEstimate EstimateDataParallel(const ModelProfile& model, const Plan& plan,
                                       const Cluster& cluster, const LinkLoad& load,
                                       const PerfOptions& options) {
  return FinishDataParallel(PrepareDataParallel(model, plan, cluster, options, /*keep_nodes=*/false), plan, cluster,
                            load, options);
}

}  // namespace hetsched::perf_internal
