#include "hetsched/model/zoo_builder.h"

#include <gtest/gtest.h>

namespace hetsched::zoo {
namespace {

TEST(ZooBuilderTest, Conv2dWithBatchNorm) {
  Shape out;
  LayerProfile l = Conv2d("c", Shape{3, 32, 32}, Conv(16, 3, 1, 1, true, true), &out);
  EXPECT_EQ(out.c, 16);
  EXPECT_EQ(out.h, 32);  // (32 + 2 - 3) / 1 + 1
  // MACs = 3*3*3 * 16 * 32*32 = 442,368 -> 884,736 FLOPs; BN 2 x 16,384 outputs = 32,768.
  EXPECT_DOUBLE_EQ(l.fwd_flops_per_sample, 917504);
  EXPECT_DOUBLE_EQ(l.bwd_flops_per_sample, 2 * 917504);
  // 3*3*3*16 weights + 16 bias + 2*16 BN = 480 params = 1,920 bytes.
  EXPECT_DOUBLE_EQ(l.param_bytes, 1920);
  EXPECT_DOUBLE_EQ(l.activation_bytes_per_sample, 16 * 32 * 32 * 4);
  EXPECT_EQ(l.kind, LayerKind::kConv);
}

TEST(ZooBuilderTest, StridedConvShape) {
  Shape out;
  Conv2d("c", Shape{3, 224, 224}, Conv(64, 7, 2, 3, false, false), &out);
  EXPECT_EQ(out.h, 112);  // (224 + 6 - 7) / 2 + 1 = 112
  Conv2d("c", Shape{3, 299, 299}, Conv(32, 3, 2, 0, false, false), &out);
  EXPECT_EQ(out.h, 149);  // (299 - 3) / 2 + 1
}

TEST(ZooBuilderTest, ConvWithTwoStrides) {
  Shape out;
  // DeepSpeech2's second conv: 21x11 kernel, pad (10, 5), stride 2 along h, 1 along w.
  const ConvSpec spec{32, 21, 11, 7, 10, 5, true, true};
  LayerProfile l = Conv2dStrides("c", Shape{32, 81, 151}, spec, 2, 1, &out);
  EXPECT_EQ(out.h, 41);   // (81 + 20 - 21) / 2 + 1; spec.stride (7) is not read
  EXPECT_EQ(out.w, 151);  // (151 + 10 - 11) / 1 + 1
  EXPECT_DOUBLE_EQ(l.param_bytes, (21 * 11 * 32 * 32 + 32 + 2 * 32) * 4.0);
  EXPECT_DOUBLE_EQ(l.fwd_flops_per_sample, 2.0 * 21 * 11 * 32 * 32 * 41 * 151 + 2.0 * 32 * 41 * 151);
}

TEST(ZooBuilderTest, ConvTransposeCountsInputPositions) {
  Shape out;
  LayerProfile l = ConvTranspose2d("t", Shape{4, 2, 2}, Conv(2, 3, 2, 1, false, false), &out);
  EXPECT_EQ(out.h, 4);
  // 3*3 * 4 in * 2 out * (2*2 input positions) = 288 MACs.
  EXPECT_DOUBLE_EQ(l.fwd_flops_per_sample, 576);
  EXPECT_DOUBLE_EQ(l.param_bytes, 3 * 3 * 4 * 2 * 4);
}

TEST(ZooBuilderTest, PoolAndDense) {
  Shape out;
  LayerProfile p = Pool2d("p", Shape{1, 4, 4}, 2, 2, 0, &out);
  EXPECT_EQ(out.h, 2);
  EXPECT_DOUBLE_EQ(p.fwd_flops_per_sample, 16);  // 4 outputs x 2*2 window
  EXPECT_DOUBLE_EQ(p.param_bytes, 0);
  LayerProfile d = Dense("d", 100, 10, true, 5);
  EXPECT_DOUBLE_EQ(d.fwd_flops_per_sample, 10000);  // 5 tokens x 100 x 10 MACs x 2
  EXPECT_DOUBLE_EQ(d.param_bytes, 1010 * 4);
  EXPECT_DOUBLE_EQ(d.activation_bytes_per_sample, 50 * 4);
}

TEST(ZooBuilderTest, Attention) {
  LayerProfile a = Attention("a", 4, 4, 8);
  // Projections 4 x (4 x 8 x 8) = 1,024 MACs; QK^T 4*4*8 = 128; AV 128 -> 1,280 MACs = 2,560
  // FLOPs; softmax 5 x 16 = 80; LayerNorm 2 x 32 = 64 -> 2,704.
  EXPECT_DOUBLE_EQ(a.fwd_flops_per_sample, 2704);
  // 4 x (64 + 8) + 2 x 8 = 304 params.
  EXPECT_DOUBLE_EQ(a.param_bytes, 304 * 4);
  EXPECT_EQ(a.kind, LayerKind::kAttention);
  LayerProfile cross = Attention("x", 2, 6, 8);
  // Q, O: 2 x (2*64) = 256; K, V: 2 x (6*64) = 768; scores and context 2 x 2*6*8 = 192 MACs.
  EXPECT_DOUBLE_EQ(cross.fwd_flops_per_sample, 2 * (256 + 768 + 192) + 5 * 12 + 2 * 16);
}

TEST(ZooBuilderTest, FeedForwardLstmAndEmbeddings) {
  LayerProfile f = FeedForward("f", 2, 4, 16);
  EXPECT_DOUBLE_EQ(f.fwd_flops_per_sample, 2 * (2 * 2 * 4 * 16) + 2 * 8);  // 256 MACs + LN
  EXPECT_DOUBLE_EQ(f.param_bytes, (64 + 16 + 64 + 4 + 8) * 4);
  LayerProfile l = Lstm("l", 3, 2, 5);
  // 5 steps x 4 gates x 2 units x (3 + 2) = 200 MACs -> 400; gates 10 x 2 x 5 = 100.
  EXPECT_DOUBLE_EQ(l.fwd_flops_per_sample, 500);
  EXPECT_DOUBLE_EQ(l.param_bytes, (4 * 2 * 5 + 2 * 4 * 2) * 4);
  // GRU: 5 steps x 3 gates x 2 units x (3 + 2) = 150 MACs -> 300; gates 9 x 2 x 5 = 90.
  // PyTorch's nn.GRU(3, 2): 3 x (3 x 2 + 2 x 2) + 2 x 3 x 2 = 42 parameters per direction.
  LayerProfile g = Gru("g", 3, 2, 5, false);
  EXPECT_DOUBLE_EQ(g.fwd_flops_per_sample, 390);
  EXPECT_DOUBLE_EQ(g.param_bytes, 42 * 4);
  EXPECT_DOUBLE_EQ(g.activation_bytes_per_sample, 5 * 2 * 4);
  LayerProfile bi = Gru("bi", 3, 2, 5, true);  // two directions, outputs concatenated
  EXPECT_DOUBLE_EQ(bi.fwd_flops_per_sample, 2 * 390);
  EXPECT_DOUBLE_EQ(bi.param_bytes, 2 * 42 * 4);
  EXPECT_DOUBLE_EQ(bi.activation_bytes_per_sample, 5 * 4 * 4);
  EXPECT_EQ(bi.kind, LayerKind::kRecurrent);
  LayerProfile e = DenseEmbedding("e", 1000, 8, 3);
  EXPECT_DOUBLE_EQ(e.param_bytes, 32000);
  EXPECT_DOUBLE_EQ(e.embedding_table_bytes, 0);
  EXPECT_DOUBLE_EQ(e.fwd_flops_per_sample, 0);
  LayerProfile s = SparseEmbedding("s", 1000, 8, 3);
  EXPECT_DOUBLE_EQ(s.param_bytes, 0);
  EXPECT_DOUBLE_EQ(s.embedding_table_bytes, 32000);
  EXPECT_DOUBLE_EQ(s.sparse_bytes_per_sample, 96);  // 3 rows x 8 floats
}

TEST(ZooBuilderTest, MergeSumsPartsAndTakesGivenOutput) {
  LayerProfile m = MergeLayers("m", LayerKind::kConv, {Dense("a", 2, 3, false), Dense("b", 3, 4, false)}, 7);
  EXPECT_DOUBLE_EQ(m.fwd_flops_per_sample, 2 * (6 + 12));
  EXPECT_DOUBLE_EQ(m.param_bytes, 18 * 4);
  EXPECT_DOUBLE_EQ(m.activation_bytes_per_sample, 28);
}

}  // namespace
}  // namespace hetsched::zoo
