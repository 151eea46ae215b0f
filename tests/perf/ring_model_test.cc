#include "hetsched/perf/ring_model.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "hetsched/util/rng.h"
#include "perf_fixtures.h"

namespace hetsched {
namespace {

using perf_test::MakeWorld;
using perf_test::OneLayerModel;

// OneLayerModel on gpu-a, batch 32 (the profile's default):
//   compute = max(32 x 3e9 / 5e12, 32 x 2e6 / 1e12) + 2 ms = max(0.0192, 6.4e-5) + 0.002 = 0.0212 s
//   S = 1e8 B, no sparse rows.
constexpr double kCompute = 0.0212;

TEST(RingModelTest, MakeRingJobTakesComputeAndBytesFromTheProfile) {
  auto w = MakeWorld();
  const RingJob job = MakeRingJob(OneLayerModel(), 0, w->devices.type(w->gpu_a));
  EXPECT_NEAR(job.compute_s, kCompute, 1e-12);
  EXPECT_DOUBLE_EQ(job.dense_bytes, 1e8);
  EXPECT_DOUBLE_EQ(job.sparse_bytes_per_worker, 0.0);
  EXPECT_EQ(job.batch_per_worker, 32);
}

// Golden case 1: 4 workers on one server over NVLink (120e9 B/s effective, 2 us).
//   T_ring = 2 x 3 x 2e-6 + 2 x 3/4 x 1e8 / 120e9 = 1.2e-5 + 1.25e-3 = 1.262e-3 s
//   tau = 0.0212 + 0.001262 = 0.022462 s
TEST(RingModelTest, FourWorkersOnOneServer) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 4);
  const RingJob job = MakeRingJob(OneLayerModel(), 0, w->devices.type(w->gpu_a));
  const std::vector<DeviceId> ring = w->DevicesOf(n0, 4);
  const RingEmbeddingInfo info = DescribeRing(w->cluster, ring);
  EXPECT_EQ(info.servers, 1);
  EXPECT_EQ(info.intra_hops, 4);
  EXPECT_EQ(info.inter_hops, 0);
  EXPECT_EQ(info.max_nic_crossings, 0);
  EXPECT_DOUBLE_EQ(info.bottleneck.bandwidth_Bps, 120e9);
  EXPECT_DOUBLE_EQ(info.bottleneck.latency_s, 2e-6);
  EXPECT_NEAR(RingIterationTime(job, w->cluster, ring), 0.022462, 1e-12);
  // Progress in iterations of the 4-worker job as submitted: 4 / (4 x 0.022462) = 44.52 it/s.
  EXPECT_NEAR(RingProgressRate(job, 4, info.bottleneck, 4), 1.0 / 0.022462, 1e-9);
}

// Golden case 2: 2 + 2 workers on two servers over 25 GbE (2.1875e9 B/s effective, 20 us).
//   T_ring = 2 x 3 x 20e-6 + 1.5 x 1e8 / 2.1875e9 = 1.2e-4 + 0.0685714286 = 0.0686914286 s
//   tau = 0.0212 + 0.0686914286 = 0.0898914286 s  (4x the one-server time)
TEST(RingModelTest, TwoPlusTwoOnTwoServersOver25GbE) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 4);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 4);
  const RingJob job = MakeRingJob(OneLayerModel(), 0, w->devices.type(w->gpu_a));
  std::vector<DeviceId> ring = w->DevicesOf(n0, 2);
  for (DeviceId d : w->DevicesOf(n1, 2)) ring.push_back(d);
  const RingEmbeddingInfo info = DescribeRing(w->cluster, ring);
  EXPECT_EQ(info.servers, 2);
  EXPECT_EQ(info.intra_hops, 2);
  EXPECT_EQ(info.inter_hops, 2);
  EXPECT_EQ(info.max_nic_crossings, 1);
  EXPECT_DOUBLE_EQ(info.bottleneck.bandwidth_Bps, 2.1875e9);
  EXPECT_DOUBLE_EQ(info.bottleneck.latency_s, 20e-6);
  EXPECT_NEAR(RingIterationTime(job, w->cluster, ring), 0.0898914285714, 1e-12);
}

