// Alibaba PAI GPU cluster trace v2020 (alibaba/clusterdata, cluster-trace-gpu-v2020). The path
// names pai_job_table.csv (job_name, inst_id, user, status, start_time, end_time); the task
// table pai_task_table.csv (job_name, task_name, inst_num, status, start_time, end_time,
// plan_cpu, plan_mem, plan_gpu, gpu_type) is read from the same directory. The released tables
// have no header row (data/real/alibaba-pai-2020/*.header); a header row is tolerated.
// Decisions (GPUs, times, filters): docs/formats-trace.md, "pai".
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <map>

#include "hetsched/model/link.h"
#include "hetsched/trace/formats.h"
#include "hetsched/trace/job_mix.h"
#include "hetsched/trace/reader_common.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched::trace_internal {
namespace {

constexpr size_t kJobFields = 6;
constexpr size_t kTaskFields = 10;

// What a job's tasks add up to.
struct TaskTotals {
  double gpu_percent = 0;  // sum of inst_num * plan_gpu (100 = one GPU)
  double first_start_s = std::numeric_limits<double>::infinity();
  double last_end_s = -std::numeric_limits<double>::infinity();
  bool any_type = false;   // a task that runs on any GPU (MISC or no type)
  std::vector<DeviceTypeId> types;
};

// Empty means "not recorded" in the PAI tables (a task that never started has no start_time).
Status OptionalSeconds(const RowRef& row, std::string_view field, std::string_view text,
                       double* out, bool* present) {
  *present = !Trim(text).empty();
  if (!*present) return Status::Ok();
  return ParseSecondsField(row, field, text, out);
}

Status ParseGpuType(const RowRef& row, std::string_view text, const DeviceCatalog& devices,
                    TaskTotals* totals) {
  std::string_view t = Trim(text);
  if (t.empty() || ToLower(t) == "misc") {
    totals->any_type = true;
    return Status::Ok();
  }
  DeviceTypeId id = devices.Find(t);
  // PAI writes the 32 GB V100 as "V100M32".
  if (id == kNoDeviceType && ToLower(t) == "v100m32") {
    id = devices.Find("v100-32gb");
    if (id == kNoDeviceType) id = devices.Find("v100");
  }
  if (id == kNoDeviceType) {
    Result<DeviceTypeId> err = devices.Lookup(t);
    return FieldError(row, "gpu_type", err.ok() ? "unknown device type" : err.status().message());
  }
  if (std::find(totals->types.begin(), totals->types.end(), id) == totals->types.end()) {
    totals->types.push_back(id);
  }
  return Status::Ok();
}

Status ParseTaskRow(const RowRef& row, const std::vector<std::string_view>& f,
                    const DeviceCatalog& devices, std::map<std::string, TaskTotals, std::less<>>* tasks) {
  if (f.size() != kTaskFields) {
    return RowError(row, fmt::format("wrong field count: expected {} comma-separated fields, got {}", kTaskFields, f.size()));
  }
  if (Trim(f[0]).empty()) return FieldError(row, "job_name", "empty");
  double inst_num = 0, plan_gpu = 0, start = 0, end = 0;
  HETSCHED_RETURN_IF_ERROR(ParseDoubleField(row, "inst_num", f[2], &inst_num));
  if (inst_num < 0) return FieldError(row, "inst_num", fmt::format("must be >= 0, got {}", inst_num));
  if (!Trim(f[8]).empty()) {
    HETSCHED_RETURN_IF_ERROR(ParseDoubleField(row, "plan_gpu", f[8], &plan_gpu));
    if (plan_gpu < 0) return FieldError(row, "plan_gpu", fmt::format("GPU count must be >= 0 percent, got {} (negative)", plan_gpu));
  }
  bool has_start = false, has_end = false;
  HETSCHED_RETURN_IF_ERROR(OptionalSeconds(row, "start_time", f[4], &start, &has_start));
  HETSCHED_RETURN_IF_ERROR(OptionalSeconds(row, "end_time", f[5], &end, &has_end));
  TaskTotals parsed;
  if (plan_gpu > 0) HETSCHED_RETURN_IF_ERROR(ParseGpuType(row, f[9], devices, &parsed));
  // The row is good: merge it into its job.
  TaskTotals& t = (*tasks)[std::string(Trim(f[0]))];
  t.gpu_percent += inst_num * plan_gpu;
  if (has_start && start > 0) t.first_start_s = std::min(t.first_start_s, start);
  if (has_end && end > 0) t.last_end_s = std::max(t.last_end_s, end);
  t.any_type = t.any_type || parsed.any_type;
  for (DeviceTypeId id : parsed.types) {
    if (std::find(t.types.begin(), t.types.end(), id) == t.types.end()) t.types.push_back(id);
  }
  return Status::Ok();
}

bool IsHeader(const std::vector<std::string_view>& f) { return !f.empty() && Trim(f[0]) == "job_name"; }

Status RefuseBlankJobTable(const FormatInput& in) {
  if (IsBlank(in.text)) return Status::ParseError(in.origin + ": empty file (expected PAI job table rows)");
  return Status::Ok();
}

}  // namespace

