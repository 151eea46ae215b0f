#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placer_test_util.h"

namespace hetsched::test {
namespace {

using ::testing::ElementsAre;

TEST_F(ThreeNodeFixture, RandomIsReproducibleForASeed) {
  auto a = MakePlacer("random", {"seed=7"});
  auto b = MakePlacer("random", {"seed=7"});
  for (int n = 1; n <= 7; ++n) EXPECT_EQ(PlaceN(*a, n), PlaceN(*b, n)) << n;
  EXPECT_THAT(PlaceN(*a, 8), ElementsAre(-1));
}

TEST_F(ThreeNodeFixture, RandomTakesExactlyTheFreeDevicesWhenAllAreNeeded) {
  auto placer = MakePlacer("random");
  std::vector<DeviceId> got = PlaceN(*placer, 7);
  std::sort(got.begin(), got.end());
  EXPECT_THAT(got, ElementsAre(3, 6, 7, 8, 9, 10, 11));
}

TEST(RandomPlacerTest, NearlyFullClusterFallsBackToAWalk) {
  // 100 nodes x 4 = 400 devices, all busy but 17 and 390: rejection sampling alone would need
  // about 200 draws per device; the bounded walk must still find both.
  std::vector<std::pair<DeviceTypeId, int>> nodes(100, {kFast, 4});
  TestCluster cluster(nodes);
  ClusterState state(cluster.cluster());
  std::vector<DeviceId> busy;
  for (DeviceId d = 0; d < 400; ++d) {
    if (d != 17 && d != 390) busy.push_back(d);
  }
  ASSERT_TRUE(state.Allocate(1, busy).ok());
  for (int seed = 1; seed <= 20; ++seed) {
    auto placer = MakePlacer("random", {"seed=" + std::to_string(seed)});
    std::vector<DeviceId> out;
    ASSERT_TRUE(placer->Place({nullptr, 2, kNoDeviceType}, state, &out)) << seed;
    std::sort(out.begin(), out.end());
    EXPECT_THAT(out, ElementsAre(17, 390)) << seed;
  }
}

TEST(RandomPlacerTest, SpreadsChoicesOverTheFreeDevices) {
  // 8 free devices, 400 single-device placements: every device is picked at least once (the
  // chance that a uniform choice misses one is 8 x (7/8)^400, about 1e-22; the run is seeded).
  TestCluster cluster({{kFast, 4}, {kFast, 4}});
  ClusterState state(cluster.cluster());
  auto placer = MakePlacer("random", {"seed=3"});
  std::vector<int> hits(8, 0);
  for (int i = 0; i < 400; ++i) {
    std::vector<DeviceId> out;
    ASSERT_TRUE(placer->Place({nullptr, 1, kNoDeviceType}, state, &out));
    ++hits[static_cast<size_t>(out[0])];
  }
  for (int d = 0; d < 8; ++d) EXPECT_GT(hits[static_cast<size_t>(d)], 0) << d;
}

TEST(RandomPlacerTest, RejectsBadSeed) {
  Options o;
  o.Set("seed", "abc");
  EXPECT_FALSE(Registry<Placer>::Instance().Create("random", o).ok());
}

}  // namespace
}  // namespace hetsched::test
