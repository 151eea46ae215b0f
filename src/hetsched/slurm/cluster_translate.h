// Translates a Slurm cluster (what `sinfo --json` reports) into hetsched's cluster model: one
// node per Slurm node with GPUs, its GPU GRES type mapped to the device catalog, one rack per GPU
// type (Slurm does not report the network: links are the catalog's defaults, as for the
// `--gpus` shorthand: the type's peer link inside a node, 25 GbE NICs, 100 GbE uplinks).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/slurm/slurm_json.h"
#include "hetsched/util/status.h"

namespace hetsched::slurm {

struct TranslateOptions {
  // Only nodes in this partition (empty: every node).
  std::string partition;
  // Slurm GRES type -> catalog device name, for names the catalog does not know as a name or an
  // alias (e.g. {"a100":"a100-80gb"}). Checked before the catalog's own names.
  std::map<std::string, std::string> type_map;
  std::string nic = "eth25";
  std::string uplink = "eth100";
};

struct SlurmCluster {
  Cluster cluster;
  std::vector<std::string> node_names;         // by NodeId: the Slurm node name
  std::map<std::string, NodeId> node_ids;      // Slurm node name -> NodeId
  std::vector<std::string> skipped_nodes;      // nodes without GPUs (not schedulable by hetsched)
  // Catalog type -> the GRES type name Slurm uses for it ("a100-40gb" -> "a100").
  std::map<DeviceTypeId, std::string> gres_type_names;

  NodeId Find(const std::string& slurm_name) const {
    auto it = node_ids.find(slurm_name);
    return it == node_ids.end() ? -1 : it->second;
  }
};

// Errors: a node whose GPU type the catalog does not know (naming the node, its GRES and the
// known names), a GPU GRES without a type, no GPU node at all. `origin` names the source in
// messages ("sinfo --json", a fixture file).
Result<SlurmCluster> TranslateCluster(const std::vector<SlurmNode>& nodes, const DeviceCatalog& devices,
                                      const LinkCatalog& links, const TranslateOptions& options,
                                      const std::string& origin);

// Maps one Slurm GRES type name to the catalog, through `type_map` then the catalog's names and
// aliases. The error lists the catalog's names.
Result<DeviceTypeId> MapGresType(const std::string& gres_type, const DeviceCatalog& devices,
                                 const std::map<std::string, std::string>& type_map);

}  // namespace hetsched::slurm

namespace hetsched::slurm {

// The translated cluster as a cluster spec (docs/formats-inputs.md), so that `hetsched simulate`
// and `compare` can run the same workload on a model of the real cluster: one rack per GPU type,
// each node by its Slurm name.
std::string ClusterSpecYaml(const SlurmCluster& cluster);

}  // namespace hetsched::slurm
