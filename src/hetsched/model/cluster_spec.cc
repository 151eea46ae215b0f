// Cluster spec files (YAML; JSON parses too, being a YAML subset) and the shorthand cluster.
// Format: docs/formats-inputs.md "Cluster spec". Every error names the file, the line (from
// yaml-cpp's Mark) and the path of the field: "c.yaml:7: racks[1].nodes[0].device: ...".
#include <limits>
#include <map>
#include <set>

#include <yaml-cpp/yaml.h>

#include "hetsched/model/cluster.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/memory.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"
#include "hetsched/util/units.h"

namespace hetsched {

namespace {

// Upper bounds on the integers of a spec, so that a typo cannot ask for a cluster no machine can
// hold (docs/formats-inputs.md, "Limits"): no server holds more than 1,024 devices, and a
// simulated cluster holds at most 2^20 devices (the largest public GPU clusters have ~10^5).
constexpr long long kMaxDevicesPerNode = 1024;
constexpr long long kMaxClusterDevices = 1LL << 20;
constexpr long long kMaxSmallCount = 1'000'000;  // uplinks, CPU cores
// Memory one device takes through a run (its node's share, the device, the simulator's and the
// placers' per-device state). Our measurement: 200,000 V100s take 18 MiB more peak RSS than
// 1,000 (simulate --synthetic 10, 2026-11-26), ~95 bytes each; rounded up.
constexpr double kBytesPerDevice = 256;

// What a node or rack gets when neither it nor the `defaults:` block says otherwise. 25 GbE
// NICs and a 100 GbE uplink are what the public GPU clusters of the Gavel era used (AWS
// p3.16xlarge: 25 Gb/s) [REC]; full bisection (oversubscription 1) is ALGORITHMS.md 1.1.
struct SpecDefaults {
  std::string nic = "eth25";
  std::string uplink = "eth100";
  int uplink_count = 1;
  double oversubscription = 1.0;
  int cpu_cores = 32;
  double host_memory_gib = 256;
};

class SpecReader {
 public:
  SpecReader(std::string origin, const DeviceCatalog& devices, const LinkCatalog& links, uint64_t memory_limit_bytes)
      : origin_(std::move(origin)),
        devices_(devices),
        links_(links),
        cluster_(&devices, &links),
        memory_limit_bytes_(memory_limit_bytes) {}

  Result<Cluster> Read(const YAML::Node& root);

 private:
  Status Error(const YAML::Node& at, const std::string& path, const std::string& msg) const {
    std::string where = origin_;
    const YAML::Mark m = at.Mark();
    if (!m.is_null()) where += ":" + std::to_string(m.line + 1);
    return Status::InvalidArgument(where + ": " + path + ": " + msg);
  }
  Status CheckKeys(const YAML::Node& map, const std::string& path,
                   std::initializer_list<std::string_view> known) const;
  Result<std::string> Text(const YAML::Node& map, const std::string& path, const char* key,
                           const std::string& fallback) const;
  Result<long long> Int(const YAML::Node& map, const std::string& path, const char* key,
                        long long fallback, long long min, long long max) const;
  Result<double> Real(const YAML::Node& map, const std::string& path, const char* key,
                      double fallback, double min, bool strict) const;
  Result<LinkClassId> Link(const YAML::Node& map, const std::string& path, const char* key,
                           const std::string& fallback) const;
  Status ReadDefaults(const YAML::Node& node);
  Status ReadRack(const YAML::Node& rack, const std::string& path, int index);
  Status ReadNodeGroup(const YAML::Node& group, const std::string& path, RackId rack,
                       const std::string& rack_name);

