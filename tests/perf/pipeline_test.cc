#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "hetsched/perf/iteration_model.h"
#include "perf_fixtures.h"

namespace hetsched {
namespace {

using perf_test::Layer;
using perf_test::MakeWorld;

constexpr double kE25 = 2.1875e9;  // 25 GbE x 0.7, bytes/s

// Two layers: l0 3e9 FLOP/sample (fwd+bwd), 4e7 B params, 2e6 B activations out;
//             l1 6e9 FLOP/sample, 6e7 B params, 1e5 B activations out.
ModelProfile TwoLayerModel() {
  ModelProfile m;
  m.layers.push_back(Layer("l0", 1e9, 4e7, 2e6));
  m.layers.push_back(Layer("l1", 2e9, 6e7, 1e5));
  return m;
}

Plan TwoStagePlan(std::vector<DeviceId> s0, std::vector<DeviceId> s1) {
  Plan plan;
  plan.parallelism = Parallelism::kPipeline;
  plan.batch_per_device = 32;
  plan.micro_batches = 4;
  plan.stages = {PipelineStage{0, 0, s0}, PipelineStage{1, 1, s1}};
  plan.devices = s0;
  plan.devices.insert(plan.devices.end(), s1.begin(), s1.end());
  return plan;
}

TEST(PipelineTest, TwoStagesOnTwoNodesGPipeFormula) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 1);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 1);
  const auto est = EstimateIteration(TwoLayerModel(), TwoStagePlan(w->DevicesOf(n0, 1), w->DevicesOf(n1, 1)), w->cluster);
  // Mini-batch 32 (width 1), m = 4 micro-batches of 8.
  // Stage 0: 8 * 3e9 / 5e12 = 4.8 ms (+ memory 8 * 2 * 2e6 / 1e12 = 32 us, hidden) + 2 ms = 6.8 ms.
  // Stage 1: 8 * 6e9 / 5e12 = 9.6 ms + 2 ms = 11.6 ms.
  // p2p 0->1: activations 8 * 2e6 = 1.6e7 B over 2.1875e9 B/s + 20 us, forward and backward:
  //   2 * (7.3142857 ms + 0.02 ms) = 14.6685714 ms.
  // Slot = max(6.8 + 14.6685714, 11.6) = 21.4685714 ms; (m + k - 1) = 5 slots = 107.342857 ms.
  const double p2p = 2 * (1.6e7 / kE25 + 20e-6);
  EXPECT_NEAR(est.compute_s, 5 * 0.0068, 1e-12);
  EXPECT_NEAR(est.communication_s, 5 * p2p, 1e-12);
  EXPECT_NEAR(est.iteration_s, 5 * (0.0068 + p2p), 1e-12);
  EXPECT_NEAR(est.samples_per_s, 32 / (5 * (0.0068 + p2p)), 1e-9);
  // The cut's activations for the whole mini-batch, both ways: 2 * 2e6 * 32 = 1.28e8 B.
  EXPECT_NEAR(est.cross_node_bytes, 1.28e8, 1e-3);
  EXPECT_EQ(est.span_nodes, 2);
  // Memory: stage 0 4e7 * 3 + 32 * 2e6 = 1.84e8 B; stage 1 6e7 * 3 + 32 * 1e5 = 1.832e8 B.
  EXPECT_NEAR(est.memory_per_device_bytes, 1.84e8, 1e-3);
  EXPECT_TRUE(est.fits_in_memory);
}

TEST(PipelineTest, TwoStagesOnOneNodeAreComputeBound) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 2);
  const auto d = w->DevicesOf(n, 2);
  const auto est = EstimateIteration(TwoLayerModel(), TwoStagePlan({d[0]}, {d[1]}), w->cluster);
  // p2p on NVLink-like: 2 * (1.6e7 / 120e9 + 2 us) = 0.270667 ms; stage 0 slot 7.070667 ms
  // < stage 1's 11.6 ms, so the slot is 11.6 ms: 5 * 11.6 ms = 58 ms.
  EXPECT_NEAR(est.iteration_s, 5 * 0.0116, 1e-12);
  EXPECT_EQ(est.communication_s, 0.0);  // the bottleneck stage (the last) sends nothing
  EXPECT_EQ(est.cross_node_bytes, 0.0);
}

