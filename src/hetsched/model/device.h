// Device types (GPU generations, CPU nodes) and the catalog that holds them. Data only: the
// numbers live in data/devices.json with a source for each; performance models read them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched {

using DeviceTypeId = int;  // index into DeviceCatalog::types()
inline constexpr DeviceTypeId kNoDeviceType = -1;

struct DeviceType {
  std::string name;                 // catalog key, lower case: "v100-16gb", "a100-40gb", "cpu-node"
  std::string display_name;         // "NVIDIA V100 SXM2 16GB"
  std::vector<std::string> aliases; // other names traces use: "v100", "V100"
  bool is_cpu = false;
  double fp32_flops = 0;            // peak FP32 FLOP/s
  double tensor_flops = 0;          // peak FP16/BF16 tensor FLOP/s (0 if none)
  double memory_bytes = 0;
  double memory_bandwidth_Bps = 0;  // bytes/s
  double tdp_watts = 0;
  double idle_watts = 0;            // default 0.3 * TDP (ALGORITHMS.md 1.4-7) when not given
  double price_per_hour = 0;        // USD per device-hour, on-demand
  std::string price_source;         // where the price comes from (provider, date or [PUB-M])
  double efficiency = 0.4;          // sustained fraction of FP32 peak for training kernels
  double iteration_overhead_s = 0.002;  // kappa_d: per-iteration fixed cost (launch, framework)
  std::string peer_link;            // link class between devices of one node ("nvlink2", "pcie3")
  std::string host_link;            // link class device <-> host ("pcie3", "pcie4")
  std::string source;               // datasheet / page the specs come from
};

class DeviceCatalog {
 public:
  // Parses the JSON catalog format documented in docs/formats.md. `origin` names the file in
  // errors ("data/devices.json: device 3 ('p100'): field 'fp32_tflops' must be > 0").
  static Result<DeviceCatalog> FromJson(std::string_view json_text, const std::string& origin);
  // The catalog compiled into the binary (data/devices.json).
  static const DeviceCatalog& BuiltIn();

  const std::vector<DeviceType>& types() const { return types_; }
  const DeviceType& type(DeviceTypeId id) const { return types_.at(static_cast<size_t>(id)); }
  int size() const { return static_cast<int>(types_.size()); }
  // Finds by name or alias, case-insensitive. kNoDeviceType when unknown.
  DeviceTypeId Find(std::string_view name) const;
  // Same, with a helpful error that lists the known names.
  Result<DeviceTypeId> Lookup(std::string_view name) const;

  // For tests and programmatic catalogs. Returns the new id.
  DeviceTypeId Add(DeviceType type);

 private:
  std::vector<DeviceType> types_;
};

}  // namespace hetsched
