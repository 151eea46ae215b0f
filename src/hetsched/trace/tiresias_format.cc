// Tiresias' job CSV (SymbioticLab/Tiresias, e.g. 60_job.csv): header job_id, num_gpu,
// submit_time, iterations, model_name, duration, interval. Model names are mapped onto the zoo
// by family (docs/formats-trace.md, "tiresias").
#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "hetsched/trace/formats.h"
#include "hetsched/trace/reader_common.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched::trace_internal {
namespace {

constexpr std::string_view kTiresiasRequired[] = {"num_gpu", "submit_time", "iterations", "model_name", "duration"};
constexpr std::string_view kTiresiasOptional[] = {"job_id", "interval"};

// Tiresias model name prefix -> zoo key, used when the name itself is not a zoo model or alias.
// GoogLeNet is Inception v1, so it joins the Inception family; AlexNet (conv stack + three
// 4096-wide dense layers) is closest in shape to VGG-16 [REC].
struct Family {
  std::string_view prefix;
  std::string_view zoo;
};
constexpr Family kTiresiasFamilies[] = {{"vgg", "vgg16"},           {"inception", "inception-v3"},
                                {"googlenet", "inception-v3"}, {"resnet", "resnet50"},
                                {"alexnet", "vgg16"}};

class TiresiasModels {
 public:
  explicit TiresiasModels(const ModelZoo& zoo) : zoo_(zoo), models_(zoo) {}

  Status Resolve(const RowRef& row, std::string_view name, const ModelProfile** out) {
    auto it = cache_.find(name);
    if (it != cache_.end()) {
      *out = it->second;
      return Status::Ok();
    }
    const std::string lower = ToLower(Trim(name));
    const ModelProfile* m = zoo_.Find(lower);
    if (m == nullptr) {
      for (const Family& f : kTiresiasFamilies) {
        if (lower.rfind(f.prefix, 0) == 0) {
          HETSCHED_RETURN_IF_ERROR(models_.Resolve(row, "model_name", f.zoo, &m));
          break;
        }
      }
    }
    if (m == nullptr) {
      return FieldError(row, "model_name", fmt::format(
          "unknown model {} (not in the zoo, and not of a mapped family: vgg*, inception*, "
          "googlenet*, resnet*, alexnet*)", Quoted(name)));
    }
    cache_.emplace(std::string(name), m);
    *out = m;
    return Status::Ok();
  }

 private:
  const ModelZoo& zoo_;
  ModelResolver models_;
  std::map<std::string, const ModelProfile*, std::less<>> cache_;
};

}  // namespace

Result<Workload> ParseTiresias(const FormatInput& in) {
  if (IsBlank(in.text)) return Status::ParseError(in.origin + ": empty file (expected a header row and jobs)");
  WorkloadBuilder builder(in.origin, in.options);
  TiresiasModels models(in.zoo);
  int c_gpu = 0, c_submit = 0, c_iter = 0, c_model = 0, c_duration = 0, c_id = -1;
  auto header = [&](const RowRef& /*row*/, const ColumnMap& cols) {
    c_gpu = cols.Index("num_gpu");
    c_submit = cols.Index("submit_time");
    c_iter = cols.Index("iterations");
    c_model = cols.Index("model_name");
    c_duration = cols.Index("duration");
    c_id = cols.Index("job_id");
    return Status::Ok();
  };
  auto parse = [&](const RowRef& row, const std::vector<std::string_view>& f, Job* job) -> Result<RowOutcome> {
    auto at = [&](int c) { return f[static_cast<size_t>(c)]; };
    JobSpec& s = job->spec;
    HETSCHED_RETURN_IF_ERROR(ParseGpuCountField(row, "num_gpu", at(c_gpu), &s.num_gpus));
    HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, "submit_time", at(c_submit), &s.submit_time_s));
    HETSCHED_RETURN_IF_ERROR(ParseIterationsField(row, "iterations", at(c_iter), &s.iterations));
    const ModelProfile* m = nullptr;
    HETSCHED_RETURN_IF_ERROR(models.Resolve(row, at(c_model), &m));
    HETSCHED_RETURN_IF_ERROR(ParseSecondsField(row, "duration", at(c_duration),
                                               &job->truth.reference_runtime_s));
    if (c_id >= 0) s.name = Trim(at(c_id));
    s.model = m->name;
    s.parallelism = DefaultParallelism(s.num_gpus);
    job->truth.total_iterations = static_cast<double>(s.iterations);
    // The duration is how long the job ran on num_gpus reference devices: the simulator's truth
    // (Tiresias' simulator runs each job for exactly this long, jobs.py:389, run_sim.py:1207).
    // The iterations stay the unit of progress a scheduler sees.
    job->truth.runtime_s = job->truth.reference_runtime_s;
    return RowOutcome::kAdd;
  };
  HETSCHED_RETURN_IF_ERROR(
      ForEachCsvRow(in.origin, in.text, CsvTable{kTiresiasRequired, kTiresiasOptional}, &builder, header, parse).status());
  return builder.Finish();
}

}  // namespace hetsched::trace_internal
