#include "hetsched/trace/job_mix.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "hetsched/trace/reader_common.h"
#include "hetsched/util/fixed_math.h"

namespace hetsched::trace_internal {

std::vector<std::pair<int, double>> DefaultSizeMix() {
  // Counts from data/real/gavel/traces/msr_seed0_*.trace (see job_mix.h); only ratios matter.
  return {{1, 10480}, {2, 463}, {4, 2044}, {8, 1916}, {16, 255}, {32, 91}};
}

namespace {

constexpr size_t kDefaultMixModels = 15;  // the default model mix: the zoo's first 15 models

// Index of the first cumulative weight above u * total: a draw proportional to the weights.
size_t Pick(const std::vector<double>& cumulative, Rng& rng) {
  const double u = rng.Uniform() * cumulative.back();
  auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
  if (it == cumulative.end()) --it;  // u == total cannot happen (Uniform < 1), but stay in range
  return static_cast<size_t>(it - cumulative.begin());
}

Status CheckWeight(std::string_view what, size_t i, double w) {
  if (!std::isfinite(w) || w < 0) {
    return Status::InvalidArgument(fmt::format("{}[{}]: weight must be finite and >= 0, got {}", what, i, w));
  }
  return Status::Ok();
}

}  // namespace

JobMix::JobMix(RuntimeCalibrator calibrator, uint64_t seed)
    : calibrator_(std::move(calibrator)), arrivals_(0), sizes_(0), models_(0), runtimes_(0),
      users_(0), estimates_(0) {
  Rng master(seed);
  arrivals_ = master.Fork();
  sizes_ = master.Fork();
  models_ = master.Fork();
  runtimes_ = master.Fork();
  users_ = master.Fork();
  estimates_ = master.Fork();
}

Result<JobMix> JobMix::Create(const SyntheticOptions& options, const DeviceCatalog& devices,
                              const LinkCatalog& links, const ModelZoo& zoo) {
  if (!(options.arrival_rate_per_hour > 0) || !std::isfinite(options.arrival_rate_per_hour)) {
    return Status::InvalidArgument(fmt::format("arrival_rate_per_hour: must be > 0, got {}",
                                               options.arrival_rate_per_hour));
  }
  if (options.num_users < 1) {
    return Status::InvalidArgument(fmt::format("num_users: must be >= 1, got {}", options.num_users));
  }
  if (!(options.user_estimate_error >= 0) || !std::isfinite(options.user_estimate_error)) {
    return Status::InvalidArgument(fmt::format("user_estimate_error: must be >= 0, got {}",
                                               options.user_estimate_error));
  }
  HETSCHED_ASSIGN_OR_RETURN(RuntimeCalibrator calibrator,
                            RuntimeCalibrator::Create(devices, links, options.reference_device));
  JobMix mix(std::move(calibrator), options.seed);
  mix.rate_per_s_ = options.arrival_rate_per_hour / 3600.0;
  mix.estimate_error_ = options.user_estimate_error;

  const auto sizes = options.size_mix.empty() ? DefaultSizeMix() : options.size_mix;
  double total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i].first < 1) {
      return Status::InvalidArgument(fmt::format("size_mix[{}]: GPU count must be >= 1, got {}", i, sizes[i].first));
    }
    HETSCHED_RETURN_IF_ERROR(CheckWeight("size_mix", i, sizes[i].second));
    total += sizes[i].second;
    mix.size_gpus_.push_back(sizes[i].first);
    mix.size_cumulative_.push_back(total);
  }
  if (!(total > 0)) return Status::InvalidArgument("size_mix: the weights must have a positive sum");

  total = 0;
  if (options.model_mix.empty()) {
    // The zoo's models up to the 15th, in its order (those of issue 19; the models added since,
    // for Pollux's workloads, are drawn only when named): a seed keeps giving the same workload
    // as the zoo grows.
    for (const ModelProfile& m : zoo.models()) {
      if (mix.models_list_.size() == kDefaultMixModels) break;
      total += 1;
      mix.models_list_.push_back(&m);
      mix.model_cumulative_.push_back(total);
    }
    if (mix.models_list_.empty()) return Status::InvalidArgument("model_mix: the model zoo is empty");
  } else {
    for (size_t i = 0; i < options.model_mix.size(); ++i) {
      Result<const ModelProfile*> m = zoo.Lookup(options.model_mix[i].first);
      if (!m.ok()) return Status::InvalidArgument(fmt::format("model_mix[{}]: {}", i, m.status().message()));
      HETSCHED_RETURN_IF_ERROR(CheckWeight("model_mix", i, options.model_mix[i].second));
      total += options.model_mix[i].second;
      mix.models_list_.push_back(*m);
      mix.model_cumulative_.push_back(total);
    }
    if (!(total > 0)) return Status::InvalidArgument("model_mix: the weights must have a positive sum");
  }

  for (size_t i = 0; i < options.runtime_sample_s.size(); ++i) {
    const double r = options.runtime_sample_s[i];
    if (!std::isfinite(r) || r < 0) {
      return Status::InvalidArgument(fmt::format("runtime_sample_s[{}]: must be finite and >= 0, got {}", i, r));
    }
  }
  mix.runtime_sample_s_ = options.runtime_sample_s;

  // One perf-model call per (model, size): the per-job conversion is then a division.
  mix.iteration_s_.reserve(mix.models_list_.size() * mix.size_gpus_.size());
  for (const ModelProfile* m : mix.models_list_) {
    for (int gpus : mix.size_gpus_) {
      HETSCHED_ASSIGN_OR_RETURN(double t, mix.calibrator_.IterationSeconds(*m, 0, gpus));
      mix.iteration_s_.push_back(t);
    }
  }
  for (int u = 0; u < options.num_users; ++u) mix.user_names_.push_back(fmt::format("user-{:02d}", u));
  return mix;
}

double JobMix::DrawRuntime() {
  if (!runtime_sample_s_.empty()) return runtime_sample_s_[runtimes_.Below(runtime_sample_s_.size())];
  return kDefaultRuntimeMedianS * FixedExp(kDefaultRuntimeSigma * runtimes_.Normal());
}

const ModelProfile* JobMix::DrawModel() { return models_list_[Pick(model_cumulative_, models_)]; }

Job JobMix::Next(double runtime_s) {
  clock_s_ += arrivals_.Exponential(rate_per_s_);
  const size_t size = Pick(size_cumulative_, sizes_);
  const size_t model = Pick(model_cumulative_, models_);
  const double iteration_s = iteration_s_[model * size_gpus_.size() + size];
  const double true_iterations = std::clamp(std::round(runtime_s / iteration_s), 1.0, 9e18);
  const double factor = estimate_error_ > 0 ? FixedExp(estimate_error_ * estimates_.Normal()) : 1.0;

  Job job;
  job.spec.user = user_names_[users_.Below(user_names_.size())];
  job.spec.model = models_list_[model]->name;
  job.spec.num_gpus = size_gpus_[size];
  job.spec.parallelism = DefaultParallelism(job.spec.num_gpus);
  job.spec.submit_time_s = clock_s_;
  // 9e18 keeps the cast defined for absurd runtimes.
  job.spec.iterations = static_cast<int64_t>(std::clamp(std::round(true_iterations * factor), 1.0, 9e18));
  job.spec.estimated_runtime_s = runtime_s * factor;
  job.truth.total_iterations = true_iterations;
  return job;
}

}  // namespace hetsched::trace_internal
