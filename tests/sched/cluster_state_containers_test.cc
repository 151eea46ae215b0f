// ClusterState's container accounting: CPU/memory/GPU reservations, the over-commitment
// invariant, the resource index and its branch-and-bound search.
#include <gtest/gtest.h>

#include <limits>

#include "hetsched/sched/cluster_state.h"
#include "hetsched/util/rng.h"
#include "test_cluster.h"

namespace hetsched {
namespace {

using testing_util::MakeTinyWorld;

constexpr int64_t kGB = 1'000'000'000;

ContainerPlacement Container(ContainerRole role, NodeId node, int64_t millicores, int64_t memory,
                             std::vector<DeviceId> devices = {}) {
  ContainerPlacement c;
  c.role = role;
  c.node = node;
  c.request = ContainerRequest{millicores, memory, static_cast<int>(devices.size())};
  c.devices = std::move(devices);
  return c;
}

// Scores a node by its free CPU fraction; the bound is the subtree's maximum of it.
class FreeCpuScorer : public NodeScorer {
 public:
  explicit FreeCpuScorer(const ClusterState& s) : s_(s) {}
  double Bound(const NodeSummary& sum) const override {
    ++bounds;
    return sum.max_free_cpu_frac;
  }
  double Score(NodeId n) const override {
    ++scores;
    return static_cast<double>(s_.cpu_free(n)) / static_cast<double>(s_.cpu_capacity(n));
  }
  mutable int bounds = 0, scores = 0;

