#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_backend.h"

namespace hetsched {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using test::kFast;
using test::kSlow;
using test::PolicyHarness;

// One node of 4 fast GPUs (devices 0..3). Fast iteration = 1 s in the fake planner.
TEST(FifoTest, StrictOrderWithHeadOfLineBlocking) {
  PolicyHarness h({{kFast, 4}}, "fifo", {"backfill=none"});
  h.Submit(1, 3, 0, 100);
  h.Submit(2, 2, 1, 100);
  h.Submit(3, 1, 2, 10);
  h.ScheduleAt(2);
  // Job 1 takes 3 of 4; job 2 needs 2 but only 1 is free and blocks job 3 (which would fit).
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1,2]"));
  h.Finish(1, 100);
  h.ScheduleAt(100);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 2 on [0,1]", "start 3 on [2]"));
}

// Tiresias' fjf (fifo backfill=any): the same queue, but job 3 fits and starts past the blocked
// job 2, and so does any later job that fits, with no reservation: job 4 (1 GPU, very long) takes
// the last free GPU, so job 2 (2 GPUs) waits for job 1 and for it.
TEST(FifoTest, FitFirstStartsEveryJobThatFitsWithoutReservation) {
  for (const char* policy : {"fjf", "fifo"}) {
    PolicyHarness h({{kFast, 4}}, policy, policy == std::string("fifo") ? std::vector<std::string>{"backfill=any"}
                                                                        : std::vector<std::string>{});
    h.Submit(1, 3, 0, 100);
    h.Submit(2, 2, 1, 100);
    h.Submit(3, 1, 2, 10);
    h.ScheduleAt(2);
    EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1,2]", "start 3 on [3]")) << policy;
    h.Finish(3, 12);
    h.Submit(4, 1, 12, 1000);
    h.ScheduleAt(12);
    EXPECT_THAT(h.TakeLog(), ElementsAre("start 4 on [3]")) << policy;
    h.Finish(1, 100);
    h.ScheduleAt(100);
    EXPECT_THAT(h.TakeLog(), ElementsAre("start 2 on [0,1]")) << policy;
  }
}

TEST(FifoTest, ArrivalOrderIsSubmitTimeThenId) {
  PolicyHarness h({{kFast, 1}}, "fifo");
  h.Submit(7, 1, 5, 10);
  h.Submit(3, 1, 5, 10);  // same submit time, lower id: goes first
  h.Submit(1, 1, 6, 10);
  h.ScheduleAt(6);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 3 on [0]"));
}

// EASY: job 1 holds 2 of 4 GPUs until 0 + 100 iterations x 1 s = 100. Head job 2 needs 4: its
// shadow time is 100, when 2 free + 2 released = 4 devices are free, so extra = 4 - 4 = 0.
TEST(FifoTest, EasyBackfillsShortJobsButNotLongOnes) {
  PolicyHarness h({{kFast, 4}}, "fifo");
  h.Submit(1, 2, 0, 100);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
  h.Submit(2, 4, 1, 100);  // head, blocked
  h.Submit(3, 1, 2, 200);  // ends 10 + 200 = 210 > 100 and extra = 0: must wait
  h.Submit(4, 1, 3, 50);   // ends 10 + 50 = 60 <= 100: backfilled
  h.Submit(5, 1, 4, 90);   // ends 10 + 90 = 100 <= 100: backfilled
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 4 on [2]", "start 5 on [3]"));
  EXPECT_EQ(h.state(3), JobState::kPending);
}

