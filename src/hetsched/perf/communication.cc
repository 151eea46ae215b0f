// Communication costs: ring all-reduce (Patarasuk & Yuan, JPDC 2009), parameter-server
// push/pull (Li et al., OSDI 2014), point-to-point transfers, and the capacity of the slowest
// link a transfer crosses under max-min fair sharing (ALGORITHMS.md 1.4-2,3,4,6).
#include <algorithm>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/perf/perf_internal.h"
#include "hetsched/util/units.h"

namespace hetsched {

namespace {

// Bytes over a bandwidth, where an infinite bandwidth (no limiting link) costs nothing and a
// zero bandwidth never finishes.
double TransferS(double bytes, double bandwidth_Bps) {
  if (bytes <= 0) return 0.0;
  if (bandwidth_Bps <= 0) return kInf;
  return bytes / bandwidth_Bps;
}

// Flows sharing a link, counting the job itself: at least 1 (a missing or short vector means
// the job is alone).
int FlowsAt(const std::vector<int>* flows, int index) {
  if (flows == nullptr || index < 0 || index >= static_cast<int>(flows->size())) return 1;
  return std::max(1, (*flows)[static_cast<size_t>(index)]);
}

// A link's figures as the communication model reads them: effective bandwidth (< 0: there is no
// such link) and latency.
struct LinkFigures {
  double Bps = -1;
  double latency_s = 0;
};
// A node's NIC.
LinkFigures NicOf(const Cluster& cluster, const Node& node) {
  if (node.nic == kNoLinkClass) return {};
  const LinkClass& nic = cluster.link_catalog().link(node.nic);
  return {nic.effective_bandwidth_Bps(), nic.latency_s};
}
// A rack's uplinks together: effective bandwidth x uplinks / oversubscription. A rack without a
// declared uplink has none: full bisection (ALGORITHMS.md 1.1).
LinkFigures UplinkOf(const Cluster& cluster, const Rack& rack) {
  if (rack.uplink == kNoLinkClass) return {};
  const LinkClass& uplink = cluster.link_catalog().link(rack.uplink);
  return {uplink.effective_bandwidth_Bps() * std::max(1, rack.uplink_count) / std::max(1.0, rack.oversubscription),
          uplink.latency_s};
}

}  // namespace

double RingAllReduceTime(int n, double bytes, double bandwidth_Bps, double latency_s) {
  if (n <= 1 || bytes <= 0) return 0.0;
  const double steps = 2.0 * (n - 1);  // n-1 reduce-scatter steps + n-1 all-gather steps
  return steps * latency_s + TransferS(steps / n * bytes, bandwidth_Bps);
}

double ParameterServerTime(int workers, int servers, double bytes, double worker_bandwidth_Bps,
                           double server_bandwidth_Bps, double latency_s) {
  if (workers <= 0 || bytes <= 0) return 0.0;
  servers = std::max(servers, 1);
  // Worker: pushes S (its gradients, split over the shards), then pulls S (fresh parameters).
  const double worker_s = TransferS(2.0 * bytes, worker_bandwidth_Bps) + 2.0 * latency_s;
  // Shard: receives n S / P in the push phase and sends n S / P in the pull phase.
  const double shard_bytes = static_cast<double>(workers) * bytes / servers;
  const double server_s = TransferS(2.0 * shard_bytes, server_bandwidth_Bps) + 2.0 * latency_s;
  return std::max(worker_s, server_s);
}

double PointToPointTime(double bytes, double bandwidth_Bps, double latency_s) {
  if (bytes <= 0) return 0.0;
  return latency_s + TransferS(bytes, bandwidth_Bps);
}

PathCapacity BottleneckOf(const Cluster& cluster, std::span<const DeviceId> devices,
                          const LinkLoad& load) {
  return perf_internal::PathBetween(cluster, devices, {}, load);
}

namespace perf_internal {

double RingAllGatherTime(int n, double bytes_per_member, double bandwidth_Bps, double latency_s) {
  if (n <= 1 || bytes_per_member <= 0) return 0.0;
  const double hops = static_cast<double>(n - 1);
  return hops * latency_s + TransferS(hops * bytes_per_member, bandwidth_Bps);
}

bool OnOneNode(const Cluster& cluster, std::span<const DeviceId> a, std::span<const DeviceId> b) {
  if (a.empty() && b.empty()) return true;
  const NodeId node = cluster.device(a.empty() ? b.front() : a.front()).node;
  for (DeviceId d : a) {
    if (cluster.device(d).node != node) return false;
  }
  for (DeviceId d : b) {
    if (cluster.device(d).node != node) return false;
  }
  return true;
}

PathCapacity NicPath(const Cluster& cluster, NodeId node_id, bool crosses_racks, const LinkLoad& load) {
  // The node's NIC and its rack's uplink, from the flat table when the load carries one (the
  // same figures), else from the cluster.
  const LinkCapacities* table = load.capacities;
  const size_t n = static_cast<size_t>(node_id);
  const Node* node = table != nullptr ? nullptr : &cluster.node(node_id);
  const RackId rack = table != nullptr ? table->rack_of_node[n] : node->rack;
  const LinkFigures nic = table != nullptr ? LinkFigures{table->nic_Bps[n], table->nic_latency_s[n]} : NicOf(cluster, *node);
  PathCapacity path{kInf, 0.0};
  if (nic.Bps < 0) {
    path.bandwidth_Bps = 0;  // a node without a NIC cannot talk to other nodes
  } else {
    path.bandwidth_Bps = PerFlowShare(nic.Bps, FlowsAt(load.nic_flows, node_id));
    path.latency_s = nic.latency_s;
  }
  if (crosses_racks) {
    const size_t r = static_cast<size_t>(rack);
    const LinkFigures uplink = table != nullptr ? LinkFigures{table->uplink_Bps[r], table->uplink_latency_s[r]}
                                                : UplinkOf(cluster, cluster.rack(rack));
    if (uplink.Bps >= 0) {
      path.bandwidth_Bps = std::min(path.bandwidth_Bps, PerFlowShare(uplink.Bps, FlowsAt(load.uplink_flows, rack)));
      path.latency_s = std::max(path.latency_s, uplink.latency_s);
    }
  }
  return path;
}

}  // namespace perf_internal

LinkCapacities LinkCapacities::Of(const Cluster& cluster) {
  LinkCapacities c;
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
    const Node& node = cluster.node(n);
    const LinkFigures nic = NicOf(cluster, node);
    c.rack_of_node.push_back(node.rack);
    c.nic_Bps.push_back(nic.Bps);
    c.nic_latency_s.push_back(nic.latency_s);
  }
  for (const Rack& rack : cluster.racks()) {
    const LinkFigures uplink = UplinkOf(cluster, rack);
    c.uplink_Bps.push_back(uplink.Bps);
    c.uplink_latency_s.push_back(uplink.latency_s);
  }
  return c;
}

