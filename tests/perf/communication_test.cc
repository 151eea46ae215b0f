#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/perf/perf_internal.h"
#include "perf_fixtures.h"

namespace hetsched {
namespace {

using perf_test::MakeWorld;

constexpr double kMB100 = 1e8;  // a 100 MB gradient

TEST(RingAllReduceTimeTest, OneMemberOrNoBytesIsFree) {
  EXPECT_EQ(RingAllReduceTime(1, kMB100, 1e9, 1e-3), 0.0);
  EXPECT_EQ(RingAllReduceTime(0, kMB100, 1e9, 1e-3), 0.0);
  EXPECT_EQ(RingAllReduceTime(4, 0.0, 1e9, 1e-3), 0.0);
}

TEST(RingAllReduceTimeTest, PatarasukYuanFormula) {
  // n = 4 on NVLink-like 120e9 B/s, 2 us: 2 * 3 * 2 us = 12 us of latency;
  // 2 * 3/4 * 1e8 = 1.5e8 B / 120e9 = 1.25 ms.
  EXPECT_NEAR(RingAllReduceTime(4, kMB100, 120e9, 2e-6), 1.25e-3 + 12e-6, 1e-15);
  // n = 2: 2 * 1 * alpha + 2 * 1/2 * S / B = 2 alpha + S / B.
  EXPECT_NEAR(RingAllReduceTime(2, kMB100, 1e9, 1e-3), 0.1 + 2e-3, 1e-15);
  // A zero bandwidth never finishes.
  EXPECT_EQ(RingAllReduceTime(2, kMB100, 0.0, 0.0), std::numeric_limits<double>::infinity());
}

TEST(ParameterServerTimeTest, MaxOfWorkerAndServerSides) {
  // 4 workers, 2 shards, S = 1e8, alpha = 1 ms.
  // Worker: 2 * 1e8 / 1e9 + 2 ms = 0.202 s. Shard: 2 * 4 * 1e8 / 2 = 4e8 B / 1e9 + 2 ms = 0.402 s.
  EXPECT_NEAR(ParameterServerTime(4, 2, kMB100, 1e9, 1e9, 1e-3), 0.402, 1e-12);
  // Shards twice as fast: 4e8 / 2e9 + 2 ms = 0.202 s, tied with the workers.
  EXPECT_NEAR(ParameterServerTime(4, 2, kMB100, 1e9, 2e9, 1e-3), 0.202, 1e-12);
  // 1 worker, 4 shards: the worker side dominates (0.202 s vs 2 * 1e8/4 / 1e9 + 2 ms = 0.052 s).
  EXPECT_NEAR(ParameterServerTime(1, 4, kMB100, 1e9, 1e9, 1e-3), 0.202, 1e-12);
  EXPECT_EQ(ParameterServerTime(0, 4, kMB100, 1e9, 1e9, 1e-3), 0.0);
}

TEST(PointToPointTimeTest, LatencyPlusBytesOverBandwidth) {
  // 1.6e7 B over 2.1875e9 B/s = 7.314285714 ms, + 20 us.
  EXPECT_NEAR(PointToPointTime(1.6e7, 2.1875e9, 20e-6), 1.6e7 / 2.1875e9 + 20e-6, 1e-15);
  EXPECT_EQ(PointToPointTime(0.0, 2.1875e9, 20e-6), 0.0);
}

TEST(RingAllGatherTimeTest, EachChunkTravelsNMinusOneHops) {
  // 4 members of 1e6 B each at 1e9 B/s, 1 ms: 3 * 1 ms + 3 * 1e6 / 1e9 = 6 ms.
  EXPECT_NEAR(perf_internal::RingAllGatherTime(4, 1e6, 1e9, 1e-3), 6e-3, 1e-15);
  EXPECT_EQ(perf_internal::RingAllGatherTime(1, 1e6, 1e9, 1e-3), 0.0);
}

TEST(BottleneckOfTest, OneNodeUsesTheIntraNodeLink) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 4);
  const auto devices = w->DevicesOf(n, 4);
  const PathCapacity p = BottleneckOf(w->cluster, devices, {});
  EXPECT_DOUBLE_EQ(p.bandwidth_Bps, 150e9 * 0.8);
  EXPECT_DOUBLE_EQ(p.latency_s, 2e-6);
}

TEST(BottleneckOfTest, SingleDeviceHasNoLimitingLink) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 4);
  const auto devices = w->DevicesOf(n, 1);
  EXPECT_EQ(BottleneckOf(w->cluster, devices, {}).bandwidth_Bps,
            std::numeric_limits<double>::infinity());
}

