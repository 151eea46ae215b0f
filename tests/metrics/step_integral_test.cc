#include "hetsched/metrics/step_integral.h"

#include <gtest/gtest.h>

namespace hetsched {
namespace {

TimelineSample Busy(double t, int busy) {
  TimelineSample s;
  s.time_s = t;
  s.busy_devices = busy;
  return s;
}

double BusyOf(const TimelineSample& s) { return s.busy_devices; }

// Step function: 0 before t=10; 2 on [10,20); 5 on [20,20) (zero width, overridden); 1 on
// [20,40); 3 from 40 on.
std::vector<TimelineSample> Steps() { return {Busy(10, 2), Busy(20, 5), Busy(20, 1), Busy(40, 3)}; }

TEST(IntegrateTimeline, ClipsToWindow) {
  // [0,50]: 0*10 + 2*10 + 1*20 + 3*10 = 70.
  EXPECT_DOUBLE_EQ(IntegrateTimeline(Steps(), BusyOf, 0, 50), 70);
  // [15,25]: 2*5 + 1*5 = 15.
  EXPECT_DOUBLE_EQ(IntegrateTimeline(Steps(), BusyOf, 15, 25), 15);
  EXPECT_DOUBLE_EQ(IntegrateTimeline(Steps(), BusyOf, 25, 25), 0);
  EXPECT_DOUBLE_EQ(IntegrateTimeline(Steps(), BusyOf, 30, 20), 0);
  EXPECT_DOUBLE_EQ(IntegrateTimeline({}, BusyOf, 0, 100), 0);
}

TEST(StepIntegral, MatchesHandValues) {
  const StepIntegral f(Steps(), BusyOf);
  EXPECT_DOUBLE_EQ(f.Cumulative(5), 0);
  EXPECT_DOUBLE_EQ(f.Cumulative(15), 10);  // 2*5
  EXPECT_DOUBLE_EQ(f.Cumulative(20), 20);  // 2*10
  EXPECT_DOUBLE_EQ(f.Cumulative(45), 55);  // 20 + 1*20 + 3*5
  EXPECT_DOUBLE_EQ(f.Integral(15, 25), 15);
  EXPECT_DOUBLE_EQ(f.Integral(25, 15), 0);
  EXPECT_DOUBLE_EQ(f.ValueAt(5), 0);
  EXPECT_DOUBLE_EQ(f.ValueAt(20), 1);  // the last of the samples at t=20 wins
  EXPECT_DOUBLE_EQ(f.ValueAt(1000), 3);
}

TEST(StepIntegral, AgreesWithLinearScanOnLongTimeline) {
  // A deterministic pseudo-random step function (LCG), 20k samples; every window query through
  // the prefix integral must agree with the linear pass.
  std::vector<TimelineSample> tl;
  unsigned long long x = 12345;
  double t = 0;
  for (int i = 0; i < 20000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    t += static_cast<double>((x >> 33) % 7);  // steps of 0..6 s, some zero-width
    tl.push_back(Busy(t, static_cast<int>((x >> 40) % 64)));
  }
  const StepIntegral f(tl, BusyOf);
  for (int q = 0; q < 200; ++q) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const double a = static_cast<double>((x >> 20) % 70000) - 500;
    const double b = a + static_cast<double>((x >> 45) % 9000);
    EXPECT_NEAR(f.Integral(a, b), IntegrateTimeline(tl, BusyOf, a, b), 1e-6) << a << " " << b;
  }
}

}  // namespace
}  // namespace hetsched
