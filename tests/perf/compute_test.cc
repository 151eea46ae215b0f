#include <gtest/gtest.h>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/perf/perf_internal.h"
#include "perf_fixtures.h"

namespace hetsched {
namespace {

using perf_test::Layer;
using perf_test::MakeWorld;

TEST(ComputeTimeTest, ComputeBoundLayerUsesSustainedFlops) {
  auto w = MakeWorld();
  const ModelProfile model = perf_test::OneLayerModel();
  // gpu-a, batch 10: FLOPs 10 * 3e9 = 3e10 / 5e12 = 6 ms; bytes 10 * 2 * (0 + 1e6) = 2e7 / 1e12
  // = 0.02 ms, so compute-bound: 6 ms + kappa 2 ms = 8 ms.
  EXPECT_NEAR(ComputeTime(model, 0, 0, 10, w->devices.type(w->gpu_a)), 0.008, 1e-12);
  // gpu-b: 3e10 / 2e12 = 15 ms + 2 ms = 17 ms.
  EXPECT_NEAR(ComputeTime(model, 0, 0, 10, w->devices.type(w->gpu_b)), 0.017, 1e-12);
}

TEST(ComputeTimeTest, EmbeddingLayerIsMemoryBound) {
  auto w = MakeWorld();
  ModelProfile model;
  LayerProfile emb;
  emb.kind = LayerKind::kEmbedding;
  emb.fwd_flops_per_sample = 1e3;
  emb.sparse_bytes_per_sample = 1e4;
  emb.activation_bytes_per_sample = 1e3;
  model.layers.push_back(emb);
  // Bytes per sample 2 * (0 + 1e3) + 2 * 1e4 = 22,000; batch 100: 2.2e6 B / 1e12 = 2.2 us.
  // FLOPs 100 * 3e3 = 3e5 / 5e12 = 0.06 us, so memory-bound: 2.2 us + 2 ms.
  EXPECT_NEAR(ComputeTime(model, 0, 0, 100, w->devices.type(w->gpu_a)), 0.002 + 2.2e-6, 1e-12);
}

TEST(ComputeTimeTest, SumsLayerRangeAndCountsInputActivations) {
  auto w = MakeWorld();
  ModelProfile model;
  model.layers.push_back(Layer("l0", 1e9, 0, 2e6));
  model.layers.push_back(Layer("l1", 0, 0, 1e5));  // no FLOPs: pure memory traffic
  // Layer 1 alone, batch 8: bytes 8 * 2 * (2e6 input + 1e5 output) = 3.36e7 / 1e12 = 33.6 us.
  EXPECT_NEAR(ComputeTime(model, 1, 1, 8, w->devices.type(w->gpu_a)), 0.002 + 33.6e-6, 1e-12);
  // Both layers: layer 0 is 8 * 3e9 / 5e12 = 4.8 ms (its 8 * 4e6 = 3.2e7 B take 32 us).
  EXPECT_NEAR(ComputeTime(model, 0, 1, 8, w->devices.type(w->gpu_a)), 0.002 + 4.8e-3 + 33.6e-6, 1e-12);
  // Out-of-range bounds are clamped to the model.
  EXPECT_NEAR(ComputeTime(model, -3, 9, 8, w->devices.type(w->gpu_a)), 0.002 + 4.8e-3 + 33.6e-6, 1e-12);
}

TEST(ComputeTimeTest, EmptyRangeOrZeroBatchCostsOnlyOverhead) {
  auto w = MakeWorld();
  const ModelProfile model = perf_test::OneLayerModel();
  EXPECT_DOUBLE_EQ(ComputeTime(model, 1, 0, 10, w->devices.type(w->gpu_a)), 0.002);
  EXPECT_DOUBLE_EQ(ComputeTime(model, 0, 0, 0, w->devices.type(w->gpu_a)), 0.002);
}

TEST(ComputeTimeTest, HostCostIsAddedOnceWhereTheInputEntersAndDoesNotScaleWithTheDevice) {
  auto w = MakeWorld();
  ModelProfile model;
  model.layers.push_back(Layer("l0", 1e9, 0, 2e6));
  model.layers.push_back(Layer("l1", 0, 0, 1e5));
  model.host_seconds_per_iteration = 0.1;
  // Two layers, batch 8 on gpu-a (SumsLayerRangeAndCountsInputActivations): 4.8 ms + 33.6 us
  // + kappa 2 ms; the host's 100 ms once, not once per layer.
  EXPECT_NEAR(ComputeTime(model, 0, 1, 8, w->devices.type(w->gpu_a)), 0.1 + 0.002 + 4.8e-3 + 33.6e-6, 1e-12);
  // gpu-b: layer 0 8 * 3e9 / 2e12 = 12 ms; layer 1 3.36e7 B / 0.5e12 = 67.2 us; + 2 ms; the
  // host still adds exactly 100 ms: a faster device does not shorten it.
  EXPECT_NEAR(ComputeTime(model, 0, 1, 8, w->devices.type(w->gpu_b)), 0.1 + 0.002 + 12e-3 + 67.2e-6, 1e-12);
  // A range that does not take the model's input (a later pipeline stage) does not wait for it.
  EXPECT_NEAR(ComputeTime(model, 1, 1, 8, w->devices.type(w->gpu_a)), 0.002 + 33.6e-6, 1e-12);
  // No samples, no host work: kappa only.
  EXPECT_DOUBLE_EQ(ComputeTime(model, 0, 1, 0, w->devices.type(w->gpu_a)), 0.002);
}

TEST(ComputeTimeTest, SlowestComputeTimeTakesTheSlowestTypeInTheSet) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId fast = w->AddNode(r, w->gpu_a, 2);
  const NodeId slow = w->AddNode(r, w->gpu_b, 1);
  const std::vector<DeviceId> devices = {w->cluster.node(fast).first_device,
                                         w->cluster.node(slow).first_device,
                                         w->cluster.node(fast).first_device + 1};
  const ModelProfile model = perf_test::OneLayerModel();
  // gpu-b: 17 ms (see ComputeBoundLayerUsesSustainedFlops).
  EXPECT_NEAR(perf_internal::SlowestComputeTime(model, 0, 0, 10, w->cluster, devices), 0.017, 1e-12);
}

}  // namespace
}  // namespace hetsched
