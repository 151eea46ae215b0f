#include "hetsched/report/run_record_json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <variant>

namespace hetsched {

namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Status Read(const Json& o, const char* key, T* out, const std::string& where) {
  auto it = o.find(key);
  if (it == o.end()) return Status::ParseError(where + "." + key + ": missing");
  try {
    *out = it->template get<T>();
  } catch (const Json::exception&) {
    return Status::ParseError(where + "." + key + ": wrong type");
  }
  return Status::Ok();
}

Status ReadSeconds(const Json& o, const char* key, double* out, const std::string& where) {
  auto it = o.find(key);
  if (it != o.end() && it->is_null()) {
    *out = kNoDeadline;
    return Status::Ok();
  }
  return Read(o, key, out, where);
}

}  // namespace

void AppendRunIdentity(const RunRecord& run, Json* j) {
  (*j)["policy"] = run.policy;
  (*j)["placer"] = run.placer;
  (*j)["planner"] = run.planner;
  (*j)["trace"] = run.trace;
  (*j)["cluster"] = run.cluster_summary;
  (*j)["seed"] = run.seed;
  (*j)["total_devices"] = run.total_devices;
}

namespace {

// The pieces of nlohmann's dump(1) of the whole document, written directly for the two long
// arrays (for a long run the document's tree cost more than the simulation). Numbers and
// strings go through nlohmann's own formatting, so the text is the same byte for byte.
void AppendDouble(double x, std::string* out) {
  if (!std::isfinite(x)) {
    out->append("null");  // JSON has no infinity: an absent deadline is written as null
    return;
  }
  std::array<char, 64> buffer{};
  const char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), x);
  out->append(buffer.data(), static_cast<size_t>(end - buffer.data()));
}

void AppendString(const std::string& text, std::string* out) {
  // Printable ASCII other than '"' and '\\' is written as is by nlohmann too; anything else
  // (escapes, UTF-8, invalid bytes replaced) goes through nlohmann.
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\';
  });
  if (!plain) {
    out->append(Json(text).dump(-1, ' ', false, Json::error_handler_t::replace));
    return;
  }
  out->push_back('"');
  out->append(text);
  out->push_back('"');
}

// `"key": ` at the depth of a job's fields (three spaces).
void AppendKey(const char* key, std::string* out) { out->append("   \"").append(key).append("\": "); }

// A job's fields in run.json, in the order they are written; the writer and the reader both walk
// this table. kWhenSet: written only when set (dropped_s, for a dropped job: >= 0); kNullIsNone:
// null reads as "none" (deadline_s: kNoDeadline, which is written as null).
struct JobField {
  enum Rule { kAlways, kWhenSet, kNullIsNone };
  const char* key;
  std::variant<JobId JobRecord::*, int JobRecord::*, double JobRecord::*, std::string JobRecord::*> member;
  Rule rule = kAlways;
};
const std::array<JobField, 20> kJobFields = {{
    {"id", &JobRecord::id},
    {"name", &JobRecord::name},
    {"user", &JobRecord::user},
    {"model", &JobRecord::model},
    {"num_gpus", &JobRecord::num_gpus},
    {"priority", &JobRecord::priority},
    {"device_type", &JobRecord::device_type},
    {"device_type_name", &JobRecord::device_type_name},
    {"submit_s", &JobRecord::submit_s},
    {"first_start_s", &JobRecord::first_start_s},
    {"finish_s", &JobRecord::finish_s},
    {"dropped_s", &JobRecord::dropped_s, JobField::kWhenSet},
    {"deadline_s", &JobRecord::deadline_s, JobField::kNullIsNone},
    {"ideal_runtime_s", &JobRecord::ideal_runtime_s},
    {"gpu_seconds", &JobRecord::gpu_seconds},
    {"busy_energy_joules", &JobRecord::busy_energy_joules},
    {"cost_usd", &JobRecord::cost_usd},
    {"cross_node_bytes", &JobRecord::cross_node_bytes},
    {"preemptions", &JobRecord::preemptions},
    {"max_span_nodes", &JobRecord::max_span_nodes},
}};

