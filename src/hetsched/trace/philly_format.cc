// Philly run times (data/real/philly/philly_runtime.csv, from alibaba/clusterdata's analysis of
// the Microsoft Philly trace): a header naming a `runtime` column (seconds) and one job per row.
// The file has no arrivals, sizes or models: those come from the synthetic mix (FillInOptions),
// and each runtime becomes an iteration count through the runtime calibration.
#include <fmt/format.h>

#include "hetsched/model/link.h"
#include "hetsched/trace/formats.h"
#include "hetsched/trace/job_mix.h"
#include "hetsched/trace/reader_common.h"
#include "hetsched/util/text.h"

namespace hetsched::trace_internal {

SyntheticOptions FillInOptions(const TraceReadOptions& options) {
  SyntheticOptions fill;
  fill.seed = kFillInSeed;
  fill.reference_device = options.reference_device;
  return fill;
}

Result<Workload> ParsePhillyRuntime(const FormatInput& in) {
  if (IsBlank(in.text)) return Status::ParseError(in.origin + ": empty file (expected a 'runtime' header and rows)");
  constexpr std::string_view kRequired[] = {"runtime"};
  WorkloadBuilder builder(in.origin, in.options);
  std::optional<JobMix> mix;
  std::optional<ColumnMap> cols;
  int c_runtime = 0;
  CsvRowSplitter splitter;
  LineReader lines(in.text);
  std::string_view line;
  long long index = 0;
  while (lines.Next(&line)) {
    const RowRef row{in.origin, lines.line_number()};
    if (IsBlank(line)) continue;
    if (!cols) {
      HETSCHED_ASSIGN_OR_RETURN(ColumnMap map, ColumnMap::FromHeader(row, line, kRequired, {}, true));
      cols = std::move(map);
      c_runtime = cols->Index("runtime");
      HETSCHED_ASSIGN_OR_RETURN(JobMix m, JobMix::Create(FillInOptions(in.options), in.devices,
                                                         LinkCatalog::BuiltIn(), in.zoo));
      mix.emplace(std::move(m));
      continue;
    }
    if (builder.Full()) break;
    builder.CountRow();
    double runtime_s = 0;
    Status st = splitter.Split(row, line);
    if (st.ok() && static_cast<int>(splitter.fields().size()) != cols->size()) {
      st = RowError(row, fmt::format("wrong field count: expected {} comma-separated fields (as in the "
                                     "header), got {}", cols->size(), splitter.fields().size()));
    }
    if (st.ok()) st = ParseSecondsField(row, "runtime", splitter.fields()[static_cast<size_t>(c_runtime)], &runtime_s);
    if (!st.ok()) {
      HETSCHED_RETURN_IF_ERROR(builder.BadRow(std::move(st)));
      continue;
    }
    if (runtime_s == 0) {
      // Legal (the job ended at once) but no work to schedule: left out and counted.
      builder.FilteredRow(fmt::format("{}:{}: field 'runtime': zero-second job left out", row.origin, row.line));
      continue;
    }
    Job job = mix->Next(runtime_s);
    job.spec.name = fmt::format("philly-{}", index++);
    job.spec.reference_runtime_s = runtime_s;
    builder.Add(std::move(job));
  }
  return builder.Finish();
}

}  // namespace hetsched::trace_internal
