// Language models against published parameter counts and the standard transformer FLOP formula.
#include <gtest/gtest.h>

#include "hetsched/model/model_zoo.h"
#include "zoo_lookup.h"

namespace hetsched {
namespace {

using zoo_test::Model;
using zoo_test::Params;

TEST(ZooLanguageTest, BertParameterCounts) {
  // Devlin et al. 2019: BERT-base 110 M, BERT-large 340 M parameters. Ours include the MLM and
  // NSP heads of pre-training; BertModel alone is 109,482,240 (base), worked out as
  // embeddings (30522 + 512 + 2) x 768 + 1,536 LN = 23,837,184 + 1,536; 12 layers x 7,087,872;
  // pooler 590,592. The heads add 590,592 + 1,536 + 30,522 + 1,538 = 624,188.
  const double bert_model = (30522 + 512 + 2) * 768.0 + 1536 + 12 * 7087872.0 + 590592;
  EXPECT_DOUBLE_EQ(bert_model, 109482240);
  EXPECT_DOUBLE_EQ(Params(Model("bert-base")), bert_model + 624188);
  EXPECT_NEAR(Params(Model("bert-base")), 110e6, 0.01 * 110e6);
  EXPECT_NEAR(Params(Model("bert-large")), 340e6, 0.02 * 340e6);
}

TEST(ZooLanguageTest, Gpt2ParameterCounts) {
  // GPT-2 small / medium: 124 M / 355 M parameters as released (Hugging Face model cards)
  // [PUB-M]. Small by hand: wte 50257 x 768 = 38,597,376; wpe 1024 x 768 = 786,432;
  // 12 blocks x 7,087,872; ln_f 1,536; tied head adds nothing.
  EXPECT_DOUBLE_EQ(Params(Model("gpt2-small")), 38597376 + 786432 + 12 * 7087872.0 + 1536);
  EXPECT_NEAR(Params(Model("gpt2-small")), 124e6, 0.005 * 124e6);
  EXPECT_NEAR(Params(Model("gpt2-medium")), 355e6, 0.005 * 355e6);
}

TEST(ZooLanguageTest, Gpt2ForwardFlopsMatchMegatronFormula) {
  // Narayanan et al. (SC'21) count a transformer layer's forward pass as 24 s h^2 + 4 s^2 h
  // FLOPs per sequence and the logit layer as 2 s h V. GPT-2 small, s = 1024, h = 768,
  // l = 12, V = 50257: 12 x (24 x 1024 x 589,824 + 4 x 1024^2 x 768) + 2 x 1024 x 768 x 50257
  // = 2.1256e11 + 7.905e10 = 2.916e11. Ours adds softmax and LayerNorm FLOPs (< 1 %).
  const double s = 1024, h = 768, l = 12, v = 50257;
  const double expected = l * (24 * s * h * h + 4 * s * s * h) + 2 * s * h * v;
  EXPECT_NEAR(Model("gpt2-small").total_fwd_flops_per_sample(), expected, 0.01 * expected);
  EXPECT_NEAR(Model("gpt2-small").total_bwd_flops_per_sample(), 2 * expected, 0.02 * expected);
}

TEST(ZooLanguageTest, BertForwardFlops) {
  // Same formula with s = 128, plus the MLM head: transform 2 s h^2 and decoder 2 s h V.
  const double s = 128, h = 768, l = 12, v = 30522;
  const double expected = l * (24 * s * h * h + 4 * s * s * h) + 2 * s * h * h + 2 * s * h * v;
  EXPECT_NEAR(Model("bert-base").total_fwd_flops_per_sample(), expected, 0.01 * expected);
}

TEST(ZooLanguageTest, TransformerBase) {
  // Vaswani et al. 2017, Table 3: Transformer base has 65 M parameters. Ours by hand: shared
  // embedding 37,000 x 512 = 18,944,000; attention block 4 x (512^2 + 512) + 1,024 LN =
  // 1,051,648; FFN 2 x 512 x 2048 + 2048 + 512 + 1,024 LN = 2,100,736; an encoder layer is one
  // of each, a decoder layer two attention blocks (self, cross) and one FFN: 63.08 M in all,
  // 3 % under the paper's rounded figure.
  const double enc = 1051648 + 2100736, dec = 2 * 1051648 + 2100736;
  EXPECT_DOUBLE_EQ(Params(Model("transformer-nmt")), 18944000 + 6 * enc + 6 * dec);
  EXPECT_NEAR(Params(Model("transformer-nmt")), 65e6, 0.05 * 65e6);
}

TEST(ZooLanguageTest, LstmLm) {
  // Gavel's defaults: encoder 33,278 x 200 = 6,655,600; each LSTM layer 4 x 200 x (200 + 200)
  // + 2 x 4 x 200 = 321,600; decoder 200 x 33,278 + 33,278 = 6,688,878. Total 13,987,678.
  const ModelProfile& m = Model("lstm-lm");
  EXPECT_DOUBLE_EQ(Params(m), 13987678);
  // Forward per 35-token sample: LSTMs 2 x 35 x 4 x 200 x 400 MACs = 22.4 M, decoder
  // 35 x 200 x 33,278 = 232.9 M MACs; gate maths 2 x 10 x 200 x 35 FLOPs.
  EXPECT_DOUBLE_EQ(m.total_fwd_flops_per_sample(),
                   2 * (2 * 35 * 4 * 200 * 400.0 + 35 * 200 * 33278.0) + 2 * 10 * 200 * 35.0);
}

}  // namespace
}  // namespace hetsched
