#include "hetsched/learn/gru_forecaster.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "hetsched/util/rng.h"

namespace hetsched::learn {
namespace {

// A period-12 pattern plus small noise: predictable from the last 12 values.
std::vector<double> Seasonal(int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<double> y;
  for (int t = 0; t < n; ++t) y.push_back(5 + 3 * std::sin(2 * M_PI * t / 12.0) + 0.1 * rng.Normal());
  return y;
}

GruForecasterConfig Small() {
  GruForecasterConfig c;
  c.window = 12;
  c.hidden = 8;
  c.epochs = 30;
  c.batch = 32;
  c.learning_rate = 0.02;
  c.seed = 3;
  c.validation_fraction = 0;
  return c;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("hetsched_gru_" + name)).string();
}

TEST(GruForecasterTest, LearnsASeasonalPattern) {
  const auto y = Seasonal(240, 1);
  GruForecaster f(Small());
  ASSERT_TRUE(f.Fit(y).ok());
  ASSERT_EQ(f.loss_history().size(), 30u);
  // Standardised MSE starts near 1 (the variance of a standardised series) and must fall well
  // below it: the pattern's noise is 0.1 on an amplitude of 3.
  EXPECT_LT(f.loss_history().back(), 0.2 * f.loss_history().front());
  const auto pred = f.OneStepPredictions(y);
  EXPECT_TRUE(std::isnan(pred[11]));
  double err = 0, spread = 0;
  for (size_t t = 12; t < y.size(); ++t) {
    err += std::abs(pred[t] - y[t]);
    spread += std::abs(y[t] - 5);
  }
  EXPECT_LT(err, 0.3 * spread);  // far better than predicting the mean
}

TEST(GruForecasterTest, EarlyStoppingKeepsTheBestValidationEpoch) {
  const auto y = Seasonal(240, 4);
  GruForecasterConfig c = Small();
  c.validation_fraction = 0.25;
  c.epochs = 12;
  GruForecaster f(c);
  ASSERT_TRUE(f.Fit(y).ok());
  const auto& val = f.validation_history();
  ASSERT_EQ(val.size(), 12u);
  const auto best = static_cast<size_t>(f.best_epoch());
  for (double v : val) EXPECT_GE(v, val[best]);
  // The weights kept are those of the best epoch: the validation windows (the last 25% of the
  // 228 windows = 57, targets y[183..239]) have exactly that MSE in standardised units.
  const auto pred = f.OneStepPredictions(y);
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  double var = 0;
  for (double v : y) var += (v - mean) * (v - mean);
  var /= static_cast<double>(y.size());
  double mse = 0;
  for (size_t t = 183; t < 240; ++t) mse += (pred[t] - y[t]) * (pred[t] - y[t]) / var;
  EXPECT_NEAR(mse / 57, val[best], 1e-9);
}

TEST(GruForecasterTest, DeterministicAndSavedExactly) {
  const auto y = Seasonal(120, 2);
  GruForecasterConfig c = Small();
  c.epochs = 5;
  c.validation_fraction = 0.2;
  GruForecaster a(c), b(c);
  ASSERT_TRUE(a.Fit(y).ok());
  ASSERT_TRUE(b.Fit(y).ok());
  EXPECT_EQ(a.loss_history(), b.loss_history());
  const auto pa = a.OneStepPredictions(y);
  const auto pb = b.OneStepPredictions(y);
  for (size_t t = 12; t < y.size(); ++t) EXPECT_EQ(pa[t], pb[t]);

  const std::string path = TempPath("model.bin");
  ASSERT_TRUE(a.Save(path).ok());
  auto loaded = GruForecaster::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->config().hidden, 8);
  EXPECT_EQ(loaded->config().learning_rate, 0.02);
  EXPECT_EQ(loaded->config().validation_fraction, 0.2);
  const auto pl = loaded->OneStepPredictions(y);
  for (size_t t = 12; t < y.size(); ++t) EXPECT_EQ(pl[t], pa[t]);
  std::filesystem::remove(path);
}

TEST(GruForecasterTest, BadInput) {
  GruForecasterConfig c = Small();
  c.window = 0;
  auto st = GruForecaster(c).Fit(Seasonal(50, 1));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'window'"), std::string::npos);
  EXPECT_FALSE(GruForecaster(Small()).Fit(Seasonal(13, 1)).ok());  // fewer than window + 2
  std::vector<double> nan_series = Seasonal(50, 1);
  nan_series[7] = std::nan("");
  EXPECT_FALSE(GruForecaster(Small()).Fit(nan_series).ok());
  EXPECT_FALSE(GruForecaster(Small()).Save(TempPath("untrained.bin")).ok());
}

TEST(GruForecasterTest, LoadRejectsBadFiles) {
  EXPECT_FALSE(GruForecaster::Load(TempPath("missing.bin")).ok());
  const std::string path = TempPath("bad.bin");
  {
    std::ofstream(path) << "hetsched-gru-forecaster v1\nwindow twelve\n";
  }
  auto bad = GruForecaster::Load(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(":2: field 'window'"), std::string::npos) << bad.status().message();
  {
    std::ofstream(path) << "something else\n";
  }
  EXPECT_FALSE(GruForecaster::Load(path).ok());
  // A valid header whose weights are truncated.
  GruForecasterConfig c = Small();
  c.epochs = 1;
  GruForecaster f(c);
  ASSERT_TRUE(f.Fit(Seasonal(40, 1)).ok());
  ASSERT_TRUE(f.Save(path).ok());
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 10);
  auto truncated = GruForecaster::Load(path);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("'weights'"), std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace hetsched::learn
