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
  constexpr std::string_view kPhillyRequired[] = {"runtime"};
  WorkloadBuilder builder(in.origin, in.options);
  std::optional<JobMix> mix;
  int c_runtime = 0;
  long long index = 0;
  auto header = [&](const RowRef& /*row*/, const ColumnMap& cols) -> Status {
    c_runtime = cols.Index("runtime");
    HETSCHED_ASSIGN_OR_RETURN(JobMix m, JobMix::Create(FillInOptions(in.options), in.devices,
                                                       LinkCatalog::BuiltIn(), in.zoo));
    mix.emplace(std::move(m));
    return Status::Ok();
  };
  auto parse = [&](const RowRef& row, const std::vector<std::string_view>& f, Job* job) -> Result<RowOutcome> {
    double runtime_s = 0;
    HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, "runtime", f[static_cast<size_t>(c_runtime)], &runtime_s));
    if (runtime_s == 0) {
      // Legal (the job ended at once) but no work to schedule: left out and counted.
      builder.FilteredRow(fmt::format("{}:{}: field 'runtime': zero-second job left out", row.origin, row.line));
      return RowOutcome::kLeftOut;
    }
    *job = mix->Next(runtime_s);
    job->spec.name = fmt::format("philly-{}", index++);
    job->truth.reference_runtime_s = runtime_s;
    job->truth.runtime_s = runtime_s;  // the truth (docs/formats-trace.md, "Run times as the truth")
    return RowOutcome::kAdd;
  };
  const CsvTable table{kPhillyRequired, {}, /*allow_unknown=*/true};
  HETSCHED_RETURN_IF_ERROR(ForEachCsvRow(in.origin, in.text, table, &builder, header, parse).status());
  return builder.Finish();
}

}  // namespace hetsched::trace_internal
