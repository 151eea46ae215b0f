// Task-volume series and forecast-error metrics for RLPTO's forecaster (ALGORITHMS.md 3.2):
// arrivals binned into fixed windows (jobs per window and GPUs requested per window), the
// seasonal-naive baseline, and MAE / MAPE.
#pragma once

#include <span>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::forecast {

struct ArrivalSeries {
  double start_s = 0;               // start of window 0 (the first arrival, floored to a window)
  double window_s = 0;
  std::vector<double> jobs;         // arrivals per window
  std::vector<double> gpu_demand;   // GPUs requested by the arrivals of each window
};

// Bins arrivals (submit times in seconds, any order; `gpus[i]` requested by arrival i) into
// windows of `window_s` from floor(min time / window) * window to the last arrival. Errors:
// window <= 0 or not finite, sizes differ, a non-finite time, a negative GPU count, no arrivals,
// or more than `max_windows` windows (a window far too small for the trace's span).
Result<ArrivalSeries> BinArrivals(std::span<const double> submit_s, std::span<const double> gpus, double window_s,
                                  long long max_windows = 10'000'000);

// The seasonal-naive forecast of y[t]: y[t - season] (NaN for t < season). REQUIRES season >= 1.
std::vector<double> SeasonalNaive(std::span<const double> y, int season);

struct ErrorMetrics {
  double mae = 0;                  // mean |actual - predicted|
  double mape = 0;                 // mean |actual - predicted| / |actual| over nonzero actuals (fraction)
  long long points = 0;            // predictions compared
  long long mape_points = 0;       // of which nonzero actuals (MAPE undefined at 0)
};

// Compares predicted[t] with actual[t] for t in [begin, end). Error if the ranges do not fit the
// vectors, or a prediction in the range is not finite.
Result<ErrorMetrics> CompareForecast(std::span<const double> actual, std::span<const double> predicted, size_t begin,
                                     size_t end);

}  // namespace hetsched::forecast
