// Runtime -> iterations calibration.
#include "hetsched/trace/calibrate.h"

#include <gtest/gtest.h>

#include "hetsched/perf/iteration_model.h"
#include "trace_test_util.h"

namespace hetsched {
namespace {

// A toy device and model whose iteration time is easy to work out by hand.
DeviceCatalog ToyDevices() {
  DeviceCatalog c;
  DeviceType t;
  t.name = "toy";
  t.fp32_flops = 1e12;
  t.efficiency = 0.5;            // sustained 5e11 FLOP/s
  t.memory_bytes = 16e9;
  t.memory_bandwidth_Bps = 1e12;
  t.iteration_overhead_s = 0.002;
  t.peer_link = "nvlink2";
  t.host_link = "pcie3";
  c.Add(t);
  DeviceType cpu = t;
  cpu.name = "toy-cpu";
  cpu.is_cpu = true;
  c.Add(cpu);
  return c;
}

ModelProfile ToyModel() {
  ModelProfile m;
  m.name = "toy-dense";
  m.default_batch_size = 10;
  LayerProfile l;
  l.name = "fc";
  l.kind = LayerKind::kDense;
  l.fwd_flops_per_sample = 1e9;
  l.bwd_flops_per_sample = 2e9;
  m.layers.push_back(l);
  return m;
}

TEST(CalibrateTest, SingleDeviceIterationTimeByHand) {
  const DeviceCatalog devices = ToyDevices();
  const ModelProfile model = ToyModel();
  auto cal = RuntimeCalibrator::Create(devices, LinkCatalog::BuiltIn(), "toy");
  ASSERT_TRUE(cal.ok()) << cal.status().ToString();
  // Roofline (ALGORITHMS.md 1.4-1): batch 10 x (1e9 + 2e9) FLOPs / 5e11 FLOP/s = 0.06 s, no
  // bytes touched, plus the 0.002 s overhead = 0.062 s; one device, so no communication.
  auto t = cal->IterationSeconds(model, 0, 1);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_NEAR(*t, 0.062, 1e-12);
  // batch 20: 0.12 + 0.002 = 0.122 s
  EXPECT_NEAR(*cal->IterationSeconds(model, 20, 1), 0.122, 1e-12);
  // 620 s / 0.062 s = 10,000 iterations; 0.01 s rounds to 0 -> at least 1; 0.093 s -> 1.5 -> 2.
  EXPECT_EQ(*cal->IterationsFor(model, 0, 1, 620), 10000);
  EXPECT_EQ(*cal->IterationsFor(model, 0, 1, 0.01), 1);
  EXPECT_EQ(*cal->IterationsFor(model, 0, 1, 0), 1);
  EXPECT_EQ(*cal->IterationsFor(model, 0, 1, 0.093), 2);
  auto one_off = RuntimeToIterations(620, model, 0, 1, "toy", devices, LinkCatalog::BuiltIn());
  ASSERT_TRUE(one_off.ok());
  EXPECT_EQ(*one_off, 10000);
}

TEST(CalibrateTest, MultiGpuUsesThePackedPlacement) {
  const DeviceCatalog& devices = trace_test::Devices();
  const ModelProfile& model = **trace_test::Zoo().Lookup("resnet50");
  auto cal = RuntimeCalibrator::Create(devices, LinkCatalog::BuiltIn(), "v100");
  ASSERT_TRUE(cal.ok());
  for (int gpus : {1, 4, 8, 16}) {
    // The same estimate by hand: ceil(gpus/8) full 8-device nodes, devices 0..gpus-1.
    const int nodes = (gpus + 7) / 8;
    auto cluster = MakeShorthandCluster({{"v100", nodes * 8}}, 8, devices, LinkCatalog::BuiltIn());
    ASSERT_TRUE(cluster.ok());
    Plan plan;
    plan.parallelism = gpus > 1 ? Parallelism::kDataRing : Parallelism::kSingle;
    plan.batch_per_device = model.default_batch_size;
    for (int d = 0; d < gpus; ++d) plan.devices.push_back(d);
    const IterationEstimate est = EstimateIteration(model, plan, *cluster);
    EXPECT_EQ(est.span_nodes, nodes);
    auto t = cal->IterationSeconds(model, 0, gpus);
    ASSERT_TRUE(t.ok());
    EXPECT_DOUBLE_EQ(*t, est.iteration_s) << gpus;
  }
}

TEST(CalibrateTest, BadReferenceDevicesAndCounts) {
  const DeviceCatalog devices = ToyDevices();
  auto unknown = RuntimeCalibrator::Create(devices, LinkCatalog::BuiltIn(), "v200");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("reference_device: "), std::string::npos);
  auto cpu = RuntimeCalibrator::Create(devices, LinkCatalog::BuiltIn(), "toy-cpu");
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.status().message().find("is a CPU node"), std::string::npos);
  auto cal = RuntimeCalibrator::Create(devices, LinkCatalog::BuiltIn(), "toy");
  ASSERT_TRUE(cal.ok());
  const ModelProfile model = ToyModel();
  EXPECT_FALSE(cal->IterationSeconds(model, 0, 0).ok());
}

}  // namespace
}  // namespace hetsched
