// hetsched's own trace format: CSV with a header row, one job per row (docs/formats-trace.md).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <optional>

#include "hetsched/trace/container_fields.h"
#include "hetsched/trace/formats.h"
#include "hetsched/trace/goodput_catalog.h"
#include "hetsched/trace/reader_common.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace trace_internal {
namespace {

constexpr std::string_view kNativeRequired[] = {"submit_time_s", "model", "num_gpus", "iterations"};
constexpr std::string_view kNativeOptional[] = {"id", "name", "user", "batch_size", "estimated_runtime_s",
                                          "allowed_types", "parallelism", "priority", "deadline_s",
                                          "true_iterations", "reference_runtime_s", "num_ps", "num_workers",
                                          "ps_cpu", "ps_memory_gib", "ps_gpus", "worker_cpu",
                                          "worker_memory_gib", "worker_gpus", "intra_job_planner", "elastic",
                                          "application", "adaptive_batch", "total_batch_size"};
// The order ToNativeTrace writes.
constexpr std::string_view kWriteOrder[] = {
    "id", "name", "user", "submit_time_s", "model", "batch_size", "num_gpus", "iterations",
    "estimated_runtime_s", "allowed_types", "parallelism", "priority", "deadline_s",
    "true_iterations", "reference_runtime_s"};  // then kContainerColumns, then kPlannerColumn
constexpr std::string_view kPlannerColumn = "intra_job_planner";
// Written last, and only when some job is elastic (older files stay as they were).
constexpr std::string_view kElasticColumn = "elastic";
// A goodput job's (docs/goodput.md): written after those, and only when some job has an
// application. The application names a folder of the goodput profiles (TraceReadOptions::
// goodput_profiles), loaded as the pollux format loads them.
constexpr std::string_view kGoodputColumns[] = {"application", "adaptive_batch", "total_batch_size"};

// Column indices resolved once from the header; -1 = column absent.
struct Columns {
  int id, name, user, submit, model, batch, gpus, iterations, estimate, allowed, parallelism,
      priority, deadline, truth, reference, planner, elastic, application, adaptive, total_batch;
};

Columns ResolveColumns(const ColumnMap& map) {
  return Columns{map.Index("id"), map.Index("name"), map.Index("user"), map.Index("submit_time_s"),
                 map.Index("model"), map.Index("batch_size"), map.Index("num_gpus"),
                 map.Index("iterations"), map.Index("estimated_runtime_s"),
                 map.Index("allowed_types"), map.Index("parallelism"), map.Index("priority"),
                 map.Index("deadline_s"), map.Index("true_iterations"),
                 map.Index("reference_runtime_s"), map.Index(std::string(kPlannerColumn)),
                 map.Index(std::string(kElasticColumn)), map.Index("application"), map.Index("adaptive_batch"),
                 map.Index("total_batch_size")};
}

// 0, 1, true or false.
Status ParseFlagField(const RowRef& row, std::string_view field, std::string_view text, bool* out) {
  const std::string value = ToLower(Trim(text));
  if (value == "1" || value == "true") {
    *out = true;
  } else if (value == "0" || value == "false") {
    *out = false;
  } else {
    return FieldError(row, field, fmt::format("expected 0, 1, true or false, got {}", Quoted(text)));
  }
  return Status::Ok();
}

class NativeRowParser {
 public:
  NativeRowParser(const Columns& cols, const ContainerColumns& containers, const DeviceCatalog& devices,
                  const ModelZoo& zoo, const TraceReadOptions& options)
      : cols_(cols), containers_(containers), models_(zoo), device_lists_(devices), devices_(devices), options_(options) {}

  std::map<std::string, GoodputTruth> TakeApplications() { return std::move(used_); }

