#include "hetsched/forecast/arima.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "hetsched/util/rng.h"

namespace hetsched::forecast {
namespace {

// y_t = c + phi_1 y_{t-1} + phi_2 y_{t-2} + e_t + theta e_{t-1}, e_t ~ N(0, sigma^2), after a
// burn-in of 200 values so the start-up transient is gone.
std::vector<double> Simulate(double c, double phi1, double phi2, double theta, double sigma, int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<double> y;
  double y1 = 0, y2 = 0, e1 = 0;
  for (int t = 0; t < n + 200; ++t) {
    const double e = sigma * rng.Normal();
    const double v = c + phi1 * y1 + phi2 * y2 + e + theta * e1;
    y2 = y1;
    y1 = v;
    e1 = e;
    if (t >= 200) y.push_back(v);
  }
  return y;
}

// Tolerance: with n = 4000 the standard error of a least-squares AR coefficient is about
// sqrt((1 - phi^2) / n) ~ 0.015, of an MA(1) coefficient sqrt((1 - theta^2) / n) ~ 0.013; 0.05
// is more than 3 standard errors, and the seeds are fixed, so the test is deterministic.
constexpr double kTol = 0.05;

TEST(ArimaTest, RecoversAr2Coefficients) {
  const auto y = Simulate(1.0, 0.5, -0.3, 0.0, 1.0, 4000, 7);
  auto fit = FitArima(y, {2, 0, 0});
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  EXPECT_NEAR(fit->ar[0], 0.5, kTol);
  EXPECT_NEAR(fit->ar[1], -0.3, kTol);
  EXPECT_NEAR(fit->constant, 1.0, 0.1);  // mean 1 / (1 - 0.5 + 0.3) = 1.25; c itself 1.0
  EXPECT_NEAR(fit->sigma2, 1.0, 0.1);
}

TEST(ArimaTest, RecoversMa1Coefficient) {
  const auto y = Simulate(0.0, 0.0, 0.0, 0.6, 1.0, 4000, 11);
  auto fit = FitArima(y, {0, 0, 1});
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  EXPECT_NEAR(fit->ma[0], 0.6, kTol);
  EXPECT_NEAR(fit->constant, 0.0, 0.1);
  EXPECT_NEAR(fit->sigma2, 1.0, 0.1);
}

TEST(ArimaTest, RecoversArma11Coefficients) {
  const auto y = Simulate(0.5, 0.7, 0.0, -0.4, 1.0, 6000, 3);
  auto fit = FitArima(y, {1, 0, 1});
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  EXPECT_NEAR(fit->ar[0], 0.7, kTol);
  EXPECT_NEAR(fit->ma[0], -0.4, kTol);
}

TEST(ArimaTest, AicSelectsTheGeneratingOrders) {
  auto ar2 = SelectArima(Simulate(1.0, 0.5, -0.3, 0.0, 1.0, 4000, 7));
  ASSERT_TRUE(ar2.ok()) << ar2.status().ToString();
  EXPECT_EQ(ar2->order.ToString(), "ARIMA(2,0,0)");
  auto ma1 = SelectArima(Simulate(0.0, 0.0, 0.0, 0.6, 1.0, 4000, 11));
  ASSERT_TRUE(ma1.ok()) << ma1.status().ToString();
  EXPECT_EQ(ma1->order.ToString(), "ARIMA(0,0,1)");
}

TEST(ArimaTest, ParsimonyMarginOnlyTradesLessThanTheMargin) {
  // On this AR(2) sample an overparameterised order has a (chance) lower AIC than (2,0,0); with
  // margin 0 the plain minimum wins, with the default margin of 2 the simpler order, and the
  // AIC it gives up is at most 2.
  const auto y = Simulate(1.0, 0.5, -0.3, 0.0, 1.0, 4000, 7);
  auto plain = SelectArima(y, {.parsimony_aic = 0});
  auto parsimonious = SelectArima(y);
  ASSERT_TRUE(plain.ok() && parsimonious.ok());
  EXPECT_LE(plain->aic, parsimonious->aic);
  EXPECT_LE(parsimonious->aic, plain->aic + 2);
  EXPECT_LE(parsimonious->order.p + parsimonious->order.q, plain->order.p + plain->order.q);
  EXPECT_FALSE(SelectArima(y, {.parsimony_aic = -1}).ok());
}

TEST(ArimaTest, RandomWalkWithDriftIsDifferenced) {
  // y_t = y_{t-1} + 0.2 + e_t: the level is not stationary; d = 1 with drift 0.2.
  Rng rng(5);
  std::vector<double> y{0.0};
  for (int t = 1; t < 3000; ++t) y.push_back(y.back() + 0.2 + rng.Normal());
  auto fit = SelectArima(y);
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  EXPECT_EQ(fit->order.d, 1);
  EXPECT_NEAR(fit->constant, 0.2, 0.06);  // standard error 1/sqrt(3000) = 0.018
}

TEST(ArimaTest, ForecastGolden) {
  // ARIMA(1,0,1), c = 1, phi = 0.5, theta = 0.4 on y = {2, 3, 1}; first_predicted = 1.
  // Conditional errors: e_0 = 0; e_1 = 3 - (1 + 0.5*2 + 0.4*0) = 1; e_2 = 1 - (1 + 0.5*3 + 0.4*1) = -1.9.
  // One-step predictions: yhat_1 = 2, yhat_2 = 2.9.
  // Forecasts: y_3 = 1 + 0.5*1 + 0.4*(-1.9) = 0.74; y_4 = 1 + 0.5*0.74 = 1.37.
  ArimaModel m;
  m.order = {1, 0, 1};
  m.constant = 1;
  m.ar = {0.5};
  m.ma = {0.4};
  m.first_predicted = 1;
  const std::vector<double> y{2, 3, 1};
  const auto pred = OneStepPredictions(m, y);
  EXPECT_TRUE(std::isnan(pred[0]));
  EXPECT_DOUBLE_EQ(pred[1], 2.0);
  EXPECT_DOUBLE_EQ(pred[2], 2.9);
  const auto f = ForecastArima(m, y, 2);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NEAR(f[0], 0.74, 1e-12);
  EXPECT_NEAR(f[1], 1.37, 1e-12);
}

TEST(ArimaTest, ForecastIntegratesDifferences) {
  // ARIMA(0,1,0) with drift 2 on y = {1, 4}: forecasts 6, 8, 10.
  ArimaModel m;
  m.order = {0, 1, 0};
  m.constant = 2;
  m.first_predicted = 1;
  const std::vector<double> y{1, 4};
  EXPECT_EQ(ForecastArima(m, y, 3), (std::vector<double>{6, 8, 10}));
  EXPECT_DOUBLE_EQ(OneStepPredictions(m, y)[1], 3.0);  // 1 + 2
}

TEST(ArimaTest, AicCountsParameters) {
  const auto y = Simulate(0.0, 0.5, 0.0, 0.0, 1.0, 500, 2);
  auto fit = FitArima(y, {1, 0, 0});
  ASSERT_TRUE(fit.ok());
  // AIC = -2 log L + 2 (p + q + 2) with log L = -n/2 (log(2 pi sigma2) + 1), n = 499.
  const double ll = -0.5 * 499 * (std::log(2 * M_PI * fit->sigma2) + 1);
  EXPECT_EQ(fit->observations, 499);
  EXPECT_NEAR(fit->log_likelihood, ll, 1e-9);
  EXPECT_NEAR(fit->aic, -2 * ll + 6, 1e-9);
}

TEST(ArimaTest, BadInput) {
  const std::vector<double> y(100, 1.0);
  EXPECT_FALSE(FitArima(y, {-1, 0, 0}).ok());
  EXPECT_FALSE(FitArima(y, {1, 2, 0}).ok());
  EXPECT_FALSE(FitArima(y, {9, 0, 0}).ok());
  const std::vector<double> tiny{1, 2, 3};
  auto short_fit = FitArima(tiny, {1, 0, 0});
  ASSERT_FALSE(short_fit.ok());
  EXPECT_NE(short_fit.status().message().find("too short"), std::string::npos);
  std::vector<double> with_nan = Simulate(0, 0.5, 0, 0, 1, 100, 1);
  with_nan[40] = std::numeric_limits<double>::quiet_NaN();
  auto nan_fit = FitArima(with_nan, {1, 0, 0});
  ASSERT_FALSE(nan_fit.ok());
  EXPECT_NE(nan_fit.status().message().find("index 40"), std::string::npos);
  // A constant series makes every regression with a lag singular.
  EXPECT_FALSE(FitArima(y, {1, 0, 0}).ok());
  EXPECT_FALSE(SelectArima(y, {.max_p = 9}).ok());
}

TEST(ArimaTest, Deterministic) {
  const auto y = Simulate(0.3, 0.4, 0.1, 0.3, 2.0, 1500, 9);
  auto a = SelectArima(y);
  auto b = SelectArima(y);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->order.ToString(), b->order.ToString());
  EXPECT_EQ(a->ar, b->ar);
  EXPECT_EQ(a->ma, b->ma);
  EXPECT_EQ(a->aic, b->aic);
}

}  // namespace
}  // namespace hetsched::forecast