bool Written(const JobField& f, const JobRecord& r) {
  return f.rule != JobField::kWhenSet || r.*std::get<double JobRecord::*>(f.member) >= 0;
}

void AppendJob(const JobRecord& r, std::string* out) {
  out->append("  {\n");
  bool first = true;
  for (const JobField& f : kJobFields) {
    if (!Written(f, r)) continue;
    if (!first) out->append(",\n");
    first = false;
    AppendKey(f.key, out);
    std::visit(
        [&](auto member) {
          const auto& v = r.*member;
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>) {
            AppendString(v, out);
          } else if constexpr (std::is_same_v<T, double>) {
            AppendDouble(v, out);
          } else {
            out->append(std::to_string(v));
          }
        },
        f.member);
  }
  out->append("\n  }");
}

Status ReadJob(const Json& o, const std::string& where, JobRecord* r) {
  for (const JobField& f : kJobFields) {
    if (f.rule == JobField::kWhenSet && !o.contains(f.key)) continue;
    HETSCHED_RETURN_IF_ERROR(std::visit(
        [&](auto member) {
          auto* v = &(r->*member);
          if constexpr (std::is_same_v<std::decay_t<decltype(*v)>, double>) {
            if (f.rule == JobField::kNullIsNone) return ReadSeconds(o, f.key, v, where);
          }
          return Read(o, f.key, v, where);
        },
        f.member));
  }
  return Status::Ok();
}

void AppendSample(const TimelineSample& s, std::span<const int> busy_by_type, std::string* out) {
  out->append("  [\n   ");
  AppendDouble(s.time_s, out);
  for (const int v : {s.busy_devices, s.running_jobs, s.pending_jobs}) out->append(",\n   ").append(std::to_string(v));
  if (busy_by_type.empty()) {
    out->append(",\n   []\n  ]");
    return;
  }
  out->append(",\n   [\n");
  for (size_t i = 0; i < busy_by_type.size(); ++i) {
    out->append("    ").append(std::to_string(busy_by_type[i])).append(i + 1 < busy_by_type.size() ? ",\n" : "\n");
  }
  out->append("   ]\n  ]");
}

// A top-level key's array, as dump(1) writes it: [] when empty, else one element per line group.
template <typename T, typename AppendItem>
void AppendArray(const std::vector<T>& items, const AppendItem& append_item, std::string* out) {
  if (items.empty()) {
    out->append("[]");
    return;
  }
  out->append("[\n");
  for (size_t i = 0; i < items.size(); ++i) {
    append_item(items[i], out);
    out->append(i + 1 < items.size() ? ",\n" : "\n");
  }
  out->append(" ]");
}

}  // namespace

std::string RunRecordJson(const RunRecord& run) {
  Json j;
  j["format"] = "hetsched-run-record-1";
  AppendRunIdentity(run, &j);
  j["device_types"] = run.device_types;
  j["devices_per_type"] = run.devices_per_type;
  j["idle_power_watts"] = run.idle_power_watts;
  j["jobs_rejected"] = run.jobs_rejected;
  if (run.jobs_dropped > 0) j["jobs_dropped"] = run.jobs_dropped;
  j["rejected_reasons"] = run.rejected_reasons;
  j["scheduler_calls"] = run.scheduler_calls;
  j["events"] = run.events;
  // The head, then "jobs" and "timeline" appended as the last two keys.
  std::string out = j.dump(1, ' ', false, Json::error_handler_t::replace);
  out.resize(out.size() - 2);  // drop "\n}"
  out.reserve(out.size() + 700 * run.jobs.size() + 80 * run.timeline.size() + 64);  // about their size
  out.append(",\n \"jobs\": ");
  AppendArray(run.jobs, AppendJob, &out);
  out.append(",\n \"timeline\": ");
  AppendArray(
      run.timeline,
      [&run](const TimelineSample& s, std::string* o) {
        AppendSample(s, run.BusyByType(static_cast<size_t>(&s - run.timeline.data())), o);
      },
      &out);
  out.append("\n}\n");
  return out;
}

