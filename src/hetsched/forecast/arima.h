// ARIMA(p,d,q) models of a univariate series (the linear part of RLPTO's hybrid task-volume
// forecaster, ALGORITHMS.md 3.2), fitted by the Hannan–Rissanen regressions and chosen by AIC.
//
// Model, on w = y (d = 0) or w_t = y_t - y_{t-1} (d = 1):
//   w_t = c + phi_1 w_{t-1} + ... + phi_p w_{t-p} + e_t + theta_1 e_{t-1} + ... + theta_q e_{t-q}
// with e_t white noise of variance sigma2 (Box & Jenkins sign convention for theta: "+").
//
// Fitting (Hannan & Rissanen 1982; Brockwell & Davis, "Introduction to Time Series and
// Forecasting", 3rd ed., 5.1.4): (1) a long AR(m) fitted by least squares gives innovation
// estimates; (2) w_t is regressed on its p lags and q lagged innovations; (3) the innovations are
// recomputed from the fitted model (conditional residuals) and step 2 is repeated `refinements`
// times (iterated conditional least squares). Likelihood: the conditional Gaussian likelihood of
// the one-step errors; AIC = -2 log L + 2 (p + q + 2) (coefficients, constant, variance).
// All linear algebra through Eigen. Pure functions, no state, no randomness.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::forecast {

struct ArimaOrder {
  int p = 0;
  int d = 0;
  int q = 0;
  std::string ToString() const;  // "ARIMA(2,0,1)"
};

struct ArimaModel {
  ArimaOrder order;
  double constant = 0;           // c (the drift of y when d = 1)
  std::vector<double> ar;        // phi_1..phi_p
  std::vector<double> ma;        // theta_1..theta_q
  double sigma2 = 0;             // variance of the one-step errors
  double log_likelihood = 0;     // conditional Gaussian log-likelihood over `observations`
  double aic = 0;
  long long observations = 0;    // one-step errors the likelihood sums over
  long long first_predicted = 0; // index of y from which one-step predictions are defined
};

struct ArimaFitOptions {
  // Index of y where the likelihood starts counting (the same for every candidate of a search,
  // so that their AICs compare the same observations). -1: d + p (the earliest possible).
  long long likelihood_start = -1;
  int refinements = 3;
  // Order of the long autoregression of step 1; 0: min(n/4, max(10, ceil(10 log10 n))).
  int long_ar_order = 0;
};

// Fits one order. Errors: order out of range (p or q outside 0..8, d outside 0..1), a series with NaN/inf values,
// too short for the order, a singular regression, or a fitted model that is not stationary
// (AR roots) or not invertible (MA roots) (the caller's search then skips that order).
Result<ArimaModel> FitArima(std::span<const double> y, ArimaOrder order, const ArimaFitOptions& options = {});

struct ArimaSearch {
  int max_p = 3;
  int max_d = 1;
  int max_q = 3;
  // Parsimony margin: among the orders whose AIC is within this of the lowest, the one with the
  // fewest coefficients wins (Burnham & Anderson, "Model Selection and Multimodel Inference",
  // 2nd ed., 2.6: models within 2 AIC units of the best have substantial support). 0: plain
  // lowest AIC. Without it, overparameterised orders win by chance fractions of a unit.
  double parsimony_aic = 2;
};

// Fits every order with p <= max_p, d <= max_d, q <= max_q over the same likelihood window and
// returns the lowest-AIC one, subject to the parsimony margin (ties: fewer p + q, then smaller d,
// then lower AIC). The AICs are comparable across d because the one-step errors of y and of its
// differences are the same numbers. Orders that fail to fit (not stationary or invertible,
// singular) are skipped; error if none could be fitted (the first fitting error is quoted).
Result<ArimaModel> SelectArima(std::span<const double> y, const ArimaSearch& search = {});

// One-step-ahead predictions: out[t] predicts y[t] from y[0..t-1] with the model's coefficients
// (conditional innovations, zero before model.first_predicted). out[t] is NaN for
// t < model.first_predicted. Size y.size().
std::vector<double> OneStepPredictions(const ArimaModel& model, std::span<const double> y);

// Forecasts y[n], ..., y[n + horizon - 1] after the observed y[0..n-1] (future innovations 0).
// REQUIRES: y.size() >= model.first_predicted.
std::vector<double> ForecastArima(const ArimaModel& model, std::span<const double> y, int horizon);

}  // namespace hetsched::forecast
