#include "hetsched/forecast/series.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace hetsched::forecast {

Result<ArrivalSeries> BinArrivals(std::span<const double> submit_s, std::span<const double> gpus, double window_s,
                                  long long max_windows) {
  if (!(window_s > 0) || !std::isfinite(window_s)) {
    return Status::InvalidArgument(fmt::format("arrival series: window must be a positive number of seconds, got {}", window_s));
  }
  if (submit_s.size() != gpus.size()) {
    return Status::InvalidArgument(fmt::format("arrival series: {} submit times but {} GPU counts", submit_s.size(), gpus.size()));
  }
  if (submit_s.empty()) return Status::InvalidArgument("arrival series: no arrivals");
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t i = 0; i < submit_s.size(); ++i) {
    if (!std::isfinite(submit_s[i])) return Status::InvalidArgument(fmt::format("arrival series: arrival {} has time {}", i, submit_s[i]));
    if (!(gpus[i] >= 0) || !std::isfinite(gpus[i])) {
      return Status::InvalidArgument(fmt::format("arrival series: arrival {} requests {} GPUs", i, gpus[i]));
    }
    lo = std::min(lo, submit_s[i]);
    hi = std::max(hi, submit_s[i]);
  }
  ArrivalSeries out;
  out.window_s = window_s;
  out.start_s = std::floor(lo / window_s) * window_s;
  const double count = std::floor((hi - out.start_s) / window_s) + 1;
  if (count > static_cast<double>(max_windows)) {
    return Status::InvalidArgument(fmt::format("arrival series: {:g} windows of {:g} s (more than {}): window too small",
                                               count, window_s, max_windows));
  }
  const auto n = static_cast<size_t>(count);
  out.jobs.assign(n, 0.0);
  out.gpu_demand.assign(n, 0.0);
  for (size_t i = 0; i < submit_s.size(); ++i) {
    const auto k = std::min(n - 1, static_cast<size_t>(std::floor((submit_s[i] - out.start_s) / window_s)));
    out.jobs[k] += 1;
    out.gpu_demand[k] += gpus[i];
  }
  return out;
}

std::vector<double> SeasonalNaive(std::span<const double> y, int season) {
  std::vector<double> out(y.size(), std::numeric_limits<double>::quiet_NaN());
  const auto s = static_cast<size_t>(std::max(1, season));
  for (size_t t = s; t < y.size(); ++t) out[t] = y[t - s];
  return out;
}

Result<ErrorMetrics> CompareForecast(std::span<const double> actual, std::span<const double> predicted, size_t begin,
                                     size_t end) {
  if (begin >= end || end > actual.size() || end > predicted.size()) {
    return Status::InvalidArgument(fmt::format("forecast comparison: range [{}, {}) does not fit {} actual and {} predicted values",
                                               begin, end, actual.size(), predicted.size()));
  }
  ErrorMetrics m;
  double abs_sum = 0, pct_sum = 0;
  for (size_t t = begin; t < end; ++t) {
    if (!std::isfinite(predicted[t])) {
      return Status::InvalidArgument(fmt::format("forecast comparison: prediction at index {} is {}", t, predicted[t]));
    }
    const double err = std::abs(actual[t] - predicted[t]);
    abs_sum += err;
    ++m.points;
    if (actual[t] != 0) {
      pct_sum += err / std::abs(actual[t]);
      ++m.mape_points;
    }
  }
  m.mae = abs_sum / static_cast<double>(m.points);
  m.mape = m.mape_points > 0 ? pct_sum / static_cast<double>(m.mape_points) : std::numeric_limits<double>::quiet_NaN();
  return m;
}

}  // namespace hetsched::forecast
