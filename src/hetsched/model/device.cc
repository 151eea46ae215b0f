#include "hetsched/model/device.h"

#include "hetsched/model/json_fields.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"
#include "hetsched/util/units.h"

namespace hetsched {

namespace {

using model_internal::JsonFields;
using model_internal::NumberRule;

constexpr double kTera = 1e12;
// ALGORITHMS.md 1.2 / 1.4: sustained-efficiency defaults (0.4 GPU FP32, 0.2 CPU), kappa
// (2 ms GPU, 0.5 ms CPU) and idle power 0.3 x TDP.
constexpr double kGpuEfficiency = 0.4;
constexpr double kCpuEfficiency = 0.2;
constexpr double kGpuOverheadMs = 2.0;
constexpr double kCpuOverheadMs = 0.5;
constexpr double kIdleFractionOfTdp = 0.3;

Result<DeviceType> ParseDevice(const JsonFields& f) {
  HETSCHED_RETURN_IF_ERROR(f.CheckKnownKeys(
      {"name", "display_name", "aliases", "is_cpu", "fp32_tflops", "fp16_tflops", "memory_gib",
       "memory_bandwidth_gb_per_s", "tdp_watts", "idle_watts", "price_per_hour_usd",
       "price_source", "efficiency", "iteration_overhead_ms", "peer_link", "host_link", "source",
       "comment"}));
  DeviceType t;
  HETSCHED_ASSIGN_OR_RETURN(t.name, f.String("name"));
  t.name = ToLower(t.name);
  HETSCHED_ASSIGN_OR_RETURN(t.display_name, f.String("display_name", t.name));
  HETSCHED_ASSIGN_OR_RETURN(t.aliases, f.StringList("aliases"));
  HETSCHED_ASSIGN_OR_RETURN(t.is_cpu, f.Bool("is_cpu", false));
  HETSCHED_ASSIGN_OR_RETURN(double fp32, f.Number("fp32_tflops", NumberRule::kPositive));
  HETSCHED_ASSIGN_OR_RETURN(double fp16, f.Number("fp16_tflops", NumberRule::kNonNegative, 0.0));
  HETSCHED_ASSIGN_OR_RETURN(double mem, f.Number("memory_gib", NumberRule::kPositive));
  HETSCHED_ASSIGN_OR_RETURN(double bw, f.Number("memory_bandwidth_gb_per_s", NumberRule::kPositive));
  HETSCHED_ASSIGN_OR_RETURN(t.tdp_watts, f.Number("tdp_watts", NumberRule::kPositive));
  HETSCHED_ASSIGN_OR_RETURN(t.idle_watts, f.Number("idle_watts", NumberRule::kNonNegative,
                                                   kIdleFractionOfTdp * t.tdp_watts));
  if (t.idle_watts > t.tdp_watts) return f.Error("idle_watts", "must not exceed tdp_watts");
  HETSCHED_ASSIGN_OR_RETURN(t.price_per_hour, f.Number("price_per_hour_usd", NumberRule::kPositive));
  HETSCHED_ASSIGN_OR_RETURN(t.price_source, f.String("price_source"));
  HETSCHED_ASSIGN_OR_RETURN(t.efficiency,
                            f.Number("efficiency", NumberRule::kFraction,
                                     t.is_cpu ? kCpuEfficiency : kGpuEfficiency));
  HETSCHED_ASSIGN_OR_RETURN(double overhead_ms,
                            f.Number("iteration_overhead_ms", NumberRule::kNonNegative,
                                     t.is_cpu ? kCpuOverheadMs : kGpuOverheadMs));
  HETSCHED_ASSIGN_OR_RETURN(t.peer_link, f.String("peer_link"));
  HETSCHED_ASSIGN_OR_RETURN(t.host_link, f.String("host_link"));
  HETSCHED_ASSIGN_OR_RETURN(t.source, f.String("source"));
  t.fp32_flops = fp32 * kTera;
  t.tensor_flops = fp16 * kTera;
  t.memory_bytes = mem * kGiB;
  t.memory_bandwidth_Bps = bw * kGB;
  t.iteration_overhead_s = overhead_ms * 1e-3;
  return t;
}

// Every name and alias must be unique across the catalog (case-insensitive).
Status CheckUnique(const std::vector<DeviceType>& types, const DeviceType& t,
                   const std::string& where) {
  std::vector<std::string> mine{t.name};
  for (const auto& a : t.aliases) mine.push_back(ToLower(a));
  for (size_t i = 0; i < mine.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (mine[i] == mine[j]) return Status::InvalidArgument(where + ": name '" + mine[i] + "' listed twice");
    }
    for (const auto& other : types) {
      bool clash = ToLower(other.name) == mine[i];
      for (const auto& a : other.aliases) clash = clash || ToLower(a) == mine[i];
      if (clash) {
        return Status::InvalidArgument(where + ": name or alias '" + mine[i] +
                                       "' already used by device '" + other.name + "'");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<DeviceCatalog> DeviceCatalog::FromJson(std::string_view json_text, const std::string& origin) {
  HETSCHED_ASSIGN_OR_RETURN(nlohmann::json doc, model_internal::ParseJsonText(json_text, origin));
  HETSCHED_ASSIGN_OR_RETURN(const nlohmann::json* list,
                            model_internal::TopLevelArray(doc, "devices", origin));
  DeviceCatalog catalog;
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& entry = (*list)[i];
    std::string where = origin + ": devices[" + std::to_string(i) + "]";
    if (!entry.is_object()) return Status::InvalidArgument(where + ": must be an object");
    if (entry.contains("name") && entry["name"].is_string()) {
      where += " ('" + entry["name"].get<std::string>() + "')";
    }
    HETSCHED_ASSIGN_OR_RETURN(DeviceType t, ParseDevice(JsonFields(entry, where)));
    HETSCHED_RETURN_IF_ERROR(CheckUnique(catalog.types_, t, where));
    catalog.Add(std::move(t));
  }
  return catalog;
}

const DeviceCatalog& DeviceCatalog::BuiltIn() {
  static const DeviceCatalog catalog = model_internal::ValueOrDie(
      FromJson(model_internal::EmbeddedOrDie("data/devices.json"), "data/devices.json"),
      "device catalog");
  return catalog;
}

DeviceTypeId DeviceCatalog::Find(std::string_view name) const {
  const std::string key = ToLower(Trim(name));
  for (size_t i = 0; i < types_.size(); ++i) {
    if (ToLower(types_[i].name) == key) return static_cast<DeviceTypeId>(i);
  }
  for (size_t i = 0; i < types_.size(); ++i) {
    for (const auto& a : types_[i].aliases) {
      if (ToLower(a) == key) return static_cast<DeviceTypeId>(i);
    }
  }
  return kNoDeviceType;
}

Result<DeviceTypeId> DeviceCatalog::Lookup(std::string_view name) const {
  DeviceTypeId id = Find(name);
  if (id != kNoDeviceType) return id;
  std::string known;
  for (const auto& t : types_) known += (known.empty() ? "" : ", ") + t.name;
  return Status::NotFound("unknown device type " + Quoted(name) + " (known: " + known + ")");
}

DeviceTypeId DeviceCatalog::Add(DeviceType type) {
  types_.push_back(std::move(type));
  return static_cast<DeviceTypeId>(types_.size() - 1);
}

}  // namespace hetsched
