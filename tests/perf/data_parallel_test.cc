#include <gtest/gtest.h>

#include <vector>

#include "hetsched/perf/iteration_model.h"
#include "perf_fixtures.h"

namespace hetsched {
namespace {

using perf_test::MakeWorld;
using perf_test::World;

// Model used throughout: one dense layer, 3e9 FLOP per sample (fwd + bwd), 1e8 B of
// parameters (the 100 MB gradient), 1e6 B of activations per sample. Batch 10 per device on
// gpu-a: compute 8 ms (compute_test.cc: 6 ms + kappa 2 ms).
constexpr double kComputeA = 0.008;
constexpr double kDpE25 = 2.1875e9;  // 25 GbE x 0.7, bytes/s

Plan MakePlan(Parallelism p, std::vector<DeviceId> devices, int num_ps = 0) {
  Plan plan;
  plan.parallelism = p;
  plan.batch_per_device = 10;
  plan.devices = std::move(devices);
  plan.num_parameter_servers = num_ps;
  return plan;
}

std::vector<DeviceId> Concat(const World& w, NodeId a, int na, NodeId b, int nb) {
  std::vector<DeviceId> out = w.DevicesOf(a, na);
  for (DeviceId d : w.DevicesOf(b, nb)) out.push_back(d);
  return out;
}

TEST(DataRingTest, FourWorkersOnOneNvlinkNodeVersusTwoPlusTwoOver25GbE) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId big = w->AddNode(r, w->gpu_a, 4);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 2);
  const NodeId n2 = w->AddNode(r, w->gpu_a, 2);
  const ModelProfile model = perf_test::OneLayerModel();

  // One node: 2*3*2 us + 2*(3/4)*1e8 / 120e9 = 12 us + 1.25 ms = 1.262 ms.
  const auto packed = EstimateIteration(model, MakePlan(Parallelism::kDataRing, w->DevicesOf(big, 4)), w->cluster);
  EXPECT_NEAR(packed.compute_s, kComputeA, 1e-12);
  EXPECT_NEAR(packed.communication_s, 1.262e-3, 1e-12);
  EXPECT_NEAR(packed.iteration_s, kComputeA + 1.262e-3, 1e-12);
  EXPECT_EQ(packed.cross_node_bytes, 0.0);
  EXPECT_EQ(packed.span_nodes, 1);
  // 4 devices x 10 samples / 9.262 ms.
  EXPECT_NEAR(packed.samples_per_s, 40.0 / (kComputeA + 1.262e-3), 1e-9);

  // Two nodes: NIC bottleneck 2.1875e9 B/s, 20 us: 2*3*20 us + 1.5e8 / 2.1875e9
  // = 120 us + 68.5714286 ms.
  const auto spread = EstimateIteration(model, MakePlan(Parallelism::kDataRing, Concat(*w, n1, 2, n2, 2)), w->cluster);
  EXPECT_NEAR(spread.communication_s, 120e-6 + 1.5e8 / kDpE25, 1e-12);
  // Two ring edges leave a node (n1 -> n2 and back), each 2*(3/4)*1e8 = 1.5e8 B: 3e8 B.
  EXPECT_NEAR(spread.cross_node_bytes, 3e8, 1e-3);
  EXPECT_EQ(spread.span_nodes, 2);
}

TEST(DataRingTest, ContentionWithTwoFlowsHalvesTheBandwidth) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 2);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 2);
  const ModelProfile model = perf_test::OneLayerModel();
  const Plan plan = MakePlan(Parallelism::kDataRing, Concat(*w, n0, 2, n1, 2));
  const std::vector<int> flows = {2, 1};  // another job also crosses node 0's NIC
  const auto shared = EstimateIteration(model, plan, w->cluster, LinkLoad{&flows, nullptr});
  // 1.5e8 B / (2.1875e9 / 2) = 137.142857 ms; latency unchanged, 120 us.
  EXPECT_NEAR(shared.communication_s, 120e-6 + 2 * 1.5e8 / kDpE25, 1e-12);
}

TEST(DataRingTest, SingleDeviceHasNoCommunication) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 4);
  const ModelProfile model = perf_test::OneLayerModel();
  for (Parallelism p : {Parallelism::kSingle, Parallelism::kDataRing}) {
    const auto est = EstimateIteration(model, MakePlan(p, w->DevicesOf(n, 1)), w->cluster);
    EXPECT_EQ(est.communication_s, 0.0);
    EXPECT_NEAR(est.iteration_s, kComputeA, 1e-12);
    EXPECT_NEAR(est.samples_per_s, 10.0 / kComputeA, 1e-9);
  }
}

