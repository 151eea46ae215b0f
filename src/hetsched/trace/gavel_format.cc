// Gavel's .trace files (stanford-futuredata/gavel, scheduler/traces): tab-separated, no header.
// 7 fields (msr traces): job_type, command, num_steps_arg, needs_data_dir, total_steps,
// arrival_time_seconds, num_gpus. 10 fields (physical_cluster_artifact_evaluation.trace):
// job_type, command, working_directory, num_steps_arg, needs_data_dir, total_steps,
// scale_factor, priority_weight, SLO, arrival_time. The command is opaque text: never stored,
// never interpreted. Mapping and decisions: docs/formats-trace.md.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>

#include "hetsched/model/link.h"
#include "hetsched/trace/calibrate.h"
#include "hetsched/trace/formats.h"
#include "hetsched/trace/reader_common.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched::trace_internal {
namespace {

// Gavel's model families -> zoo keys (docs/formats-trace.md, "gavel").
struct GavelFamily {
  std::string_view gavel;
  std::string_view zoo;
};
constexpr GavelFamily kGavelFamilies[] = {
    {"ResNet-18", "resnet18-cifar"},  {"ResNet-50", "resnet50"}, {"Transformer", "transformer-nmt"},
    {"LM", "lstm-lm"},                {"Recommendation", "recommendation-vae"},
    {"A3C", "a3c"},                   {"CycleGAN", "cyclegan"}};

struct JobType {
  const ModelProfile* model = nullptr;
  int job_batch = 0;  // Gavel's batch size (the whole job's); 0 when the type names none
};

// "ResNet-50 (batch size 32)" -> family "ResNet-50", batch 32; "A3C" -> family "A3C", batch 0.
class JobTypeResolver {
 public:
  explicit JobTypeResolver(const ModelZoo& zoo) : models_(zoo) {}

  Status Resolve(const RowRef& row, std::string_view text, JobType* out) {
    auto it = cache_.find(text);
    if (it != cache_.end()) {
      *out = it->second;
      return Status::Ok();
    }
    std::string_view t = Trim(text);
    std::string_view family = t;
    JobType jt;
    constexpr std::string_view kBatch = "(batch size ";
    const size_t open = t.find(kBatch);
    if (open != std::string_view::npos) {
      family = Trim(t.substr(0, open));
      std::string_view rest = t.substr(open + kBatch.size());
      if (rest.empty() || rest.back() != ')') {
        return FieldError(row, "job_type", fmt::format("expected 'Model (batch size N)', got {}", Quoted(text)));
      }
      long long b = 0;
      HETSCHED_RETURN_IF_ERROR(ParseIntField(row, "job_type", rest.substr(0, rest.size() - 1), &b));
      if (b < 1 || b > 1'000'000'000) {
        return FieldError(row, "job_type", fmt::format("batch size must be >= 1, got {}", b));
      }
      jt.job_batch = static_cast<int>(b);
    }
    std::string_view zoo_key;
    for (const GavelFamily& f : kGavelFamilies) {
      if (ToLower(f.gavel) == ToLower(family)) zoo_key = f.zoo;
    }
    if (zoo_key.empty()) {
      return FieldError(row, "job_type", fmt::format(
          "unknown Gavel model {} (known: ResNet-18, ResNet-50, Transformer, LM, "
          "Recommendation, A3C, CycleGAN)", Quoted(family)));
    }
    HETSCHED_RETURN_IF_ERROR(models_.Resolve(row, "job_type", zoo_key, &jt.model));
    cache_.emplace(std::string(text), jt);
    *out = jt;
    return Status::Ok();
  }

 private:
  ModelResolver models_;
  std::map<std::string, JobType, std::less<>> cache_;
};

// Field positions of the two layouts.
struct Layout {
  size_t total_steps, arrival, gpus;
  int priority = -1, slo = -1;  // 10-field layout only
  std::string_view arrival_name, gpus_name;
};
constexpr Layout kSevenFields{4, 5, 6, -1, -1, "arrival_time_seconds", "num_gpus"};
constexpr Layout kTenFields{5, 9, 6, 7, 8, "arrival_time", "scale_factor"};

}  // namespace

Result<Workload> ParseGavel(const FormatInput& in) {
  if (IsBlank(in.text)) return Status::ParseError(in.origin + ": empty file (expected Gavel jobs)");
  WorkloadBuilder builder(in.origin, in.options);
  JobTypeResolver types(in.zoo);
  std::optional<RuntimeCalibrator> calibrator;  // only for SLOs
  std::vector<std::string_view> f;
  auto parse = [&](const RowRef& row, std::string_view line, Job* job) -> Result<RowOutcome> {
    SplitInto(line, '\t', &f);
    if (f.size() != 7 && f.size() != 10) {
      return RowError(row, fmt::format("wrong field count: expected 7 or 10 tab-separated fields, got {}", f.size()));
    }
    const Layout& layout = f.size() == 7 ? kSevenFields : kTenFields;
    JobSpec& s = job->spec;
    JobType jt;
    HETSCHED_RETURN_IF_ERROR(types.Resolve(row, f[0], &jt));
    HETSCHED_RETURN_IF_ERROR(ParseIterationsField(row, "total_steps", f[layout.total_steps], &s.iterations));
    HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, layout.arrival_name, f[layout.arrival], &s.submit_time_s));
    HETSCHED_RETURN_IF_ERROR(ParseGpuCountField(row, layout.gpus_name, f[layout.gpus], &s.num_gpus));
    s.name = Trim(f[0]);
    s.model = jt.model->name;
    // Gavel's batch is the job's; split over the devices so iterations = total_steps keeps
    // Gavel's sample count (docs/formats-trace.md).
    s.batch_size = jt.job_batch > 0 ? std::max(1, jt.job_batch / s.num_gpus) : 0;
    s.parallelism = DefaultParallelism(s.num_gpus);
    job->truth.total_iterations = static_cast<double>(s.iterations);
    job->truth.measured_job_type = std::string(Trim(f[0]));
    if (layout.priority >= 0) {
      double w = 0;
      HETSCHED_RETURN_IF_ERROR(ParseDoubleField(row, "priority_weight", f[static_cast<size_t>(layout.priority)], &w));
      if (w < 0 || w > 1e6) return FieldError(row, "priority_weight", fmt::format("must be in [0, 1e6], got {}", w));
      s.priority = static_cast<int>(std::lround(w));
      double slo = 0;
      HETSCHED_RETURN_IF_ERROR(ParseDoubleField(row, "SLO", f[static_cast<size_t>(layout.slo)], &slo));
      if (slo > 0) {
        // Gavel: deadline = arrival + SLO x the job's duration (scheduler.py, add_job); our
        // duration is the calibrated isolated runtime on the reference device.
        if (!calibrator) {
          Result<RuntimeCalibrator> c = RuntimeCalibrator::Create(in.devices, LinkCatalog::BuiltIn(),
                                                                  in.options.reference_device);
          if (!c.ok()) return FieldError(row, "SLO", c.status().message());
          calibrator.emplace(std::move(c).value());
        }
        Result<double> it_s = calibrator->IterationSeconds(*jt.model, s.batch_size, s.num_gpus);
        if (!it_s.ok()) return FieldError(row, "SLO", it_s.status().message());
        s.deadline_s = s.submit_time_s + slo * static_cast<double>(s.iterations) * *it_s;
      }
    }
    return RowOutcome::kAdd;
  };
  HETSCHED_RETURN_IF_ERROR(ForEachRow(in.origin, in.text, /*comments=*/false, &builder, nullptr, parse));
  return builder.Finish();
}

}  // namespace hetsched::trace_internal
