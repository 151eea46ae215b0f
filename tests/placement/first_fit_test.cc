#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placer_test_util.h"

namespace hetsched::test {
namespace {

using ::testing::ElementsAre;

// Free: node0 {3}, node1 {6,7}, node2 {8,9,10,11}.
TEST_F(ThreeNodeFixture, FirstFitTakesLowestIdNodeThatHoldsTheJob) {
  auto placer = MakePlacer("first-fit");
  EXPECT_THAT(PlaceN(*placer, 1), ElementsAre(3));            // node0 has 1
  EXPECT_THAT(PlaceN(*placer, 2), ElementsAre(6, 7));         // node0 too small, node1 fits
  EXPECT_THAT(PlaceN(*placer, 3), ElementsAre(8, 9, 10));     // only node2 has 3
  EXPECT_THAT(PlaceN(*placer, 4), ElementsAre(8, 9, 10, 11));
}

TEST_F(ThreeNodeFixture, FirstFitSpillsInNodeIdOrder) {
  auto placer = MakePlacer("first-fit");
  // No node has 5: free devices in node order: 3, 6, 7, 8, 9.
  EXPECT_THAT(PlaceN(*placer, 5), ElementsAre(3, 6, 7, 8, 9));
  EXPECT_THAT(PlaceN(*placer, 7), ElementsAre(3, 6, 7, 8, 9, 10, 11));
  EXPECT_THAT(PlaceN(*placer, 8), ElementsAre(-1));  // 7 free
}

TEST(CandidateTypesTest, IntoReusedVectorReplacesItsContent) {
  TestCluster cluster({{kFast, 2}, {kSlow, 4}});
  ClusterState state(cluster.cluster());
  std::vector<DeviceTypeId> out{7, 7, 7};  // stale: replaced, not appended to
  CandidateTypes({nullptr, 1, kNoDeviceType}, state, &out);
  EXPECT_THAT(out, ElementsAre(kFast, kSlow));
  EXPECT_EQ(out, CandidateTypes({nullptr, 1, kNoDeviceType}, state));
  JobSpec slow_only;
  slow_only.allowed_types = {kSlow};
  CandidateTypes({&slow_only, 1, kNoDeviceType}, state, &out);
  EXPECT_THAT(out, ElementsAre(kSlow));
  CandidateTypes({&slow_only, 1, kFast}, state, &out);  // requested but not allowed
  EXPECT_TRUE(out.empty());
  CandidateTypes({nullptr, 1, kFast}, state, &out);
  EXPECT_THAT(out, ElementsAre(kFast));
}

TEST(FirstFitTypesTest, TriesCandidateTypesInOrder) {
  // node0: 2 fast (0,1), node1: 4 slow (2..5). Fast comes first in the catalog.
  TestCluster cluster({{kFast, 2}, {kSlow, 4}});
  ClusterState state(cluster.cluster());
  auto placer = MakePlacer("first-fit");
  std::vector<DeviceId> out{42};  // existing content is kept: Place appends
  ASSERT_TRUE(placer->Place({nullptr, 2, kNoDeviceType}, state, &out));
  EXPECT_THAT(out, ElementsAre(42, 0, 1));
  out.clear();
  ASSERT_TRUE(placer->Place({nullptr, 3, kNoDeviceType}, state, &out));  // fast has only 2
  EXPECT_THAT(out, ElementsAre(2, 3, 4));
  JobSpec slow_only;
  slow_only.allowed_types = {kSlow};
  out.clear();
  ASSERT_TRUE(placer->Place({&slow_only, 1, kNoDeviceType}, state, &out));
  EXPECT_THAT(out, ElementsAre(2));
  out.clear();
  EXPECT_FALSE(placer->Place({&slow_only, 1, kFast}, state, &out));  // requested type not allowed
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace hetsched::test
