#include "hetsched/perf/elastic_resize.h"

#include <vector>

#include <gtest/gtest.h>

#include "perf_fixtures.h"

namespace hetsched {
namespace {

using perf_test::MakeWorld;
using perf_test::OneLayerModel;

// OneLayerModel: P = 1e8 parameter bytes, no embedding tables. Rendezvous 10 s, restart 30 s.
const ElasticResizeModel kParams{10, 30};

TEST(ElasticResizeTest, GrowInsideOneServerBroadcastsOverNvlink) {
  auto w = MakeWorld();
  const NodeId n0 = w->AddNode(w->AddRack(), w->gpu_a, 4);
  const std::vector<DeviceId> from = w->DevicesOf(n0, 2), to = w->DevicesOf(n0, 4);
  const ResizeCost c = ResizeCostOf(OneLayerModel(), w->cluster, from, to, true, kParams);
  // Broadcast over NVLink (120e9 B/s effective, 2 us): 1e8 / 120e9 + 3 x 2e-6 = 8.39333e-4 s.
  EXPECT_EQ(c.kind, ResizeKind::kElastic);
  EXPECT_NEAR(c.broadcast_s, 1e8 / 120e9 + 3 * 2e-6, 1e-15);
  EXPECT_NEAR(c.pause_s, 10.000839333333, 1e-9);
}

TEST(ElasticResizeTest, GrowAcrossServersBroadcastsOverTheNic) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 2), n1 = w->AddNode(r, w->gpu_a, 2);
  std::vector<DeviceId> to = w->DevicesOf(n0, 2);
  for (DeviceId d : w->DevicesOf(n1, 2)) to.push_back(d);
  // Slowest hop: the 25 GbE NIC, 2.1875e9 B/s effective, 20 us: 1e8 / 2.1875e9 + 3 x 20e-6
  //   = 0.045714286 + 0.00006 = 0.045774286 s.
  const ResizeCost c = ResizeCostOf(OneLayerModel(), w->cluster, w->DevicesOf(n0, 2), to, true, kParams);
  EXPECT_EQ(c.kind, ResizeKind::kElastic);
  EXPECT_NEAR(c.broadcast_s, 0.045774285714, 1e-9);
  EXPECT_NEAR(c.pause_s, 10.045774285714, 1e-9);
}

TEST(ElasticResizeTest, ShrinkToOneWorkerNeedsNoBroadcast) {
  auto w = MakeWorld();
  const NodeId n0 = w->AddNode(w->AddRack(), w->gpu_a, 4);
  const ResizeCost c = ResizeCostOf(OneLayerModel(), w->cluster, w->DevicesOf(n0, 4), w->DevicesOf(n0, 1), true, kParams);
  EXPECT_EQ(c.kind, ResizeKind::kElastic);
  EXPECT_DOUBLE_EQ(c.broadcast_s, 0);
  EXPECT_DOUBLE_EQ(c.pause_s, 10);
}

TEST(ElasticResizeTest, RestartWhenNotElasticNoSurvivorOrAnotherType) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 4), n1 = w->AddNode(r, w->gpu_a, 4), n2 = w->AddNode(r, w->gpu_b, 4);
  const ModelProfile m = OneLayerModel();
  // Not elastic: a checkpoint restart, whatever the devices.
  ResizeCost c = ResizeCostOf(m, w->cluster, w->DevicesOf(n0, 2), w->DevicesOf(n0, 4), false, kParams);
  EXPECT_EQ(c.kind, ResizeKind::kRestart);
  EXPECT_DOUBLE_EQ(c.pause_s, 30);
  // Elastic, but no worker survives the move from node 0 to node 1.
  c = ResizeCostOf(m, w->cluster, w->DevicesOf(n0, 2), w->DevicesOf(n1, 2), true, kParams);
  EXPECT_EQ(c.kind, ResizeKind::kRestart);
  EXPECT_DOUBLE_EQ(c.pause_s, 30);
  // Elastic, a worker survives, but the new ring mixes in another device type.
  std::vector<DeviceId> mixed = w->DevicesOf(n0, 2);
  mixed.push_back(w->DevicesOf(n2, 1)[0]);
  c = ResizeCostOf(m, w->cluster, w->DevicesOf(n0, 2), mixed, true, kParams);
  EXPECT_EQ(c.kind, ResizeKind::kRestart);
  // The same set in another order: no change.
  c = ResizeCostOf(m, w->cluster, std::vector<DeviceId>{1, 0}, std::vector<DeviceId>{0, 1}, true, kParams);
  EXPECT_EQ(c.kind, ResizeKind::kNone);
  EXPECT_DOUBLE_EQ(c.pause_s, 0);
}

