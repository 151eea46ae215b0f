#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "fake_backend.h"

namespace hetsched {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;
using test::kFast;
using test::PolicyHarness;

// Two GPUs, thresholds 100 and 1000 GPU-seconds. Job 1 (2 GPUs) attains 2 GPU-s per second:
// it crosses 100 at 0 + 100 / 2 = 50, and then 1000 at 50 + (1000 - 100) / 2 = 500.
TEST(TiresiasLasTest, RequestsWakeUpAtExactThresholdCrossing) {
  PolicyHarness h({{kFast, 2}}, "tiresias-las", {"thresholds=100;1000"});
  h.Submit(1, 2, 0, 100000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(50.0));
  h.ScheduleAt(50);
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(50.0, 500.0));
}

// Before its crossing, job 1 is in queue 0 like the newcomer: no preemption. After it (t = 50)
// it is in queue 1 and a queue-0 arrival preempts it.
TEST(TiresiasLasTest, DemotedJobIsPreemptedByNewArrival) {
  PolicyHarness h({{kFast, 2}}, "tiresias-las", {"thresholds=100;1000"});
  h.Submit(1, 2, 0, 100000);
  h.ScheduleAt(0);
  h.Submit(2, 2, 40, 100000);
  h.ScheduleAt(40);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
  h.ScheduleAt(50);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 2 on [0,1]"));
  // Job 1 attained 2 x 50 = 100 GPU-s and stays in queue 1; job 2 crosses at 50 + 100/2 = 100.
  EXPECT_DOUBLE_EQ(h.backend().job_status(1).service_gpu_s, 100);
  EXPECT_THAT(h.backend().wake_ups, Contains(100.0));
}

// Three GPUs, thresholds 10 and 20. Job 1 starts at 0 (crosses 10 at 10, 20 at 20: queue 2 by
// 21), job 2 at 5 (crosses 10 at 15: queue 1), job 3 at 8 (crosses 10 at 18: queue 1). At 21 a
// 2-GPU job preempts the lowest queue first (job 1), then in queue 1 the most recently started
// (job 3, started at 8, not job 2, started at 5).
TEST(TiresiasLasTest, PreemptsLowestQueueMostRecentFirst) {
  PolicyHarness h({{kFast, 3}}, "tiresias-las", {"thresholds=10;20", "starve_factor=0"});
  h.Submit(1, 1, 0, 100000);
  h.ScheduleAt(0);
  h.Submit(2, 1, 5, 100000);
  h.ScheduleAt(5);
  h.Submit(3, 1, 8, 100000);
  h.ScheduleAt(8);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]", "start 2 on [1]", "start 3 on [2]"));
  h.Submit(4, 2, 21, 100000);
  h.ScheduleAt(21);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "preempt 3", "start 4 on [0,2]"));
  EXPECT_EQ(h.state(2), JobState::kRunning);
}

// One GPU, threshold 10 GPU-s, starve_factor 2. Job 1 runs 0..10 and is demoted at 10; job 2
// (queue 0) preempts it. Job 1 waits from 10 with 10 s executed: starved at 10 + 2 x 10 = 30.
// Job 2 is demoted at 10 + 10 = 20, so at 30 job 1 (promoted to queue 0) preempts it, and its
// service counts from 0 again: next crossing at 30 + 10 / 1 = 40.
TEST(TiresiasLasTest, StarvedJobIsPromoted) {
  PolicyHarness h({{kFast, 1}}, "tiresias-las", {"thresholds=10", "starve_factor=2"});
  h.Submit(1, 1, 0, 100000);
  h.ScheduleAt(0);
  h.ScheduleAt(10);
  h.Submit(2, 1, 10, 100000);
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]", "preempt 1", "start 2 on [0]"));
  EXPECT_THAT(h.backend().wake_ups, Contains(30.0));
  h.ScheduleAt(20);
  EXPECT_THAT(h.TakeLog(), IsEmpty());  // job 2 demoted; job 1 is in the same queue, entered earlier
  h.ScheduleAt(30);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 2", "start 1 on [0]"));
  EXPECT_THAT(h.backend().wake_ups, Contains(40.0));
}

