// Pollux's NeuMF, DeepSpeech2 and YOLOv3 against counts by hand from the benchmark's code
// (petuum/adaptdl osdi21-artifact, benchmark/models/) and, for YOLOv3, the published YOLOv3-416
// and Darknet-53 figures.
#include <gtest/gtest.h>

#include "hetsched/model/model_zoo.h"
#include "zoo_lookup.h"

namespace hetsched {
namespace {

using zoo_test::Model;
using zoo_test::Params;

TEST(ZooPolluxTest, NeuMfByHand) {
  const ModelProfile& m = Model("neumf");
  EXPECT_EQ(&m, &Model("ncf"));
  // Embeddings (6,040 users + 3,706 items) x (32 GMF + 128 MLP) = 1,559,360; MLP 256x128+128 =
  // 32,896, 128x64+64 = 8,256, 64x32+32 = 2,080; predict 64+1 = 65. Total 1,602,657.
  EXPECT_DOUBLE_EQ(Params(m), (6040 + 3706) * 160.0 + 32896 + 8256 + 2080 + 65);
  EXPECT_DOUBLE_EQ(Params(m), 1602657);
  EXPECT_DOUBLE_EQ(m.total_embedding_bytes(), 0);  // nn.Embedding without sparse=True: dense
  // Forward per (user, item) pair: 32,768 + 8,192 + 2,048 + 64 = 43,072 MACs and GMF's 32
  // products.
  EXPECT_DOUBLE_EQ(m.total_fwd_flops_per_sample(), 2 * 43072.0 + 32);
  EXPECT_EQ(m.layers.size(), 5u);  // embeddings, 3 MLP layers, predict
  EXPECT_DOUBLE_EQ(m.layers.front().activation_bytes_per_sample, (32 + 256) * 4);
  EXPECT_EQ(m.default_batch_size, 256);
}

TEST(ZooPolluxTest, DeepSpeech2ByHand) {
  const ModelProfile& m = Model("deepspeech2");
  // conv1 41x11x32 + 32 bias + 64 BN = 14,528; conv2 21x11x32x32 + 96 = 236,640. GRU input
  // 32 channels x 41 bins (161 -> 81 -> 41) = 1,312. rnn0 2 x (3 x 800 x (1,312 + 800) +
  // 4,800) = 10,147,200; rnn1-4 each BN 1,600 + 2 x (3 x 800 x 1,600 + 4,800) = 7,691,200;
  // fc BN 1,600 + 800 x 29 = 24,800. Total 41,187,968.
  EXPECT_DOUBLE_EQ(Params(m), 14528 + 236640 + 10147200 + 4 * 7691200.0 + 24800);
  EXPECT_DOUBLE_EQ(Params(m), 41187968);
  // 3 s = 301 frames; conv1 (stride 2 in time) leaves 151 steps, conv2 (stride 1) keeps them.
  const double t = 151;
  ASSERT_EQ(m.layers.size(), 8u);  // conv1, conv2, rnn0-4, fc
  EXPECT_DOUBLE_EQ(m.layers[0].activation_bytes_per_sample, 32 * 81 * t * 4);
  EXPECT_DOUBLE_EQ(m.layers[1].activation_bytes_per_sample, 32 * 41 * t * 4);
  EXPECT_DOUBLE_EQ(m.layers[2].activation_bytes_per_sample, 800 * t * 4);  // directions summed
  // MACs: conv1 451 x 32 x 81 x 151, conv2 7,392 x 32 x 41 x 151, GRUs 2 directions x 151 x
  // 2,400 x (2,112 | 1,600), fc 151 x 800 x 29: 7.814 G. Element-wise: BN 2 per output (two
  // convs, four rnn inputs, fc input), GRU gates 9 per unit, step and direction.
  const double macs = 451 * 32 * 81 * t + 7392 * 32 * 41 * t + 2 * t * 2400 * 2112 +
                      4 * (2 * t * 2400 * 1600) + t * 800 * 29;
  EXPECT_DOUBLE_EQ(macs, 7813962496);
  const double extra = 2 * 32 * 81 * t + 2 * 32 * 41 * t + 5 * (2 * 9 * 800 * t) + 5 * (2 * 800 * t);
  EXPECT_DOUBLE_EQ(m.total_fwd_flops_per_sample(), 2 * macs + extra);
  EXPECT_EQ(m.default_batch_size, 20);
}

TEST(ZooPolluxTest, YoloV3MatchesPublishedFiguresAdjustedToVoc448) {
  const ModelProfile& m = Model("yolov3");
  // YOLOv3-416 on COCO (80 classes, 255 output channels) has 61,949,149 parameters
  // (ultralytics/yolov3's count of darknet's yolov3.cfg) [PUB-M]. VOC's 20 classes leave 75
  // output channels: the three output convs (inputs 1,024, 512, 256) lose 1,792 x 180 weights
  // and 3 x 180 biases = 323,100.
  EXPECT_DOUBLE_EQ(Params(m), 61949149 - (1792 * 180 + 3 * 180));
  EXPECT_DOUBLE_EQ(Params(m), 61626049);
  // Redmon & Farhadi 2018: YOLOv3-416 65.86 Bn FLOPs. Every map is the input / 8, 16 or 32, so
  // at 448 (14 cells at stride 32, against 13) FLOPs scale by (14/13)^2 exactly; the 75-channel
  // outputs save 2 x 180 x (1,024 x 14^2 + 512 x 28^2 + 256 x 56^2) FLOPs. Ours adds BN (0.1 %).
  const double published =
      65.86e9 * (14.0 * 14) / (13.0 * 13) - 2 * 180 * (1024 * 196.0 + 512 * 784.0 + 256 * 3136.0);
  EXPECT_NEAR(m.total_fwd_flops_per_sample(), published, 0.01 * published);
  // 52 backbone convs + 3 scales x (5-conv set, 3x3, output) + 2 lateral 1x1 convs = 75.
  ASSERT_EQ(m.layers.size(), 75u);
  EXPECT_EQ(m.layers.back().name, "fpn.small.out");
  EXPECT_DOUBLE_EQ(m.layers.back().activation_bytes_per_sample, 75 * 56 * 56 * 4.0);
  EXPECT_EQ(m.default_batch_size, 8);
}

TEST(ZooPolluxTest, YoloV3BackboneIsDarknet53) {
  const ModelProfile& m = Model("yolov3");
  double params = 0, flops = 0;
  for (size_t i = 0; i < 52; ++i) {
    ASSERT_EQ(m.layers[i].name.rfind("backbone.", 0), 0u) << i;
    params += m.layers[i].param_bytes / 4;
    flops += m.layers[i].fwd_flops_per_sample;
  }
  EXPECT_EQ(m.layers[52].name, "fpn.large.set0");
  // By hand: stem 3x3x3x32 + 64 = 928; per stage (c = 64, 128, ..., 1,024) a 3x3/2 conv
  // 9 c^2/2 + 2c and blocks of c^2/2 + c + 9 c^2/2 + 2c: 39,232 + 238,592 + 2,923,008 +
  // 11,678,720 + 25,704,448. With its 1024 x 1000 classifier Darknet-53 would be 41,609,928,
  // the 41.6 M usually quoted for it [PUB-M].
  EXPECT_DOUBLE_EQ(params, 928 + 39232 + 238592 + 2923008 + 11678720 + 25704448.0);
  EXPECT_NEAR(params + 1024 * 1000 + 1000, 41.6e6, 0.001 * 41.6e6);
  // Redmon & Farhadi 2018, Table 2: Darknet-53 18.7 Bn operations at 256x256; at 448 the convs
  // scale by (448/256)^2 (2 %: BN and the classifier's FLOPs).
  const double published = 18.7e9 * (448.0 * 448) / (256.0 * 256);
  EXPECT_NEAR(flops, published, 0.02 * published);
}

}  // namespace
}  // namespace hetsched
