#include "hetsched/sched/cluster_state.h"

#include <algorithm>
#include <string>

namespace hetsched {

ClusterState::ClusterState(const Cluster& cluster) : cluster_(&cluster) {
  const size_t num_types = static_cast<size_t>(cluster.device_catalog().size());
  owner_.assign(static_cast<size_t>(cluster.num_devices()), kNoJob);
  free_per_node_.resize(static_cast<size_t>(cluster.num_nodes()));
  free_per_type_.assign(num_types, 0);
  nodes_of_type_.assign(num_types, {});
  pos_in_type_.assign(static_cast<size_t>(cluster.num_nodes()), 0);
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
    const Node& node = cluster.node(n);
    const size_t t = static_cast<size_t>(node.device_type);
    free_per_node_[static_cast<size_t>(n)] = node.num_devices;
    free_per_type_[t] += node.num_devices;
    total_free_ += node.num_devices;
    pos_in_type_[static_cast<size_t>(n)] = static_cast<int>(nodes_of_type_[t].size());
    nodes_of_type_[t].push_back(n);
  }
  max_tree_.assign(num_types, {});
  tree_size_.assign(num_types, 0);
  buckets_.assign(num_types, {});
  for (size_t t = 0; t < num_types; ++t) {
    const auto& nodes = nodes_of_type_[t];
    size_t leaves = 1;
    while (leaves < nodes.size()) leaves <<= 1;
    tree_size_[t] = leaves;
    max_tree_[t].assign(2 * leaves, -1);
    int max_devices = 0;
    for (NodeId n : nodes) max_devices = std::max(max_devices, cluster.node(n).num_devices);
    buckets_[t].assign(static_cast<size_t>(max_devices) + 1, {});
    for (size_t i = 0; i < nodes.size(); ++i) {
      const int f = free_per_node_[static_cast<size_t>(nodes[i])];
      max_tree_[t][leaves + i] = f;
      buckets_[t][static_cast<size_t>(f)].insert(static_cast<int>(i));
    }
    for (size_t i = leaves - 1; i >= 1; --i) {
      max_tree_[t][i] = std::max(max_tree_[t][2 * i], max_tree_[t][2 * i + 1]);
    }
  }
}

void ClusterState::AppendFreeDevices(NodeId n, std::vector<DeviceId>* out) const {
  const Node& node = cluster_->node(n);
  for (int i = 0; i < node.num_devices; ++i) {
    const DeviceId d = node.first_device + i;
    if (owner_[static_cast<size_t>(d)] == kNoJob) out->push_back(d);
  }
}

NodeId ClusterState::FirstNodeWithFree(DeviceTypeId t, int min_free, int from_pos) const {
  if (t < 0 || static_cast<size_t>(t) >= max_tree_.size()) return -1;
  const auto& tree = max_tree_[static_cast<size_t>(t)];
  const size_t leaves = tree_size_[static_cast<size_t>(t)];
  const auto& nodes = nodes_of_type_[static_cast<size_t>(t)];
  if (nodes.empty() || static_cast<size_t>(from_pos) >= nodes.size()) return -1;
  // Leftmost leaf at position >= from_pos whose free count is >= min_free: a depth-first descent
  // that skips subtrees lying before from_pos or whose max is too small. O(log N).
  const size_t from = static_cast<size_t>(from_pos);
  auto descend = [&](auto&& self, size_t v, size_t l, size_t h) -> NodeId {
    if (h <= from || tree[v] < min_free) return -1;
    if (h - l == 1) return l < nodes.size() ? nodes[l] : -1;
    const size_t mid = (l + h) / 2;
    const NodeId left = self(self, 2 * v, l, mid);
    return left >= 0 ? left : self(self, 2 * v + 1, mid, h);
  };
  return descend(descend, 1, 0, leaves);
}

NodeId ClusterState::BestFitNode(DeviceTypeId t, int min_free) const {
  if (t < 0 || static_cast<size_t>(t) >= buckets_.size()) return -1;
  const auto& buckets = buckets_[static_cast<size_t>(t)];
  for (size_t f = static_cast<size_t>(std::max(min_free, 1)); f < buckets.size(); ++f) {
    if (!buckets[f].empty()) return nodes_of_type_[static_cast<size_t>(t)][static_cast<size_t>(*buckets[f].begin())];
  }
  return -1;
}