  std::string origin_;
  const DeviceCatalog& devices_;
  const LinkCatalog& links_;
  Cluster cluster_;
  uint64_t memory_limit_bytes_ = 0;
  SpecDefaults defaults_;
  std::map<std::string, int> prefix_counters_;
  std::map<std::string, std::string> node_names_;  // name -> path that defined it
};

Status SpecReader::CheckKeys(const YAML::Node& map, const std::string& path,
                             std::initializer_list<std::string_view> known) const {
  if (!map.IsMap()) return Error(map, path, "must be a mapping (key: value)");
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    bool ok = false;
    for (std::string_view k : known) ok = ok || key == k;
    if (!ok) {
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return Error(kv.first, path, "unknown field " + Quoted(key) + " (known: " + list + ")");
    }
  }
  return Status::Ok();
}

Result<std::string> SpecReader::Text(const YAML::Node& map, const std::string& path,
                                     const char* key, const std::string& fallback) const {
  const YAML::Node v = map[key];
  if (!v) return fallback;
  if (!v.IsScalar() || v.Scalar().empty()) return Error(v, path + "." + key, "must be a non-empty string");
  return v.Scalar();
}

Result<long long> SpecReader::Int(const YAML::Node& map, const std::string& path,
                                  const char* key, long long fallback, long long min, long long max) const {
  const YAML::Node v = map[key];
  if (!v) return fallback;
  const std::string field = path + "." + key;
  if (!v.IsScalar()) return Error(v, field, "must be an integer");
  auto parsed = ParseInt(v.Scalar(), "value");
  if (!parsed.ok()) return Error(v, field, parsed.status().message());
  if (*parsed < min) {
    return Error(v, field, "must be >= " + std::to_string(min) + ", got " + Printable(v.Scalar()));
  }
  if (*parsed > max) {
    return Error(v, field, "must be <= " + std::to_string(max) + ", got " + Printable(v.Scalar()));
  }
  return *parsed;
}

Result<double> SpecReader::Real(const YAML::Node& map, const std::string& path, const char* key,
                                double fallback, double min, bool strict) const {
  const YAML::Node v = map[key];
  if (!v) return fallback;
  const std::string field = path + "." + key;
  if (!v.IsScalar()) return Error(v, field, "must be a number");
  auto parsed = ParseDouble(v.Scalar(), "value");
  if (!parsed.ok()) return Error(v, field, parsed.status().message());
  if (strict ? !(*parsed > min) : !(*parsed >= min)) {
    return Error(v, field, std::string("must be ") + (strict ? "> " : ">= ") + std::to_string(min) +
                               ", got " + Printable(v.Scalar()));
  }
  return *parsed;
}

Result<LinkClassId> SpecReader::Link(const YAML::Node& map, const std::string& path,
                                     const char* key, const std::string& fallback) const {
  HETSCHED_ASSIGN_OR_RETURN(std::string name, Text(map, path, key, fallback));
  const YAML::Node at = map[key] ? map[key] : map;
  const std::string field = path + "." + key;
  auto id = links_.Lookup(name);
  if (!id.ok()) return Error(at, field, id.status().message());
  if (!(links_.link(*id).effective_bandwidth_Bps() > 0)) {
    return Error(at, field, "link " + Quoted(name) + " has zero bandwidth");
  }
  return *id;
}

Status SpecReader::ReadDefaults(const YAML::Node& node) {
  const std::string path = "defaults";
  HETSCHED_RETURN_IF_ERROR(CheckKeys(node, path, {"nic", "uplink", "uplink_count", "oversubscription",
                                                  "cpu_cores", "host_memory_gib"}));
  // Resolve the links now so that a bad default is reported at its own line.
  HETSCHED_RETURN_IF_ERROR(Link(node, path, "nic", defaults_.nic).status());
  HETSCHED_RETURN_IF_ERROR(Link(node, path, "uplink", defaults_.uplink).status());
  HETSCHED_ASSIGN_OR_RETURN(defaults_.nic, Text(node, path, "nic", defaults_.nic));
  HETSCHED_ASSIGN_OR_RETURN(defaults_.uplink, Text(node, path, "uplink", defaults_.uplink));
  HETSCHED_ASSIGN_OR_RETURN(long long uc, Int(node, path, "uplink_count", defaults_.uplink_count, 1, kMaxSmallCount));
  defaults_.uplink_count = static_cast<int>(uc);
  HETSCHED_ASSIGN_OR_RETURN(defaults_.oversubscription,
                            Real(node, path, "oversubscription", defaults_.oversubscription, 1, false));
  HETSCHED_ASSIGN_OR_RETURN(long long cores, Int(node, path, "cpu_cores", defaults_.cpu_cores, 1, kMaxSmallCount));
  defaults_.cpu_cores = static_cast<int>(cores);
  HETSCHED_ASSIGN_OR_RETURN(defaults_.host_memory_gib,
                            Real(node, path, "host_memory_gib", defaults_.host_memory_gib, 0, true));
  return Status::Ok();
}

Status SpecReader::ReadNodeGroup(const YAML::Node& group, const std::string& path, RackId rack,
                                 const std::string& rack_name) {
  HETSCHED_RETURN_IF_ERROR(CheckKeys(group, path, {"name", "name_prefix", "count", "device",
                                                   "num_devices", "nic", "intra_link", "cpu_cores",
                                                   "host_memory_gib"}));
  const YAML::Node dev = group["device"];
  if (!dev) return Error(group, path + ".device", "is missing");
  HETSCHED_ASSIGN_OR_RETURN(std::string dev_name, Text(group, path, "device", ""));
  auto type_id = devices_.Lookup(dev_name);
  if (!type_id.ok()) return Error(dev, path + ".device", type_id.status().message());
  const DeviceType& type = devices_.type(*type_id);

  HETSCHED_ASSIGN_OR_RETURN(long long count, Int(group, path, "count", 1, 1, kMaxClusterDevices));
  if (!type.is_cpu && !group["num_devices"]) return Error(group, path + ".num_devices", "is missing");
  HETSCHED_ASSIGN_OR_RETURN(long long per_node, Int(group, path, "num_devices", 1, 1, kMaxDevicesPerNode));
  if (type.is_cpu && per_node != 1) {
    return Error(group["num_devices"], path + ".num_devices",
                 "a CPU node counts as exactly 1 device, got " + std::to_string(per_node));
  }
  HETSCHED_ASSIGN_OR_RETURN(LinkClassId nic, Link(group, path, "nic", defaults_.nic));
  HETSCHED_ASSIGN_OR_RETURN(LinkClassId intra, Link(group, path, "intra_link", type.peer_link));
  HETSCHED_ASSIGN_OR_RETURN(long long cores, Int(group, path, "cpu_cores", defaults_.cpu_cores, 1, kMaxSmallCount));
  HETSCHED_ASSIGN_OR_RETURN(double mem_gib,
                            Real(group, path, "host_memory_gib", defaults_.host_memory_gib, 0, true));
  HETSCHED_ASSIGN_OR_RETURN(std::string name, Text(group, path, "name", ""));
  HETSCHED_ASSIGN_OR_RETURN(std::string prefix, Text(group, path, "name_prefix", ""));
  if (!name.empty() && (count != 1 || !prefix.empty())) {
    return Error(group["name"], path + ".name",
                 "only for a single node; use name_prefix with count > 1");
  }
  // Checked before any node is made: count and per_node are each <= 2^20, so the product fits.
  const long long total = cluster_.num_devices() + count * per_node;
  if (total > kMaxClusterDevices) {
    return Error(group, path, "the cluster would hold " + std::to_string(total) + " devices, more than the " +
                                  std::to_string(kMaxClusterDevices) + " hetsched simulates");
  }
  // Limits up front: refused with what it would need, not killed by the kernel later.
  HETSCHED_RETURN_IF_ERROR(CheckMemory(origin_ + ": " + path + ": a cluster of " + std::to_string(total) + " devices",
                                       static_cast<double>(total) * kBytesPerDevice, memory_limit_bytes_));

  for (long long k = 0; k < count; ++k) {
    Node node;
    if (!name.empty()) {
      node.name = name;
    } else if (!prefix.empty()) {
      node.name = prefix + std::to_string(prefix_counters_[prefix]++);
    } else {
      node.name = rack_name + "-node" + std::to_string(prefix_counters_[rack_name + "-node"]++);
    }
    auto [it, fresh] = node_names_.emplace(node.name, path);
    if (!fresh) {
      return Error(group, path, "duplicate node name " + Quoted(node.name) + " (also made by " + it->second + ")");
    }
    node.rack = rack;
    node.device_type = *type_id;
    node.num_devices = static_cast<int>(per_node);
    node.intra_link = intra;
    node.nic = nic;
    node.cpu_cores = static_cast<int>(cores);
    node.host_memory_bytes = mem_gib * kGiB;
    cluster_.AddNode(std::move(node));
  }
  return Status::Ok();
}

Status SpecReader::ReadRack(const YAML::Node& rack, const std::string& path, int index) {
  HETSCHED_RETURN_IF_ERROR(
      CheckKeys(rack, path, {"name", "uplink", "uplink_count", "oversubscription", "nodes"}));
  Rack r;
  HETSCHED_ASSIGN_OR_RETURN(r.name, Text(rack, path, "name", "rack" + std::to_string(index)));
  HETSCHED_ASSIGN_OR_RETURN(r.uplink, Link(rack, path, "uplink", defaults_.uplink));
  HETSCHED_ASSIGN_OR_RETURN(long long uc, Int(rack, path, "uplink_count", defaults_.uplink_count, 1, kMaxSmallCount));
  r.uplink_count = static_cast<int>(uc);
  HETSCHED_ASSIGN_OR_RETURN(r.oversubscription,
                            Real(rack, path, "oversubscription", defaults_.oversubscription, 1, false));
  const YAML::Node nodes = rack["nodes"];
  if (!nodes || !nodes.IsSequence() || nodes.size() == 0) {
    return Error(nodes ? nodes : rack, path + ".nodes", "must be a non-empty list of node groups");
  }
  const std::string rack_name = r.name;
  const RackId id = cluster_.AddRack(std::move(r));
  for (size_t i = 0; i < nodes.size(); ++i) {
    HETSCHED_RETURN_IF_ERROR(
        ReadNodeGroup(nodes[i], path + ".nodes[" + std::to_string(i) + "]", id, rack_name));
  }
  return Status::Ok();
}

Result<Cluster> SpecReader::Read(const YAML::Node& root) {
  if (!root || root.IsNull()) return Status::InvalidArgument(origin_ + ": empty cluster spec");
  HETSCHED_RETURN_IF_ERROR(CheckKeys(root, "(top level)", {"name", "description", "defaults", "racks"}));
  if (root["defaults"]) HETSCHED_RETURN_IF_ERROR(ReadDefaults(root["defaults"]));
  const YAML::Node racks = root["racks"];
  if (!racks || !racks.IsSequence() || racks.size() == 0) {
    return Error(racks ? racks : root, "racks", "must be a non-empty list (the cluster is empty)");
  }
  std::set<std::string> rack_names;
  for (size_t i = 0; i < racks.size(); ++i) {
    const std::string path = "racks[" + std::to_string(i) + "]";
    HETSCHED_RETURN_IF_ERROR(ReadRack(racks[i], path, static_cast<int>(i)));
    if (!rack_names.insert(cluster_.racks().back().name).second) {
      return Error(racks[i], path + ".name", "duplicate rack name " + Quoted(cluster_.racks().back().name));
    }
  }
  Status valid = cluster_.Validate();
  if (!valid.ok()) return valid.WithContext(origin_);
  return std::move(cluster_);
}

}  // namespace

