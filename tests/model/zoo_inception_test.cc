// Inception-v3 against torchvision's documentation [PUB-M]: 27,161,264 parameters (with the
// auxiliary classifier) and 5.71 G multiply-adds at 299x299.
#include <gtest/gtest.h>

#include "hetsched/model/model_zoo.h"

namespace hetsched {
namespace {

TEST(ZooInceptionTest, MatchesTorchvision) {
  const ModelProfile& m = *ModelZoo::BuiltIn().Lookup("inception-v3").value();
  EXPECT_DOUBLE_EQ(m.total_param_bytes() / 4, 27161264);
  EXPECT_NEAR(m.total_fwd_flops_per_sample() / 2, 5.71e9, 0.02 * 5.71e9);
}

TEST(ZooInceptionTest, ModuleOutputsFollowThePaperShapes) {
  const ModelProfile& m = *ModelZoo::BuiltIn().Lookup("inception-v3").value();
  auto act = [&](const std::string& name) {
    for (const LayerProfile& l : m.layers) {
      if (l.name == name) return l.activation_bytes_per_sample / 4;
    }
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(act("Mixed_5b"), 256.0 * 35 * 35);  // 64 + 64 + 96 + 32 channels
  EXPECT_DOUBLE_EQ(act("Mixed_5d"), 288.0 * 35 * 35);
  EXPECT_DOUBLE_EQ(act("Mixed_6a"), 768.0 * 17 * 17);  // 384 + 96 + 288
  EXPECT_DOUBLE_EQ(act("Mixed_6e+aux"), 768.0 * 17 * 17);  // aux head does not change the chain
  EXPECT_DOUBLE_EQ(act("Mixed_7a"), 1280.0 * 8 * 8);
  EXPECT_DOUBLE_EQ(act("Mixed_7c"), 2048.0 * 8 * 8);
  // Mixed_5b's parameters by hand (conv weights + 2 BN params per output channel):
  // 1x1 192->64: 12,288+128; 1x1 192->48: 9,216+96; 5x5 48->64: 76,800+128; 1x1 192->64:
  // 12,288+128; 3x3 64->96: 55,296+192; 3x3 96->96: 82,944+192; pool 1x1 192->32: 6,144+64.
  const double p = 12288 + 128 + 9216 + 96 + 76800 + 128 + 12288 + 128 + 55296 + 192 + 82944 + 192 + 6144 + 64;
  ASSERT_EQ(m.layers[7].name, "Mixed_5b");  // after 5 stem convs and 2 max-pools
  EXPECT_DOUBLE_EQ(m.layers[7].param_bytes / 4, p);
}

}  // namespace
}  // namespace hetsched
