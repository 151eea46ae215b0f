#include "hetsched/model/cluster.h"

#include <algorithm>
#include <set>

#include "hetsched/model/json_fields.h"
#include "hetsched/util/printable.h"

namespace hetsched {

RackId Cluster::AddRack(Rack rack) {
  rack.nodes.clear();  // filled by AddNode, so rack membership and node.rack always agree
  racks_.push_back(std::move(rack));
  return static_cast<RackId>(racks_.size() - 1);
}

NodeId Cluster::AddNode(Node node) {
  const NodeId id = static_cast<NodeId>(nodes_.size());
  node.first_device = static_cast<DeviceId>(devices_list_.size());
  for (int i = 0; i < node.num_devices; ++i) devices_list_.push_back(Device{id, i, node.device_type});
  if (devices_ != nullptr && per_type_.size() < static_cast<size_t>(devices_->size())) {
    per_type_.resize(static_cast<size_t>(devices_->size()), 0);
  }
  if (node.device_type >= 0 && static_cast<size_t>(node.device_type) < per_type_.size() &&
      node.num_devices > 0) {
    per_type_[static_cast<size_t>(node.device_type)] += node.num_devices;
    max_per_node_by_type_.resize(per_type_.size(), 0);
    int& widest = max_per_node_by_type_[static_cast<size_t>(node.device_type)];
    widest = std::max(widest, node.num_devices);
  }
  max_per_node_ = std::max(max_per_node_, node.num_devices);
  present_types_.clear();
  for (size_t t = 0; t < per_type_.size(); ++t) {
    if (per_type_[t] > 0) present_types_.push_back(static_cast<DeviceTypeId>(t));
  }
  // An invalid rack id is kept on the node and reported by Validate().
  if (node.rack >= 0 && static_cast<size_t>(node.rack) < racks_.size()) {
    racks_[static_cast<size_t>(node.rack)].nodes.push_back(id);
  }
  nodes_.push_back(std::move(node));
  return id;
}

namespace {

Status CheckLink(const LinkCatalog& links, LinkClassId id, const std::string& where) {
  if (id < 0 || id >= links.size()) return Status::InvalidArgument(where + ": no link class set");
  const LinkClass& l = links.link(id);
  if (!(l.bandwidth_Bps > 0)) {
    return Status::InvalidArgument(where + ": link '" + l.name + "' has zero bandwidth");
  }
  if (!(l.efficiency > 0 && l.efficiency <= 1)) {
    return Status::InvalidArgument(where + ": link '" + l.name + "' has efficiency outside (0, 1]");
  }
  if (!(l.latency_s >= 0)) return Status::InvalidArgument(where + ": link '" + l.name + "' has negative latency");
  return Status::Ok();
}

}  // namespace

Status Cluster::Validate() const {
  if (devices_ == nullptr || links_ == nullptr) return Status::Internal("cluster has no catalogs");
  if (nodes_.empty()) return Status::InvalidArgument("cluster has no nodes");
  std::set<std::string> names;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    const Node& node = nodes_[n];
    const std::string where = "node " + std::to_string(n) + " (" + Quoted(node.name) + ")";
    if (node.name.empty()) return Status::InvalidArgument(where + ": has no name");
    if (!names.insert(node.name).second) {
      return Status::InvalidArgument(where + ": duplicate node name " + Quoted(node.name));
    }
    if (node.rack < 0 || static_cast<size_t>(node.rack) >= racks_.size()) {
      return Status::InvalidArgument(where + ": rack id " + std::to_string(node.rack) + " does not exist");
    }
    if (node.device_type < 0 || node.device_type >= devices_->size()) {
      return Status::InvalidArgument(where + ": unknown device type id " + std::to_string(node.device_type));
    }
    const DeviceType& type = devices_->type(node.device_type);
    if (node.num_devices < 1) return Status::InvalidArgument(where + ": num_devices must be >= 1");
    if (type.is_cpu && node.num_devices != 1) {
      return Status::InvalidArgument(where + ": a CPU node counts as exactly 1 device");
    }
    if (node.cpu_cores < 0) return Status::InvalidArgument(where + ": cpu_cores must be >= 0");
    if (node.host_memory_bytes < 0) return Status::InvalidArgument(where + ": host memory must be >= 0");
    HETSCHED_RETURN_IF_ERROR(CheckLink(*links_, node.intra_link, where + ": intra_link"));
    HETSCHED_RETURN_IF_ERROR(CheckLink(*links_, node.nic, where + ": nic"));
  }
  for (size_t r = 0; r < racks_.size(); ++r) {
    const Rack& rack = racks_[r];
    const std::string where = "rack " + std::to_string(r) + " (" + Quoted(rack.name) + ")";
    if (rack.nodes.empty()) return Status::InvalidArgument(where + ": has no nodes");
    if (rack.uplink_count < 1) return Status::InvalidArgument(where + ": uplink_count must be >= 1");
    if (!(rack.oversubscription >= 1)) {
      return Status::InvalidArgument(where + ": oversubscription must be >= 1");
    }
    HETSCHED_RETURN_IF_ERROR(CheckLink(*links_, rack.uplink, where + ": uplink"));
  }
  return Status::Ok();
}

std::string Cluster::Summary() const {
  int gpus = 0, cpu_nodes = 0;
  std::string gpu_list, cpu_list;
  for (DeviceTypeId t : present_types()) {
    const int n = per_type_[static_cast<size_t>(t)];
    const DeviceType& type = devices_->type(t);
    std::string& list = type.is_cpu ? cpu_list : gpu_list;
    list += (list.empty() ? "" : ", ") + std::to_string(n) + " " + type.name;
    (type.is_cpu ? cpu_nodes : gpus) += n;
  }
  std::string s = std::to_string(nodes_.size()) + " nodes in " + std::to_string(racks_.size()) +
                  " racks, " + std::to_string(gpus) + " GPUs";
  if (!gpu_list.empty()) s += ": " + gpu_list;
  if (cpu_nodes > 0) s += "; " + std::to_string(cpu_nodes) + " CPU nodes (" + cpu_list + ")";
  return s;
}

Result<Cluster> DefaultCluster(const DeviceCatalog& devices, const LinkCatalog& links) {
  const char* kName = "data/default_cluster.yaml";
  return ParseClusterSpec(model_internal::EmbeddedOrDie(kName), kName, devices, links);
}

}  // namespace hetsched
