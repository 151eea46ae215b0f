#include "hetsched/slurm/cluster_translate.h"

#include <algorithm>

#include "hetsched/util/printable.h"

namespace hetsched::slurm {

Result<DeviceTypeId> MapGresType(const std::string& gres_type, const DeviceCatalog& devices,
                                 const std::map<std::string, std::string>& type_map) {
  auto mapped = type_map.find(gres_type);
  const std::string& name = mapped == type_map.end() ? gres_type : mapped->second;
  const DeviceTypeId id = devices.Find(name);
  if (id != kNoDeviceType && !devices.type(id).is_cpu) return id;
  std::string known;
  for (const DeviceType& t : devices.types()) {
    if (!t.is_cpu) known += (known.empty() ? "" : ", ") + t.name;
  }
  return Status::NotFound("GPU type " + Quoted(gres_type) +
                          (mapped == type_map.end() ? "" : " (mapped to " + Quoted(name) + ")") +
                          " is not a GPU in the device catalog (known: " + known +
                          "); map it with --gpu-type-map " + Printable(gres_type) + "=<catalog name>");
}

Result<SlurmCluster> TranslateCluster(const std::vector<SlurmNode>& nodes, const DeviceCatalog& devices,
                                      const LinkCatalog& links, const TranslateOptions& options,
                                      const std::string& origin) {
  auto nic = links.Lookup(options.nic);
  if (!nic.ok()) return nic.status().WithContext(origin);
  auto uplink = links.Lookup(options.uplink);
  if (!uplink.ok()) return uplink.status().WithContext(origin);
  SlurmCluster out;
  out.cluster = Cluster(&devices, &links);
  std::map<DeviceTypeId, RackId> rack_of_type;
  for (const SlurmNode& sn : nodes) {
    if (!options.partition.empty() &&
        std::find(sn.partitions.begin(), sn.partitions.end(), options.partition) == sn.partitions.end()) {
      continue;
    }
    const std::string where = origin + ": node " + Quoted(sn.name) + " (gres " + Quoted(sn.gres) + ")";
    auto gres = ParseGpuGres(sn.gres);
    if (!gres.ok()) return gres.status().WithContext(where);
    if (gres->count == 0) {
      out.skipped_nodes.push_back(sn.name);
      continue;
    }
    if (gres->type.empty()) {
      return Status::InvalidArgument(where + ": GPU GRES has no type; give gres.conf a Type= so that "
                                     "hetsched knows which GPUs the node has");
    }
    auto type = MapGresType(gres->type, devices, options.type_map);
    if (!type.ok()) return type.status().WithContext(where);
    const DeviceType& dt = devices.type(*type);
    auto intra = links.Lookup(dt.peer_link);
    if (!intra.ok()) return intra.status().WithContext(where + ": peer link");
    auto [it, fresh] = rack_of_type.emplace(*type, 0);
    if (fresh) it->second = out.cluster.AddRack(Rack{"slurm-" + gres->type, *uplink, 1, 1.0, {}});
    auto [name_it, inserted] = out.gres_type_names.emplace(*type, gres->type);
    if (!inserted && name_it->second != gres->type) {
      return Status::InvalidArgument(where + ": GRES types " + Quoted(name_it->second) + " and " + Quoted(gres->type) +
                                     " both map to catalog type '" + dt.name + "'");
    }
    Node node;
    node.name = sn.name;
    node.rack = it->second;
    node.device_type = *type;
    node.num_devices = gres->count;
    node.intra_link = *intra;
    node.nic = *nic;
    node.cpu_cores = sn.cpus;
    node.host_memory_bytes = sn.real_memory_mb * 1024.0 * 1024.0;
    if (out.node_ids.count(sn.name) > 0) return Status::InvalidArgument(where + ": node listed twice");
    const NodeId id = out.cluster.AddNode(std::move(node));
    out.node_ids[sn.name] = id;
    out.node_names.push_back(sn.name);
  }
  if (out.cluster.num_nodes() == 0) {
    return Status::InvalidArgument(origin + ": no node with GPUs" +
                                   (options.partition.empty() ? "" : " in partition '" + options.partition + "'"));
  }
  HETSCHED_RETURN_IF_ERROR(out.cluster.Validate().WithContext(origin));
  return out;
}

}  // namespace hetsched::slurm

namespace hetsched::slurm {

std::string ClusterSpecYaml(const SlurmCluster& sc) {
  const Cluster& c = sc.cluster;
  std::string out = "# Written by hetsched agent from `sinfo --json` (Slurm does not report links: defaults)\n";
  out += "name: slurm\nracks:\n";
  for (const Rack& rack : c.racks()) {
    out += "  - name: " + rack.name + "\n    uplink: " + c.link_catalog().link(rack.uplink).name + "\n    nodes:\n";
    for (NodeId n : rack.nodes) {
      const Node& node = c.node(n);
      out += "      - name: " + node.name + "\n        device: " + c.device_catalog().type(node.device_type).name +
             "\n        num_devices: " + std::to_string(node.num_devices) +
             "\n        nic: " + c.link_catalog().link(node.nic).name;
      if (node.cpu_cores > 0) out += "\n        cpu_cores: " + std::to_string(node.cpu_cores);
      if (node.host_memory_bytes > 0) {
        out += "\n        host_memory_gib: " + std::to_string(node.host_memory_bytes / (1024.0 * 1024.0 * 1024.0));
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace hetsched::slurm
