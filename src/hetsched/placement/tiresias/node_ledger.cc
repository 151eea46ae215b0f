#include "hetsched/placement/tiresias/node_ledger.h"

#include <algorithm>
#include <utility>

namespace hetsched {

void TiresiasNodeLedger::Sync(const ClusterState& state) {
  const Cluster& cluster = state.cluster();
  if (cluster_ != &cluster || num_nodes_ != cluster.num_nodes()) {
    cluster_ = &cluster;
    num_nodes_ = cluster.num_nodes();
    free_gpus_.clear();
    for (const Node& node : cluster.nodes()) free_gpus_.push_back(node.num_devices);
    free_cores_.assign(static_cast<size_t>(num_nodes_), cores_per_node_);
    placed_.clear();
    return;
  }
  size_t kept = 0;
  for (size_t i = 0; i < placed_.size(); ++i) {
    Placed& p = placed_[i];
    if (state.owner(p.first_device) == p.job) {
      if (kept != i) placed_[kept] = std::move(p);
      ++kept;
      continue;
    }
    // cluster.py:1448-1490: entry by entry, stopping at the first capped one.
    for (const Entry& e : p.entries) {
      if (!GiveBack(e.node, e.gpus, e.cores)) break;
    }
  }
  placed_.resize(kept);
}

void TiresiasNodeLedger::Take(NodeId n, int gpus, int cores) {
  free_gpus_[static_cast<size_t>(n)] -= gpus;
  free_cores_[static_cast<size_t>(n)] -= cores;
}

bool TiresiasNodeLedger::GiveBack(NodeId n, int gpus, int cores) {
  // node.py:94-102 (release_cpus) then 67-75 (release_gpus), both applied, each capped.
  const auto give = [](int& free, int count, int size) {
    if (free + count > size) {
      free = size;
      return false;
    }
    free += count;
    return true;
  };
  const bool cores_ok = give(free_cores_[static_cast<size_t>(n)], cores, cores_per_node_);
  const bool gpus_ok = give(free_gpus_[static_cast<size_t>(n)], gpus, cluster_->node(n).num_devices);
  return cores_ok && gpus_ok;
}

void TiresiasNodeLedger::Record(JobId id, DeviceId first_device, std::vector<Entry> entries) {
  placed_.push_back({id, first_device, std::move(entries)});
}

bool TiresiasNodeLedger::TakeDevices(const ClusterState& state, const std::vector<NodeId>& nodes,
                                     size_t first, std::vector<DeviceId>* out) {
  std::vector<DeviceId> free;
  for (NodeId node : nodes) {
    free.clear();
    state.AppendFreeDevices(node, &free);
    const auto taken = [&](DeviceId d) {
      return std::find(out->begin() + static_cast<long>(first), out->end(), d) != out->end();
    };
    const auto it = std::find_if(free.begin(), free.end(), [&](DeviceId d) { return !taken(d); });
    if (it == free.end()) {
      out->resize(first);
      return false;
    }
    out->push_back(*it);
  }
  return true;
}

}  // namespace hetsched
