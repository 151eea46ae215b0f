#include "hetsched/policies/rlpto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "fake_backend.h"

namespace hetsched {
namespace {

using ::testing::ElementsAre;
using test::kFast;
using test::PolicyHarness;

TEST(RlptoConvergenceTest, Golden) {
  ConvergenceModel m;  // b = 0.5, f0 = 0.01, epsilon = 0.1
  // L(f) = (f + 0.01)^-0.5: L(0) = 10, L(1) = 1/sqrt(1.01) = 0.99503719.
  // acc(0.5) = (10 - 1/sqrt(0.51)) / (10 - 0.99503719) = (10 - 1.40028008) / 9.00496281 = 0.95499783.
  EXPECT_DOUBLE_EQ(m.Accuracy(0), 0);
  EXPECT_DOUBLE_EQ(m.Accuracy(1), 1);
  EXPECT_NEAR(m.Accuracy(0.5), 0.95499783, 1e-8);
  // acc(f*) = 0.9: L(f*) = 10 - 0.9 x 9.00496281 = 1.89553347, f* = 1.89553347^-2 - 0.01 = 0.26831530.
  EXPECT_NEAR(m.ConvergingFraction(), 0.26831530, 1e-8);
  EXPECT_NEAR(m.Accuracy(m.ConvergingFraction()), 0.9, 1e-12);
}

TEST(RlptoTest, MinimumGpus) {
  EXPECT_EQ(MinimumGpus(8, 0.25), 2);
  EXPECT_EQ(MinimumGpus(3, 0.25), 1);  // ceil(0.75)
  EXPECT_EQ(MinimumGpus(1, 0.25), 1);
  EXPECT_EQ(MinimumGpus(8, 1), 8);
}

// Job 1 (4 GPUs, 100 iterations at 1 s each on the fake planner) converges at 26.83 s. With job
// 2 waiting it halves to 2 GPUs at the next round (30 s), paying a restart, and job 2 starts.
TEST(RlptoTest, ConvergingJobGivesGpusBack) {
  PolicyHarness h({{kFast, 4}}, "rlpto", {"round=30"});
  h.Submit(1, 4, 0, 100);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1,2,3]"));
  h.Submit(2, 1, 5, 100);
  h.ScheduleAt(5);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
  h.ScheduleAt(30);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 1 on [0,1]", "start 2 on [2]"));
}

// Shrinking never goes below the job's minimum: min_share 0.5 of 8 GPUs = 4; however many rounds
// pass with a job waiting, job 1 halves once (8 -> 4) and then keeps 4.
TEST(RlptoTest, ShrinkingNeverBelowTheMinimum) {
  PolicyHarness h({{kFast, 8}}, "rlpto", {"round=10", "min_share=0.5"});
  h.Submit(1, 8, 0, 1000);
  h.ScheduleAt(0);
  h.Submit(2, 8, 1, 10);  // cannot fit while job 1 holds any GPU
  int min_held = 8;
  for (double t = 10; t <= 900; t += 10) {
    h.ScheduleAt(t);
    if (h.state(1) == JobState::kRunning) min_held = std::min(min_held, h.backend().job_status(1).num_devices());
  }
  EXPECT_EQ(min_held, 4);
  EXPECT_EQ(h.backend().job_status(1).preemptions, 1);
}

TEST(RlptoTest, NoShrinkWithoutWaitingJobs) {
  PolicyHarness h({{kFast, 4}}, "rlpto", {"round=30"});
  h.Submit(1, 4, 0, 100);
  h.ScheduleAt(0);
  h.TakeLog();
  h.ScheduleAt(30);
  h.ScheduleAt(60);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
}

TEST(RlptoTest, BadOptions) {
  for (const char* bad : {"round=0", "min_share=0", "min_share=1.5", "epsilon=1", "loss_exponent=0", "reserve=2",
                          "window=0", "model=/nonexistent/agent.bin", "shrink=maybe"}) {
    auto options = Options::Parse({bad});
    ASSERT_TRUE(options.ok());
    EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("rlpto", *options).ok()) << bad;
  }
}

}  // namespace
}  // namespace hetsched