// Job 1 holds 2 of 4 from 0 until 0 + 100 x 1 s = 100. Head job 2 needs 3: shadow 100, when
// 2 free + 2 released = 4 are free, so extra = 4 - 3 = 1.
TEST(FifoTest, EasyBackfillsLongJobsOnExtraDevicesOnly) {
  PolicyHarness h({{kFast, 4}}, "fifo");
  h.Submit(1, 2, 0, 100);
  h.ScheduleAt(0);
  h.Submit(2, 3, 1, 100);
  h.Submit(3, 1, 2, 500);  // ends 4 + 500 > 100, but 1 <= extra (1): starts, extra becomes 0
  h.Submit(4, 1, 3, 500);  // ends after the shadow and extra is 0: waits
  h.Submit(5, 1, 4, 60);   // ends 4 + 60 = 64 <= 100: starts
  h.ScheduleAt(4);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]", "start 3 on [2]", "start 5 on [3]"));
  h.Finish(5, 64);
  h.Finish(1, 100);
  h.ScheduleAt(100);
  // Free: devices 0, 1, 3: the head's 3 devices, as the reservation promised (job 3 holds 2).
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 2 on [0,1,3]"));
  EXPECT_EQ(h.state(4), JobState::kPending);
}

// The user's runtime estimate (Slurm --time) is used when given: job 1 ends at 0 + 30 = 30
// (its 1000 iterations would say 1000 s). Head job 2 needs 3 of 3: shadow 30, extra 0.
TEST(FifoTest, UsesUserRuntimeEstimateForShadowTime) {
  PolicyHarness h({{kFast, 3}}, "fifo");
  h.Submit(1, 2, 0, 1000, /*estimated_runtime_s=*/30);
  h.ScheduleAt(0);
  h.Submit(2, 3, 1, 10);
  h.Submit(3, 1, 2, 0, /*estimated_runtime_s=*/40);  // would end 2 + 40 = 42 > 30: waits
  h.Submit(4, 1, 2, 0, /*estimated_runtime_s=*/20);  // ends 2 + 20 = 22 <= 30: backfilled
  h.ScheduleAt(2);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]", "start 4 on [2]"));
  EXPECT_EQ(h.state(3), JobState::kPending);
}

TEST(FifoTest, BackfillOnAnotherTypeIsNotRestricted) {
  // node0: 2 fast (devices 0,1); node1: 2 slow (devices 2,3). The head may only use fast GPUs,
  // so its reservation is on fast; a long job may start on the slow GPUs at once.
  PolicyHarness h({{kFast, 2}, {kSlow, 2}}, "fifo");
  h.Submit(1, 2, 0, 100, 0, {kFast});
  h.Submit(2, 2, 1, 100, 0, {kFast});
  h.Submit(3, 2, 2, 100000);
  h.ScheduleAt(2);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]", "start 3 on [2,3]"));
}

TEST(FifoTest, BackfillDepthBoundsTheScan) {
  PolicyHarness h({{kFast, 4}}, "fifo", {"backfill_depth=1"});
  h.Submit(1, 2, 0, 100);
  h.Submit(2, 4, 1, 100);
  h.Submit(3, 1, 2, 500);  // examined: too long, extra 0
  h.Submit(4, 1, 3, 10);   // would fit, but beyond the depth of 1
  h.ScheduleAt(3);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
}

TEST(FifoTest, RequeuedJobKeepsItsPlace) {
  PolicyHarness h({{kFast, 2}}, "fifo", {"backfill=none"});
  h.Submit(1, 2, 0, 100);
  h.ScheduleAt(0);
  h.Submit(2, 2, 5, 100);
  h.ScheduleAt(5);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
  h.Requeue(1, 10);  // node failure: job 1 is pending again, and still first in line
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
}

TEST(FifoTest, NothingToDoOnEmptyQueue) {
  PolicyHarness h({{kFast, 2}}, "fifo");
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), IsEmpty());
}

TEST(FifoTest, RejectsBadOptions) {
  Options bad;
  bad.Set("backfill", "conservative");
  EXPECT_NE(Registry<JobScheduler>::Instance().Create("fifo", bad).status().message().find("easy, none or any"),
            std::string::npos);
  EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("fifo", bad).ok());
  Options depth;
  depth.Set("backfill_depth", "-1");
  EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("fifo", depth).ok());
  Options typo;
  typo.Set("backfil", "none");
  auto made = Registry<JobScheduler>::Instance().Create("fifo", typo);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("backfil"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
