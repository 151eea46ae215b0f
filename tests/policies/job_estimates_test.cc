#include "hetsched/policies/job_estimates.h"

#include <cmath>

#include <gtest/gtest.h>

#include "fake_backend.h"

namespace hetsched {
namespace {

using test::kFast;
using test::kSlow;
using test::PolicyHarness;

// node0: 2 fast (1 s/iter), node1: 2 slow (2 s/iter). Policy irrelevant (fifo, never scheduled).
class JobEstimatesTest : public ::testing::Test {
 protected:
  PolicyHarness h_{{{kFast, 2}, {kSlow, 2}}, "fifo"};
};

TEST_F(JobEstimatesTest, UsableTypesHonourAllowedTypes) {
  h_.Submit(1, 1, 0, 10);
  h_.Submit(2, 1, 0, 10, 0, {kSlow});
  EXPECT_EQ(UsableTypes(*h_.ctx().job(1).spec, h_.ctx().cluster()), (std::vector<DeviceTypeId>{kFast, kSlow}));
  EXPECT_EQ(UsableTypes(*h_.ctx().job(2).spec, h_.ctx().cluster()), (std::vector<DeviceTypeId>{kSlow}));
}

TEST_F(JobEstimatesTest, RemainingFromIterations) {
  h_.Submit(1, 1, 0, 100);
  // 100 iterations: fast 100 x 1 = 100 s, slow 100 x 2 = 200 s; fastest 100 s.
  EXPECT_DOUBLE_EQ(RemainingEstimateS(h_.ctx(), 1, kFast), 100);
  EXPECT_DOUBLE_EQ(RemainingEstimateS(h_.ctx(), 1, kSlow), 200);
  EXPECT_DOUBLE_EQ(RemainingOnFastestS(h_.ctx(), 1), 100);
  // Running on slow from 0 at 0.5 iterations/s: at 40, 20 iterations done, 80 left: 80 s on fast.
  ASSERT_TRUE(h_.ctx().TryStart(1, 1, kSlow));
  h_.backend().set_now(40);
  EXPECT_DOUBLE_EQ(RemainingOnFastestS(h_.ctx(), 1), 80);
}

TEST_F(JobEstimatesTest, RemainingFromUserEstimateAndUnknown) {
  h_.Submit(1, 1, 0, 1000, /*estimated_runtime_s=*/300);
  h_.Submit(2, 1, 0, 0);
  ASSERT_TRUE(h_.ctx().TryStart(1, 1));
  h_.backend().set_now(100);
  EXPECT_DOUBLE_EQ(RemainingEstimateS(h_.ctx(), 1, kSlow), 200);  // 300 - 100 executed
  h_.backend().set_now(500);
  EXPECT_DOUBLE_EQ(RemainingEstimateS(h_.ctx(), 1, kFast), 0);    // overran: about to end
  EXPECT_TRUE(std::isinf(RemainingEstimateS(h_.ctx(), 2, kFast)));
}

TEST_F(JobEstimatesTest, ChooseVictimsPicksTypeNeedingFewestDevices) {
  h_.Submit(1, 2, 0, 100, 0, {kFast});  // fast: 2 devices
  h_.Submit(2, 1, 0, 100, 0, {kSlow});  // slow: 1 device, 1 slow free
  h_.Submit(3, 2, 0, 100);
  ASSERT_TRUE(h_.ctx().TryStart(1, 2));
  ASSERT_TRUE(h_.ctx().TryStart(2, 1));
  // Job 3 needs 2: on fast it must preempt job 1 (2 devices), on slow job 2 (1 device) suffices.
  VictimChoice choice;
  ChooseVictims(h_.ctx(), 3, [](DeviceTypeId t, VictimVisit visit) { visit(t == kFast ? 1 : 2); }, &choice);
  EXPECT_EQ(choice.type, kSlow);
  EXPECT_EQ(choice.victims, (std::vector<JobId>{2}));
  // With no victims offered, nothing frees enough: the reused choice keeps nothing of the last.
  ChooseVictims(h_.ctx(), 3, [](DeviceTypeId, VictimVisit) {}, &choice);
  EXPECT_EQ(choice.type, kNoDeviceType);
  EXPECT_TRUE(choice.victims.empty());
}

TEST(ParseIncreasingListTest, ParsesAndRejects) {
  auto ok = ParseIncreasingList("3600; 36000", "thresholds");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, (std::vector<double>{3600, 36000}));
  EXPECT_TRUE(ParseIncreasingList("", "thresholds")->empty());
  EXPECT_FALSE(ParseIncreasingList("10;10", "thresholds").ok());
  EXPECT_FALSE(ParseIncreasingList("10;x", "thresholds").ok());
  auto neg = ParseIncreasingList("0", "thresholds");
  ASSERT_FALSE(neg.ok());
  EXPECT_NE(neg.status().message().find("thresholds"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
