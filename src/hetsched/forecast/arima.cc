#include "hetsched/forecast/arima.h"

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numbers>
#include <tuple>

namespace hetsched::forecast {
namespace {

constexpr int kMaxLag = 8;
// A fitted polynomial counts as stationary/invertible if every root of its companion matrix has
// modulus below this (a unit root makes the conditional recursion unstable or non-identifiable).
constexpr double kMaxRootModulus = 0.999;
// Regressions need at least this many rows beyond their number of unknowns.
constexpr long long kSpareRows = 10;

// w_t (t indexes y): y_t for d = 0, y_t - y_{t-1} for d = 1; w_t is defined for t >= d.
std::vector<double> Difference(std::span<const double> y, int d) {
  std::vector<double> w(y.size(), 0.0);
  for (size_t t = static_cast<size_t>(d); t < y.size(); ++t) w[t] = d == 0 ? y[t] : y[t] - y[t - 1];
  return w;
}

// Largest modulus among the roots of the companion matrix of x_t = c_1 x_{t-1} + ... + c_k x_{t-k}.
double MaxCompanionModulus(const std::vector<double>& c) {
  if (c.empty()) return 0;
  const auto k = static_cast<Eigen::Index>(c.size());
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(k, k);
  for (Eigen::Index i = 0; i < k; ++i) m(0, i) = c[static_cast<size_t>(i)];
  for (Eigen::Index i = 1; i < k; ++i) m(i, i - 1) = 1;
  const Eigen::VectorXcd roots = m.eigenvalues();
  return roots.cwiseAbs().maxCoeff();
}

// Least squares b minimising |X b - z|; error if X is rank deficient.
Result<Eigen::VectorXd> LeastSquares(const Eigen::MatrixXd& x, const Eigen::VectorXd& z, const std::string& what) {
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(x);
  if (qr.rank() < x.cols()) return Status::Infeasible(what + ": singular regression (a constant or collinear series)");
  return Eigen::VectorXd(qr.solve(z));
}

// Conditional one-step errors e_t (t indexes y; 0 for t < d + p) of the model on w.
std::vector<double> ConditionalErrors(const ArimaModel& m, const std::vector<double>& w) {
  const size_t start = static_cast<size_t>(m.order.d + m.order.p);
  std::vector<double> e(w.size(), 0.0);
  for (size_t t = start; t < w.size(); ++t) {
    double pred = m.constant;
    for (size_t i = 0; i < m.ar.size(); ++i) pred += m.ar[i] * w[t - 1 - i];
    for (size_t j = 0; j < m.ma.size() && j < t; ++j) pred += m.ma[j] * e[t - 1 - j];
    e[t] = w[t] - pred;
  }
  return e;
}

// Regresses w_t on [1, w_{t-1..t-p}, innov_{t-1..t-q}] for t in [first, n) and stores the
// coefficients in `m`.
Status RegressArma(const std::vector<double>& w, const std::vector<double>& innov, size_t first, ArimaModel& m) {
  const int p = m.order.p, q = m.order.q;
  const auto rows = static_cast<Eigen::Index>(w.size() - first);
  const Eigen::Index cols = 1 + p + q;
  Eigen::MatrixXd x(rows, cols);
  Eigen::VectorXd z(rows);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const size_t t = first + static_cast<size_t>(r);
    z(r) = w[t];
    x(r, 0) = 1;
    for (int i = 0; i < p; ++i) x(r, 1 + i) = w[t - 1 - static_cast<size_t>(i)];
    for (int j = 0; j < q; ++j) x(r, 1 + p + j) = innov[t - 1 - static_cast<size_t>(j)];
  }
  HETSCHED_ASSIGN_OR_RETURN(const Eigen::VectorXd b, LeastSquares(x, z, m.order.ToString()));
  m.constant = b(0);
  for (int i = 0; i < p; ++i) m.ar[static_cast<size_t>(i)] = b(1 + i);
  for (int j = 0; j < q; ++j) m.ma[static_cast<size_t>(j)] = b(1 + p + j);
  return Status::Ok();
}

Status CheckSeries(std::span<const double> y) {
  for (size_t t = 0; t < y.size(); ++t) {
    if (!std::isfinite(y[t])) return Status::InvalidArgument(fmt::format("series value {} at index {} is not finite", y[t], t));
  }
  return Status::Ok();
}

}  // namespace