TEST(DataRingTest, HostCostIsPaidOncePerIterationByEveryWorkerInParallel) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 4);
  ModelProfile model = perf_test::OneLayerModel();
  model.host_seconds_per_iteration = 0.05;
  // One worker: 8 ms on gpu-a + 50 ms of host work = 58 ms.
  const auto one = EstimateIteration(model, MakePlan(Parallelism::kSingle, w->DevicesOf(n, 1)), w->cluster);
  EXPECT_NEAR(one.compute_s, kComputeA + 0.05, 1e-12);
  EXPECT_NEAR(one.iteration_s, kComputeA + 0.05, 1e-12);
  // Four workers on NVLink: each runs its own host work at the same time, so compute stays
  // 58 ms (not 4 x 50 ms); the ring adds 2 * 3 * 2 us + 2 * 3/4 * 1e8 / 120e9 = 1.262 ms.
  const auto four = EstimateIteration(model, MakePlan(Parallelism::kDataRing, w->DevicesOf(n, 4)), w->cluster);
  EXPECT_NEAR(four.compute_s, kComputeA + 0.05, 1e-12);
  EXPECT_NEAR(four.iteration_s, kComputeA + 0.05 + 12e-6 + 1.5e8 / 120e9, 1e-12);
}

TEST(DataRingTest, HeterogeneousSetRunsAtTheSlowestType) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId fast = w->AddNode(r, w->gpu_a, 1);
  const NodeId slow = w->AddNode(r, w->gpu_b, 1);
  const ModelProfile model = perf_test::OneLayerModel();
  const auto est = EstimateIteration(model, MakePlan(Parallelism::kDataRing, Concat(*w, fast, 1, slow, 1)), w->cluster);
  // gpu-b: 3e10 / 2e12 + 2 ms = 17 ms.
  EXPECT_NEAR(est.compute_s, 0.017, 1e-12);
  // n = 2 over 25 GbE: 2 * 20 us + 1e8 / 2.1875e9.
  EXPECT_NEAR(est.communication_s, 40e-6 + 1e8 / kDpE25, 1e-12);
  // Overlap 0.5 hides half of it.
  const auto overlapped = EstimateIteration(model, MakePlan(Parallelism::kDataRing, Concat(*w, fast, 1, slow, 1)),
                                            w->cluster, {}, PerfOptions{0.5, 2.0});
  EXPECT_NEAR(overlapped.iteration_s, 0.017 + 0.5 * (40e-6 + 1e8 / kDpE25), 1e-12);
}

TEST(DataRingTest, SparseRowsAreAllGathered) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 4);
  ModelProfile model;
  LayerProfile emb;
  emb.kind = LayerKind::kEmbedding;
  emb.embedding_table_bytes = 1e9;
  emb.sparse_bytes_per_sample = 1e5;
  model.layers.push_back(emb);
  const auto est = EstimateIteration(model, MakePlan(Parallelism::kDataRing, w->DevicesOf(n, 4)), w->cluster);
  // No dense parameters; each member contributes 10 * 1e5 = 1e6 B of rows: all-gather on
  // 120e9 B/s, 2 us: 3 * 2 us + 3 * 1e6 / 120e9 = 6 us + 25 us = 31 us.
  EXPECT_NEAR(est.communication_s, 31e-6, 1e-12);
  // Memory: the 1e9 B table and its optimizer state (x3) are replicated: 3e9 B (no activations).
  EXPECT_NEAR(est.memory_per_device_bytes, 3e9, 1e-3);
}

TEST(DataRingTest, MemoryInfeasibility) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 1);
  ModelProfile model;
  model.layers.push_back(perf_test::Layer("big", 1e9, 4e9, 1e8));  // 1e9 fp32 parameters
  Plan plan = MakePlan(Parallelism::kSingle, w->DevicesOf(n, 1));
  plan.batch_per_device = 64;
  // 4e9 * (1 + 2) + 64 * 1e8 = 12e9 + 6.4e9 = 18.4e9 B > 16e9 B.
  auto est = EstimateIteration(model, plan, w->cluster);
  EXPECT_NEAR(est.memory_per_device_bytes, 18.4e9, 1e-3);
  EXPECT_FALSE(est.fits_in_memory);
  // Batch 32: 12e9 + 3.2e9 = 15.2e9 B <= 16e9 B.
  plan.batch_per_device = 32;
  est = EstimateIteration(model, plan, w->cluster);
  EXPECT_NEAR(est.memory_per_device_bytes, 15.2e9, 1e-3);
  EXPECT_TRUE(est.fits_in_memory);
  // SGD without optimizer state: 4e9 + 6.4e9 fits at batch 64.
  plan.batch_per_device = 64;
  EXPECT_TRUE(EstimateIteration(model, plan, w->cluster, {}, PerfOptions{0.0, 0.0}).fits_in_memory);
}

