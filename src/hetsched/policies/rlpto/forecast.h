// RLPTO's task-volume forecast (ALGORITHMS.md 3.2, docs/rlpto.md "forecast"): GPUs requested per
// window as the scheduler sees jobs arrive; at each new window the next window's demand is
// forecast by ARIMA (p <= 2, d <= 1, q <= 1 by AIC, refitted every 24 windows) once 48 windows
// are seen, by the mean of the past windows before. Internal to policies/rlpto*.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "hetsched/forecast/arima.h"

namespace hetsched {

class DemandForecast {
 public:
  // REQUIRES: window_s > 0.
  explicit DemandForecast(double window_s) : window_s_(window_s) {}
  // A job requesting `gpus` arrived at `now` (times never go back).
  void RecordArrival(double now, int gpus);
  // Forecast GPU demand of the next window (0 before the first complete window).
  double next_window_gpus() const { return forecast_gpus_; }

 private:
  void Update(size_t current);

  double window_s_;
  std::vector<double> demand_;
  size_t first_window_ = 0;
  size_t fitted_at_ = 0;
  std::unique_ptr<forecast::ArimaModel> model_;
  double forecast_gpus_ = 0;
};

}  // namespace hetsched