Result<Workload> ParsePai(const FormatInput& in) {
  // Checked before the task table is looked up, so that an empty job table is named as such.
  HETSCHED_RETURN_IF_ERROR(RefuseBlankJobTable(in));
  const std::string task_path =
      (std::filesystem::path(in.origin).parent_path() / "pai_task_table.csv").string();
  Result<std::string> task_text = ReadFile(task_path);
  if (!task_text.ok()) {
    return Status::IoError(fmt::format("{}: the PAI task table must sit next to the job table: {}",
                                       in.origin, task_text.status().message()));
  }
  return ParsePaiTables(in, *task_text, task_path);
}

Result<Workload> ParsePaiTables(const FormatInput& in, std::string_view task_text, const std::string& task_path) {
  // The tables from memory as from files: an empty job table is refused here too (fuzz_trace_pai).
  HETSCHED_RETURN_IF_ERROR(RefuseBlankJobTable(in));
  if (IsBlank(task_text)) return Status::ParseError(task_path + ": empty file (expected PAI task rows)");

  WorkloadBuilder builder(in.origin, in.options);
  std::vector<std::string_view> f;
  std::string_view line;

  std::map<std::string, TaskTotals, std::less<>> tasks;
  LineReader task_lines(task_text);
  while (task_lines.Next(&line)) {
    const RowRef row{task_path, task_lines.line_number()};
    if (IsBlank(line)) continue;
    SplitInto(line, ',', &f);
    if (task_lines.line_number() == 1 && IsHeader(f)) continue;
    builder.CountRow();
    Status st = ParseTaskRow(row, f, in.devices, &tasks);
    if (!st.ok()) HETSCHED_RETURN_IF_ERROR(builder.BadRow(std::move(st)));
  }

  HETSCHED_ASSIGN_OR_RETURN(JobMix mix, JobMix::Create(FillInOptions(in.options), in.devices,
                                                       LinkCatalog::BuiltIn(), in.zoo));
  // An optional header: a first line whose fields are the column names.
  auto header = [&](const RowRef& row, std::string_view text) -> Result<bool> {
    SplitInto(text, ',', &f);
    return row.line == 1 && IsHeader(f);
  };
  auto parse = [&](const RowRef& row, std::string_view text, Job* job) -> Result<RowOutcome> {
    SplitInto(text, ',', &f);
    if (f.size() != kJobFields) {
      return RowError(row, fmt::format("wrong field count: expected {} comma-separated fields, got {}", kJobFields, f.size()));
    }
    const std::string_view name = Trim(f[0]);
    if (name.empty()) return FieldError(row, "job_name", "empty");
    if (Trim(f[3]) != "Terminated") {
      builder.FilteredRow(fmt::format("{}:{}: field 'status': {} job left out (only Terminated jobs are replayed)",
                                      row.origin, row.line, Quoted(Trim(f[3]))));
      return RowOutcome::kLeftOut;
    }
    JobSpec& s = job->spec;
    double end_s = 0;
    HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, "start_time", f[4], &s.submit_time_s));
    HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, "end_time", f[5], &end_s));
    if (end_s < s.submit_time_s) {
      return FieldError(row, "end_time", fmt::format("ends ({}) before it starts ({})", end_s, s.submit_time_s));
    }
    auto it = tasks.find(name);
    if (it == tasks.end()) {
      return FieldError(row, "job_name", fmt::format("job {} has no task in {}", Quoted(name), task_path));
    }
    const TaskTotals& t = it->second;
    // 100 = one GPU; a fraction of a GPU still takes a whole one here (no GPU sharing).
    const double gpus = std::ceil(t.gpu_percent / 100.0 - 1e-9);
    if (gpus < 1) {
      builder.FilteredRow(fmt::format("{}:{}: job {}: CPU-only job left out (plan_gpu 0)", row.origin, row.line, Quoted(name)));
      return RowOutcome::kLeftOut;
    }
    if (gpus > 1e6) return FieldError(row, "job_name", fmt::format("GPU count {} is implausibly large", gpus));
    s.num_gpus = static_cast<int>(gpus);
    // Running time: from the tasks' own times when recorded (the job's times include queueing).
    const double runtime_s = t.last_end_s > t.first_start_s ? t.last_end_s - t.first_start_s
                                                           : end_s - s.submit_time_s;
    if (!(runtime_s > 0)) {
      builder.FilteredRow(fmt::format("{}:{}: job {}: zero-second job left out", row.origin, row.line, Quoted(name)));
      return RowOutcome::kLeftOut;
    }
    const ModelProfile* model = mix.DrawModel();
    Result<int64_t> iterations = mix.calibrator().IterationsFor(*model, 0, s.num_gpus, runtime_s);
    if (!iterations.ok()) return FieldError(row, "end_time", iterations.status().message());
    s.name = name;
    s.user = Trim(f[2]);
    s.model = model->name;
    s.iterations = *iterations;
    s.parallelism = DefaultParallelism(s.num_gpus);
    job->truth.reference_runtime_s = runtime_s;
    if (!t.any_type) s.allowed_types = t.types;
    job->truth.total_iterations = static_cast<double>(s.iterations);
    job->truth.runtime_s = runtime_s;  // the truth (docs/formats-trace.md, "Run times as the truth")
    return RowOutcome::kAdd;
  };
  HETSCHED_RETURN_IF_ERROR(ForEachRow(in.origin, in.text, /*comments=*/false, &builder, header, parse));
  // PAI times are seconds from an anonymised origin: start the workload at 0.
  builder.ShiftSubmitTimesToZero();
  return builder.Finish();
}

}  // namespace hetsched::trace_internal
