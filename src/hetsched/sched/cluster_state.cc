#include "hetsched/sched/cluster_state.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace hetsched {

ClusterState::ClusterState(const Cluster& cluster) : cluster_(&cluster) {
  const size_t num_types = static_cast<size_t>(cluster.device_catalog().size());
  owner_.assign(static_cast<size_t>(cluster.num_devices()), kNoJob);
  free_per_node_.resize(static_cast<size_t>(cluster.num_nodes()));
  free_per_type_.assign(num_types, 0);
  nodes_of_type_.assign(num_types, {});
  pos_in_type_.assign(static_cast<size_t>(cluster.num_nodes()), 0);
  node_stale_.assign(static_cast<size_t>(cluster.num_nodes()), false);
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
    buckets_[t].assign(static_cast<size_t>(max_devices) + 1, OrderedBitSet(nodes.size()));
    for (size_t i = 0; i < nodes.size(); ++i) {
      const int f = free_per_node_[static_cast<size_t>(nodes[i])];
      max_tree_[t][leaves + i] = f;
      buckets_[t][static_cast<size_t>(f)].insert(i);
    }
    for (size_t i = leaves - 1; i >= 1; --i) {
      max_tree_[t][i] = std::max(max_tree_[t][2 * i], max_tree_[t][2 * i + 1]);
    }
  }
  const size_t num_nodes = static_cast<size_t>(cluster.num_nodes());
  cpu_capacity_.resize(num_nodes);
  memory_capacity_.resize(num_nodes);
  cpu_used_.assign(num_nodes, 0);
  memory_used_.assign(num_nodes, 0);
  containers_on_node_.assign(num_nodes, 0);
  index_ = NodeResourceIndex(cluster.num_nodes());
  leaf_stale_.assign(static_cast<size_t>(cluster.num_nodes()), false);
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
    const Node& node = cluster.node(n);
    cpu_capacity_[static_cast<size_t>(n)] = static_cast<int64_t>(node.cpu_cores) * 1000;
    memory_capacity_[static_cast<size_t>(n)] = std::llround(node.host_memory_bytes);
    UpdateResourceLeaf(n);
  }
}

int ClusterState::gpus_free(NodeId n) const {
  const Node& node = cluster_->node(n);
  return cluster_->device_catalog().type(node.device_type).is_cpu ? 0 : free_on_node(n);
}

void ClusterState::FlushResourceLeaves() const {
  for (NodeId n : stale_leaves_) {
    index_.Set(n, ResourceLeaf(n));
    leaf_stale_[static_cast<size_t>(n)] = false;
  }
  stale_leaves_.clear();
}

NodeSummary ClusterState::ResourceLeaf(NodeId n) const {
  const size_t i = static_cast<size_t>(n);
  NodeSummary leaf;
  leaf.max_free_cpu = cpu_capacity_[i] - cpu_used_[i];
  leaf.max_free_memory = memory_capacity_[i] - memory_used_[i];
  leaf.max_free_gpus = gpus_free(n);
  auto fractions = [](int64_t used, int64_t capacity, double* free_frac, double* used_frac, double* inv) {
    if (capacity <= 0) {
      *free_frac = 0;
      *used_frac = 1;
      *inv = 0;
      return;
    }
    *inv = 1.0 / static_cast<double>(capacity);
    *used_frac = static_cast<double>(used) * *inv;
    *free_frac = 1.0 - *used_frac;
  };
  fractions(cpu_used_[i], cpu_capacity_[i], &leaf.max_free_cpu_frac, &leaf.max_used_cpu_frac, &leaf.max_inv_cpu);
  fractions(memory_used_[i], memory_capacity_[i], &leaf.max_free_memory_frac, &leaf.max_used_memory_frac,
            &leaf.max_inv_memory);
  leaf.min_inv_cpu = leaf.max_inv_cpu;
  leaf.min_inv_memory = leaf.max_inv_memory;
  leaf.min_used_diff = leaf.max_used_diff = leaf.max_used_cpu_frac - leaf.max_used_memory_frac;
  leaf.type_mask = DeviceTypeBit(cluster_->node(n).device_type);
  return leaf;
}

std::span<const ContainerPlacement> ClusterState::containers_of(JobId job) const {
  auto it = containers_.find(job);
  if (it == containers_.end()) return {};
  return it->second;
}