TEST(TiresiasLasTest, NoPromotionWhenStarvationIsOff) {
  PolicyHarness h({{kFast, 1}}, "tiresias-las", {"thresholds=10", "starve_factor=0"});
  h.Submit(1, 1, 0, 100000);
  h.ScheduleAt(0);
  h.ScheduleAt(10);
  h.Submit(2, 1, 10, 100000);
  h.ScheduleAt(10);
  h.TakeLog();
  EXPECT_THAT(h.backend().wake_ups, Not(Contains(30.0)));
  h.ScheduleAt(30);
  EXPECT_THAT(h.TakeLog(), IsEmpty());
}

// Within a queue, FIFO by the time of entering it: job 2 (preempted at 10, queue 1) waits ahead
// of job 3 (demoted while running, preempted later at 30).
TEST(TiresiasLasTest, FifoWithinQueueByEntryTime) {
  PolicyHarness h({{kFast, 1}}, "tiresias-las", {"thresholds=5;1000", "starve_factor=0"});
  h.Submit(2, 1, 0, 100000);
  h.ScheduleAt(0);   // job 2 runs, crosses 5 at 5
  h.ScheduleAt(5);
  h.Submit(3, 1, 10, 100000);
  h.ScheduleAt(10);  // job 3 (queue 0) preempts job 2 (queue 1); job 2 enters queue 1 pending at 10
  h.ScheduleAt(15);  // job 3 demoted to queue 1 at 15, keeps running
  h.Submit(4, 1, 30, 100000);
  h.ScheduleAt(30);  // job 4 preempts job 3: queue 1 now holds job 2 (entered 10), job 3 (30)
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 2 on [0]", "preempt 2", "start 3 on [0]", "preempt 3",
                                       "start 4 on [0]"));
  h.Finish(4, 32);
  h.ScheduleAt(32);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 2 on [0]"));
}

// Entry time, not submit time: job 1 (submitted at 0) loses its GPU to a node failure at 3 and
// re-enters queue 0 at 3, behind job 2 (entered at 1).
TEST(TiresiasLasTest, RequeuedJobReentersItsQueueAtTheBack) {
  PolicyHarness h({{kFast, 1}}, "tiresias-las");
  h.Submit(1, 1, 0, 100000);
  h.ScheduleAt(0);
  h.Submit(2, 1, 1, 100000);
  h.ScheduleAt(1);
  h.Requeue(1, 3);
  h.ScheduleAt(3);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]", "start 2 on [0]"));
}

// A finished job's id submitted again is a new job, and its first run's cancelled timer must not
// count for it. Three GPUs, thresholds 14 and 1000 GPU-s. Job 1 (1 GPU) starts at 0, crossing
// due at 14; job 3 (2 GPUs) at 0, crossing at 7, keeps the stale entry off the heap's top. Job 1
// finishes at 5 and is submitted again; its second run crosses at 5 + 14 = 19, so at 15 it is
// still in queue 0 and job 2 (queue 0) preempts job 3 (queue 1 since 7). Had the stale entry
// demoted job 1 at 14, job 2 would preempt job 1, the more recently started of two queue-1 jobs.
TEST(TiresiasLasTest, ResubmittedIdKeepsNoStaleTimer) {
  PolicyHarness h({{kFast, 3}}, "tiresias-las", {"thresholds=14;1000", "starve_factor=0"});
  h.Submit(1, 1, 0, 100000);
  h.Submit(3, 2, 0, 100000);
  h.ScheduleAt(0);
  h.Finish(1, 5);
  h.Submit(1, 1, 5, 100000);
  h.ScheduleAt(5);
  h.ScheduleAt(7);
  h.ScheduleAt(14);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]", "start 3 on [1,2]", "start 1 on [0]"));
  h.Submit(2, 1, 15, 100000);
  h.ScheduleAt(15);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 3", "start 2 on [1]"));
}

