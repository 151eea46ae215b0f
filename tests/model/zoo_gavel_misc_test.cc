#include <gtest/gtest.h>

#include "hetsched/model/model_zoo.h"
#include "zoo_lookup.h"

namespace hetsched {
namespace {

using zoo_test::Model;

TEST(ZooGavelMiscTest, A3c) {
  const ModelProfile& m = Model("a3c");
  // conv1 1x5x5x32+32 = 832; conv2 32x25x32+32 = 25,632; conv3 32x16x64+64 = 32,832;
  // conv4 64x9x64+64 = 36,928; LSTMCell 4x512x(1024+512) + 2x2048 = 3,149,824; actor 3,078;
  // critic 513. Total 3,249,639.
  EXPECT_DOUBLE_EQ(m.total_param_bytes() / 4, 3249639);
  // Spatial sizes 80 -> pool 40 -> conv 38 -> 19 -> conv 18 -> 9 -> conv 9 -> 4: LSTM input
  // 64 x 4 x 4 = 1,024, which is what A3Clstm's LSTMCell(1024, 512) expects.
  ASSERT_EQ(m.layers[7].name, "maxp4");
  EXPECT_DOUBLE_EQ(m.layers[7].activation_bytes_per_sample, 1024 * 4);
  // Host-side work per update (Atari steps, CPU-side shared Adam): calibrated on Gavel's
  // single-GPU A3C rows; tests/perf/validation_test.cc re-derives it. Here: it is set, and it
  // dwarfs the network's own FLOPs per update (about 3 ms on a V100, docs/perf-validation.md).
  EXPECT_DOUBLE_EQ(m.host_seconds_per_iteration, 0.187);
  EXPECT_EQ(m.default_batch_size, 20);
}

double SumWhere(const ModelProfile& m, const std::string& prefix, double LayerProfile::*field) {
  double s = 0;
  for (const LayerProfile& l : m.layers) {
    if (l.name.rfind(prefix, 0) == 0) s += l.*field;
  }
  return s;
}

TEST(ZooGavelMiscTest, CycleGan) {
  const ModelProfile& m = Model("cyclegan");
  // ResNet-9 generator 11,378,179 and PatchGAN discriminator 2,764,737 parameters, the counts
  // CycleGAN's reference code prints [PUB-M]; two of each.
  EXPECT_DOUBLE_EQ(SumWhere(m, "G_AB.", &LayerProfile::param_bytes) / 4, 11378179);
  EXPECT_DOUBLE_EQ(SumWhere(m, "D_A.", &LayerProfile::param_bytes) / 4, 2764737);
  EXPECT_DOUBLE_EQ(m.total_param_bytes() / 4, 2 * 11378179 + 2 * 2764737);
  // GAN Compression (Li et al., CVPR 2020) reports 56.8 G MACs for this generator at 256x256.
  // Each generator runs 3 times per sample, so one pass is a third of its layers' FLOPs.
  const double one_pass_macs = SumWhere(m, "G_AB.", &LayerProfile::fwd_flops_per_sample) / 3 / 2;
  EXPECT_NEAR(one_pass_macs, 56.8e9, 0.01 * 56.8e9);
  EXPECT_EQ(m.default_batch_size, 1);
}

}  // namespace
}  // namespace hetsched
