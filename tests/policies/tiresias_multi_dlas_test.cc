// multi-dlas-gpu: Tiresias' simulator's per-GPU-count dlas-gpu with shares re-divided every 600 s
// (run_sim.py multi_dlas_sim_jobs, jobs.py reserve_gpus). Each expected value is worked out from
// the peer's rules, quoted in policies/tiresias/multi_dlas.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_backend.h"

namespace hetsched {
namespace {

using test::kFast;
using test::PolicyHarness;
using ::testing::ElementsAre;

// Four GPUs. 0: job 1 (1 GPU) and job 2 (2 GPUs) arrive; every class starts with no GPUs, so
// nothing runs until the first re-division, at 600.
// 600: demands 1 (class 1) and 2 (class 2), 3 in all, 4 GPUs free. By ascending demand: class 1
// gets min(1, floor(round(1/3, 2) x 4 / 1) x 1) = floor(1.32) = 1; class 2 min(2, floor(0.67 x 4
// / 2) x 2) = floor(1.34) x 2 = 2. Both have their demand: the 4th GPU stays unassigned. Both
// jobs start.
// 700: job 3 (1 GPU) joins class 1, whose share (1) is used: it waits though a GPU is idle.
// 1200: demands 2 and 2, 3 GPUs used, 1 free. Class 1 (first of the tie, by first arrival):
// min(2, floor(0.5 x 4)) = 2, 1 beyond its use, the last free GPU; class 2 keeps its 2. Job 3
// starts. Wake-ups: the re-divisions at 600, 1200, 1800 come before any queue jump (job 2's, the
// first, at 1200 + ceil((3600 - 600) / 2) = 2700).
TEST(TiresiasMultiDlasTest, SharesFollowDemandEveryInterval) {
  PolicyHarness h({{kFast, 4}}, "multi-dlas-gpu");
  h.Submit(1, 1, 0, 1000000);
  h.Submit(2, 2, 0, 1000000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
  h.ScheduleAt(600);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]", "start 2 on [1,2]"));
  h.Submit(3, 1, 700, 1000000);
  h.ScheduleAt(700);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
  h.ScheduleAt(1200);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 3 on [3]"));
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(600.0, 1200.0, 1800.0));
}

// Eight GPUs, one 4-GPU job (1) and five 1-GPU jobs (2-6) at 0. At 600: demands 4 and 5 of 9. The
// 4-GPU class, smaller demand, first: floor(round(4/9, 2) x 8 / 4) x 4 = floor(0.88) x 4 = 0. The
// 1-GPU class: min(5, floor(0.56 x 8)) = 4. Then, by GPU count, one job's worth at a time while
// free GPUs last: the 1-GPU class takes 1 more (4 left -> 3), the 4-GPU class cannot take 4 of 3.
// So five 1-GPU jobs run, the 4-GPU job waits, three GPUs idle.
TEST(TiresiasMultiDlasTest, FlooredShareCanLeaveGpusIdle) {
  PolicyHarness h({{kFast, 8}}, "multi-dlas-gpu");
  h.Submit(1, 4, 0, 1000000);
  for (JobId id = 2; id <= 6; ++id) h.Submit(id, 1, 0, 1000000);
  h.ScheduleAt(0);
  h.ScheduleAt(600);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 2 on [0]", "start 3 on [1]", "start 4 on [2]", "start 5 on [3]",
                                       "start 6 on [4]"));
  EXPECT_EQ(h.state(1), JobState::kPending);
}

TEST(TiresiasMultiDlasTest, RejectsBadOptions) {
  auto& registry = Registry<JobScheduler>::Instance();
  EXPECT_TRUE(registry.Create("multi-dlas-gpu", *Options::Parse({"interval=300", "thresholds=1000"})).ok());
  EXPECT_FALSE(registry.Create("multi-dlas-gpu", *Options::Parse({"interval=0"})).ok());
  EXPECT_FALSE(registry.Create("multi-dlas-gpu", *Options::Parse({"thresholds=20;10"})).ok());
}

}  // namespace
}  // namespace hetsched
