#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_backend.h"

namespace hetsched {
namespace {

using ::testing::ElementsAre;
using test::kFast;
using test::kSlow;
using test::PolicyHarness;

// Two fast GPUs (1 s per iteration in the fake planner).
TEST(SjfTest, ShortestEstimateFirstTiesByArrival) {
  PolicyHarness h({{kFast, 2}}, "sjf");
  h.Submit(1, 2, 0, 100);
  h.ScheduleAt(0);
  h.Submit(2, 1, 1, 300);  // 300 s
  h.Submit(3, 1, 2, 50);   // 50 s, earlier than job 4
  h.Submit(4, 1, 3, 50);   // 50 s
  h.Submit(5, 2, 4, 10);   // 10 s
  h.ScheduleAt(4);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
  h.Finish(1, 100);
  h.ScheduleAt(100);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 5 on [0,1]"));
  h.Finish(5, 110);
  h.ScheduleAt(110);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 3 on [0]", "start 4 on [1]"));
  EXPECT_EQ(h.state(2), JobState::kPending);
}

TEST(SjfTest, SkipsAJobThatDoesNotFit) {
  PolicyHarness h({{kFast, 2}}, "sjf");
  h.Submit(1, 1, 0, 1000);
  h.ScheduleAt(0);
  h.Submit(2, 2, 1, 5);    // shortest, but needs 2 with 1 free
  h.Submit(3, 1, 2, 100);  // fits: work-conserving SJF starts it
  h.ScheduleAt(2);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]", "start 3 on [1]"));
}

// node0: 1 fast (device 0, 1 s/iter), node1: 1 slow (device 1, 2 s/iter).
// Job 20 may only use slow: 100 x 2 = 200 s. Job 21 may use any: fastest is 150 x 1 = 150 s.
// Ranked on the fastest allowed type, 21 goes first (on slow it would be 300 s and go second).
TEST(SjfTest, EstimateUsesFastestAllowedType) {
  PolicyHarness h({{kFast, 1}, {kSlow, 1}}, "sjf");
  h.Submit(10, 1, 0, 1000, 0, {kFast});
  h.Submit(11, 1, 0, 1000, 0, {kSlow});
  h.ScheduleAt(0);
  h.Submit(20, 1, 1, 100, 0, {kSlow});
  h.Submit(21, 1, 2, 150);
  h.ScheduleAt(2);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 10 on [0]", "start 11 on [1]"));
  h.Finish(11, 10);
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 21 on [1]"));
}

TEST(SjfTest, WindowBoundsTheScan) {
  PolicyHarness h({{kFast, 2}}, "sjf", {"window=1"});
  h.Submit(1, 1, 0, 1000);
  h.ScheduleAt(0);
  h.Submit(2, 2, 1, 5);    // blocked: the only job examined
  h.Submit(3, 1, 2, 100);  // would fit, beyond the window
  h.ScheduleAt(2);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
}

TEST(SjfTest, RejectsBadWindow) {
  Options o;
  o.Set("window", "0");
  EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("sjf", o).ok());
}

}  // namespace
}  // namespace hetsched
