#include <algorithm>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hetsched/util/rng.h"
#include "placer_test_util.h"

namespace hetsched::test {
namespace {

using ::testing::ElementsAre;

// Free: node0 {3} (1), node1 {6,7} (2), node2 {8..11} (4).
TEST_F(ThreeNodeFixture, GadgetRingBestFitServer) {
  auto placer = MakePlacer("gadget-ring");
  EXPECT_THAT(PlaceN(*placer, 1), ElementsAre(3));         // fewest free >= 1: node0
  EXPECT_THAT(PlaceN(*placer, 2), ElementsAre(6, 7));      // node1 (2) before node2 (4)
  EXPECT_THAT(PlaceN(*placer, 4), ElementsAre(8, 9, 10, 11));
}

TEST_F(ThreeNodeFixture, GadgetRingFewestServersWithBestFitRemainder) {
  auto placer = MakePlacer("gadget-ring");
  // 5: two servers needed (4 + 2 >= 5). node2 whole (4), the remainder 1 on the best fit among
  // the others: node0 (1 free), not node1 as pack would (most free first: 8..11, 6).
  EXPECT_THAT(PlaceN(*placer, 5), ElementsAre(8, 9, 10, 11, 3));
  // 6: node2 whole, remainder 2: node1 is the only other server with 2 free.
  EXPECT_THAT(PlaceN(*placer, 6), ElementsAre(8, 9, 10, 11, 6, 7));
  // 7: three servers: node2, node1 whole, remainder 1 on node0.
  EXPECT_THAT(PlaceN(*placer, 7), ElementsAre(8, 9, 10, 11, 6, 7, 3));
  EXPECT_THAT(PlaceN(*placer, 8), ElementsAre(-1));
}

TEST(GadgetRingTypesTest, PrefersTheTypeWithFewestServers) {
  TestCluster cluster({{kFast, 2}, {kFast, 2}, {kSlow, 2}});
  ClusterState state(cluster.cluster());
  const std::vector<DeviceId> busy_a{0}, busy_b{2};
  ASSERT_TRUE(state.Allocate(1, busy_a).ok());
  ASSERT_TRUE(state.Allocate(2, busy_b).ok());
  auto placer = MakePlacer("gadget-ring");
  std::vector<DeviceId> out;
  ASSERT_TRUE(placer->Place({nullptr, 2, kNoDeviceType}, state, &out));
  EXPECT_THAT(out, ElementsAre(4, 5));  // slow on one server beats fast over two
  out.clear();
  ASSERT_TRUE(placer->Place({nullptr, 2, kFast}, state, &out));
  EXPECT_THAT(out, ElementsAre(1, 3));
}

// Properties on random clusters: the ring never uses a device twice, only free devices of one
// allowed (and, when given, the requested) type, succeeds exactly when that type has room,
// spans the fewest servers possible, and visits each server's devices consecutively.
TEST(GadgetRingPropertiesTest, RandomRingsKeepTheInvariants) {
  Rng rng(99);
  auto placer = MakePlacer("gadget-ring");
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<std::pair<DeviceTypeId, int>> nodes;
    const int num_nodes = 1 + static_cast<int>(rng.Below(12));
    for (int i = 0; i < num_nodes; ++i) {
      nodes.push_back({rng.Below(2) == 0 ? kFast : kSlow, 1 + static_cast<int>(rng.Below(8))});
    }
    TestCluster cluster(nodes);
    ClusterState state(cluster.cluster());
    std::vector<DeviceId> busy;
    for (DeviceId d = 0; d < cluster.cluster().num_devices(); ++d) {
      if (rng.Uniform() < 0.5) busy.push_back(d);
    }
    ASSERT_TRUE(state.Allocate(1, busy).ok());
    for (int r = 0; r < 30; ++r) {
      JobSpec job;
      const int mode = static_cast<int>(rng.Below(3));
      if (mode == 1) job.allowed_types = {kSlow};
      const DeviceTypeId requested = mode == 2 ? (rng.Below(2) == 0 ? kFast : kSlow) : kNoDeviceType;
      const int n = 1 + static_cast<int>(rng.Below(12));
      const auto& catalog = state.cluster().device_catalog();
      bool feasible = false;
      int fewest = 1 << 30;  // the fewest servers of any usable type that hold n
      for (DeviceTypeId t : {kFast, kSlow}) {
        if (!job.AllowsType(t, catalog) || (requested != kNoDeviceType && requested != t)) continue;
        if (state.free_of_type(t) < n) continue;
        feasible = true;
        std::vector<int> free;
        for (NodeId node : state.nodes_of_type(t)) free.push_back(state.free_on_node(node));
        std::sort(free.rbegin(), free.rend());
        int k = 0, sum = 0;
        while (sum < n) sum += free[static_cast<size_t>(k++)];
        fewest = std::min(fewest, k);
      }
      std::vector<DeviceId> out;
      const bool placed = placer->Place({&job, n, requested}, state, &out);
      ASSERT_EQ(placed, feasible) << "n=" << n << " trial " << trial;
      if (!placed) {
        EXPECT_TRUE(out.empty());
        continue;
      }
      ASSERT_EQ(out.size(), static_cast<size_t>(n));
      EXPECT_EQ(std::set<DeviceId>(out.begin(), out.end()).size(), out.size()) << "a device used twice";
      const DeviceTypeId type = cluster.cluster().device(out[0]).type;
      EXPECT_TRUE(job.AllowsType(type, catalog));
      if (requested != kNoDeviceType) {
        EXPECT_EQ(type, requested);
      }
      std::vector<NodeId> order;  // servers in ring order, one entry per run of consecutive devices
      for (DeviceId d : out) {
        EXPECT_TRUE(state.is_free(d));
        EXPECT_EQ(cluster.cluster().device(d).type, type);
        const NodeId node = cluster.cluster().device(d).node;
        if (order.empty() || order.back() != node) order.push_back(node);
      }
      EXPECT_EQ(std::set<NodeId>(order.begin(), order.end()).size(), order.size()) << "ring not node-contiguous";
      EXPECT_EQ(static_cast<int>(order.size()), fewest) << "n=" << n << " trial " << trial;
    }
  }
}

}  // namespace
}  // namespace hetsched::test
