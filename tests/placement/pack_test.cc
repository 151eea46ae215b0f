#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placer_test_util.h"

namespace hetsched::test {
namespace {

using ::testing::ElementsAre;

// Free: node0 {3} (1), node1 {6,7} (2), node2 {8..11} (4).
TEST_F(ThreeNodeFixture, PackUsesBestFitNode) {
  auto placer = MakePlacer("pack");
  EXPECT_THAT(PlaceN(*placer, 1), ElementsAre(3));         // fewest free >= 1: node0
  EXPECT_THAT(PlaceN(*placer, 2), ElementsAre(6, 7));      // node1 (2) before node2 (4)
  EXPECT_THAT(PlaceN(*placer, 3), ElementsAre(8, 9, 10));  // only node2
}

TEST_F(ThreeNodeFixture, PackSpansFewestNodesMostFreeFirst) {
  auto placer = MakePlacer("pack");
  // 5: node2 (4 free) then node1 (2 free): 2 nodes, where first-fit would use 3.
  EXPECT_THAT(PlaceN(*placer, 5), ElementsAre(8, 9, 10, 11, 6));
  EXPECT_THAT(PlaceN(*placer, 7), ElementsAre(8, 9, 10, 11, 6, 7, 3));
  EXPECT_THAT(PlaceN(*placer, 8), ElementsAre(-1));
}

TEST(PackTypesTest, PrefersTypeWithFewestNodes) {
  // node0, node1: 2 fast each (0,1 / 2,3), one busy on each; node2: 2 slow (4,5), both free.
  TestCluster cluster({{kFast, 2}, {kFast, 2}, {kSlow, 2}});
  ClusterState state(cluster.cluster());
  const std::vector<DeviceId> busy_a{0}, busy_b{2};
  ASSERT_TRUE(state.Allocate(1, busy_a).ok());
  ASSERT_TRUE(state.Allocate(2, busy_b).ok());
  auto placer = MakePlacer("pack");
  std::vector<DeviceId> out;
  // 2 devices: fast would span node0 + node1, slow fits on node2 alone.
  ASSERT_TRUE(placer->Place({nullptr, 2, kNoDeviceType}, state, &out));
  EXPECT_THAT(out, ElementsAre(4, 5));
  out.clear();
  // Forced onto fast: the two half-free nodes.
  ASSERT_TRUE(placer->Place({nullptr, 2, kFast}, state, &out));
  EXPECT_THAT(out, ElementsAre(1, 3));
}

}  // namespace
}  // namespace hetsched::test