std::string ArimaOrder::ToString() const { return fmt::format("ARIMA({},{},{})", p, d, q); }

Result<ArimaModel> FitArima(std::span<const double> y, ArimaOrder order, const ArimaFitOptions& options) {
  const std::string what = order.ToString();
  if (order.p < 0 || order.p > kMaxLag || order.q < 0 || order.q > kMaxLag || order.d < 0 || order.d > 1) {
    return Status::InvalidArgument(what + ": p and q must be in 0.." + std::to_string(kMaxLag) + ", d in 0..1");
  }
  HETSCHED_RETURN_IF_ERROR(CheckSeries(y));
  const auto n = static_cast<long long>(y.size());
  const int p = order.p, d = order.d, q = order.q;
  int m_long = options.long_ar_order;
  if (m_long <= 0) {
    m_long = static_cast<int>(std::min<long long>(
        n / 4, std::max<long long>(10, static_cast<long long>(std::ceil(10 * std::log10(std::max<long long>(n, 2)))))));
  }
  m_long = std::max(m_long, p + q);
  // Rows of the step-2 regression start after the long AR and q lags of its residuals.
  const long long first2 = q > 0 ? d + m_long + q : d + p;
  if (n - first2 < 1 + p + q + kSpareRows) {
    return Status::InvalidArgument(fmt::format("{}: series of {} values is too short (needs at least {})", what, n,
                                               first2 + 1 + p + q + kSpareRows));
  }
  const std::vector<double> w = Difference(y, d);
  ArimaModel model;
  model.order = order;
  model.ar.assign(static_cast<size_t>(p), 0.0);
  model.ma.assign(static_cast<size_t>(q), 0.0);
  std::vector<double> innov(w.size(), 0.0);
  if (q > 0) {
    // Step 1: long autoregression; its residuals estimate the innovations.
    ArimaModel long_ar;
    long_ar.order = {m_long, d, 0};
    long_ar.ar.assign(static_cast<size_t>(m_long), 0.0);
    HETSCHED_RETURN_IF_ERROR(RegressArma(w, innov, static_cast<size_t>(d + m_long), long_ar));
    const std::vector<double> e = ConditionalErrors(long_ar, w);
    for (size_t t = static_cast<size_t>(d + m_long); t < w.size(); ++t) innov[t] = e[t];
  }
  // Step 2: the ARMA regression on lagged values and lagged innovations.
  HETSCHED_RETURN_IF_ERROR(RegressArma(w, innov, static_cast<size_t>(first2), model));
  // Step 3: iterated conditional least squares with the model's own innovations.
  const size_t first3 = static_cast<size_t>(d + p + q);
  for (int r = 0; q > 0 && r < options.refinements; ++r) {
    if (MaxCompanionModulus(model.ma) >= 1) break;  // recursion would diverge; keep step 2
    innov = ConditionalErrors(model, w);
    HETSCHED_RETURN_IF_ERROR(RegressArma(w, innov, std::max(first3, static_cast<size_t>(d + p + q)), model));
  }
  if (MaxCompanionModulus(model.ar) >= kMaxRootModulus) return Status::Infeasible(what + ": fitted AR part is not stationary");
  std::vector<double> neg_ma(model.ma.size());
  for (size_t j = 0; j < neg_ma.size(); ++j) neg_ma[j] = -model.ma[j];
  if (MaxCompanionModulus(neg_ma) >= kMaxRootModulus) return Status::Infeasible(what + ": fitted MA part is not invertible");

  model.first_predicted = d + p;
  const long long start = std::max<long long>(options.likelihood_start, model.first_predicted);
  if (start >= n) return Status::InvalidArgument(fmt::format("{}: likelihood start {} beyond the series ({} values)", what, start, n));
  const std::vector<double> e = ConditionalErrors(model, w);
  double sse = 0;
  for (long long t = start; t < n; ++t) sse += e[static_cast<size_t>(t)] * e[static_cast<size_t>(t)];
  model.observations = n - start;
  const auto count = static_cast<double>(model.observations);
  model.sigma2 = std::max(sse / count, std::numeric_limits<double>::min());
  model.log_likelihood = -0.5 * count * (std::log(2 * std::numbers::pi * model.sigma2) + 1);
  model.aic = -2 * model.log_likelihood + 2.0 * (p + q + 2);
  return model;
}

