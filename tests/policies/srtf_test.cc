#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_backend.h"

namespace hetsched {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using test::kFast;
using test::PolicyHarness;

// Two fast GPUs, 1 s per iteration.
TEST(SrtfTest, PreemptsLongerJobForShorterArrival) {
  PolicyHarness h({{kFast, 2}}, "srtf");
  h.Submit(1, 2, 0, 1000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
  // At 100, job 1 has 1000 - 100 = 900 s left; job 2 needs 50 s: 50 < 900.
  h.Submit(2, 2, 100, 50);
  h.ScheduleAt(100);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 2 on [0,1]"));
  h.Finish(2, 150);
  h.ScheduleAt(150);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
  EXPECT_DOUBLE_EQ(h.backend().job_status(1).iterations_done, 100);
}

TEST(SrtfTest, DoesNotPreemptShorterJob) {
  PolicyHarness h({{kFast, 2}}, "srtf");
  h.Submit(1, 2, 0, 100);
  h.ScheduleAt(0);
  h.TakeLog();
  // At 10 job 1 has 90 s left; job 2 needs 95 s: no preemption.
  h.Submit(2, 2, 10, 95);
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), IsEmpty());
}

// Four fast GPUs. Started in SRTF order at 0: job 3 (2 GPUs, 300 s) on [0,1], job 1 (500 s) on
// [2], job 2 (800 s) on [3]. At 10, job 4 (2 GPUs, 100 s) arrives: the longest first is job 2
// (790 s left, 1 device), then job 1 (490 s, 1 device): 2 devices, enough; job 3 is kept.
TEST(SrtfTest, PreemptsOnlyTheLongestAsNeeded) {
  PolicyHarness h({{kFast, 4}}, "srtf");
  h.Submit(1, 1, 0, 500);
  h.Submit(2, 1, 0, 800);
  h.Submit(3, 2, 0, 300);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 3 on [0,1]", "start 1 on [2]", "start 2 on [3]"));
  h.Submit(4, 2, 10, 100);
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 2", "preempt 1", "start 4 on [2,3]"));
  EXPECT_EQ(h.state(3), JobState::kRunning);
}

TEST(SrtfTest, NoPreemptionWhenItCannotFreeEnough) {
  PolicyHarness h({{kFast, 2}}, "srtf");
  h.Submit(1, 1, 0, 1000);
  h.Submit(2, 1, 0, 50);
  h.ScheduleAt(0);
  h.TakeLog();
  // Job 3 (2 GPUs, 100 s): only job 1 (1000 s left) is longer; 1 device is not enough.
  h.Submit(3, 2, 0, 100);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), IsEmpty());
}

// margin=100: at 50, job 1 has 200 - 50 = 150 s left. A job needing 40 s is shorter by
// 110 > 100: preempts. A job needing 60 s is shorter by only 90: does not, unless margin=0.
TEST(SrtfTest, MarginAvoidsThrashing) {
  {
    PolicyHarness h({{kFast, 1}}, "srtf", {"margin=100"});
    h.Submit(1, 1, 0, 200);
    h.ScheduleAt(0);
    h.Submit(2, 1, 50, 40);
    h.ScheduleAt(50);
    EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]", "preempt 1", "start 2 on [0]"));
  }
  {
    // 150 s left vs 60 s needed: 150 - 60 = 90 <= 100, no preemption with the margin...
    PolicyHarness h({{kFast, 1}}, "srtf", {"margin=100"});
    h.Submit(1, 1, 0, 200);
    h.ScheduleAt(0);
    h.Submit(2, 1, 50, 60);
    h.ScheduleAt(50);
    EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
  }
  {
    // ...and with none it preempts.
    PolicyHarness h({{kFast, 1}}, "srtf");
    h.Submit(1, 1, 0, 200);
    h.ScheduleAt(0);
    h.Submit(2, 1, 50, 60);
    h.ScheduleAt(50);
    EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]", "preempt 1", "start 2 on [0]"));
  }
}

TEST(SrtfTest, RejectsNegativeMargin) {
  Options o;
  o.Set("margin", "-1");
  EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("srtf", o).ok());
}

}  // namespace
}  // namespace hetsched