TEST(PipelineTest, HostCostIsChargedToTheFirstStagePerMicroBatchLikeKappa) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 2);
  const auto d = w->DevicesOf(n, 2);
  ModelProfile model = TwoLayerModel();
  model.host_seconds_per_iteration = 0.01;
  const auto est = EstimateIteration(model, TwoStagePlan({d[0]}, {d[1]}), w->cluster);
  // As in TwoStagesOnOneNodeAreComputeBound, but stage 0 (which takes the input) also waits
  // 10 ms per micro-batch: 6.8 + 10 = 16.8 ms, + p2p 0.270667 ms = 17.070667 ms > stage 1's
  // 11.6 ms, so stage 0 sets the slot: 5 slots = 85.353333 ms. Stage 1 pays no host cost.
  const double p2p = 2 * (1.6e7 / 120e9 + 2e-6);
  EXPECT_NEAR(est.compute_s, 5 * 0.0168, 1e-12);
  EXPECT_NEAR(est.iteration_s, 5 * (0.0168 + p2p), 1e-12);
}

TEST(PipelineTest, DataParallelInsideAStageAddsItsGradientSync) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 3);
  const auto d = w->DevicesOf(n, 3);
  const auto est = EstimateIteration(TwoLayerModel(), TwoStagePlan({d[0]}, {d[1], d[2]}), w->cluster);
  // Widest stage has 2 devices: mini-batch 2 * 32 = 64, micro-batch 16.
  // Stage 0 (1 device, 16 samples): 16 * 3e9 / 5e12 = 9.6 ms + 2 ms = 11.6 ms;
  //   p2p: 16 * 2e6 = 3.2e7 B / min(1, 2) over 120e9 B/s: 2 * (0.266667 ms + 2 us) = 0.537333 ms.
  // Stage 1 (2 devices, 8 samples each): 8 * 6e9 / 5e12 = 9.6 ms + 2 ms = 11.6 ms.
  // Slot = 11.6 + 0.537333 = 12.137333 ms; 5 slots = 60.686667 ms.
  // Stage 1 sync: ring of 2 on NVLink-like, 6e7 B: 2 * 2 us + 6e7 / 120e9 = 0.504 ms.
  const double p2p = 2 * (3.2e7 / 120e9 + 2e-6);
  const double sync = 4e-6 + 6e7 / 120e9;
  EXPECT_NEAR(est.iteration_s, 5 * (0.0116 + p2p) + sync, 1e-12);
  EXPECT_NEAR(est.communication_s, 5 * p2p + sync, 1e-12);
  EXPECT_NEAR(est.samples_per_s, 64 / (5 * (0.0116 + p2p) + sync), 1e-9);
  // Memory: stage 0 holds 64 samples of 2e6 B: 1.2e8 + 1.28e8 = 2.48e8 B.
  EXPECT_NEAR(est.memory_per_device_bytes, 2.48e8, 1e-3);
}

TEST(PipelineTest, StageWithoutDevicesIsImpossible) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 1);
  const auto est = EstimateIteration(TwoLayerModel(), TwoStagePlan(w->DevicesOf(n, 1), {}), w->cluster);
  EXPECT_EQ(est.iteration_s, std::numeric_limits<double>::infinity());
  EXPECT_EQ(est.samples_per_s, 0.0);
  EXPECT_FALSE(est.fits_in_memory);
}

TEST(PipelineTest, NoStagesFallsBackToDataParallel) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 1);
  Plan plan;
  plan.parallelism = Parallelism::kPipeline;
  plan.batch_per_device = 10;
  plan.devices = w->DevicesOf(n, 1);
  // Whole model on one gpu-a, batch 10: 10 * 9e9 / 5e12 = 18 ms + 2 ms = 20 ms.
  EXPECT_NEAR(EstimateIteration(TwoLayerModel(), plan, w->cluster).iteration_s, 0.020, 1e-12);
}

}  // namespace
}  // namespace hetsched
