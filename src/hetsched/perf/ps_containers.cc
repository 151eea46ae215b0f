// Parameter-server jobs made of containers (DLTAP, ALGORITHMS.md 6.1 and 1.4-3): each worker
// container pushes its gradients to every server shard and pulls the shard's fresh parameters
// back, every iteration. Between a worker and a shard on the same node the exchange stays on
// the node (loopback, taken as free); across nodes it crosses both NICs, and across racks the
// uplinks too. The sum over pairs is computed from per-group aggregates in O(containers):
// for a group g (a node, or a rack) holding n_g workers (their sparse bytes s_g) and the
// shards with dense share D_g and sparse share P_g, with S the dense bytes per worker,
//   push out of g = n_g (1 - D_g) S + (1 - P_g) s_g       (its workers to shards elsewhere)
//   push into g   = (N - n_g) D_g S + P_g (s_tot - s_g)   (workers elsewhere to its shards)
// and the pull phase mirrors the push phase (out and in swap).
#include <algorithm>
#include <limits>
#include <map>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/perf/perf_internal.h"

namespace hetsched {

namespace perf_internal {
namespace {

struct GroupLoad {
  int workers = 0;
  double sparse_bytes = 0;  // sum over its workers of the rows they touch per iteration
  double dense_share = 0;
  double sparse_share = 0;
};

// Push-phase bytes out of and into each group; `group_of` maps a node to its group key.
template <typename GroupOf>
std::vector<LinkBytes> PushBytesByGroup(const Plan& plan, double dense_bytes, double sparse_per_sample,
                                        GroupOf group_of) {
  std::map<int, GroupLoad> groups;
  int workers = 0;
  double sparse_total = 0;
  for (const ContainerPlacement& c : plan.containers) {
    GroupLoad& g = groups[group_of(c.node)];
    if (c.role == ContainerRole::kWorker) {
      const double rows = sparse_per_sample * plan.batch_per_device * c.request.gpus;
      ++g.workers;
      g.sparse_bytes += rows;
      ++workers;
      sparse_total += rows;
    } else if (c.index >= 0 && static_cast<size_t>(c.index) < plan.shards.size()) {
      g.dense_share += plan.shards[static_cast<size_t>(c.index)].dense_fraction;
      g.sparse_share += plan.shards[static_cast<size_t>(c.index)].sparse_fraction;
    }
  }
  double dense_total = 0, sparse_share_total = 0;
  for (const auto& [key, g] : groups) {
    dense_total += g.dense_share;
    sparse_share_total += g.sparse_share;
  }
  std::vector<LinkBytes> out;
  for (const auto& [key, g] : groups) {
    LinkBytes b;
    b.link = key;
    b.out_bytes = g.workers * (dense_total - g.dense_share) * dense_bytes +
                  (sparse_share_total - g.sparse_share) * g.sparse_bytes;
    b.in_bytes = (workers - g.workers) * g.dense_share * dense_bytes + g.sparse_share * (sparse_total - g.sparse_bytes);
    if (b.out_bytes > 0 || b.in_bytes > 0) out.push_back(b);
  }
  return out;
}

LayerSums WholeModel(const ModelProfile& model) {
  int first = 0;
  int last = static_cast<int>(model.layers.size()) - 1;
  ClampLayerRange(model, &first, &last);
  return SumLayers(model, first, last);
}

}  // namespace

std::vector<LinkBytes> ContainerNicBytes(const ModelProfile& model, const Plan& plan, const Cluster& /*cluster*/) {
  const LayerSums sums = WholeModel(model);
  std::vector<LinkBytes> push = PushBytesByGroup(plan, sums.param_bytes, sums.sparse_bytes_per_sample,
                                                 [](NodeId n) { return n; });
  // Push + pull: each direction carries its push bytes plus the mirror of the other's.
  for (LinkBytes& b : push) b.out_bytes = b.in_bytes = b.out_bytes + b.in_bytes;
  return push;
}

std::vector<NodeId> ContainerNicsUsed(const Plan& plan) {
  // Unit bytes of both kinds: a node has traffic for some model iff it has it here.
  std::vector<NodeId> nodes;
  for (const LinkBytes& b : PushBytesByGroup(plan, 1.0, 1.0, [](NodeId n) { return n; })) nodes.push_back(b.link);
  return nodes;  // std::map order: sorted
}

IterationEstimate EstimateContainerPS(const ModelProfile& model, const Plan& plan, const Cluster& cluster,
                                      const LinkLoad& load, const PerfOptions& options) {
  IterationEstimate est;
  const LayerSums sums = WholeModel(model);
  const int last = static_cast<int>(model.layers.size()) - 1;
  std::vector<DeviceId> worker_devices;
  double samples = 0;
  std::vector<NodeId> nodes;
  for (const ContainerPlacement& c : plan.containers) {
    nodes.push_back(c.node);
    if (c.role != ContainerRole::kWorker) continue;
    worker_devices.insert(worker_devices.end(), c.devices.begin(), c.devices.end());
    samples += static_cast<double>(plan.batch_per_device) * static_cast<double>(c.devices.size());
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  est.span_nodes = static_cast<int>(nodes.size());
  if (worker_devices.empty()) {
    est.iteration_s = std::numeric_limits<double>::infinity();
    est.fits_in_memory = false;
    return est;
  }
  const double batch = plan.batch_per_device;
  est.compute_s = SlowestComputeTime(model, 0, last, batch, cluster, worker_devices);

  RackId first_rack = cluster.node(nodes.front()).rack;
  bool crosses_racks = false;
  for (NodeId n : nodes) crosses_racks |= cluster.node(n).rack != first_rack;
  const std::vector<LinkBytes> push = PushBytesByGroup(plan, sums.param_bytes, sums.sparse_bytes_per_sample,
                                                       [](NodeId n) { return n; });
  double slowest_s = 0;
  double cross = 0;
  for (const LinkBytes& b : push) {
    // A NIC is full duplex: a phase lasts as long as its busier direction.
    const PathCapacity nic = NicPath(cluster, b.link, crosses_racks, load);
    const double bytes = std::max(b.out_bytes, b.in_bytes);
    const double phase_s = nic.bandwidth_Bps > 0 ? bytes / nic.bandwidth_Bps : std::numeric_limits<double>::infinity();
    slowest_s = std::max(slowest_s, 2.0 * (phase_s + nic.latency_s));
    cross += b.out_bytes + b.in_bytes;  // push bytes leaving g + pull bytes leaving g
  }
  est.communication_s = slowest_s;
  est.cross_node_bytes = cross;
  // A worker's device holds the dense weights, the rows it touched and its activations; the
  // shards (embedding tables, optimizer state) live in the servers' host memory.
  est.memory_per_device_bytes =
      sums.param_bytes + batch * sums.sparse_bytes_per_sample + batch * sums.activation_bytes_per_sample;
  est.fits_in_memory = est.memory_per_device_bytes <= MinDeviceMemory(cluster, worker_devices);
  est.iteration_s = est.compute_s + (1.0 - options.overlap) * est.communication_s;
  est.samples_per_s = est.iteration_s > 0 ? samples / est.iteration_s : 0.0;
  return est;
}

std::vector<LinkBytes> ContainerUplinkBytes(const ModelProfile& model, const Plan& plan, const Cluster& cluster) {
  const LayerSums sums = WholeModel(model);
  std::vector<LinkBytes> push = PushBytesByGroup(plan, sums.param_bytes, sums.sparse_bytes_per_sample,
                                                 [&](NodeId n) { return cluster.node(n).rack; });
  for (LinkBytes& b : push) b.out_bytes = b.in_bytes = b.out_bytes + b.in_bytes;
  return push;
}

}  // namespace perf_internal

std::vector<ParameterShard> ShardParameters(const ModelProfile& model, int num_ps) {
  const size_t p = static_cast<size_t>(std::max(num_ps, 1));
  std::vector<ParameterShard> shards(p);
  double dense_total = 0, sparse_total = 0;
  size_t next = 0;
  for (const LayerProfile& layer : model.layers) {
    if (layer.param_bytes > 0) {
      shards[next].dense_fraction += layer.param_bytes;
      next = (next + 1) % p;
      dense_total += layer.param_bytes;
    }
    sparse_total += layer.embedding_table_bytes + layer.sparse_bytes_per_sample;
  }
  for (ParameterShard& s : shards) {
    s.dense_fraction = dense_total > 0 ? s.dense_fraction / dense_total : 0.0;
    s.sparse_fraction = sparse_total > 0 ? 1.0 / static_cast<double>(p) : 0.0;
  }
  return shards;
}

PlanTraffic TrafficOf(const ModelProfile& model, const Plan& plan, const Cluster& cluster,
                      const IterationEstimate& estimate) {
  PlanTraffic traffic;
  if (!plan.containers.empty()) {
    traffic.nics = perf_internal::ContainerNicBytes(model, plan, cluster);
    traffic.uplinks = perf_internal::ContainerUplinkBytes(model, plan, cluster);
    return traffic;
  }
  const std::vector<NodeId> nics = NicsUsed(cluster, plan);
  std::vector<RackId> racks;
  RacksOf(cluster, nics, &racks);
  EvenTrafficOf(nics, racks, estimate.cross_node_bytes, &traffic);
  return traffic;
}

void RacksOf(const Cluster& cluster, std::span<const NodeId> nodes, std::vector<RackId>* out) {
  out->clear();
  for (NodeId n : nodes) out->push_back(cluster.node(n).rack);
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
}

void EvenTrafficOf(std::span<const NodeId> nics, std::span<const RackId> racks, double cross_node_bytes,
                   PlanTraffic* out) {
  out->nics.clear();
  out->uplinks.clear();
  if (nics.empty() || cross_node_bytes <= 0) return;
  const double per_nic = cross_node_bytes / static_cast<double>(nics.size());
  for (NodeId n : nics) out->nics.push_back(LinkBytes{n, per_nic, per_nic});
  if (racks.size() >= 2) {
    for (RackId r : racks) out->uplinks.push_back(LinkBytes{r, per_nic, per_nic});
  }
}

}  // namespace hetsched
