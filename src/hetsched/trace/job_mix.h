// Private to trace/: the random job mix behind GenerateSynthetic, also used to fill in what a
// real trace leaves out (Philly runtimes have no sizes or models; PAI and Helios no models).
// Every draw comes from util/rng.h, one forked stream per quantity, so changing the size mix
// does not change the arrival times and the same seed gives the same jobs on every platform.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hetsched/trace/calibrate.h"
#include "hetsched/trace/trace.h"
#include "hetsched/util/rng.h"

namespace hetsched::trace_internal {

// Job sizes (GPUs, weight) when SyntheticOptions::size_mix is empty: the GPU counts of the 15
// Gavel msr traces (data/real/gavel/traces, derived from Microsoft Philly), 15,264 jobs:
// 1: 10,480, 2: 463, 4: 2,044, 8: 1,916, 16: 255, 32: 91 (17 jobs of other sizes dropped).
std::vector<std::pair<int, double>> DefaultSizeMix();

// Log-normal runtimes when no empirical sample is given (trace.h): median 1,200 s, sigma 1.6.
inline constexpr double kDefaultRuntimeMedianS = 1200.0;
inline constexpr double kDefaultRuntimeSigma = 1.6;

class JobMix {
 public:
  // Validates the options (weights >= 0 with a positive sum, sizes >= 1, known models, rate > 0,
  // sample values >= 0) and precomputes the iteration time of every (model, size) pair on the
  // reference device. Messages name the option: "size_mix[2]: ...".
  static Result<JobMix> Create(const SyntheticOptions& options, const DeviceCatalog& devices,
                               const LinkCatalog& links, const ModelZoo& zoo);

  // The next job: arrival (Poisson), size, model and user drawn; `runtime_s` (seconds on the
  // reference device) becomes the true iteration count; the user's estimates carry the
  // log-normal error. The name is left to the caller.
  Job Next(double runtime_s);
  // A runtime from the empirical sample (uniform pick) or the log-normal.
  double DrawRuntime();
  // Just a model (for traces that give size and arrival but no model).
  const ModelProfile* DrawModel();

  RuntimeCalibrator& calibrator() { return calibrator_; }

 private:
  JobMix(RuntimeCalibrator calibrator, uint64_t seed);

  RuntimeCalibrator calibrator_;
  Rng arrivals_, sizes_, models_, runtimes_, users_, estimates_;
  double rate_per_s_ = 0;
  double clock_s_ = 0;
  double estimate_error_ = 0;
  std::vector<int> size_gpus_;
  std::vector<double> size_cumulative_;   // cumulative weights
  std::vector<const ModelProfile*> models_list_;
  std::vector<double> model_cumulative_;
  std::vector<double> iteration_s_;       // [model * sizes + size]
  std::vector<double> runtime_sample_s_;
  std::vector<std::string> user_names_;
};

}  // namespace hetsched::trace_internal