Result<ArimaModel> SelectArima(std::span<const double> y, const ArimaSearch& search) {
  if (search.max_p < 0 || search.max_q < 0 || search.max_d < 0 || search.max_d > 1 || search.max_p > kMaxLag ||
      search.max_q > kMaxLag) {
    return Status::InvalidArgument("ARIMA order search: max_p and max_q must be in 0..8, max_d in 0..1");
  }
  if (!(search.parsimony_aic >= 0)) return Status::InvalidArgument("ARIMA order search: parsimony margin must be >= 0");
  ArimaFitOptions options;
  options.likelihood_start = search.max_d + search.max_p + search.max_q;
  std::vector<ArimaModel> fits;
  Status first_error;
  for (int d = 0; d <= search.max_d; ++d) {
    for (int p = 0; p <= search.max_p; ++p) {
      for (int q = 0; q <= search.max_q; ++q) {
        Result<ArimaModel> fit = FitArima(y, {p, d, q}, options);
        if (fit.ok()) {
          fits.push_back(std::move(fit).value());
        } else if (first_error.ok()) {
          first_error = fit.status();
        }
      }
    }
  }
  if (fits.empty()) {
    return first_error.ok() ? Status::Infeasible("ARIMA order search: no order could be fitted")
                            : first_error.WithContext("ARIMA order search: no order could be fitted: ");
  }
  double min_aic = fits.front().aic;
  for (const ArimaModel& f : fits) min_aic = std::min(min_aic, f.aic);
  const ArimaModel* best = nullptr;
  for (const ArimaModel& f : fits) {
    if (f.aic > min_aic + search.parsimony_aic) continue;
    const auto key = [](const ArimaModel& m) { return std::tuple(m.order.p + m.order.q, m.order.d, m.aic); };
    if (best == nullptr || key(f) < key(*best)) best = &f;
  }
  return *best;
}

std::vector<double> OneStepPredictions(const ArimaModel& model, std::span<const double> y) {
  const std::vector<double> w = Difference(y, model.order.d);
  const std::vector<double> e = ConditionalErrors(model, w);
  std::vector<double> out(y.size(), std::numeric_limits<double>::quiet_NaN());
  for (size_t t = static_cast<size_t>(model.first_predicted); t < y.size(); ++t) out[t] = y[t] - e[t];
  return out;
}

std::vector<double> ForecastArima(const ArimaModel& model, std::span<const double> y, int horizon) {
  std::vector<double> w = Difference(y, model.order.d);
  std::vector<double> e = ConditionalErrors(model, w);
  std::vector<double> out;
  double last = y.empty() ? 0.0 : y.back();
  for (int h = 0; h < horizon; ++h) {
    const size_t t = w.size();
    double next = model.constant;
    for (size_t i = 0; i < model.ar.size(); ++i) next += model.ar[i] * (t >= 1 + i ? w[t - 1 - i] : 0.0);
    for (size_t j = 0; j < model.ma.size(); ++j) next += model.ma[j] * (t >= 1 + j ? e[t - 1 - j] : 0.0);
    w.push_back(next);
    e.push_back(0.0);
    last = model.order.d == 0 ? next : last + next;
    out.push_back(last);
  }
  return out;
}

}  // namespace hetsched::forecast
