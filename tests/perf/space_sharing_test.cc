// Space sharing's co-location model (perf/space_sharing.h), worked by hand on perf_fixtures.h's
// world: gpu-a sustains 5 TFLOP/s and 1 TB/s with a 2 ms per-iteration overhead, gpu-b 2 TFLOP/s.
#include "hetsched/perf/space_sharing.h"

#include <gtest/gtest.h>

#include <vector>

#include "perf_fixtures.h"

namespace hetsched {
namespace {

using perf_test::MakeWorld;

// The one-layer model at batch 10 on one device: 6 ms of arithmetic (3e10 FLOP / 5e12), 0.02 ms
// of memory traffic (2e7 B / 1e12), a step of 8 ms with the overhead.
TEST(SpaceSharingModelTest, DemandIsTheRooflineSidesOverTheStep) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 2);
  (void)n;
  const ModelProfile model = perf_test::OneLayerModel();
  Plan plan;
  plan.batch_per_device = 10;
  plan.devices = {0};
  const IterationEstimate alone = EstimateIteration(model, plan, w->cluster);
  ASSERT_NEAR(alone.iteration_s, 0.008, 1e-12);
  const DeviceDemand d = DemandOf(model, 10, w->cluster, plan.devices, alone);
  EXPECT_NEAR(d.flop_share, 0.006 / 0.008, 1e-12);
  EXPECT_NEAR(d.memory_share, 0.00002 / 0.008, 1e-12);
  EXPECT_DOUBLE_EQ(d.memory_bytes, alone.memory_per_device_bytes);
  // Two of them ask the arithmetic for 1.5 times what it has: each runs at 2/3.
  EXPECT_NEAR(CoLocationFactor(d, d), 1 / 1.5, 1e-12);
}

TEST(SpaceSharingModelTest, TheSlowestTypeSetsTheDemand) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  w->AddNode(r, w->gpu_a, 1);  // device 0
  w->AddNode(r, w->gpu_b, 1);  // device 1
  const ModelProfile model = perf_test::OneLayerModel();
  // On gpu-b the arithmetic takes 3e10 / 2e12 = 15 ms: that device's share over the job's step.
  IterationEstimate alone;
  alone.iteration_s = 0.020;
  const DeviceDemand d = DemandOf(model, 10, w->cluster, std::vector<DeviceId>{0, 1}, alone);
  EXPECT_NEAR(d.flop_share, 0.015 / 0.020, 1e-12);
}

TEST(SpaceSharingModelTest, DifferentBottlenecksShareWithoutLoss) {
  DeviceDemand compute{0.75, 0.01, 0};
  DeviceDemand memory{0.05, 0.6, 0};
  EXPECT_DOUBLE_EQ(CoLocationFactor(compute, memory), 1.0);
  DeviceDemand memory2{0.05, 0.8, 0};
  EXPECT_NEAR(CoLocationFactor(memory, memory2), 1 / 1.4, 1e-12);  // the memory side binds
  DeviceDemand idle{0, 0, 0};
  EXPECT_DOUBLE_EQ(CoLocationFactor(idle, idle), 1.0);
}

TEST(SpaceSharingModelTest, MemoryIsCheckedOnEveryDevice) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  w->AddNode(r, w->gpu_a, 1);  // 16 GB
  w->AddNode(r, w->gpu_b, 1);  // 12 GB
  DeviceDemand a{0.5, 0, 7e9}, b{0.5, 0, 7e9}, c{0.5, 0, 9.5e9};
  EXPECT_TRUE(FitsTogether(a, b, w->cluster, std::vector<DeviceId>{0}));
  EXPECT_FALSE(FitsTogether(a, c, w->cluster, std::vector<DeviceId>{0}));
  EXPECT_FALSE(FitsTogether(a, b, w->cluster, std::vector<DeviceId>{0, 1}));
}

}  // namespace
}  // namespace hetsched