Result<Cluster> ParseClusterSpec(std::string_view text, const std::string& origin,
                                 const DeviceCatalog& devices, const LinkCatalog& links, uint64_t memory_limit_bytes) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    std::string where = origin;
    if (!e.mark.is_null()) {
      where += ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
    }
    return Status::ParseError(where + ": YAML syntax error: " + Printable(e.msg, kMaxQuotedBytes * 4));
  }
  try {
    return SpecReader(origin, devices, links, memory_limit_bytes).Read(root);
  } catch (const YAML::Exception& e) {  // defensive: conversions are checked, but never leak
    return Status::ParseError(origin + ": " + Printable(e.what(), kMaxQuotedBytes * 4));
  }
}

Result<Cluster> LoadClusterSpec(const std::string& path, const DeviceCatalog& devices,
                                const LinkCatalog& links) {
  HETSCHED_ASSIGN_OR_RETURN(std::string text, ReadFileOrEmbedded(path));
  return ParseClusterSpec(text, path, devices, links);
}

Result<std::vector<std::pair<std::string, int>>> ParseTypeCounts(std::string_view text, std::string_view what,
                                                                 bool count_optional) {
  const std::string where(what);
  std::vector<std::pair<std::string, int>> out;
  if (Trim(text).empty()) return Status::InvalidArgument(where + ": empty (expected TYPE=COUNT,...)");
  for (std::string_view raw : Split(text, ',')) {
    const std::string_view item = Trim(raw);
    const std::string entry = where + ": entry " + Quoted(std::string(item));
    const size_t eq = item.find('=');
    const std::string_view type = Trim(item.substr(0, eq));
    if (type.empty()) return Status::InvalidArgument(entry + ": no type (expected TYPE=COUNT)");
    if (eq == std::string_view::npos) {
      if (!count_optional) return Status::InvalidArgument(entry + ": expected TYPE=COUNT");
      out.emplace_back(std::string(type), 0);
      continue;
    }
    auto count = ParseInt(Trim(item.substr(eq + 1)), "count");
    if (!count.ok() || *count < 0 || *count > std::numeric_limits<int>::max()) {
      return Status::InvalidArgument(entry + ": the count must be a whole number >= 0");
    }
    out.emplace_back(std::string(type), static_cast<int>(*count));
  }
  return out;
}

