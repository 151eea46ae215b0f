// Totals of the vision models against published figures. The published numbers are
// torchvision's model documentation (params; "GFLOPS" there are multiply-adds) [PUB-M]:
// ResNet-50 25,557,032 / 4.09 G, VGG-16 138,357,544 / 15.47 G.
#include <gtest/gtest.h>

#include "hetsched/model/model_zoo.h"
#include "zoo_lookup.h"

namespace hetsched {
namespace {

using zoo_test::Model;
using zoo_test::Params;
double Macs(const ModelProfile& m) { return m.total_fwd_flops_per_sample() / 2; }

TEST(ZooVisionTest, ResNet50MatchesTorchvision) {
  const ModelProfile& m = Model("resnet50");
  EXPECT_DOUBLE_EQ(Params(m), 25557032);  // conv + BN affine + FC, exactly torchvision's count
  EXPECT_NEAR(Macs(m), 4.09e9, 0.02 * 4.09e9);
  // conv1: 7*7*3*64 MACs per output x 112*112 outputs = 118,013,952 MACs (+ BN 2 FLOPs/output).
  EXPECT_DOUBLE_EQ(m.layers.front().fwd_flops_per_sample, 2.0 * 118013952 + 2.0 * 64 * 112 * 112);
  EXPECT_DOUBLE_EQ(m.layers.front().activation_bytes_per_sample, 64.0 * 112 * 112 * 4);
  // 1 stem conv + 1 max-pool + 16 blocks x 3 convs + 4 shortcut convs + avg-pool + fc = 56.
  EXPECT_EQ(m.layers.size(), 56u);
  EXPECT_EQ(m.layers.back().name, "fc");
  EXPECT_DOUBLE_EQ(m.layers.back().param_bytes, (2048.0 * 1000 + 1000) * 4);
}

TEST(ZooVisionTest, Vgg16MatchesTorchvision) {
  const ModelProfile& m = Model("vgg16");
  EXPECT_DOUBLE_EQ(Params(m), 138357544);
  EXPECT_NEAR(Macs(m), 15.47e9, 0.02 * 15.47e9);
  // First conv: 3*3*3*64 x 224*224 = 86,704,128 MACs, no BN.
  EXPECT_DOUBLE_EQ(m.layers.front().fwd_flops_per_sample, 2.0 * 86704128);
  // fc6 alone holds 25088 x 4096 + 4096 = 102,764,544 parameters.
  EXPECT_DOUBLE_EQ(m.layers[m.layers.size() - 3].param_bytes, 102764544.0 * 4);
}

TEST(ZooVisionTest, ResNet18Cifar) {
  const ModelProfile& m = Model("resnet18-cifar");
  // The CIFAR ResNet-18 is commonly quoted at 11.17 M parameters and 0.56 G MACs
  // (kuangliu/pytorch-cifar-style model) [PUB-M]; the parameter count worked out by hand:
  // stem 1,728 + 128 BN; stage convs 3x3: 64->64 x4 (36,864 each), 64->128 (73,728),
  // 128->128 x3 (147,456), 128->256 (294,912), 256->256 x3 (589,824), 256->512 (1,179,648),
  // 512->512 x3 (2,359,296); shortcuts 8,192 + 32,768 + 131,072; BN 2 x (64x4 + 128x5 + 256x5
  // + 512x5) = 9,472; BN stem 128; FC 5,130.
  const double convs = 1728 + 4 * 36864 + 73728 + 3 * 147456 + 294912 + 3 * 589824 + 1179648 +
                       3 * 2359296 + 8192 + 32768 + 131072;
  const double bn = 128 + 2 * (64 * 4 + 128 * 5 + 256 * 5 + 512 * 5);
  EXPECT_DOUBLE_EQ(Params(m), convs + bn + 5130);
  EXPECT_DOUBLE_EQ(Params(m), 11173962);
  EXPECT_NEAR(Macs(m), 0.56e9, 0.02 * 0.56e9);
  EXPECT_DOUBLE_EQ(m.layers.back().activation_bytes_per_sample, 10 * 4);
}

}  // namespace
}  // namespace hetsched