// The same four devices visited n0, n1, n0, n1: four inter-server hops, two leave each server,
// so each NIC carries two flows of this ring: B = 2.1875e9 / 2 = 1.09375e9.
//   T_ring = 1.2e-4 + 1.5e8 / 1.09375e9 = 1.2e-4 + 0.137142857 = 0.137262857 s; tau = 0.158462857 s
TEST(RingModelTest, InterleavedRingCrossesEachNicTwice) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 4);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 4);
  const RingJob job = MakeRingJob(OneLayerModel(), 0, w->devices.type(w->gpu_a));
  const DeviceId a = w->cluster.node(n0).first_device, b = w->cluster.node(n1).first_device;
  const std::vector<DeviceId> ring{a, b, a + 1, b + 1};
  const RingEmbeddingInfo info = DescribeRing(w->cluster, ring);
  EXPECT_EQ(info.inter_hops, 4);
  EXPECT_EQ(info.intra_hops, 0);
  EXPECT_EQ(info.max_nic_crossings, 2);
  EXPECT_DOUBLE_EQ(info.bottleneck.bandwidth_Bps, 1.09375e9);
  EXPECT_NEAR(RingIterationTime(job, w->cluster, ring), 0.158462857142857, 1e-12);
}

// Contention: node 0's NIC already carries two other jobs' flows (3 with this one):
//   B = 2.1875e9 / 3; T_ring = 1.2e-4 + 3 x 0.0685714286 = 0.2058342857; tau = 0.2270342857 s
TEST(RingModelTest, ContentionOnASharedNicSlowsTheRing) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 4);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 4);
  const RingJob job = MakeRingJob(OneLayerModel(), 0, w->devices.type(w->gpu_a));
  std::vector<DeviceId> ring = w->DevicesOf(n0, 2);
  for (DeviceId d : w->DevicesOf(n1, 2)) ring.push_back(d);
  const std::vector<int> flows{3, 1};
  LinkLoad load;
  load.nic_flows = &flows;
  EXPECT_NEAR(RingIterationTime(job, w->cluster, ring, load), 0.2270342857143, 1e-12);
}

TEST(RingModelTest, OneWorkerIsComputeOnlyAndNoNicNeverFinishes) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 4);
  const RingJob job = MakeRingJob(OneLayerModel(), 0, w->devices.type(w->gpu_a));
  const std::vector<DeviceId> one = w->DevicesOf(n0, 1);
  EXPECT_NEAR(RingIterationTime(job, w->cluster, one), kCompute, 1e-12);
  EXPECT_TRUE(std::isinf(RingIterationTime(job, 3, RingLinks{0.0, 0.0})));
  EXPECT_EQ(RingProgressRate(job, 3, RingLinks{0.0, 0.0}, 3), 0.0);
  EXPECT_EQ(RingProgressRate(job, 0, RingLinks{1e9, 0.0}, 3), 0.0);
}

// For node-contiguous rings the GADGET model is the shared perf model: same tau as
// EstimateIteration(kDataRing), with and without NIC contention, on random placements.
TEST(RingModelTest, AgreesWithEstimateIterationOnNodeContiguousRings) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  for (int i = 0; i < 5; ++i) w->AddNode(r, w->gpu_a, 8);
  const ModelProfile model = OneLayerModel();
  const RingJob job = MakeRingJob(model, 16, w->devices.type(w->gpu_a));
  Rng rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<DeviceId> ring;
    std::vector<int> flows(5, 1);
    for (NodeId n = 0; n < 5; ++n) {
      const int take = static_cast<int>(rng.Below(4));
      for (DeviceId d : w->DevicesOf(n, take)) ring.push_back(d);
      flows[static_cast<size_t>(n)] = 1 + static_cast<int>(rng.Below(3));
    }
    if (ring.empty()) continue;
    LinkLoad load;
    load.nic_flows = &flows;
    Plan plan;
    plan.parallelism = Parallelism::kDataRing;
    plan.batch_per_device = 16;
    plan.devices = ring;
    const double expected = EstimateIteration(model, plan, w->cluster, load).iteration_s;
    EXPECT_NEAR(RingIterationTime(job, w->cluster, ring, load), expected, 1e-12 * expected) << "trial " << trial;
  }
}

