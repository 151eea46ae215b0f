// GRU forecaster of a univariate series (the non-linear part of RLPTO's hybrid task-volume
// forecaster, ALGORITHMS.md 3.2): from the last `window` values it predicts the next one. Used
// alone on the arrival series ("GRU alone"), or on the residuals of an ARIMA model, whose
// prediction it then corrects (the Zhang 2003 hybrid: y_hat = L_hat + N_hat).
//
// Plain C++ interface (pimpl): the network lives in learn's LibTorch back end (learn/backend.h),
// loaded by the first Fit or Load. Deterministic: training seeds LibTorch and shuffles
// mini-batches with hetsched::Rng; LibTorch's intra-op threads are set explicitly
// (config.threads), and the same seed, data and thread count give
// bit-identical weights and predictions.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::learn {

struct GruForecasterConfig {
  int window = 12;              // input length (ALGORITHMS.md 3.2: w = 12)
  int hidden = 32;              // GRU hidden units
  int layers = 1;
  int epochs = 60;
  int batch = 64;
  double learning_rate = 1e-2;  // Adam
  uint64_t seed = 1;
  int threads = 1;              // LibTorch intra-op threads
  // The last fraction of the training windows is held out for early stopping: the weights kept
  // are those of the epoch with the lowest validation MSE (0: no validation, the last epoch's).
  double validation_fraction = 0.2;
  // Checks ranges; the message names the field.
  Status Validate() const;
};

class GruForecaster {
 public:
  explicit GruForecaster(GruForecasterConfig config);
  ~GruForecaster();
  GruForecaster(GruForecaster&&) noexcept;
  GruForecaster& operator=(GruForecaster&&) noexcept;

  // Trains on every window of `series` (inputs standardised by the series' mean and standard
  // deviation, which are kept with the model). Errors: bad config, non-finite values, fewer
  // than window + 2 values, LibTorch's back end cannot be loaded.
  Status Fit(std::span<const double> series);
  bool trained() const;

  // out[t] predicts series[t] from series[t - window .. t - 1]; NaN for t < window. REQUIRES trained().
  std::vector<double> OneStepPredictions(std::span<const double> series) const;

  // Mean squared error (standardised units) over the training windows, after each epoch.
  const std::vector<double>& loss_history() const;
  // The same on the validation windows (empty without validation), and the epoch kept (0-based).
  const std::vector<double>& validation_history() const;
  int best_epoch() const;
  const GruForecasterConfig& config() const;

  // Saves configuration, standardisation and weights in one file (atomic write). Load restores
  // a forecaster that predicts exactly as the saved one. Errors name the file.
  Status Save(const std::string& path) const;
  static Result<GruForecaster> Load(const std::string& path);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hetsched::learn