TEST(DataPSTest, CoLocatedOnOneNodeIsFree) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 4);
  const ModelProfile model = perf_test::OneLayerModel();
  const auto est = EstimateIteration(model, MakePlan(Parallelism::kDataPS, w->DevicesOf(n, 4)), w->cluster);
  EXPECT_EQ(est.communication_s, 0.0);
  EXPECT_EQ(est.cross_node_bytes, 0.0);
  // Workers hold the weights only (the state is on the shards): 1e8 + 10 * 1e6 = 1.1e8 B.
  EXPECT_NEAR(est.memory_per_device_bytes, 1.1e8, 1e-6);
}

TEST(DataPSTest, TwoPlusTwoWithOneShardPerNode) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 2);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 2);
  const ModelProfile model = perf_test::OneLayerModel();
  const auto est = EstimateIteration(model, MakePlan(Parallelism::kDataPS, Concat(*w, n0, 2, n1, 2)), w->cluster);
  // P = 2, one shard per node; per node, push phase: out = 2 workers x 1e8 x 1/2 (remote shard)
  // = 1e8 B; in = 2 remote workers x 1e8 x 1/2 (local shard) = 1e8 B. Phase 1e8 / 2.1875e9
  // = 45.714 ms; push + pull: 2 x (45.714 ms + 20 us) = 91.469 ms.
  EXPECT_NEAR(est.communication_s, 2 * (1e8 / kDpE25 + 20e-6), 1e-12);
  // Bytes leaving each node: 1e8 pushed + 1e8 pulled by the remote workers; 2 nodes: 4e8.
  EXPECT_NEAR(est.cross_node_bytes, 4e8, 1e-3);
}

TEST(DataPSTest, SpreadOneWorkerPerNodeMatchesTheClosedForm) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  std::vector<DeviceId> devices;
  for (int i = 0; i < 4; ++i) devices.push_back(w->cluster.node(w->AddNode(r, w->gpu_a, 1)).first_device);
  const ModelProfile model = perf_test::OneLayerModel();
  const auto est = EstimateIteration(model, MakePlan(Parallelism::kDataPS, devices), w->cluster);
  // P = 4. Per node: out = 1e8 x 3/4 = 7.5e7 B, in = 3 x 1e8 x 1/4 = 7.5e7 B:
  // 2 x (7.5e7 / 2.1875e9 + 20 us) = 68.611 ms. Cross bytes: 4 x 1.5e8 = 6e8.
  EXPECT_NEAR(est.communication_s, 2 * (7.5e7 / kDpE25 + 20e-6), 1e-12);
  EXPECT_NEAR(est.cross_node_bytes, 6e8, 1e-3);
  // The same as ParameterServerTime with the co-located share removed from both sides:
  // a worker sends 3/4 S; a shard receives 3 workers x S/4 = 3/4 S.
  EXPECT_NEAR(est.communication_s, ParameterServerTime(1, 1, 7.5e7, kDpE25, kDpE25, 20e-6), 1e-12);
}

TEST(DataPSTest, FewerShardsThanNodesLoadsTheShardNodes) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  std::vector<DeviceId> devices;
  for (int i = 0; i < 4; ++i) devices.push_back(w->cluster.node(w->AddNode(r, w->gpu_a, 1)).first_device);
  const ModelProfile model = perf_test::OneLayerModel();
  const auto est = EstimateIteration(model, MakePlan(Parallelism::kDataPS, devices, 1), w->cluster);
  // One shard on the first node: it receives 3 remote workers x 1e8 = 3e8 B per phase:
  // 2 x (3e8 / 2.1875e9 + 20 us) = 274.326 ms (the closed form's server side, n S / P).
  EXPECT_NEAR(est.communication_s, 2 * (3e8 / kDpE25 + 20e-6), 1e-12);
  // Leaving nodes: 3 x 1e8 pushed from the workers, 3 x 1e8 pulled from the shard node.
  EXPECT_NEAR(est.cross_node_bytes, 6e8, 1e-3);
}

}  // namespace
}  // namespace hetsched