void ClusterState::AppendNodesByMostFree(DeviceTypeId t, int limit, std::vector<NodeId>* out) const {
  if (t < 0 || static_cast<size_t>(t) >= buckets_.size()) return;
  const auto& buckets = buckets_[static_cast<size_t>(t)];
  int taken = 0;
  for (size_t f = buckets.size(); f-- > 1 && taken < limit;) {
    for (int pos : buckets[f]) {
      if (taken >= limit) break;
      out->push_back(nodes_of_type_[static_cast<size_t>(t)][static_cast<size_t>(pos)]);
      ++taken;
    }
  }
}

void ClusterState::UpdateNode(NodeId n) {
  const size_t t = static_cast<size_t>(cluster_->node(n).device_type);
  const size_t pos = static_cast<size_t>(pos_in_type_[static_cast<size_t>(n)]);
  auto& tree = max_tree_[t];
  size_t v = tree_size_[t] + pos;
  const int old_free = tree[v];
  const int new_free = free_per_node_[static_cast<size_t>(n)];
  if (old_free == new_free) return;
  buckets_[t][static_cast<size_t>(old_free)].erase(static_cast<int>(pos));
  buckets_[t][static_cast<size_t>(new_free)].insert(static_cast<int>(pos));
  tree[v] = new_free;
  for (v >>= 1; v >= 1; v >>= 1) tree[v] = std::max(tree[2 * v], tree[2 * v + 1]);
}

Status ClusterState::Allocate(JobId job, std::span<const DeviceId> devices) {
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceId d = devices[i];
    if (d < 0 || d >= cluster_->num_devices()) {
      return Status::Internal("job " + std::to_string(job) + ": device " + std::to_string(d) + " does not exist");
    }
    if (owner_[static_cast<size_t>(d)] != kNoJob) {
      return Status::Internal("double booking: device " + std::to_string(d) + " is held by job " +
                              std::to_string(owner_[static_cast<size_t>(d)]) + ", job " +
                              std::to_string(job) + " asked for it");
    }
    for (size_t k = 0; k < i; ++k) {
      if (devices[k] == d) {
        return Status::Internal("job " + std::to_string(job) + " lists device " + std::to_string(d) + " twice");
      }
    }
  }
  for (DeviceId d : devices) {
    owner_[static_cast<size_t>(d)] = job;
    const Device& dev = cluster_->device(d);
    --free_per_node_[static_cast<size_t>(dev.node)];
    --free_per_type_[static_cast<size_t>(dev.type)];
    --total_free_;
  }
  for (DeviceId d : devices) UpdateNode(cluster_->device(d).node);
  return Status::Ok();
}

Status ClusterState::Release(JobId job, std::span<const DeviceId> devices) {
  for (DeviceId d : devices) {
    if (d < 0 || d >= cluster_->num_devices() || owner_[static_cast<size_t>(d)] != job) {
      return Status::Internal("job " + std::to_string(job) + " releases device " + std::to_string(d) +
                              " that it does not hold");
    }
  }
  for (DeviceId d : devices) {
    owner_[static_cast<size_t>(d)] = kNoJob;
    const Device& dev = cluster_->device(d);
    ++free_per_node_[static_cast<size_t>(dev.node)];
    ++free_per_type_[static_cast<size_t>(dev.type)];
    ++total_free_;
  }
  for (DeviceId d : devices) UpdateNode(cluster_->device(d).node);
  return Status::Ok();
}

Status ClusterState::CheckConsistency() const {
  std::vector<int> node_free(free_per_node_.size(), 0);
  std::vector<int> type_free(free_per_type_.size(), 0);
  int total = 0;
  for (DeviceId d = 0; d < cluster_->num_devices(); ++d) {
    if (owner_[static_cast<size_t>(d)] != kNoJob) continue;
    const Device& dev = cluster_->device(d);
    ++node_free[static_cast<size_t>(dev.node)];
    ++type_free[static_cast<size_t>(dev.type)];
    ++total;
  }
  if (node_free != free_per_node_ || type_free != free_per_type_ || total != total_free_) {
    return Status::Internal("cluster state: free-device counters disagree with device owners");
  }
  for (size_t t = 0; t < nodes_of_type_.size(); ++t) {
    for (size_t i = 0; i < nodes_of_type_[t].size(); ++i) {
      const int f = free_per_node_[static_cast<size_t>(nodes_of_type_[t][i])];
      if (max_tree_[t][tree_size_[t] + i] != f || buckets_[t][static_cast<size_t>(f)].count(static_cast<int>(i)) == 0) {
        return Status::Internal("cluster state: node index out of date for node " +
                                std::to_string(nodes_of_type_[t][i]));
      }
    }
  }
  return Status::Ok();
}

}  // namespace hetsched