 private:
  const ClusterState& s_;
};

TEST(ClusterStateContainersTest, CapacitiesFromTheNodes) {
  auto w = MakeTinyWorld(2, 1);  // 32 cores, 256e9 bytes per node
  ClusterState s(*w->cluster);
  EXPECT_EQ(s.cpu_capacity(0), 32000);
  EXPECT_EQ(s.memory_capacity(2), 256 * kGB);
  EXPECT_EQ(s.gpus_free(0), 4);
  EXPECT_EQ(s.gpus_free(2), 2);
  EXPECT_TRUE(s.CheckConsistency().ok());
}

TEST(ClusterStateContainersTest, AllocateAndReleaseKeepCountersAndIndex) {
  auto w = MakeTinyWorld(2, 0);
  ClusterState s(*w->cluster);
  // One PS (2 cores, 8 GB) and two workers (4 cores, 16 GB, 1 GPU) on node 0; one worker on 1.
  std::vector<ContainerPlacement> job = {
      Container(ContainerRole::kParameterServer, 0, 2000, 8 * kGB),
      Container(ContainerRole::kWorker, 0, 4000, 16 * kGB, {0}),
      Container(ContainerRole::kWorker, 0, 4000, 16 * kGB, {1}),
      Container(ContainerRole::kWorker, 1, 4000, 16 * kGB, {4})};
  ASSERT_TRUE(s.AllocateContainers(7, job).ok());
  // Node 0: 32000 - 2000 - 4000 - 4000 = 22000 millicores; 256 - 8 - 16 - 16 = 216 GB; 4 - 2 GPUs.
  EXPECT_EQ(s.cpu_free(0), 22000);
  EXPECT_EQ(s.memory_free(0), 216 * kGB);
  EXPECT_EQ(s.gpus_free(0), 2);
  EXPECT_EQ(s.containers_on_node(0), 3);
  EXPECT_EQ(s.cpu_free(1), 28000);
  EXPECT_EQ(s.owner(4), 7);
  EXPECT_EQ(s.containers_of(7).size(), 4u);
  EXPECT_EQ(s.resource_index().leaf(0).max_free_cpu, 22000);
  EXPECT_TRUE(s.CheckConsistency().ok());
  ASSERT_TRUE(s.ReleaseContainers(7).ok());
  EXPECT_EQ(s.cpu_free(0), 32000);
  EXPECT_EQ(s.total_free(), 8);
  EXPECT_TRUE(s.containers_of(7).empty());
  EXPECT_TRUE(s.CheckConsistency().ok());
  EXPECT_FALSE(s.ReleaseContainers(7).ok());
}

TEST(ClusterStateContainersTest, OverCommitmentIsRefusedAndChangesNothing) {
  auto w = MakeTinyWorld(1, 0);
  ClusterState s(*w->cluster);
  // 9 containers of 4 cores on a 32-core node: 36000 > 32000 millicores.
  std::vector<ContainerPlacement> cpu_heavy;
  for (int i = 0; i < 9; ++i) cpu_heavy.push_back(Container(ContainerRole::kParameterServer, 0, 4000, kGB));
  Status st = s.AllocateContainers(1, cpu_heavy);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("over-commitment"), std::string::npos) << st.message();
  // Memory: 2 x 130 GB > 256 GB.
  std::vector<ContainerPlacement> memory_heavy = {Container(ContainerRole::kWorker, 0, 1000, 130 * kGB),
                                                  Container(ContainerRole::kWorker, 0, 1000, 130 * kGB)};
  EXPECT_FALSE(s.AllocateContainers(2, memory_heavy).ok());
  // GPUs: a device held twice is the double-booking invariant.
  std::vector<ContainerPlacement> twice = {Container(ContainerRole::kWorker, 0, 1000, kGB, {0}),
                                           Container(ContainerRole::kWorker, 0, 1000, kGB, {0})};
  EXPECT_FALSE(s.AllocateContainers(3, twice).ok());
  // A device of another node.
  std::vector<ContainerPlacement> elsewhere = {Container(ContainerRole::kWorker, 0, 1000, kGB, {9})};
  EXPECT_FALSE(s.AllocateContainers(4, elsewhere).ok());
  EXPECT_EQ(s.cpu_free(0), 32000);
  EXPECT_EQ(s.total_free(), 4);
  EXPECT_TRUE(s.CheckConsistency().ok());
  // Exactly full is fine: 8 x 4 cores = 32 cores.
  cpu_heavy.pop_back();
  EXPECT_TRUE(s.AllocateContainers(5, cpu_heavy).ok());
  EXPECT_EQ(s.cpu_free(0), 0);
  EXPECT_TRUE(s.CheckConsistency().ok());
}

TEST(ClusterStateContainersTest, PlainDeviceJobsShowInTheGpuIndex) {
  auto w = MakeTinyWorld(2, 0);
  ClusterState s(*w->cluster);
  const std::vector<DeviceId> devices = {0, 1, 2};
  ASSERT_TRUE(s.Allocate(3, devices).ok());
  EXPECT_EQ(s.gpus_free(0), 1);
  EXPECT_EQ(s.resource_index().leaf(0).max_free_gpus, 1);
  // A worker asking for 2 GPUs can only go to node 1.
  FreeCpuScorer scorer(s);
  EXPECT_EQ(s.resource_index().Best(ContainerRequest{1000, kGB, 2}, ~uint64_t{0}, scorer), 1);
  EXPECT_TRUE(s.CheckConsistency().ok());
}

TEST(ClusterStateContainersTest, BestNodeMatchesAScanAndPrunes) {
  auto w = MakeTinyWorld(48, 16);  // 64 nodes
  ClusterState s(*w->cluster);
  Rng rng(5);
  // Load nodes with random containers, then compare the indexed search with a full scan.
  for (JobId job = 0; job < 40; ++job) {
    const NodeId node = static_cast<NodeId>(rng.Below(64));
    const int64_t cpu = 1000 * static_cast<int64_t>(1 + rng.Below(8));
    std::vector<ContainerPlacement> one = {Container(ContainerRole::kParameterServer, node, cpu, kGB)};
    if (cpu <= s.cpu_free(node)) {
      ASSERT_TRUE(s.AllocateContainers(job, one).ok());
    }
  }
  for (int64_t want : {1000, 20000, 31000, 32000}) {
    for (int gpus : {0, 1, 3}) {
      const ContainerRequest req{want, kGB, gpus};
      FreeCpuScorer scorer(s);
      const NodeId got = s.resource_index().Best(req, DeviceTypeBit(w->gpu_a), scorer);
      NodeId expect = -1;
      double best = -std::numeric_limits<double>::infinity();
      for (NodeId n = 0; n < 64; ++n) {
        const bool type_ok = gpus == 0 || w->cluster->node(n).device_type == w->gpu_a;
        if (!type_ok || s.cpu_free(n) < want || s.gpus_free(n) < gpus) continue;
        const double sc = static_cast<double>(s.cpu_free(n)) / 32000.0;
        if (sc > best) {
          best = sc;
          expect = n;
        }
      }
      EXPECT_EQ(got, expect) << "cpu " << want << " gpus " << gpus;
      EXPECT_LT(scorer.scores, 64) << "the bound should prune most leaves";
    }
  }
  EXPECT_TRUE(s.CheckConsistency().ok());
}

}  // namespace
}  // namespace hetsched
