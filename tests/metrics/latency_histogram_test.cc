#include "hetsched/metrics/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "hetsched/util/rng.h"

namespace hetsched {
namespace {

TEST(LatencyHistogramTest, EmptyGivesZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.Quantile(0.5), 0.0);
  EXPECT_EQ(h.max_s(), 0.0);
}

// Below 1,024 ns every nanosecond is its own bucket: quantiles are exact.
TEST(LatencyHistogramTest, ExactBelowOneMicrosecondAndAQuarter) {
  LatencyHistogram h;
  for (int ns : {300, 100, 200, 400}) h.Add(ns * 1e-9);
  // Sorted 100, 200, 300, 400: rank floor(p x 4).
  EXPECT_DOUBLE_EQ(h.Quantile(0.0), 100e-9);
  EXPECT_DOUBLE_EQ(h.Quantile(0.5), 300e-9);
  EXPECT_DOUBLE_EQ(h.Quantile(0.74), 300e-9);
  EXPECT_DOUBLE_EQ(h.Quantile(1.0), 400e-9);  // clamped to the last sample
  EXPECT_DOUBLE_EQ(h.max_s(), 400e-9);
  EXPECT_EQ(h.count(), 4u);
}

// 5,000 ns lies in [4,096, 8,192), cut into 128 buckets of 32 ns: its bucket starts at 4,992 ns.
TEST(LatencyHistogramTest, AboveItTheBucketsLowerEdgeWorkedOutByHand) {
  LatencyHistogram h;
  h.Add(5000e-9);
  EXPECT_DOUBLE_EQ(h.Quantile(0.5), 4992e-9);
  EXPECT_DOUBLE_EQ(h.max_s(), 5000e-9);
  h.Add(-1.0);  // counts as 0
  EXPECT_DOUBLE_EQ(h.Quantile(0.0), 0.0);
}

// Property: against sorting every sample, each quantile is at most 1/128 below the exact one
// and never above it (both up to the rounding to whole nanoseconds).
TEST(LatencyHistogramTest, WithinItsPrecisionOfTheSortedSamples) {
  Rng rng(5);
  LatencyHistogram h;
  std::vector<double> all;
  for (int i = 0; i < 100000; ++i) {
    const double s = 1e-7 * std::exp(12 * rng.Uniform());  // 0.1 us to ~16 ms, log-uniform
    h.Add(s);
    all.push_back(s);
  }
  std::sort(all.begin(), all.end());
  for (double p : {0.0, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0}) {
    const double exact = all[std::min(all.size() - 1, static_cast<size_t>(p * static_cast<double>(all.size())))];
    const double got = h.Quantile(p);
    EXPECT_LE(got, exact + 0.5e-9) << p;
    EXPECT_GE(got, exact * (1 - 1.0 / 128) - 0.5e-9) << p;
  }
  EXPECT_DOUBLE_EQ(h.max_s(), static_cast<double>(std::llround(all.back() * 1e9)) * 1e-9);
}

}  // namespace
}  // namespace hetsched
