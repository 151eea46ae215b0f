// SenseTime Helios traces (S-Lab-System-Group/HeliosData, cluster_log.csv): a header row with
// job_id, user, vc, gpu_num, cpu_num, node_num, state, submit_time, start_time, end_time,
// duration, queue; times as "YYYY-MM-DD HH:MM:SS", duration and queue in seconds. No models:
// they come from the synthetic mix. Decisions: docs/formats-trace.md, "helios".
#include <chrono>
#include <cmath>
#include <fmt/format.h>

#include "hetsched/model/link.h"
#include "hetsched/trace/formats.h"
#include "hetsched/trace/job_mix.h"
#include "hetsched/trace/reader_common.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched::trace_internal {
namespace {

constexpr std::string_view kHeliosRequired[] = {"gpu_num", "submit_time"};
constexpr std::string_view kHeliosOptional[] = {"job_id", "user", "vc", "jobname", "cpu_num", "node_num",
                                          "state", "start_time", "end_time", "duration", "queue"};

// Reads "YYYY-MM-DD HH:MM:SS" (or 'T' as the separator) as seconds since 1970-01-01 UTC, or a
// plain number of seconds (preprocessed copies of the trace).
Status ParseTimestamp(const RowRef& row, std::string_view field, std::string_view text, double* out) {
  std::string_view t = Trim(text);
  if (t.size() != 19 || t[4] != '-' || t[7] != '-' || (t[10] != ' ' && t[10] != 'T') || t[13] != ':' ||
      t[16] != ':') {
    double seconds = 0;
    if (!t.empty() && t.find('-', 1) == std::string_view::npos &&
        ParseDoubleField(row, field, text, &seconds).ok()) {
      return ParseSecondsField(row, field, text, out);
    }
    return FieldError(row, field, fmt::format("expected 'YYYY-MM-DD HH:MM:SS' or seconds, got {}", Quoted(text)));
  }
  long long parts[6] = {};
  const size_t starts[6] = {0, 5, 8, 11, 14, 17};
  const size_t lengths[6] = {4, 2, 2, 2, 2, 2};
  for (int i = 0; i < 6; ++i) {
    Status st = ParseIntField(row, field, t.substr(starts[i], lengths[i]), &parts[i]);
    if (!st.ok()) return FieldError(row, field, fmt::format("expected 'YYYY-MM-DD HH:MM:SS', got {}", Quoted(text)));
  }
  const std::chrono::year_month_day date{std::chrono::year{static_cast<int>(parts[0])},
                                         std::chrono::month{static_cast<unsigned>(parts[1])},
                                         std::chrono::day{static_cast<unsigned>(parts[2])}};
  if (!date.ok() || parts[3] > 23 || parts[4] > 59 || parts[5] > 60) {
    return FieldError(row, field, fmt::format("not a valid date and time: {}", Quoted(text)));
  }
  const auto days = std::chrono::sys_days{date}.time_since_epoch().count();
  *out = static_cast<double>(days) * 86400.0 + static_cast<double>(parts[3] * 3600 + parts[4] * 60 + parts[5]);
  return Status::Ok();
}

}  // namespace

Result<Workload> ParseHelios(const FormatInput& in) {
  if (IsBlank(in.text)) return Status::ParseError(in.origin + ": empty file (expected a header row and jobs)");
  WorkloadBuilder builder(in.origin, in.options);
  std::optional<JobMix> mix;
  int c_id = -1, c_user = -1, c_gpu = 0, c_submit = 0, c_start = -1, c_end = -1, c_duration = -1;
  auto header = [&](const RowRef& row, const ColumnMap& cols) -> Status {
    c_id = cols.Index("job_id");
    c_user = cols.Index("user");
    c_gpu = cols.Index("gpu_num");
    c_submit = cols.Index("submit_time");
    c_start = cols.Index("start_time");
    c_end = cols.Index("end_time");
    c_duration = cols.Index("duration");
    if (c_duration < 0 && (c_start < 0 || c_end < 0)) {
      return RowError(row, "header: needs a 'duration' column or both 'start_time' and 'end_time'");
    }
    HETSCHED_ASSIGN_OR_RETURN(JobMix m, JobMix::Create(FillInOptions(in.options), in.devices,
                                                       LinkCatalog::BuiltIn(), in.zoo));
    mix.emplace(std::move(m));
    return Status::Ok();
  };
  auto parse = [&](const RowRef& row, const std::vector<std::string_view>& f, Job* job) -> Result<RowOutcome> {
    auto at = [&](int c) { return f[static_cast<size_t>(c)]; };
    JobSpec& s = job->spec;
    long long gpus = 0;
    HETSCHED_RETURN_IF_ERROR(ParseIntField(row, "gpu_num", at(c_gpu), &gpus));
    if (gpus < 0) return FieldError(row, "gpu_num", fmt::format("GPU count must be >= 0, got {} (negative)", gpus));
    if (gpus > 1'000'000) return FieldError(row, "gpu_num", fmt::format("GPU count {} is implausibly large", gpus));
    HETSCHED_RETURN_IF_ERROR(ParseTimestamp(row, "submit_time", at(c_submit), &s.submit_time_s));
    double runtime_s = 0;
    if (c_duration >= 0 && !Trim(at(c_duration)).empty()) {
      HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, "duration", at(c_duration), &runtime_s));
    } else if (c_start >= 0 && c_end >= 0) {
      double start = 0, end = 0;
      HETSCHED_RETURN_IF_ERROR(ParseTimestamp(row, "start_time", at(c_start), &start));
      HETSCHED_RETURN_IF_ERROR(ParseTimestamp(row, "end_time", at(c_end), &end));
      if (end < start) return FieldError(row, "end_time", "ends before it starts");
      runtime_s = end - start;
    } else {
      return FieldError(row, "duration", "empty, and no start_time/end_time to compute it from");
    }
    if (gpus == 0 || runtime_s == 0) {
      builder.FilteredRow(fmt::format("{}:{}: {} job left out", row.origin, row.line,
                                      gpus == 0 ? "CPU-only (gpu_num 0)" : "zero-second"));
      return RowOutcome::kLeftOut;
    }
    s.num_gpus = static_cast<int>(gpus);
    const ModelProfile* model = mix->DrawModel();
    Result<int64_t> iterations = mix->calibrator().IterationsFor(*model, 0, s.num_gpus, runtime_s);
    if (!iterations.ok()) return FieldError(row, "duration", iterations.status().message());
    if (c_id >= 0) s.name = Trim(at(c_id));
    if (c_user >= 0) s.user = Trim(at(c_user));
    s.model = model->name;
    s.iterations = *iterations;
    s.parallelism = DefaultParallelism(s.num_gpus);
    job->truth.reference_runtime_s = runtime_s;
    job->truth.total_iterations = static_cast<double>(s.iterations);
    job->truth.runtime_s = runtime_s;  // the truth (docs/formats-trace.md, "Run times as the truth")
    return RowOutcome::kAdd;
  };
  const CsvTable table{kHeliosRequired, kHeliosOptional, /*allow_unknown=*/true};
  HETSCHED_RETURN_IF_ERROR(ForEachCsvRow(in.origin, in.text, table, &builder, header, parse).status());
  // Helios times are wall-clock dates: start the workload at 0.
  builder.ShiftSubmitTimesToZero();
  return builder.Finish();
}

}  // namespace hetsched::trace_internal