  Status Parse(const RowRef& row, const std::vector<std::string_view>& f, Job* job) {
    auto has = [&](int c) { return c >= 0 && !Trim(f[static_cast<size_t>(c)]).empty(); };
    auto at = [&](int c) { return f[static_cast<size_t>(c)]; };
    JobSpec& s = job->spec;
    if (has(cols_.id)) {
      long long id = 0;
      HETSCHED_RETURN_IF_ERROR(ParseIntField(row, "id", at(cols_.id), &id));
      if (id < 0) return FieldError(row, "id", fmt::format("must be >= 0, got {}", id));
    }
    if (cols_.name >= 0) s.name = at(cols_.name);
    if (cols_.user >= 0) s.user = at(cols_.user);
    HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, "submit_time_s", at(cols_.submit), &s.submit_time_s));
    const ModelProfile* model = nullptr;
    HETSCHED_RETURN_IF_ERROR(models_.Resolve(row, "model", at(cols_.model), &model));
    s.model = model->name;
    if (has(cols_.batch)) {
      long long b = 0;
      HETSCHED_RETURN_IF_ERROR(ParseIntField(row, "batch_size", at(cols_.batch), &b));
      if (b < 0 || b > 1'000'000'000) {
        return FieldError(row, "batch_size", fmt::format("must be >= 0 (0 = model default), got {}", b));
      }
      s.batch_size = static_cast<int>(b);
    }
    HETSCHED_RETURN_IF_ERROR(ParseGpuCountField(row, "num_gpus", at(cols_.gpus), &s.num_gpus));
    HETSCHED_RETURN_IF_ERROR(ParseIterationsField(row, "iterations", at(cols_.iterations), &s.iterations));
    if (has(cols_.estimate)) {
      HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, "estimated_runtime_s", at(cols_.estimate), &s.estimated_runtime_s));
    }
    if (has(cols_.allowed)) {
      const std::vector<DeviceTypeId>* ids = nullptr;
      HETSCHED_RETURN_IF_ERROR(device_lists_.Resolve(row, "allowed_types", at(cols_.allowed), &ids));
      s.allowed_types = *ids;
    }
    s.parallelism = DefaultParallelism(s.num_gpus);
    if (has(cols_.parallelism)) {
      std::optional<Parallelism> p = ParseParallelism(Trim(at(cols_.parallelism)));
      if (!p) {
        return FieldError(row, "parallelism", fmt::format("expected single, ring, ps or pipeline, got {}",
                                                          Quoted(at(cols_.parallelism))));
      }
      if (*p == Parallelism::kSingle && s.num_gpus != 1) {
        return FieldError(row, "parallelism", fmt::format("'single' needs num_gpus = 1, got {}", s.num_gpus));
      }
      s.parallelism = *p;
    }
    HETSCHED_RETURN_IF_ERROR(ParseContainerFields(row, containers_, f, has(cols_.parallelism), &s));
    if (has(cols_.priority)) {
      long long p = 0;
      HETSCHED_RETURN_IF_ERROR(ParseIntField(row, "priority", at(cols_.priority), &p));
      if (p < -1'000'000 || p > 1'000'000) {
        return FieldError(row, "priority", fmt::format("must be within +-1000000, got {}", p));
      }
      s.priority = static_cast<int>(p);
    }
    if (has(cols_.deadline)) {
      const std::string lower = ToLower(Trim(at(cols_.deadline)));
      if (lower != "inf" && lower != "none") {
        HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, "deadline_s", at(cols_.deadline), &s.deadline_s));
      }
    }
    job->truth.total_iterations = static_cast<double>(s.iterations);
    if (has(cols_.truth)) {
      double t = 0;
      HETSCHED_RETURN_IF_ERROR(ParseDoubleField(row, "true_iterations", at(cols_.truth), &t));
      if (t <= 0) return FieldError(row, "true_iterations", fmt::format("must be > 0, got {}", t));
      job->truth.total_iterations = t;
    }
    if (has(cols_.reference)) {
      HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, "reference_runtime_s", at(cols_.reference),
                                                 &job->truth.reference_runtime_s));
    }
    if (has(cols_.planner)) {
      // A registered planner name (planners/hetero_problem.h; the trace module cannot see the
      // registry, so an unknown name is reported when the job is planned, naming the job).
      const std::string_view name = Trim(at(cols_.planner));
      const bool ok = name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
                        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
                      });
      if (!ok) {
        return FieldError(row, kPlannerColumn,
                          fmt::format("expected a planner name (lower-case letters, digits, '-', '_'; at most 64), "
                                      "got {}", Quoted(name)));
      }
      if (s.num_ps > 0) {
        return FieldError(row, kPlannerColumn, "a container job (num_ps >= 1) cannot ask for an intra-job planner");
      }
      s.intra_job_planner = std::string(name);
    }
    if (has(cols_.elastic)) {
      HETSCHED_RETURN_IF_ERROR(ParseFlagField(row, kElasticColumn, at(cols_.elastic), &s.elastic));
      if (s.elastic && s.num_ps > 0) {
        return FieldError(row, kElasticColumn, "a container job (num_ps >= 1) cannot be elastic");
      }
    }
    return ParseGoodput(row, f, job);
  }

 private:
  // application, adaptive_batch, total_batch_size: a goodput job, its truth its application's
  // profile (as the pollux format reads it); the others need an application.
  Status ParseGoodput(const RowRef& row, const std::vector<std::string_view>& f, Job* job) {
    auto has = [&](int c) { return c >= 0 && !Trim(f[static_cast<size_t>(c)]).empty(); };
    auto at = [&](int c) { return f[static_cast<size_t>(c)]; };
    JobSpec& s = job->spec;
    if (!has(cols_.application)) {
      if (has(cols_.adaptive)) HETSCHED_RETURN_IF_ERROR(ParseFlagField(row, "adaptive_batch", at(cols_.adaptive), &s.adaptive_batch));
      if (s.adaptive_batch || has(cols_.total_batch)) {
        return FieldError(row, has(cols_.total_batch) ? "total_batch_size" : "adaptive_batch",
                          "only a goodput job has it: give its application (column 'application')");
      }
      return Status::Ok();
    }
    if (s.num_ps > 0) return FieldError(row, "application", "a container job (num_ps >= 1) cannot be a goodput job");
    const std::string application(Trim(at(cols_.application)));
    if (!catalog_) {
      const std::string& dir = options_.goodput_profiles.empty() ? std::string(GoodputCatalog::kBuiltInDir)
                                                                  : options_.goodput_profiles;
      Result<GoodputCatalog> opened =
          GoodputCatalog::OpenNamed(dir, options_.goodput_types, options_.goodput_settings, devices_);
      if (!opened.ok()) return FieldError(row, "application", opened.status().message());
      catalog_ = std::move(opened).value();
    }
    auto truth = catalog_->Get(application);
    if (!truth.ok()) return FieldError(row, "application", truth.status().message());
    s.application = application;
    if (has(cols_.adaptive)) HETSCHED_RETURN_IF_ERROR(ParseFlagField(row, "adaptive_batch", at(cols_.adaptive), &s.adaptive_batch));
    if (has(cols_.total_batch)) {
      long long b = 0;
      HETSCHED_RETURN_IF_ERROR(ParseIntField(row, "total_batch_size", at(cols_.total_batch), &b));
      if (b < 1 || b > 1'000'000'000) return FieldError(row, "total_batch_size", fmt::format("must be in [1, 1e9], got {}", b));
      s.total_batch_size = static_cast<int>(b);
    } else if (s.batch_size > 0) {
      s.total_batch_size = s.batch_size * s.num_gpus;
    } else {
      return FieldError(row, "total_batch_size", "a goodput job needs its tuned batch: total_batch_size, or batch_size");
    }
    if (s.batch_size == 0) s.batch_size = (s.total_batch_size + s.num_gpus - 1) / s.num_gpus;
    const std::vector<DeviceTypeId> profiled = truth->types();
    if (s.allowed_types.empty()) {  // its truth is measured on the profiles' types only
      s.allowed_types = profiled;
    } else {
      for (DeviceTypeId t : s.allowed_types) {
        if (std::find(profiled.begin(), profiled.end(), t) == profiled.end()) {
          return FieldError(row, "application", "its profiles have no times for device type " +
                                                    Quoted(devices_.type(t).name) + ", which the job allows");
        }
      }
    }
    used_.emplace(application, *truth);
    return Status::Ok();
  }

  Columns cols_;
  ContainerColumns containers_;
  ModelResolver models_;
  DeviceListResolver device_lists_;
  const DeviceCatalog& devices_;
  const TraceReadOptions& options_;
  std::optional<GoodputCatalog> catalog_;  // opened at the first goodput job
  std::map<std::string, GoodputTruth> used_;
};