TEST(ElasticResizeTest, ASplitJobTakesAndGivesBackASecondTypeElastically) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 2), n1 = w->AddNode(r, w->gpu_b, 2);
  ElasticResizeModel two = kParams;
  two.two_types = true;
  std::vector<DeviceId> joint = w->DevicesOf(n0, 2);
  for (DeviceId d : w->DevicesOf(n1, 2)) joint.push_back(d);
  // Taking node 1's two GPUs of the other type beside its own: its two workers survive; the state is
  // broadcast over the joint ring's slowest hop, the 25 GbE NIC (2.1875e9 B/s effective, 20 us):
  // 1e8 / 2.1875e9 + 3 x 20e-6 = 0.045774286 s after the 10 s rendezvous.
  ResizeCost c = ResizeCostOf(OneLayerModel(), w->cluster, w->DevicesOf(n0, 2), joint, true, two);
  EXPECT_EQ(c.kind, ResizeKind::kElastic);
  EXPECT_NEAR(c.pause_s, 10.045774285714, 1e-9);
  // Giving them back: the new ring is node 0's two GPUs over NVLink (120e9 B/s, 2 us).
  c = ResizeCostOf(OneLayerModel(), w->cluster, joint, w->DevicesOf(n0, 2), true, two);
  EXPECT_EQ(c.kind, ResizeKind::kElastic);
  EXPECT_NEAR(c.pause_s, 10 + 1e8 / 120e9 + 2e-6, 1e-12);
  // Keeping only the second type's workers is no split: a restart. So is any of it without two_types.
  c = ResizeCostOf(OneLayerModel(), w->cluster, joint, w->DevicesOf(n1, 2), true, two);
  EXPECT_EQ(c.kind, ResizeKind::kRestart);
  c = ResizeCostOf(OneLayerModel(), w->cluster, w->DevicesOf(n0, 2), joint, true, kParams);
  EXPECT_EQ(c.kind, ResizeKind::kRestart);
}

TEST(ElasticResizeTest, AHandOverToAnotherTypeTakesTwoRendezvousAndOneBroadcast) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 2), n1 = w->AddNode(r, w->gpu_b, 2);
  // The joint ring (2 old + 2 new workers) crosses the 25 GbE NIC, 2.1875e9 B/s effective, 20 us:
  // broadcast 1e8 / 2.1875e9 + 3 x 20e-6 = 0.045774286 s; the old devices are free after the
  // first rendezvous and the broadcast (10.045774 s), the job runs again after the second (20.045774 s).
  const ResizeCost c = HandOverCostOf(OneLayerModel(), w->cluster, w->DevicesOf(n0, 2), w->DevicesOf(n1, 2), kParams);
  EXPECT_EQ(c.kind, ResizeKind::kElastic);
  EXPECT_NEAR(c.broadcast_s, 0.045774285714, 1e-9);
  EXPECT_NEAR(c.release_s, 10.045774285714, 1e-9);
  EXPECT_NEAR(c.pause_s, 20.045774285714, 1e-9);
  // One old worker to one new one on the same server: over NVLink (120e9 B/s, 2 us).
  const NodeId n2 = w->AddNode(r, w->gpu_a, 4);
  const std::vector<DeviceId> four = w->DevicesOf(n2, 4);
  const ResizeCost d = HandOverCostOf(OneLayerModel(), w->cluster, std::vector<DeviceId>{four[0]},
                                      std::vector<DeviceId>{four[3]}, kParams);
  EXPECT_NEAR(d.broadcast_s, 1e8 / 120e9 + 2e-6, 1e-15);
  EXPECT_NEAR(d.pause_s, 20 + 1e8 / 120e9 + 2e-6, 1e-12);
}

}  // namespace
}  // namespace hetsched