Result<Cluster> MakeShorthandCluster(const std::vector<std::pair<std::string, int>>& gpus,
                                     int devices_per_node, const DeviceCatalog& devices,
                                     const LinkCatalog& links) {
  const std::string origin = "shorthand cluster";
  if (gpus.empty()) return Status::InvalidArgument(origin + ": no device types given");
  if (devices_per_node < 1) {
    return Status::InvalidArgument(origin + ": devices per node must be >= 1, got " +
                                   std::to_string(devices_per_node));
  }
  const SpecDefaults d;
  auto nic = links.Lookup(d.nic);
  auto uplink = links.Lookup(d.uplink);
  if (!nic.ok()) return nic.status().WithContext(origin);
  if (!uplink.ok()) return uplink.status().WithContext(origin);
  Cluster cluster(&devices, &links);
  std::set<DeviceTypeId> seen;
  for (const auto& [name, count] : gpus) {
    const std::string where = origin + ": " + Quoted(name);
    auto type_id = devices.Lookup(name);
    if (!type_id.ok()) return type_id.status().WithContext(origin);
    if (!seen.insert(*type_id).second) return Status::InvalidArgument(where + ": type listed twice");
    if (count < 1) return Status::InvalidArgument(where + ": count must be >= 1, got " + std::to_string(count));
    const DeviceType& type = devices.type(*type_id);
    auto intra = links.Lookup(type.peer_link);
    if (!intra.ok()) return intra.status().WithContext(where + ": peer link");
    const int per_node = type.is_cpu ? 1 : devices_per_node;
    const RackId rack = cluster.AddRack(Rack{type.name, *uplink, d.uplink_count, d.oversubscription, {}});
    int left = count;
    for (int k = 0; left > 0; ++k) {
      Node node;
      node.name = type.name + "-node" + std::to_string(k);
      node.rack = rack;
      node.device_type = *type_id;
      node.num_devices = std::min(per_node, left);  // the last node holds the remainder
      node.intra_link = *intra;
      node.nic = *nic;
      node.cpu_cores = d.cpu_cores;
      node.host_memory_bytes = d.host_memory_gib * kGiB;
      left -= node.num_devices;
      cluster.AddNode(std::move(node));
    }
  }
  HETSCHED_RETURN_IF_ERROR(cluster.Validate().WithContext(origin));
  return cluster;
}

}  // namespace hetsched