// Appends `v` in the shortest form that reads back to the same double.
void AppendDouble(std::string* out, double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;  // 32 bytes always hold a shortest double
  out->append(buf, end);
}

void AppendInt(std::string* out, long long v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;
  out->append(buf, end);
}

// Free text: quoted when it holds a comma or a quote; line breaks become spaces (one row = one line).
void AppendText(std::string* out, std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"') out->append("\"\"");
    else if (c == '\n' || c == '\r') out->push_back(' ');
    else out->push_back(c);
  }
  out->push_back('"');
}

}  // namespace

Result<Workload> ParseNative(const FormatInput& in) {
  WorkloadBuilder builder(in.origin, in.options);
  std::optional<NativeRowParser> parser;
  builder.jobs().reserve(static_cast<size_t>(std::count(in.text.begin(), in.text.end(), '\n')) + 1);
  auto header = [&](const RowRef& /*row*/, const ColumnMap& cols) {
    parser.emplace(ResolveColumns(cols), ResolveContainerColumns(cols), in.devices, in.zoo, in.options);
    return Status::Ok();
  };
  auto parse = [&](const RowRef& row, const std::vector<std::string_view>& fields, Job* job) -> Result<RowOutcome> {
    HETSCHED_RETURN_IF_ERROR(parser->Parse(row, fields, job));
    return RowOutcome::kAdd;
  };
  const CsvTable table{kNativeRequired, kNativeOptional, /*allow_unknown=*/false, /*comments=*/true};
  HETSCHED_ASSIGN_OR_RETURN(const bool found_header, ForEachCsvRow(in.origin, in.text, table, &builder, header, parse));
  if (!found_header) return Status::ParseError(in.origin + ": empty file (expected a header row and jobs)");
  Workload out = builder.Finish();
  out.applications = parser->TakeApplications();
  return out;
}

}  // namespace trace_internal

