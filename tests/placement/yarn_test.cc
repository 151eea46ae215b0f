#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placer_test_util.h"

namespace hetsched::test {
namespace {

using ::testing::ElementsAre;

// Free: node0 {3}, node1 {6,7}, node2 {8,9,10,11}. A job that fits in a node goes on the first
// node with room (Tiresias switch.py try_single_node_alloc).
TEST_F(ThreeNodeFixture, YarnPutsASmallJobOnTheFirstNodeWithRoom) {
  auto placer = MakePlacer("yarn");
  EXPECT_THAT(PlaceN(*placer, 1), ElementsAre(3));
  EXPECT_THAT(PlaceN(*placer, 2), ElementsAre(6, 7));
  EXPECT_THAT(PlaceN(*placer, 4), ElementsAre(8, 9, 10, 11));
}

// A job larger than a node takes floor(n / 4) wholly free nodes plus the first other node with
// room for n % 4. Here only node2 is wholly free: 5 = node2 + 1 on node0 (its free device 3);
// 6 = node2 + 2 on node1 (node0 has only 1). 7 free devices in all, but an 8-GPU job needs two
// whole nodes: it waits, where first-fit would not place it either (7 < 8) -- and a 7-GPU job
// needs node2 + 3 on one node, which no node has, though 7 devices are free.
TEST_F(ThreeNodeFixture, YarnTakesWholeNodesPlusOneForTheRest) {
  auto placer = MakePlacer("yarn");
  EXPECT_THAT(PlaceN(*placer, 5), ElementsAre(8, 9, 10, 11, 3));
  EXPECT_THAT(PlaceN(*placer, 6), ElementsAre(8, 9, 10, 11, 6, 7));
  EXPECT_THAT(PlaceN(*placer, 7), ElementsAre(-1));
  EXPECT_THAT(PlaceN(*placer, 8), ElementsAre(-1));
}

// Four nodes of 4, nodes 1 and 3 wholly free, node0 with 3 free, node2 with 2: an 8-GPU job takes
// the two whole nodes in id order; a 6-GPU job node1 + 2 of node0 (the first other node with 2).
TEST(YarnTest, WholeNodesInIdOrder) {
  TestCluster cluster({{kFast, 4}, {kFast, 4}, {kFast, 4}, {kFast, 4}});
  ClusterState state(cluster.cluster());
  const std::vector<DeviceId> busy0{0}, busy2{8, 9};
  ASSERT_TRUE(state.Allocate(100, busy0).ok());
  ASSERT_TRUE(state.Allocate(101, busy2).ok());
  auto placer = MakePlacer("yarn");
  std::vector<DeviceId> out;
  ASSERT_TRUE(placer->Place({nullptr, 8, kNoDeviceType}, state, &out));
  EXPECT_THAT(out, ElementsAre(4, 5, 6, 7, 12, 13, 14, 15));
  out.clear();
  ASSERT_TRUE(placer->Place({nullptr, 6, kNoDeviceType}, state, &out));
  EXPECT_THAT(out, ElementsAre(4, 5, 6, 7, 1, 2));
}

}  // namespace
}  // namespace hetsched::test