TEST(TiresiasLasTest, RoundModeUsesPeriodicTicks) {
  PolicyHarness h({{kFast, 2}}, "tiresias-las", {"round=60", "thresholds=100"});
  EXPECT_DOUBLE_EQ(h.scheduler().round_period_s(), 60);
  h.Submit(1, 2, 0, 100000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.backend().wake_ups, IsEmpty());
  // Crossing at 50 is noticed at the tick at 60.
  h.Submit(2, 2, 55, 100000);
  h.ScheduleAt(60);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]", "preempt 1", "start 2 on [0,1]"));
}

TEST(TiresiasLasTest, DefaultThresholds) {
  // Default "3600;36000": a 1-GPU job crosses the first at 3600 s.
  PolicyHarness h({{kFast, 1}}, "tiresias-las");
  EXPECT_DOUBLE_EQ(h.scheduler().round_period_s(), 0);
  h.Submit(1, 1, 0, 100000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(3600.0));
}

// The window counts every job it passes, also those that cannot start (they are skipped without
// a visit, but still use up the window). Three GPUs, window 2. Job 1 holds one GPU; at t = 1
// job 2 (3 GPUs: 2 free, and the only running job is in its own queue, so no preemption) is
// examined first and blocked, job 3 (1 GPU) starts, job 4 (1 GPU) is third: beyond the window,
// although a GPU is free. At t = 2 the window is job 2 (still blocked) and job 4, which starts.
TEST(TiresiasLasTest, WindowCountsJobsThatCannotStart) {
  PolicyHarness h({{kFast, 3}}, "tiresias-las", {"window=2"});
  h.Submit(1, 1, 0, 100000);
  h.ScheduleAt(0);
  h.Submit(2, 3, 1, 100000);
  h.Submit(3, 1, 1, 100000);
  h.Submit(4, 1, 1, 100000);
  h.ScheduleAt(1);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]", "start 3 on [1]"));
  h.ScheduleAt(2);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 4 on [2]"));
}

// The window spans queues, higher first: a blocked job of queue 0 uses it up before queue 1 is
// reached. Two GPUs, threshold 5, window 1. Job 1 (1 GPU) runs from 0 and is demoted to queue 1
// at 5; job 2 (1 GPU) starts at 6 on the other GPU; at 7 job 1 loses its GPU (requeued: queue 1,
// GPU 0 free) and job 3 (2 GPUs) arrives in queue 0. Job 3 is blocked (one free GPU, nothing
// held by lower queues) and is the one job examined: job 1 stays pending beside a free GPU.
// With window 2 it would have started.
TEST(TiresiasLasTest, WindowSpansQueuesHigherFirst) {
  for (const int window : {1, 2}) {
    PolicyHarness h({{kFast, 2}}, "tiresias-las",
                    {"window=" + std::to_string(window), "thresholds=5", "starve_factor=0"});
    h.Submit(1, 1, 0, 100000);
    h.ScheduleAt(0);
    h.ScheduleAt(5);
    h.Submit(2, 1, 6, 100000);
    h.ScheduleAt(6);
    EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]", "start 2 on [1]"));
    h.Requeue(1, 7);
    h.Submit(3, 2, 7, 100000);
    h.ScheduleAt(7);
    if (window == 1) {
      EXPECT_THAT(h.TakeLog(), IsEmpty());
    } else {
      EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
    }
  }
}

TEST(TiresiasLasTest, RejectsBadOptions) {
  for (const char* bad : {"thresholds=100;50", "thresholds=abc", "thresholds=-1", "starve_factor=-1", "round=-5",
                          "window=0"}) {
    auto parsed = Options::Parse({bad});
    ASSERT_TRUE(parsed.ok());
    EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("tiresias-las", *parsed).ok()) << bad;
  }
}

}  // namespace
}  // namespace hetsched
