#include "hetsched/model/model_zoo.h"

#include <gtest/gtest.h>

namespace hetsched {
namespace {

ModelProfile Tiny() {
  ModelProfile m;
  m.name = "tiny";
  LayerProfile emb;
  emb.kind = LayerKind::kEmbedding;
  emb.embedding_table_bytes = 1000;
  emb.sparse_bytes_per_sample = 30;
  emb.activation_bytes_per_sample = 8;
  LayerProfile dense;
  dense.fwd_flops_per_sample = 50;
  dense.bwd_flops_per_sample = 100;
  dense.param_bytes = 100;
  dense.activation_bytes_per_sample = 4;
  m.layers = {emb, dense};
  return m;
}

TEST(ModelProfileTest, Totals) {
  const ModelProfile m = Tiny();
  EXPECT_DOUBLE_EQ(m.total_fwd_flops_per_sample(), 50);
  EXPECT_DOUBLE_EQ(m.total_bwd_flops_per_sample(), 100);
  EXPECT_DOUBLE_EQ(m.total_param_bytes(), 100);
  EXPECT_DOUBLE_EQ(m.total_embedding_bytes(), 1000);
  EXPECT_DOUBLE_EQ(m.total_sparse_bytes_per_sample(), 30);
  EXPECT_DOUBLE_EQ(m.total_activation_bytes_per_sample(), 12);
}

TEST(ModelProfileTest, GradientBytesCapsSparseRowsAtTheTable) {
  const ModelProfile m = Tiny();
  EXPECT_DOUBLE_EQ(m.gradient_bytes(10), 100 + 10 * 30);     // 400
  EXPECT_DOUBLE_EQ(m.gradient_bytes(100), 100 + 1000);       // 3,000 touched > 1,000 table
  EXPECT_DOUBLE_EQ(m.gradient_bytes(0), 100);
}

TEST(ModelZooTest, BuiltInHasEveryKey) {
  const ModelZoo& zoo = ModelZoo::BuiltIn();
  for (const char* key : {"resnet50", "resnet18-cifar", "vgg16", "inception-v3", "bert-base",
                          "bert-large", "gpt2-small", "gpt2-medium", "transformer-nmt", "lstm-lm",
                          "deepfm", "wide-deep", "recommendation-vae", "a3c", "cyclegan", "neumf",
                          "deepspeech2", "yolov3"}) {
    const ModelProfile* m = zoo.Find(key);
    ASSERT_NE(m, nullptr) << key;
    EXPECT_EQ(m->name, key);
  }
  EXPECT_EQ(zoo.models().size(), 18u);
}

TEST(ModelZooTest, OnlyA3cDeclaresHostSideWork) {
  // The accelerator bounds every other zoo model's iteration; no per-model factor stands in
  // for what the perf model lacks (docs/perf-validation.md).
  for (const ModelProfile& m : ModelZoo::BuiltIn().models()) {
    if (m.name == "a3c") {
      EXPECT_GT(m.host_seconds_per_iteration, 0.0);
    } else {
      EXPECT_EQ(m.host_seconds_per_iteration, 0.0) << m.name;
    }
  }
  EXPECT_EQ(ModelProfile{}.host_seconds_per_iteration, 0.0);  // default: none
}

TEST(ModelZooTest, AliasesAndGavelNames) {
  const ModelZoo& zoo = ModelZoo::BuiltIn();
  auto name_of = [&](const char* alias) {
    const ModelProfile* m = zoo.Find(alias);
    return m == nullptr ? std::string("(none)") : m->name;
  };
  EXPECT_EQ(name_of("ResNet-50"), "resnet50");
  EXPECT_EQ(name_of("resnet-50"), "resnet50");
  EXPECT_EQ(name_of("RESNET50"), "resnet50");
  EXPECT_EQ(name_of("bert"), "bert-base");
  EXPECT_EQ(name_of("gpt2"), "gpt2-small");
  EXPECT_EQ(name_of("Inception V3"), "inception-v3");
  EXPECT_EQ(name_of("inception_v3"), "inception-v3");
  // The job types of Gavel's traces.
  EXPECT_EQ(name_of("ResNet-18"), "resnet18-cifar");
  EXPECT_EQ(name_of("Transformer"), "transformer-nmt");
  EXPECT_EQ(name_of("LM"), "lstm-lm");
  EXPECT_EQ(name_of("Recommendation"), "recommendation-vae");
  EXPECT_EQ(name_of("A3C"), "a3c");
  EXPECT_EQ(name_of("CycleGAN"), "cyclegan");
  // Pollux's applications added by zoo_pollux.cc (data/real/pollux/traces/<app>).
  EXPECT_EQ(name_of("ncf"), "neumf");
  EXPECT_EQ(name_of("DeepSpeech2"), "deepspeech2");
  EXPECT_EQ(name_of("YOLOv3"), "yolov3");
  EXPECT_EQ(zoo.Find("resnet"), nullptr);
  auto missing = zoo.Lookup("alexnet");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("unknown model 'alexnet' (known: resnet50, "),
            std::string::npos);
}

TEST(ModelZooTest, EveryBuiltInProfileIsWellFormed) {
  for (const ModelProfile& m : ModelZoo::BuiltIn().models()) {
    SCOPED_TRACE(m.name);
    EXPECT_FALSE(m.display_name.empty());
    EXPECT_FALSE(m.domain.empty());
    EXPECT_FALSE(m.derivation.empty());
    EXPECT_GT(m.default_batch_size, 0);
    ASSERT_FALSE(m.layers.empty());
    EXPECT_GT(m.total_fwd_flops_per_sample(), 0);
    EXPECT_GT(m.total_param_bytes() + m.total_embedding_bytes(), 0);
    for (const LayerProfile& l : m.layers) {
      SCOPED_TRACE(l.name);
      EXPECT_FALSE(l.name.empty());
      EXPECT_GE(l.fwd_flops_per_sample, 0);
      EXPECT_DOUBLE_EQ(l.bwd_flops_per_sample, 2 * l.fwd_flops_per_sample);  // ALGORITHMS.md 1.1
      EXPECT_GT(l.activation_bytes_per_sample, 0);
    }
  }
}

TEST(ModelZooTest, AddRegistersAliases) {
  ModelZoo zoo;
  zoo.Add(Tiny(), {"Small-Model"});
  EXPECT_NE(zoo.Find("tiny"), nullptr);
  EXPECT_NE(zoo.Find("small_model"), nullptr);
  EXPECT_EQ(zoo.Find("huge"), nullptr);
  EXPECT_EQ(LayerKindName(LayerKind::kAttention), "attention");
}

}  // namespace
}  // namespace hetsched
