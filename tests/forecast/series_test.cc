#include "hetsched/forecast/series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace hetsched::forecast {
namespace {

TEST(SeriesTest, BinsJobsAndGpuDemand) {
  // Window 10 s; first arrival at 25 -> start 20. Arrivals 25 (1 GPU), 29 (4), 41 (2), 63 (8):
  // windows [20,30): 2 jobs, 5 GPUs; [30,40): 0; [40,50): 1 job, 2 GPUs; [50,60): 0; [60,70): 1, 8.
  const std::vector<double> t{41, 25, 63, 29};
  const std::vector<double> g{2, 1, 8, 4};
  auto s = BinArrivals(t, g, 10);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->start_s, 20);
  EXPECT_EQ(s->jobs, (std::vector<double>{2, 0, 1, 0, 1}));
  EXPECT_EQ(s->gpu_demand, (std::vector<double>{5, 0, 2, 0, 8}));
}

TEST(SeriesTest, BinBadInput) {
  const std::vector<double> t{1, 2};
  const std::vector<double> g{1, 1};
  EXPECT_FALSE(BinArrivals(t, g, 0).ok());
  EXPECT_FALSE(BinArrivals(t, g, -5).ok());
  EXPECT_FALSE(BinArrivals(t, std::vector<double>{1}, 10).ok());
  EXPECT_FALSE(BinArrivals({}, {}, 10).ok());
  EXPECT_FALSE(BinArrivals(std::vector<double>{1, std::nan("")}, g, 10).ok());
  EXPECT_FALSE(BinArrivals(t, std::vector<double>{1, -1}, 10).ok());
  auto too_many = BinArrivals(std::vector<double>{0, 1e9}, g, 1, 1000);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("window too small"), std::string::npos);
}

TEST(SeriesTest, SeasonalNaive) {
  const std::vector<double> y{1, 2, 3, 4, 5};
  const auto f = SeasonalNaive(y, 2);
  EXPECT_TRUE(std::isnan(f[0]) && std::isnan(f[1]));
  EXPECT_EQ(f[2], 1);
  EXPECT_EQ(f[4], 3);
}

TEST(SeriesTest, MaeAndMape) {
  // Errors over [1, 4): |0-1| = 1, |4-2| = 2, |5-5| = 0 -> MAE = 1.
  // MAPE over nonzero actuals 4 and 5: (2/4 + 0/5) / 2 = 0.25; the zero actual is left out.
  const std::vector<double> actual{9, 0, 4, 5};
  const std::vector<double> pred{std::nan(""), 1, 2, 5};
  auto m = CompareForecast(actual, pred, 1, 4);
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(m->mae, 1.0);
  EXPECT_DOUBLE_EQ(m->mape, 0.25);
  EXPECT_EQ(m->points, 3);
  EXPECT_EQ(m->mape_points, 2);
  EXPECT_FALSE(CompareForecast(actual, pred, 0, 4).ok());  // NaN prediction in range
  EXPECT_FALSE(CompareForecast(actual, pred, 2, 2).ok());  // empty range
  EXPECT_FALSE(CompareForecast(actual, pred, 1, 5).ok());  // past the end
}

}  // namespace
}  // namespace hetsched::forecast
