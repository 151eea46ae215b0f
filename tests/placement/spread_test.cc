#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placer_test_util.h"

namespace hetsched::test {
namespace {

using ::testing::ElementsAre;

// Free: node0 {3} (1), node1 {6,7} (2), node2 {8..11} (4). Most-free order: node2, node1, node0.
TEST_F(ThreeNodeFixture, SpreadGoesRoundRobinOverMostFreeNodes) {
  auto placer = MakePlacer("spread");
  EXPECT_THAT(PlaceN(*placer, 1), ElementsAre(8));
  EXPECT_THAT(PlaceN(*placer, 3), ElementsAre(8, 6, 3));         // one per node
  EXPECT_THAT(PlaceN(*placer, 5), ElementsAre(8, 6, 3, 9, 7));   // round 2: node2, node1
  EXPECT_THAT(PlaceN(*placer, 7), ElementsAre(8, 6, 3, 9, 7, 10, 11));
  EXPECT_THAT(PlaceN(*placer, 8), ElementsAre(-1));
}

TEST(SpreadTypesTest, PrefersTypeWithMostFreeDevices) {
  // node0: 2 fast (0,1); node1, node2: 2 slow each (2,3 / 4,5).
  TestCluster cluster({{kFast, 2}, {kSlow, 2}, {kSlow, 2}});
  ClusterState state(cluster.cluster());
  auto placer = MakePlacer("spread");
  std::vector<DeviceId> out;
  ASSERT_TRUE(placer->Place({nullptr, 2, kNoDeviceType}, state, &out));
  EXPECT_THAT(out, ElementsAre(2, 4));  // slow has 4 free vs fast 2; one device per slow node
}

}  // namespace
}  // namespace hetsched::test
