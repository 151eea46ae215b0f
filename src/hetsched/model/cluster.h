// The cluster: racks -> nodes -> devices, with the links between them. Immutable once built;
// who holds which device at a given time is sched/ClusterState's business, not this file's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetsched/model/device.h"
#include "hetsched/model/link.h"
#include "hetsched/util/status.h"

namespace hetsched {

using NodeId = int;
using RackId = int;
using DeviceId = int;  // global index of one accelerator (or one CPU node "device")

struct Rack {
  std::string name;
  LinkClassId uplink = kNoLinkClass;  // rack uplink to the fabric
  int uplink_count = 1;               // parallel uplinks
  double oversubscription = 1.0;      // >= 1: downlink capacity / uplink capacity
  std::vector<NodeId> nodes;
};

struct Node {
  std::string name;
  RackId rack = 0;
  DeviceTypeId device_type = kNoDeviceType;  // one accelerator type per node
  int num_devices = 0;                       // accelerators; a CPU node has 1 "device"
  LinkClassId intra_link = kNoLinkClass;     // between devices of this node (NVLink/PCIe)
  LinkClassId nic = kNoLinkClass;            // node NIC to the rack switch
  int cpu_cores = 0;
  double host_memory_bytes = 0;
  DeviceId first_device = 0;                 // devices are first_device .. first_device+num-1
};

struct Device {
  NodeId node = 0;
  int local_index = 0;
  DeviceTypeId type = kNoDeviceType;
};

class Cluster {
 public:
  Cluster() = default;
  Cluster(const DeviceCatalog* devices, const LinkCatalog* links) : devices_(devices), links_(links) {}

  const DeviceCatalog& device_catalog() const { return *devices_; }
  const LinkCatalog& link_catalog() const { return *links_; }

  const std::vector<Rack>& racks() const { return racks_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Device>& devices() const { return devices_list_; }
  const Rack& rack(RackId id) const { return racks_.at(static_cast<size_t>(id)); }
  const Node& node(NodeId id) const { return nodes_.at(static_cast<size_t>(id)); }
  const Device& device(DeviceId id) const { return devices_list_.at(static_cast<size_t>(id)); }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  int num_devices() const { return static_cast<int>(devices_list_.size()); }
  // Number of devices of each type, indexed by DeviceTypeId (size = catalog size).
  const std::vector<int>& devices_per_type() const { return per_type_; }
  // Device types present in this cluster, in catalog order.
  const std::vector<DeviceTypeId>& present_types() const { return present_types_; }
  int max_devices_per_node() const { return max_per_node_; }
  // The most devices of `type` on one node (0 if the type is absent).
  int max_devices_per_node(DeviceTypeId type) const {
    const size_t t = static_cast<size_t>(type);
    return type >= 0 && t < max_per_node_by_type_.size() ? max_per_node_by_type_[t] : 0;
  }

  // Building. REQUIRES: catalogs set; rack ids valid. Validate() checks the whole thing.
  RackId AddRack(Rack rack);
  NodeId AddNode(Node node);  // assigns devices; node.first_device is overwritten
  Status Validate() const;

  std::string Summary() const;  // "16 nodes, 96 GPUs: 48 v100-16gb, 48 k80 ..."

 private:
  const DeviceCatalog* devices_ = nullptr;
  const LinkCatalog* links_ = nullptr;
  std::vector<Rack> racks_;
  std::vector<Node> nodes_;
  std::vector<Device> devices_list_;
  std::vector<int> per_type_;
  std::vector<DeviceTypeId> present_types_;  // types with devices, catalog order
  int max_per_node_ = 0;
  std::vector<int> max_per_node_by_type_;  // indexed by DeviceTypeId
};

// Cluster spec files (YAML or JSON, format in docs/formats.md). Unknown device types or links,
// zero bandwidths, empty racks etc. are errors naming the file and the field. A cluster larger
// than `memory_limit_bytes` can hold (0: this machine's available memory) is refused up front,
// saying how much it would need.
Result<Cluster> LoadClusterSpec(const std::string& path, const DeviceCatalog& devices,
                                const LinkCatalog& links);
Result<Cluster> ParseClusterSpec(std::string_view text, const std::string& origin,
                                 const DeviceCatalog& devices, const LinkCatalog& links,
                                 uint64_t memory_limit_bytes = 0);

// A `TYPE=COUNT,...` list, as the command line's --gpus and --pool and Python's gpus= give it:
// types trimmed and not empty, each count a whole number >= 0 (with `count_optional`, an entry
// without `=COUNT` has count 0: the cost pool's TYPE[=MAX_UNITS]). `what` names the source in
// errors ("--gpus: entry 'v100=8x': the count must be a whole number >= 0"). Types are not looked
// up here.
Result<std::vector<std::pair<std::string, int>>> ParseTypeCounts(std::string_view text, std::string_view what,
                                                                 bool count_optional = false);

// A quick homogeneous-per-type cluster: for each (type, count) pair, ceil(count/per_node) nodes
// of `per_node` devices, all in one rack per type, default links for the type.
// E.g. {{"v100",36},{"p100",36},{"k80",36}}, 4.
Result<Cluster> MakeShorthandCluster(const std::vector<std::pair<std::string, int>>& gpus,
                                     int devices_per_node, const DeviceCatalog& devices,
                                     const LinkCatalog& links);

// The demo's built-in heterogeneous cluster (data/default_cluster.yaml).
Result<Cluster> DefaultCluster(const DeviceCatalog& devices, const LinkCatalog& links);

}  // namespace hetsched
