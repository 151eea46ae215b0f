#include <gtest/gtest.h>

#include "fake_backend.h"

namespace hetsched::test {
namespace {

// One node of 4 fast GPUs. Job 0 (3 GPUs) starts; job 1 (2) does not fit but job 2 (1) behind it
// does (FIFO would block it); when job 0 ends, job 1 starts.
TEST(ListSchedulingTest, JobsThatFitStartInListOrderWithoutBlocking) {
  PolicyHarness h({{kFast, 4}}, "list-scheduling");
  h.Submit(0, 3, 0, 100);
  h.Submit(1, 2, 1, 100);
  h.Submit(2, 1, 2, 100);
  h.ScheduleAt(2);
  EXPECT_EQ(h.TakeLog(), (std::vector<std::string>{"start 0 on [0,1,2]", "start 2 on [3]"}));
  EXPECT_EQ(h.state(1), JobState::kPending);
  h.Finish(0, 10);
  h.ScheduleAt(10);
  EXPECT_EQ(h.TakeLog(), (std::vector<std::string>{"start 1 on [0,1]"}));
}

TEST(ListSchedulingTest, RequeuedJobKeepsItsPlace) {
  PolicyHarness h({{kFast, 2}}, "list-scheduling");
  h.Submit(0, 2, 0, 100);
  h.ScheduleAt(0);
  h.Submit(1, 2, 1, 100);
  h.Requeue(0, 5);
  h.TakeLog();
  h.ScheduleAt(5);
  EXPECT_EQ(h.TakeLog(), (std::vector<std::string>{"start 0 on [0,1]"}));
}

TEST(ListSchedulingTest, RejectsBadWindow) {
  auto parsed = Options::Parse({"window=0"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("list-scheduling", *parsed).ok());
}

}  // namespace
}  // namespace hetsched::test