namespace perf_internal {

namespace {

PathCapacity IntraNodePath(const Cluster& cluster, NodeId node_id) {
  const Node& node = cluster.node(node_id);
  // No intra-node link declared (e.g. a CPU node): taken as not limiting.
  if (node.intra_link == kNoLinkClass) return PathCapacity{kInf, 0.0};
  const LinkClass& link = cluster.link_catalog().link(node.intra_link);
  return PathCapacity{link.effective_bandwidth_Bps(), link.latency_s};
}

}  // namespace

PathCapacity PathOverNodes(const Cluster& cluster, size_t num_devices, std::span<const NodeId> nodes,
                           bool crosses_racks, const LinkLoad& load) {
  if (num_devices <= 1) return PathCapacity{kInf, 0.0};
  if (nodes.size() == 1) return IntraNodePath(cluster, nodes.front());
  PathCapacity worst{kInf, 0.0};
  for (NodeId node : nodes) {
    const PathCapacity p = NicPath(cluster, node, crosses_racks, load);
    worst.bandwidth_Bps = std::min(worst.bandwidth_Bps, p.bandwidth_Bps);
    worst.latency_s = std::max(worst.latency_s, p.latency_s);
  }
  return worst;
}

PathCapacity PathBetween(const Cluster& cluster, std::span<const DeviceId> a,
                         std::span<const DeviceId> b, const LinkLoad& load) {
  if (a.size() + b.size() <= 1) return PathCapacity{kInf, 0.0};
  const DeviceId first = a.empty() ? b.front() : a.front();
  if (OnOneNode(cluster, a, b)) return IntraNodePath(cluster, cluster.device(first).node);
  const auto rack_of = [&](DeviceId d) {
    const NodeId node = cluster.device(d).node;
    return load.capacities != nullptr ? load.capacities->rack_of_node[static_cast<size_t>(node)]
                                      : cluster.node(node).rack;
  };
  const RackId first_rack = rack_of(first);
  bool crosses_racks = false;
  for (std::span<const DeviceId> set : {a, b}) {
    for (DeviceId d : set) crosses_racks |= rack_of(d) != first_rack;
  }
  // A repeated node does not change a min or a max: devices of one node, which plans list
  // together, are read once.
  PathCapacity worst{kInf, 0.0};
  NodeId last = -1;
  for (std::span<const DeviceId> set : {a, b}) {
    for (DeviceId d : set) {
      const NodeId node = cluster.device(d).node;
      if (node == last) continue;
      last = node;
      const PathCapacity p = NicPath(cluster, node, crosses_racks, load);
      worst.bandwidth_Bps = std::min(worst.bandwidth_Bps, p.bandwidth_Bps);
      worst.latency_s = std::max(worst.latency_s, p.latency_s);
    }
  }
  return worst;
}

void GroupByNode(const Cluster& cluster, std::span<const DeviceId> devices,
                 std::vector<NodeCount>* out) {
  // slot[node] = index in *out, or -1. Reset after use, so the next call starts clean.
  thread_local std::vector<int> slot;
  if (slot.size() < static_cast<size_t>(cluster.num_nodes())) {
    slot.assign(static_cast<size_t>(cluster.num_nodes()), -1);
  }
  out->clear();
  for (DeviceId d : devices) {
    const NodeId node = cluster.device(d).node;
    int& s = slot[static_cast<size_t>(node)];
    if (s < 0) {
      s = static_cast<int>(out->size());
      out->push_back(NodeCount{node, 0});
    }
    ++(*out)[static_cast<size_t>(s)].devices;
  }
  for (const NodeCount& g : *out) slot[static_cast<size_t>(g.node)] = -1;
}

}  // namespace perf_internal
}  // namespace hetsched