TEST(BottleneckOfTest, TwoNodesUseTheNicAndContentionDividesIt) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 2);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 2);
  std::vector<DeviceId> devices = w->DevicesOf(n0, 2);
  for (DeviceId d : w->DevicesOf(n1, 2)) devices.push_back(d);
  // Alone: 25 GbE x 0.7 = 3.125e9 x 0.7 = 2.1875e9 B/s, 20 us.
  PathCapacity p = BottleneckOf(w->cluster, devices, {});
  EXPECT_DOUBLE_EQ(p.bandwidth_Bps, 2.1875e9);
  EXPECT_DOUBLE_EQ(p.latency_s, 20e-6);
  // Two flows on node 1's NIC (this job + one other): 2.1875e9 / 2 = 1.09375e9 B/s.
  const std::vector<int> nic_flows = {1, 2};
  p = BottleneckOf(w->cluster, devices, LinkLoad{&nic_flows, nullptr});
  EXPECT_DOUBLE_EQ(p.bandwidth_Bps, 1.09375e9);
  // A flow count of 0 or a short vector means the job is alone on that NIC.
  const std::vector<int> short_flows = {0};
  EXPECT_DOUBLE_EQ(BottleneckOf(w->cluster, devices, LinkLoad{&short_flows, nullptr}).bandwidth_Bps,
                   2.1875e9);
}

TEST(BottleneckOfTest, CrossingRacksAddsTheUplinkShare) {
  auto w = MakeWorld();
  // Uplinks: 100 GbE-like, 12.5e9 x 0.7 = 8.75e9 B/s, oversubscription 4: 2.1875e9 B/s.
  const RackId r0 = w->AddRack(w->e100, 4.0);
  const RackId r1 = w->AddRack(w->e100, 4.0);
  const NodeId n0 = w->AddNode(r0, w->gpu_a, 1);
  const NodeId n1 = w->AddNode(r1, w->gpu_a, 1);
  const std::vector<DeviceId> devices = {w->cluster.node(n0).first_device,
                                         w->cluster.node(n1).first_device};
  // Rack 0's uplink shared by 2 flows: 2.1875e9 / 2 = 1.09375e9 B/s, below the NIC's 2.1875e9.
  const std::vector<int> uplink_flows = {2, 1};
  const PathCapacity p = BottleneckOf(w->cluster, devices, LinkLoad{nullptr, &uplink_flows});
  EXPECT_DOUBLE_EQ(p.bandwidth_Bps, 1.09375e9);
  // Latency: the slowest link crossed, max(NIC 20 us, uplink 10 us) = 20 us.
  EXPECT_DOUBLE_EQ(p.latency_s, 20e-6);
  // Within one rack the uplink is not crossed.
  const NodeId n2 = w->AddNode(r0, w->gpu_a, 1);
  const std::vector<DeviceId> same_rack = {w->cluster.node(n0).first_device,
                                           w->cluster.node(n2).first_device};
  EXPECT_DOUBLE_EQ(BottleneckOf(w->cluster, same_rack, LinkLoad{nullptr, &uplink_flows}).bandwidth_Bps,
                   2.1875e9);
}

// The flat LinkCapacities table gives exactly (bit for bit) what reading the cluster gives, for
// any device set and flow counts: racks with and without an uplink, one and several flows.
TEST(BottleneckOfTest, CapacityTableIsBitIdenticalToTheCluster) {
  auto w = MakeWorld();
  const RackId r0 = w->AddRack(w->e100, 4.0);
  const RackId r1 = w->AddRack(w->e100, 3.0);
  const RackId r2 = w->AddRack();  // no uplink: full bisection
  std::vector<NodeId> nodes;
  for (RackId r : {r0, r0, r1, r1, r2, r2}) nodes.push_back(w->AddNode(r, w->gpu_a, 2));
  const LinkCapacities table = LinkCapacities::Of(w->cluster);
  const std::vector<int> nic_flows = {1, 3, 2, 7, 1, 5};
  const std::vector<int> uplink_flows = {3, 1, 4};
  for (size_t a = 0; a < nodes.size(); ++a) {
    for (size_t b = 0; b < nodes.size(); ++b) {
      const std::vector<DeviceId> devices = {w->cluster.node(nodes[a]).first_device,
                                             w->cluster.node(nodes[b]).first_device + 1};
      const PathCapacity plain = BottleneckOf(w->cluster, devices, LinkLoad{&nic_flows, &uplink_flows});
      const PathCapacity flat = BottleneckOf(w->cluster, devices, LinkLoad{&nic_flows, &uplink_flows, &table});
      EXPECT_EQ(plain.bandwidth_Bps, flat.bandwidth_Bps) << a << " " << b;
      EXPECT_EQ(plain.latency_s, flat.latency_s) << a << " " << b;
    }
  }
}

TEST(GroupByNodeTest, DistinctNodesInFirstUseOrderWithCounts) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 2);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 2);
  const DeviceId a0 = w->cluster.node(n0).first_device;
  const DeviceId b0 = w->cluster.node(n1).first_device;
  const std::vector<DeviceId> devices = {b0, a0, b0 + 1, a0 + 1};
  std::vector<perf_internal::NodeCount> groups;
  perf_internal::GroupByNode(w->cluster, devices, &groups);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].node, n1);
  EXPECT_EQ(groups[0].devices, 2);
  EXPECT_EQ(groups[1].node, n0);
  EXPECT_EQ(groups[1].devices, 2);
  // A second call starts clean (the scratch index was reset).
  const std::vector<DeviceId> one = {a0};
  perf_internal::GroupByNode(w->cluster, one, &groups);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].devices, 1);
}

}  // namespace
}  // namespace hetsched