std::string ToNativeTrace(const Workload& workload, const DeviceCatalog& devices) {
  std::string out;
  out.reserve(workload.jobs.size() * 96 + 256);
  for (size_t i = 0; i < std::size(trace_internal::kWriteOrder); ++i) {
    if (i > 0) out.push_back(',');
    out.append(trace_internal::kWriteOrder[i]);
  }
  for (std::string_view column : trace_internal::kContainerColumns) {
    out.push_back(',');
    out.append(column);
  }
  out.push_back(',');
  out.append(trace_internal::kPlannerColumn);
  const bool any_elastic =
      std::any_of(workload.jobs.begin(), workload.jobs.end(), [](const Job& j) { return j.spec.elastic; });
  if (any_elastic) {
    out.push_back(',');
    out.append(trace_internal::kElasticColumn);
  }
  const bool any_goodput =
      std::any_of(workload.jobs.begin(), workload.jobs.end(), [](const Job& j) { return !j.spec.application.empty(); });
  if (any_goodput) {
    for (std::string_view column : trace_internal::kGoodputColumns) {
      out.push_back(',');
      out.append(column);
    }
  }
  out.push_back('\n');
  using trace_internal::AppendDouble;
  using trace_internal::AppendInt;
  for (const Job& job : workload.jobs) {
    const JobSpec& s = job.spec;
    AppendInt(&out, s.id);
    out.push_back(',');
    trace_internal::AppendText(&out, s.name);
    out.push_back(',');
    trace_internal::AppendText(&out, s.user);
    out.push_back(',');
    AppendDouble(&out, s.submit_time_s);
    out.push_back(',');
    trace_internal::AppendText(&out, s.model);
    out.push_back(',');
    AppendInt(&out, s.batch_size);
    out.push_back(',');
    AppendInt(&out, s.num_gpus);
    out.push_back(',');
    AppendInt(&out, s.iterations);
    out.push_back(',');
    AppendDouble(&out, s.estimated_runtime_s);
    out.push_back(',');
    for (size_t t = 0; t < s.allowed_types.size(); ++t) {
      if (t > 0) out.push_back(';');
      out.append(devices.type(s.allowed_types[t]).name);
    }
    out.push_back(',');
    out.append(ParallelismName(s.parallelism));
    out.push_back(',');
    AppendInt(&out, s.priority);
    out.push_back(',');
    if (std::isfinite(s.deadline_s)) AppendDouble(&out, s.deadline_s);
    out.push_back(',');
    AppendDouble(&out, job.truth.total_iterations);
    out.push_back(',');
    AppendDouble(&out, job.truth.reference_runtime_s);
    out.push_back(',');
    trace_internal::AppendContainerFields(s, &out);
    out.push_back(',');
    trace_internal::AppendText(&out, s.intra_job_planner);
    if (any_elastic) out.append(s.elastic ? ",1" : ",0");
    if (any_goodput) {
      out.push_back(',');
      trace_internal::AppendText(&out, s.application);
      if (s.application.empty()) {
        out.append(",,");
      } else {
        out.append(s.adaptive_batch ? ",1," : ",0,");
        AppendInt(&out, s.total_batch_size > 0 ? s.total_batch_size : static_cast<long long>(s.batch_size) * s.num_gpus);
      }
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace hetsched