Status ClusterState::AllocateContainers(JobId job, std::span<const ContainerPlacement> containers) {
  const std::string who = "job " + std::to_string(job);
  if (containers.empty()) return Status::Internal(who + ": no containers to place");
  if (containers_.count(job) > 0) return Status::Internal(who + " already holds containers");
  // Demand per node, checked against what is free there before anything changes.
  std::map<NodeId, std::pair<int64_t, int64_t>> demand;
  std::vector<DeviceId> devices;
  for (const ContainerPlacement& c : containers) {
    if (c.node < 0 || c.node >= cluster_->num_nodes()) {
      return Status::Internal(who + ": container on node " + std::to_string(c.node) + " that does not exist");
    }
    if (c.request.cpu_millicores < 0 || c.request.memory_bytes < 0 ||
        static_cast<int>(c.devices.size()) != c.request.gpus) {
      return Status::Internal(who + ": a " + std::string(ContainerRoleName(c.role)) + " container holds " +
                              std::to_string(c.devices.size()) + " devices for a request of " +
                              std::to_string(c.request.gpus) + " GPUs");
    }
    for (DeviceId d : c.devices) {
      if (d < 0 || d >= cluster_->num_devices() || cluster_->device(d).node != c.node ||
          cluster_->device_catalog().type(cluster_->device(d).type).is_cpu) {
        return Status::Internal(who + ": container device " + std::to_string(d) + " is not an accelerator of node " +
                                std::to_string(c.node));
      }
      devices.push_back(d);
    }
    auto& [cpu, memory] = demand[c.node];
    cpu += c.request.cpu_millicores;
    memory += c.request.memory_bytes;
  }
  for (const auto& [node, need] : demand) {
    if (need.first > cpu_free(node) || need.second > memory_free(node)) {
      return Status::Internal("over-commitment: " + who + " asks node " + std::to_string(node) + " for " +
                              std::to_string(need.first) + " millicores and " + std::to_string(need.second) +
                              " bytes, " + std::to_string(cpu_free(node)) + " and " +
                              std::to_string(memory_free(node)) + " are free");
    }
  }
  HETSCHED_RETURN_IF_ERROR(Allocate(job, devices));  // double booking of GPUs is refused there
  for (const auto& [node, need] : demand) {
    cpu_used_[static_cast<size_t>(node)] += need.first;
    memory_used_[static_cast<size_t>(node)] += need.second;
  }
  for (const ContainerPlacement& c : containers) ++containers_on_node_[static_cast<size_t>(c.node)];
  for (const auto& entry : demand) UpdateResourceLeaf(entry.first);
  containers_.emplace(job, std::vector<ContainerPlacement>(containers.begin(), containers.end()));
  return Status::Ok();
}

Status ClusterState::ReleaseContainers(JobId job) {
  auto it = containers_.find(job);
  if (it == containers_.end()) return Status::Internal("job " + std::to_string(job) + " releases containers it does not hold");
  std::vector<DeviceId> devices;
  for (const ContainerPlacement& c : it->second) devices.insert(devices.end(), c.devices.begin(), c.devices.end());
  HETSCHED_RETURN_IF_ERROR(Release(job, devices));
  for (const ContainerPlacement& c : it->second) {
    cpu_used_[static_cast<size_t>(c.node)] -= c.request.cpu_millicores;
    memory_used_[static_cast<size_t>(c.node)] -= c.request.memory_bytes;
    --containers_on_node_[static_cast<size_t>(c.node)];
  }
  for (const ContainerPlacement& c : it->second) UpdateResourceLeaf(c.node);
  containers_.erase(it);
  return Status::Ok();
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
  FlushNodes();
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
  FlushNodes();
  const auto& buckets = buckets_[static_cast<size_t>(t)];
  for (size_t f = static_cast<size_t>(std::max(min_free, 1)); f < buckets.size(); ++f) {
    if (!buckets[f].empty()) return nodes_of_type_[static_cast<size_t>(t)][static_cast<size_t>(buckets[f].first())];
  }
  return -1;
}

void ClusterState::AppendNodesByMostFree(DeviceTypeId t, int limit, std::vector<NodeId>* out) const {
  if (t < 0 || static_cast<size_t>(t) >= buckets_.size()) return;
  FlushNodes();
  const auto& buckets = buckets_[static_cast<size_t>(t)];
  int taken = 0;
  for (size_t f = buckets.size(); f-- > 1 && taken < limit;) {
    buckets[f].ForEach([&](size_t pos) {
      if (taken >= limit) return false;
      out->push_back(nodes_of_type_[static_cast<size_t>(t)][pos]);
      ++taken;
      return true;
    });
  }
}

void ClusterState::FlushStaleNodes() const {
  for (NodeId n : stale_nodes_) {
    node_stale_[static_cast<size_t>(n)] = false;
    const size_t t = static_cast<size_t>(cluster_->node(n).device_type);
    const size_t pos = static_cast<size_t>(pos_in_type_[static_cast<size_t>(n)]);
    auto& tree = max_tree_[t];
    size_t v = tree_size_[t] + pos;
    const int old_free = tree[v];
    const int new_free = free_per_node_[static_cast<size_t>(n)];
    if (old_free == new_free) continue;  // freed and taken again since the last flush
    buckets_[t][static_cast<size_t>(old_free)].erase(pos);
    buckets_[t][static_cast<size_t>(new_free)].insert(pos);
    tree[v] = new_free;
    for (v >>= 1; v >= 1; v >>= 1) tree[v] = std::max(tree[2 * v], tree[2 * v + 1]);
  }
  stale_nodes_.clear();
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

Status ClusterState::AllocateShared(JobId job, std::span<const DeviceId> devices) {
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceId d = devices[i];
    if (d < 0 || d >= cluster_->num_devices()) {
      return Status::Internal("job " + std::to_string(job) + ": device " + std::to_string(d) + " does not exist");
    }
    const JobId held_by = owner_[static_cast<size_t>(d)];
    if (held_by == kNoJob || held_by == job || guest(d) != kNoJob) {
      return Status::Internal("space sharing: job " + std::to_string(job) + " asked to share device " +
                              std::to_string(d) + (held_by == kNoJob ? ", which is free" : held_by == job ? ", which it holds"
                                                                                          : ", which two jobs hold"));
    }
    for (size_t k = 0; k < i; ++k) {
      if (devices[k] == d) {
        return Status::Internal("job " + std::to_string(job) + " lists device " + std::to_string(d) + " twice");
      }
    }
  }
  if (guests_.empty()) guests_.assign(owner_.size(), kNoJob);
  for (DeviceId d : devices) guests_[static_cast<size_t>(d)] = job;
  shared_devices_ += static_cast<int>(devices.size());
  return Status::Ok();
}

