// Pollux's and Sia's workload CSV [SRC: petuum/adaptdl @ osdi21-artifact, simulator/workloads/
// (Apache-2.0), read by simulator.py:190-200; Sia's workloads have the same columns]: header
// name, time, application, num_replicas, batch_size, and optionally category (Sia's
// cluster.py:50-64: adaptive, rigid or scale-gpus; absent: adaptive). `application` names a
// folder of the goodput profiles (TraceReadOptions::goodput_profiles, default the built-in copy of
// Pollux's), which are the jobs' truth; num_replicas x batch_size (total) is what the user tuned
// (Pollux's "TunedJobs"). docs/formats-trace.md, "pollux".
#include <cmath>
#include <fmt/format.h>

#include "hetsched/trace/formats.h"
#include "hetsched/trace/goodput_catalog.h"
#include "hetsched/trace/reader_common.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched::trace_internal {
namespace {

constexpr std::string_view kPolluxRequired[] = {"name", "time", "application", "num_replicas", "batch_size"};
constexpr std::string_view kPolluxOptional[] = {"category"};

}  // namespace

Result<Workload> ParsePolluxWorkload(const FormatInput& in) {
  if (IsBlank(in.text)) return Status::ParseError(in.origin + ": empty file (expected a header row and jobs)");
  const std::string& dir = in.options.goodput_profiles.empty() ? std::string(GoodputCatalog::kBuiltInDir)
                                                                : in.options.goodput_profiles;
  HETSCHED_ASSIGN_OR_RETURN(GoodputCatalog catalog, GoodputCatalog::OpenNamed(dir, in.options.goodput_types,
                                                                              in.options.goodput_settings, in.devices));
  WorkloadBuilder builder(in.origin, in.options);
  std::map<std::string, GoodputTruth> used;
  int c_name = 0, c_time = 0, c_app = 0, c_replicas = 0, c_batch = 0, c_category = -1;
  auto header = [&](const RowRef& /*row*/, const ColumnMap& cols) {
    c_name = cols.Index("name");
    c_time = cols.Index("time");
    c_app = cols.Index("application");
    c_replicas = cols.Index("num_replicas");
    c_batch = cols.Index("batch_size");
    c_category = cols.Index("category");
    return Status::Ok();
  };
  auto parse = [&](const RowRef& row, const std::vector<std::string_view>& f, Job* job) -> Result<RowOutcome> {
    auto at = [&](int c) { return f[static_cast<size_t>(c)]; };
    JobSpec& s = job->spec;
    s.name = Trim(at(c_name));
    HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, "time", at(c_time), &s.submit_time_s));
    HETSCHED_RETURN_IF_ERROR(ParseGpuCountField(row, "num_replicas", at(c_replicas), &s.num_gpus));
    long long batch = 0;
    HETSCHED_RETURN_IF_ERROR(ParseIntField(row, "batch_size", at(c_batch), &batch));
    if (batch < 1 || batch > 1'000'000'000) return FieldError(row, "batch_size", "must be in [1, 1e9]");
    const std::string application(Trim(at(c_app)));
    auto truth = catalog.Get(application);
    if (!truth.ok()) return FieldError(row, "application", truth.status().message());
    const GoodputApplication* app = &truth->reference();
    const ModelProfile* model = ZooModelOfApplication(in.zoo, application);
    if (model == nullptr) {
      return FieldError(row, "application", "no model of the zoo trains " + Quoted(application));
    }
    s.model = model->name;
    s.application = application;
    s.allowed_types = truth->types();  // the profiles' types: the truth is measured there only
    s.parallelism = DefaultParallelism(s.num_gpus);
    // Per device, as Pollux splits a tuned batch: ceil(batch / replicas) (simulator.py:75).
    s.batch_size = static_cast<int>((batch + s.num_gpus - 1) / s.num_gpus);
    s.total_batch_size = static_cast<int>(batch);
    const std::string category = c_category >= 0 ? ToLower(Trim(at(c_category))) : "adaptive";
    if (category == "adaptive" || category.empty()) {
      s.adaptive_batch = true;
      s.elastic = true;
    } else if (category == "scale-gpus") {
      s.elastic = true;
    } else if (category != "rigid") {
      return FieldError(row, "category", "must be adaptive, rigid or scale-gpus, got " + Quoted(category));
    }
    // The iterations its validation runs took at this batch size to the end of its last epoch.
    auto iterations = app->IterationsAt(static_cast<double>(batch), app->completion_epoch());
    if (!iterations.ok()) return FieldError(row, "batch_size", iterations.status().message());
    job->truth.total_iterations = std::max(1.0, std::ceil(*iterations));
    s.iterations = static_cast<int64_t>(job->truth.total_iterations);
    used.emplace(application, *truth);
    return RowOutcome::kAdd;
  };
  HETSCHED_RETURN_IF_ERROR(
      ForEachCsvRow(in.origin, in.text, CsvTable{kPolluxRequired, kPolluxOptional}, &builder, header, parse).status());
  Workload out = builder.Finish();
  out.applications = std::move(used);
  return out;
}

}  // namespace hetsched::trace_internal
