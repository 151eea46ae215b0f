// dlas / dlas-gpu: Tiresias' simulator's discretised LAS (run_sim.py dlas_sim_jobs). Each
// expected value below is worked out from the peer's rules, quoted in tiresias_dlas.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "fake_backend.h"

namespace hetsched {
namespace {

using test::kFast;
using test::PolicyHarness;
using ::testing::ElementsAre;

// Four GPUs, three jobs at 0 needing 2, 4 and 2: job 1 takes 2 (2 left), job 2 does not fit and
// is skipped, job 3 takes the last 2. No head-of-line blocking.
TEST(TiresiasDlasTest, SkipsAJobThatDoesNotFit) {
  PolicyHarness h({{kFast, 4}}, "dlas-gpu");
  h.Submit(1, 2, 0, 1000);
  h.Submit(2, 4, 0, 1000);
  h.Submit(3, 2, 0, 1000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]", "start 3 on [2,3]"));
}

// dlas-gpu, default limits 3250 and 7200 GPU-s. A 4-GPU job starting at 0 asks to be woken at
// the peer's jump ceil((3250 - 0) / 4) = 813; there it has 813 x 4 = 3252 >= 3250 GPU-s and
// moves to queue 1. The next jump is computed from executed seconds, not GPU-seconds, as the
// peer does: 813 + ceil((7200 - 813) / 4) = 813 + 1597 = 2410 (the true crossing is at 1800).
TEST(TiresiasDlasTest, GpuTimeJumpsFollowThePeersFormula) {
  PolicyHarness h({{kFast, 4}}, "dlas-gpu");
  h.Submit(1, 4, 0, 100000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(813.0));
  h.ScheduleAt(813);
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(813.0, 2410.0));
}

// dlas (executed time), limits 10 and 20 s, four GPUs. Job 1 (4 GPUs) runs from 0; job 2 (4 GPUs)
// arrives at 5 and waits behind it in queue 0 (running jobs come first). At 10 job 1 has run
// 10 s and moves to queue 1; job 2, in queue 0, gets the GPUs and job 1 is preempted.
TEST(TiresiasDlasTest, DemotedJobYieldsToQueueZero) {
  PolicyHarness h({{kFast, 4}}, "dlas", {"thresholds=10;20"});
  h.Submit(1, 4, 0, 100000);
  h.ScheduleAt(0);
  h.Submit(2, 4, 5, 100000);
  h.ScheduleAt(5);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1,2,3]"));
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(10.0));  // 10 - 0 + 0, then 10 - 5 + 5: asked once
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 2 on [0,1,2,3]"));
}

// Two GPUs, dlas, limits 10 and 100 s. Jobs 1 and 2 (1 GPU each) start at 0; job 3 (2 GPUs)
// arrives at 1 and waits. At 10 jobs 1 and 2 move to queue 1 (in arrival order) and job 3, alone
// in queue 0, preempts both. At 20 job 3 has run 10 s: it joins queue 1 *behind* the waiting
// jobs 1 and 2 (a demoted job is appended; the running-first reordering comes after the
// allocation), so they take the two GPUs back and job 3 is preempted. Their next jump:
// 100 - 10 + 20 = 110.
TEST(TiresiasDlasTest, DemotedRunningJobQueuesBehindWaitingOnes) {
  PolicyHarness h({{kFast, 2}}, "dlas", {"thresholds=10;100"});
  h.Submit(1, 1, 0, 100000);
  h.Submit(2, 1, 0, 100000);
  h.ScheduleAt(0);
  h.Submit(3, 2, 1, 100000);
  h.ScheduleAt(1);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]", "start 2 on [1]"));
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "preempt 2", "start 3 on [0,1]"));
  h.ScheduleAt(20);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 3", "start 1 on [0]", "start 2 on [1]"));
  EXPECT_EQ(h.backend().wake_ups.back(), 110.0);
}

TEST(TiresiasDlasTest, RejectsBadThresholds) {
  auto parsed = Options::Parse({"thresholds=20;10"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("dlas", *parsed).ok());
}

}  // namespace
}  // namespace hetsched