Status ClusterState::Release(JobId job, std::span<const DeviceId> devices) {
  for (DeviceId d : devices) {
    if (d < 0 || d >= cluster_->num_devices() || !holds(job, d)) {
      return Status::Internal("job " + std::to_string(job) + " releases device " + std::to_string(d) +
                              " that it does not hold");
    }
  }
  bool freed = false;
  for (DeviceId d : devices) {
    const size_t i = static_cast<size_t>(d);
    if (!guests_.empty() && guests_[i] != kNoJob) {  // the other job stays, alone
      if (owner_[i] == job) owner_[i] = guests_[i];
      guests_[i] = kNoJob;
      --shared_devices_;
      continue;
    }
    owner_[i] = kNoJob;
    const Device& dev = cluster_->device(d);
    ++free_per_node_[static_cast<size_t>(dev.node)];
    ++free_per_type_[static_cast<size_t>(dev.type)];
    ++total_free_;
    freed = true;
  }
  if (freed) {
    for (DeviceId d : devices) UpdateNode(cluster_->device(d).node);
  }
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
  int shared = 0;
  for (DeviceId d = 0; d < cluster_->num_devices(); ++d) {
    const JobId g = guest(d);
    if (g == kNoJob) continue;
    ++shared;
    if (owner(d) == kNoJob || owner(d) == g) {
      return Status::Internal("cluster state: device " + std::to_string(d) + " has a guest but no other owner");
    }
  }
  if (shared != shared_devices_) return Status::Internal("cluster state: shared-device count disagrees with guests");
  FlushNodes();  // the node index is checked as a query would read it
  for (size_t t = 0; t < nodes_of_type_.size(); ++t) {
    for (size_t i = 0; i < nodes_of_type_[t].size(); ++i) {
      const int f = free_per_node_[static_cast<size_t>(nodes_of_type_[t][i])];
      if (max_tree_[t][tree_size_[t] + i] != f || !buckets_[t][static_cast<size_t>(f)].contains(i)) {
        return Status::Internal("cluster state: node index out of date for node " +
                                std::to_string(nodes_of_type_[t][i]));
      }
    }
  }
  // Container resources: recount from the containers held, then no node over-committed.
  std::vector<int64_t> cpu(cpu_used_.size(), 0), memory(memory_used_.size(), 0);
  std::vector<int> count(containers_on_node_.size(), 0);
  for (const auto& [job, list] : containers_) {
    for (const ContainerPlacement& c : list) {
      cpu[static_cast<size_t>(c.node)] += c.request.cpu_millicores;
      memory[static_cast<size_t>(c.node)] += c.request.memory_bytes;
      ++count[static_cast<size_t>(c.node)];
      for (DeviceId d : c.devices) {
        if (owner_[static_cast<size_t>(d)] != job) {
          return Status::Internal("cluster state: container device " + std::to_string(d) + " of job " +
                                  std::to_string(job) + " is not held by it");
        }
      }
    }
  }
  if (cpu != cpu_used_ || memory != memory_used_ || count != containers_on_node_) {
    return Status::Internal("cluster state: container resource counters disagree with the containers held");
  }
  for (NodeId n = 0; n < cluster_->num_nodes(); ++n) {
    if (cpu_free(n) < 0 || memory_free(n) < 0 || free_on_node(n) < 0) {
      return Status::Internal("invariant: node " + std::to_string(n) + " is over-committed (" +
                              std::to_string(cpu_used_[static_cast<size_t>(n)]) + "/" +
                              std::to_string(cpu_capacity(n)) + " millicores, " +
                              std::to_string(memory_used_[static_cast<size_t>(n)]) + "/" +
                              std::to_string(memory_capacity(n)) + " bytes)");
    }
    // A leaf not marked stale must be current: a change that forgot to mark it shows here.
    if (leaf_stale_[static_cast<size_t>(n)]) continue;
    const NodeSummary& leaf = index_.leaf(n);
    if (leaf.max_free_cpu != cpu_free(n) || leaf.max_free_memory != memory_free(n) || leaf.max_free_gpus != gpus_free(n)) {
      return Status::Internal("cluster state: resource index out of date for node " + std::to_string(n));
    }
  }
  return Status::Ok();
}

}  // namespace hetsched
