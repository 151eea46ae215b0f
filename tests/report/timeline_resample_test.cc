#include "hetsched/report/timeline_resample.h"

#include <gtest/gtest.h>

#include "hetsched/metrics/step_integral.h"

namespace hetsched {
namespace {

TimelineSample TimelineAt(double t, int busy, int running) {
  TimelineSample s;
  s.time_s = t;
  s.busy_devices = busy;
  s.running_jobs = running;
  return s;
}

TEST(ResampleTimeline, ShortTimelineCopied) {
  RunRecord run;
  run.device_types = {"a", "b"};
  run.AppendSample(TimelineAt(0, 3, 1), std::vector<int>{3, 0});
  run.AppendSample(TimelineAt(5, 1, 1), std::vector<int>{0, 1});
  const auto rows = ResampleTimeline(run, 10);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].busy_devices, 3);
  EXPECT_EQ(rows[0].busy_by_type, (std::vector<double>{3, 0}));
  EXPECT_EQ(rows[1].busy_by_type, (std::vector<double>{0, 1}));
}

TEST(ResampleTimeline, BucketsHoldTimeWeightedAverages) {
  // busy: 4 on [0,10), 0 on [10,20), 2 on [20,40), 1 from 40. max_rows 3 -> 2 buckets over
  // [0,40] plus a final row: [0,20) avg (40+0)/20 = 2; [20,40) avg 2; row at 40 = 1.
  RunRecord run;
  run.timeline = {TimelineAt(0, 4, 1), TimelineAt(10, 0, 0), TimelineAt(20, 2, 1), TimelineAt(30, 2, 1), TimelineAt(40, 1, 1)};
  const auto rows = ResampleTimeline(run, 3);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_DOUBLE_EQ(rows[0].time_s, 0);
  EXPECT_DOUBLE_EQ(rows[0].busy_devices, 2);
  EXPECT_DOUBLE_EQ(rows[0].running_jobs, 0.5);  // (1*10 + 0*10)/20
  EXPECT_DOUBLE_EQ(rows[1].time_s, 20);
  EXPECT_DOUBLE_EQ(rows[1].busy_devices, 2);
  EXPECT_DOUBLE_EQ(rows[2].time_s, 40);
  EXPECT_DOUBLE_EQ(rows[2].busy_devices, 1);
}

TEST(ResampleTimeline, PreservesIntegral) {
  // 10k irregular samples (deterministic LCG) into 97 rows: the busy device-seconds over
  // [t_first, t_last], and per type, must match the original's.
  RunRecord run;
  run.device_types = {"x", "y"};
  unsigned long long x = 7;
  double t = 3;
  for (int i = 0; i < 10000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    t += static_cast<double>((x >> 35) % 13) * 0.37;
    const int a = static_cast<int>((x >> 20) % 17), b = static_cast<int>((x >> 50) % 5);
    run.AppendSample(TimelineAt(t, a + b, a % 3), std::vector<int>{a, b});
  }
  const auto rows = ResampleTimeline(run, 97);
  ASSERT_EQ(rows.size(), 97u);
  const double t0 = run.timeline.front().time_s, t1 = run.timeline.back().time_s;
  double busy = 0, type_y = 0;
  for (size_t k = 0; k + 1 < rows.size(); ++k) {
    busy += rows[k].busy_devices * (rows[k + 1].time_s - rows[k].time_s);
    type_y += rows[k].busy_by_type[1] * (rows[k + 1].time_s - rows[k].time_s);
  }
  const auto busy_of = [](const TimelineSample& s) { return static_cast<double>(s.busy_devices); };
  const TimelineValueAt y_of = [&run](size_t i) { return static_cast<double>(run.BusyByType(i)[1]); };
  EXPECT_NEAR(busy, IntegrateTimeline(run.timeline, busy_of, t0, t1), 1e-6 * busy);
  EXPECT_NEAR(type_y, IntegrateTimeline(run.timeline, y_of, t0, t1), 1e-6 * type_y);
  EXPECT_DOUBLE_EQ(rows.back().time_s, t1);
  EXPECT_DOUBLE_EQ(rows.back().busy_devices, run.timeline.back().busy_devices);
}

TEST(ResampleTimeline, AllSamplesAtOneInstant) {
  RunRecord run;
  run.timeline = {TimelineAt(5, 1, 1), TimelineAt(5, 2, 1), TimelineAt(5, 3, 1)};
  const auto rows = ResampleTimeline(run, 2);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].busy_devices, 3);  // the last sample is the one in force
}

TEST(ResampleTimeline, EmptyAndTinyCap) {
  EXPECT_TRUE(ResampleTimeline(RunRecord{}, 10).empty());
  RunRecord run;
  run.timeline = {TimelineAt(0, 1, 1), TimelineAt(1, 2, 1), TimelineAt(2, 3, 1)};
  EXPECT_EQ(ResampleTimeline(run, 0).size(), 2u);  // the cap never goes below 2
}

}  // namespace
}  // namespace hetsched