namespace {

// The timeline's rows, [time, busy, running, pending, busy by type], after the device types.
Status ReadTimeline(const Json& j, const std::string& origin, RunRecord* run) {
  auto timeline = j.find("timeline");
  if (timeline == j.end() || !timeline->is_array()) {
    return Status::ParseError(origin + ".timeline: missing or not an array");
  }
  for (size_t i = 0; i < timeline->size(); ++i) {
    const Json& row = (*timeline)[i];
    const std::string where = origin + ": timeline[" + std::to_string(i) + "]";
    if (!row.is_array() || row.size() != 5) return Status::ParseError(where + ": expected [time, busy, running, pending, by_type]");
    TimelineSample s;
    std::vector<int> by_type;
    try {
      s.time_s = row[0].get<double>();
      s.busy_devices = row[1].get<int>();
      s.running_jobs = row[2].get<int>();
      s.pending_jobs = row[3].get<int>();
      by_type = row[4].get<std::vector<int>>();
    } catch (const Json::exception&) {
      return Status::ParseError(where + ": wrong type");
    }
    // One count per device type; a shorter row (no count for the types after it) reads as 0s.
    if (by_type.size() > run->device_types.size()) {
      return Status::ParseError(where + ": " + std::to_string(by_type.size()) + " busy counts for " +
                                std::to_string(run->device_types.size()) + " device types");
    }
    by_type.resize(run->device_types.size(), 0);
    run->AppendSample(s, by_type);
  }
  return Status::Ok();
}

}  // namespace

Result<RunRecord> ParseRunRecordJson(std::string_view text, const std::string& origin) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::ParseError(origin + ": not a JSON object");
  std::string format;
  HETSCHED_RETURN_IF_ERROR(Read(j, "format", &format, origin));
  if (format != "hetsched-run-record-1") {
    return Status::ParseError(origin + ": format '" + format + "' (expected hetsched-run-record-1)");
  }
  RunRecord run;
  HETSCHED_RETURN_IF_ERROR(Read(j, "policy", &run.policy, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "placer", &run.placer, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "planner", &run.planner, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "trace", &run.trace, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "cluster", &run.cluster_summary, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "seed", &run.seed, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "total_devices", &run.total_devices, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "device_types", &run.device_types, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "devices_per_type", &run.devices_per_type, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "idle_power_watts", &run.idle_power_watts, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "jobs_rejected", &run.jobs_rejected, origin));
  if (j.contains("jobs_dropped")) HETSCHED_RETURN_IF_ERROR(Read(j, "jobs_dropped", &run.jobs_dropped, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "rejected_reasons", &run.rejected_reasons, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "scheduler_calls", &run.scheduler_calls, origin));
  HETSCHED_RETURN_IF_ERROR(Read(j, "events", &run.events, origin));
  if (run.device_types.size() != run.devices_per_type.size()) {
    return Status::ParseError(origin + ": device_types and devices_per_type differ in length");
  }
  auto jobs = j.find("jobs");
  if (jobs == j.end() || !jobs->is_array()) return Status::ParseError(origin + ".jobs: missing or not an array");
  for (size_t i = 0; i < jobs->size(); ++i) {
    const Json& o = (*jobs)[i];
    const std::string where = origin + ": jobs[" + std::to_string(i) + "]";
    if (!o.is_object()) return Status::ParseError(where + ": not an object");
    JobRecord r;
    HETSCHED_RETURN_IF_ERROR(ReadJob(o, where, &r));
    run.jobs.push_back(std::move(r));
  }
  HETSCHED_RETURN_IF_ERROR(ReadTimeline(j, origin, &run));
  return run;
}

}  // namespace hetsched
