#include "hetsched/policies/gadget/realloc.h"

#include <vector>

#include <gtest/gtest.h>

#include "fake_backend.h"

namespace hetsched::test {
namespace {

using gadget::EffectiveRate;
using gadget::PaysForItself;
using gadget::RingCandidate;
using gadget::RingCandidates;

TEST(GadgetReallocRuleTest, AChangePaysWhenItsWorkOverTheHorizonIsLarger) {
  // x0 = 1, x1 = 2, pause 100 s, H = 3600 s, far from the end: 2 x 3500 / 3600 = 1.9444 > 1.
  EXPECT_NEAR(EffectiveRate(1, 2, 100, 1e6, 3600), 2 * 3500.0 / 3600, 1e-12);
  EXPECT_TRUE(PaysForItself(1, 2, 100, 1e6, 3600));
  // A 2% faster ring does not repay a 100 s pause within an hour: 1.02 x 3500 / 3600 = 0.9917.
  EXPECT_FALSE(PaysForItself(1, 1.02, 100, 1e6, 3600));
  // Near its end (R = 200 iterations at 1 it/s: 200 s left) H' = 200 s: doubling the rate after
  // a 100 s pause ends it at 200 s too (2 x 100 / 200 = 1, not > 1); after a 90 s pause, at 190 s.
  EXPECT_DOUBLE_EQ(EffectiveRate(1, 2, 100, 200, 3600), 1.0);
  EXPECT_FALSE(PaysForItself(1, 2, 100, 200, 3600));
  EXPECT_TRUE(PaysForItself(1, 2, 90, 200, 3600));
  // A pause longer than the horizon: no progress at all within it.
  EXPECT_DOUBLE_EQ(EffectiveRate(1, 5, 4000, 1e6, 3600), 0.0);
}

std::vector<DeviceId> Ids(std::initializer_list<DeviceId> l) { return l; }

// Three servers of fast GPUs: node 0 = devices 0-3, node 1 = 4-11, node 2 = 12-15.
TEST(GadgetReallocCandidatesTest, GrowInPlaceOrMoveToTheBestFitServer) {
  TestCluster c({{kFast, 4}, {kFast, 8}, {kFast, 4}});
  ClusterState state(c.cluster());
  ASSERT_TRUE(state.Allocate(7, Ids({0, 1})).ok());
  ASSERT_TRUE(state.Allocate(8, Ids({12, 13, 14})).ok());
  std::vector<RingCandidate> out;
  // 4 workers: node 0 holds its 2 + 2 free (keeps 2); the best fit elsewhere is node 1 (8 free;
  // node 2 has 1 free).
  RingCandidates(state, Ids({0, 1}), 4, &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].devices, Ids({0, 1, 2, 3}));
  EXPECT_EQ(out[0].span, 1);
  EXPECT_EQ(out[0].kept, 2);
  EXPECT_EQ(out[1].devices, Ids({4, 5, 6, 7}));
  EXPECT_EQ(out[1].kept, 0);
  // 8 workers: only node 1 holds them.
  out.clear();
  RingCandidates(state, Ids({0, 1}), 8, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].devices, Ids({4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST(GadgetReallocCandidatesTest, ASpreadRingConsolidatesOrGrowsOverItsOwnServers) {
  TestCluster c({{kFast, 4}, {kFast, 8}, {kFast, 4}});
  ClusterState state(c.cluster());
  const std::vector<DeviceId> own = {3, 4, 5, 6};  // 1 on node 0, 3 on node 1
  ASSERT_TRUE(state.Allocate(9, own).ok());
  std::vector<RingCandidate> out;
  // 4 workers: node 1 (3 own + 5 free) keeps 3; the best fit elsewhere: node 2 (4 free; node 0
  // has 3 free, too few).
  RingCandidates(state, own, 4, &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].devices, Ids({4, 5, 6, 7}));
  EXPECT_EQ(out[0].kept, 3);
  EXPECT_EQ(out[1].devices, Ids({12, 13, 14, 15}));
  // 12 workers: no server holds them; its own two servers do: node 1 (own 4,5,6 + free 7-11),
  // then node 0 (own 3 + free 0,1,2), span 2, all 4 own devices kept.
  out.clear();
  RingCandidates(state, own, 12, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].devices, Ids({4, 5, 6, 7, 8, 9, 10, 11, 3, 0, 1, 2}));
  EXPECT_EQ(out[0].span, 2);
  EXPECT_EQ(out[0].kept, 4);
}

}  // namespace
}  // namespace hetsched::test
