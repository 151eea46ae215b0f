#include "hetsched/sched/cluster_state.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "hetsched/util/rng.h"
#include "test_cluster.h"

namespace hetsched {
namespace {

using testing_util::MakeTinyWorld;

TEST(ClusterStateTest, StartsAllFree) {
  auto w = MakeTinyWorld(3, 2);  // 3x4 gpu-a + 2x2 gpu-b = 16 devices
  ClusterState s(*w->cluster);
  EXPECT_EQ(s.total_free(), 16);
  EXPECT_EQ(s.free_of_type(w->gpu_a), 12);
  EXPECT_EQ(s.free_of_type(w->gpu_b), 4);
  EXPECT_EQ(s.free_on_node(4), 2);
  EXPECT_TRUE(s.CheckConsistency().ok());
}

TEST(ClusterStateTest, AllocateReleaseUpdatesCounters) {
  auto w = MakeTinyWorld(3, 2);
  ClusterState s(*w->cluster);
  std::vector<DeviceId> devs{0, 1, 5};  // node 0 devices 0,1; node 1 device 1 (id 5)
  ASSERT_TRUE(s.Allocate(7, devs).ok());
  EXPECT_EQ(s.total_free(), 13);
  EXPECT_EQ(s.free_on_node(0), 2);
  EXPECT_EQ(s.free_on_node(1), 3);
  EXPECT_EQ(s.owner(5), 7);
  EXPECT_TRUE(s.CheckConsistency().ok());
  ASSERT_TRUE(s.Release(7, devs).ok());
  EXPECT_EQ(s.total_free(), 16);
  EXPECT_TRUE(s.is_free(5));
}

TEST(ClusterStateTest, DoubleBookingIsRejectedAndChangesNothing) {
  auto w = MakeTinyWorld(1, 0);
  ClusterState s(*w->cluster);
  std::vector<DeviceId> first{0, 1};
  ASSERT_TRUE(s.Allocate(1, first).ok());
  std::vector<DeviceId> second{2, 1};
  Status st = s.Allocate(2, second);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("double booking: device 1 is held by job 1"), std::string::npos);
  EXPECT_TRUE(s.is_free(2));  // nothing of the failed request was taken
  std::vector<DeviceId> dup{3, 3};
  EXPECT_FALSE(s.Allocate(3, dup).ok());
  std::vector<DeviceId> not_mine{0};
  EXPECT_FALSE(s.Release(9, not_mine).ok());
  EXPECT_TRUE(s.CheckConsistency().ok());
}

TEST(ClusterStateTest, ASharedDeviceHoldsTwoJobsAndPassesToTheOneThatStays) {
  auto w = MakeTinyWorld(3, 2);
  ClusterState s(*w->cluster);
  const std::vector<DeviceId> devs{0, 1};
  ASSERT_TRUE(s.Allocate(7, devs).ok());
  ASSERT_TRUE(s.AllocateShared(8, devs).ok());
  EXPECT_EQ(s.owner(0), 7);
  EXPECT_EQ(s.guest(0), 8);
  EXPECT_TRUE(s.holds(8, 1));
  EXPECT_EQ(s.total_free(), 14);  // shared devices are counted busy once
  EXPECT_EQ(s.shared_devices(), 2);
  EXPECT_TRUE(s.CheckConsistency().ok());
  // The owner leaves: the guest owns the devices alone, which stay busy.
  ASSERT_TRUE(s.Release(7, devs).ok());
  EXPECT_EQ(s.owner(0), 8);
  EXPECT_EQ(s.guest(0), kNoJob);
  EXPECT_EQ(s.total_free(), 14);
  EXPECT_EQ(s.shared_devices(), 0);
  EXPECT_TRUE(s.CheckConsistency().ok());
  // A guest that leaves first leaves the owner alone.
  ASSERT_TRUE(s.AllocateShared(9, devs).ok());
  ASSERT_TRUE(s.Release(9, devs).ok());
  EXPECT_EQ(s.owner(1), 8);
  EXPECT_EQ(s.guest(1), kNoJob);
  ASSERT_TRUE(s.Release(8, devs).ok());
  EXPECT_EQ(s.total_free(), 16);
  EXPECT_TRUE(s.CheckConsistency().ok());
}

TEST(ClusterStateTest, SharingIsRefusedOnFreeOwnOrFullDevicesAndChangesNothing) {
  auto w = MakeTinyWorld(3, 2);
  ClusterState s(*w->cluster);
  ASSERT_TRUE(s.Allocate(7, std::vector<DeviceId>{0, 1}).ok());
  EXPECT_FALSE(s.AllocateShared(8, std::vector<DeviceId>{0, 2}).ok()) << "device 2 is free";
  EXPECT_FALSE(s.AllocateShared(7, std::vector<DeviceId>{0}).ok()) << "its own device";
  EXPECT_FALSE(s.AllocateShared(8, std::vector<DeviceId>{0, 0}).ok()) << "listed twice";
  EXPECT_EQ(s.guest(0), kNoJob);
  ASSERT_TRUE(s.AllocateShared(8, std::vector<DeviceId>{0, 1}).ok());
  EXPECT_FALSE(s.AllocateShared(9, std::vector<DeviceId>{1}).ok()) << "a third job";
  EXPECT_FALSE(s.Release(9, std::vector<DeviceId>{1}).ok()) << "not its device";
  EXPECT_EQ(s.shared_devices(), 2);
  EXPECT_TRUE(s.CheckConsistency().ok());
}

TEST(ClusterStateTest, NodeQueries) {
  auto w = MakeTinyWorld(4, 0);  // nodes 0..3, 4 devices each
  ClusterState s(*w->cluster);
  // Free counts after this: node0 = 1, node1 = 4, node2 = 2, node3 = 4.
  std::vector<DeviceId> a{0, 1, 2};
  std::vector<DeviceId> b{8, 9};
  ASSERT_TRUE(s.Allocate(1, a).ok());
  ASSERT_TRUE(s.Allocate(2, b).ok());
  EXPECT_EQ(s.FirstNodeWithFree(w->gpu_a, 1), 0);
  EXPECT_EQ(s.FirstNodeWithFree(w->gpu_a, 2), 1);
  EXPECT_EQ(s.FirstNodeWithFree(w->gpu_a, 2, /*from_pos=*/2), 2);
  EXPECT_EQ(s.FirstNodeWithFree(w->gpu_a, 3, 2), 3);
  EXPECT_EQ(s.FirstNodeWithFree(w->gpu_a, 5), -1);
  EXPECT_EQ(s.FirstNodeWithFree(w->gpu_b, 1), -1);  // no node of that type
  EXPECT_EQ(s.BestFitNode(w->gpu_a, 1), 0);  // the node with 1 free
  EXPECT_EQ(s.BestFitNode(w->gpu_a, 2), 2);  // 2 free beats 4 free
  EXPECT_EQ(s.BestFitNode(w->gpu_a, 3), 1);  // lowest id among the 4-free nodes
  std::vector<NodeId> most;
  s.AppendNodesByMostFree(w->gpu_a, 3, &most);
  EXPECT_EQ(most, (std::vector<NodeId>{1, 3, 2}));
  std::vector<DeviceId> free_dev;
  s.AppendFreeDevices(0, &free_dev);
  EXPECT_EQ(free_dev, (std::vector<DeviceId>{3}));
}

// Property: after random allocations and releases the indexes agree with a brute-force view.
TEST(ClusterStateTest, RandomOperationsKeepIndexesConsistent) {
  auto w = MakeTinyWorld(9, 5);
  ClusterState s(*w->cluster);
  Rng rng(42);
  std::vector<std::vector<DeviceId>> held(20);
  for (int step = 0; step < 2000; ++step) {
    const JobId job = static_cast<JobId>(rng.Below(20));
    auto& mine = held[static_cast<size_t>(job)];
    if (!mine.empty()) {
      ASSERT_TRUE(s.Release(job, mine).ok());
      mine.clear();
    } else {
      const int want = 1 + static_cast<int>(rng.Below(5));
      for (DeviceId d = static_cast<DeviceId>(rng.Below(46)); d < 46 && static_cast<int>(mine.size()) < want; ++d) {
        if (s.is_free(d)) mine.push_back(d);
      }
      ASSERT_TRUE(s.Allocate(job, mine).ok());
    }
    ASSERT_TRUE(s.CheckConsistency().ok()) << "step " << step;
    for (int need = 1; need <= 4; ++need) {
      NodeId expect = -1;
      for (NodeId n : s.nodes_of_type(w->gpu_a)) {
        if (s.free_on_node(n) >= need) { expect = n; break; }
      }
      ASSERT_EQ(s.FirstNodeWithFree(w->gpu_a, need), expect);
      NodeId best = -1;
      for (NodeId n : s.nodes_of_type(w->gpu_a)) {
        if (s.free_on_node(n) >= need && (best < 0 || s.free_on_node(n) < s.free_on_node(best))) best = n;
      }
      ASSERT_EQ(s.BestFitNode(w->gpu_a, need), best);
    }
  }
}

}  // namespace
}  // namespace hetsched