// Utilities. x(w) is a progress rate in iterations/s; R the remaining iterations.
TEST(RingModelTest, CompletionTimeUtilityIsTheCompletionRate) {
  RingUtility u;
  u.remaining_iterations = 1000;
  // 50 it/s with 1000 left: 0.05 completions per second (the job would finish in 20 s).
  EXPECT_DOUBLE_EQ(UtilityOf(u, 2, 50.0), 0.05);
  EXPECT_DOUBLE_EQ(UtilityOf(u, 0, 0.0), 0.0);
  // 2 -> 4 workers, 50 -> 80 it/s: gain (80 - 50) / 1000 = 0.03.
  EXPECT_DOUBLE_EQ(MarginalGain(u, 2, 50.0, 4, 80.0), 0.03);
}

TEST(RingModelTest, TargetUtilityGivesNothingBeyondTheNeed) {
  RingUtility u;
  u.objective = RingObjective::kTarget;
  u.remaining_iterations = 1000;
  u.need_iterations = 400;  // the target is 600 iterations short of the submitted count
  EXPECT_DOUBLE_EQ(UtilityOf(u, 1, 20.0), 20.0 / 400.0);
  u.need_iterations = 0;  // target met: extra training is worth nothing
  EXPECT_DOUBLE_EQ(UtilityOf(u, 8, 100.0), 0.0);
}

TEST(RingModelTest, EnergyUtilityChargesEachExtraWorker) {
  RingUtility u;
  u.objective = RingObjective::kEnergy;
  u.remaining_iterations = 100;
  u.single_rate = 10;
  u.energy_weight = 0.5;
  // w = 1: 10 / 100 = 0.1. w = 2 at 16 it/s: (16 - 0.5 x 1 x 10) / 100 = 0.11.
  EXPECT_DOUBLE_EQ(UtilityOf(u, 1, 10.0), 0.1);
  EXPECT_DOUBLE_EQ(UtilityOf(u, 2, 16.0), 0.11);
  // A third worker adding only 4 it/s (< 0.5 x 10) loses: (20 - 10) / 100 = 0.1 < 0.11.
  EXPECT_LT(MarginalGain(u, 2, 16.0, 3, 20.0), 0.0);
}

TEST(RingModelTest, FairnessUtilityIsAlphaFairInNormalisedRates) {
  EXPECT_DOUBLE_EQ(AlphaFair(std::exp(2.0), 1.0), 2.0);
  EXPECT_DOUBLE_EQ(AlphaFair(4.0, 0.0), 4.0);       // alpha = 0: linear
  EXPECT_DOUBLE_EQ(AlphaFair(4.0, 2.0), -0.25);     // 4^(-1) / (-1)
  EXPECT_TRUE(std::isinf(AlphaFair(0.0, 1.0)));
  RingUtility u;
  u.objective = RingObjective::kFairness;
  u.alpha = 1;
  u.single_rate = 10;
  u.reference_rate = 30;
  // V(1) = log(10/30) - log(1e-3 x 10/30) = log(1000) = 6.9078; V(2) at 18 it/s: log(1800).
  EXPECT_NEAR(UtilityOf(u, 1, 10.0), std::log(1000.0), 1e-12);
  EXPECT_NEAR(MarginalGain(u, 1, 10.0, 2, 18.0), std::log(1.8), 1e-12);
}

}  // namespace
}  // namespace hetsched
