#include "hetsched/policies/rlpto/forecast.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace hetsched {

void DemandForecast::RecordArrival(double now, int gpus) {
  const auto w = static_cast<size_t>(std::max(0.0, std::floor(now / window_s_)));
  if (demand_.empty()) first_window_ = w;
  const size_t index = w - std::min(w, first_window_);
  if (index >= demand_.size()) {
    const bool new_window = !demand_.empty();
    demand_.resize(index + 1, 0.0);
    if (new_window) Update(index);
  }
  demand_[index] += gpus;
}

void DemandForecast::Update(size_t current) {
  const std::span<const double> past(demand_.data(), current);  // complete windows only
  if (past.empty()) return;
  if (past.size() >= 48) {
    if (!model_ || current >= fitted_at_ + 24) {
      auto fit = forecast::SelectArima(past, {.max_p = 2, .max_d = 1, .max_q = 1});
      if (fit.ok()) model_ = std::make_unique<forecast::ArimaModel>(*fit);
      fitted_at_ = current;
    }
    if (model_) {
      forecast_gpus_ = std::max(0.0, forecast::ForecastArima(*model_, past, 1)[0]);
      return;
    }
  }
  double sum = 0;
  for (double v : past) sum += v;
  forecast_gpus_ = sum / static_cast<double>(past.size());
}

}  // namespace hetsched
