#include <gtest/gtest.h>

#include "hetsched/model/model_zoo.h"
#include "zoo_lookup.h"

namespace hetsched {
namespace {

using zoo_test::Model;

constexpr double kCriteoRows = 33762577;  // sum of the 26 Criteo Kaggle cardinalities [PUB-M]

TEST(ZooRecommendationTest, DeepFm) {
  const ModelProfile& m = Model("deepfm");
  // Tables: 33,762,577 rows x (10 + 1) floats x 4 bytes.
  EXPECT_DOUBLE_EQ(m.total_embedding_bytes(), kCriteoRows * 11 * 4);
  // 26 lookups of 11 floats per sample = 1,144 bytes.
  EXPECT_DOUBLE_EQ(m.total_sparse_bytes_per_sample(), 1144);
  // Dense: numeric 13 x 11 = 143; FM bias 1; MLP 390x400+400, 2 x (400x400+400), 400+1.
  const double dense = 143 + 1 + (390 * 400 + 400) + 2 * (400 * 400 + 400) + 401;
  EXPECT_DOUBLE_EQ(m.total_param_bytes(), dense * 4);
  // Gradient exchange for a batch of 1,024: dense params + 1,024 x 1,144 touched bytes.
  EXPECT_DOUBLE_EQ(m.gradient_bytes(1024), dense * 4 + 1024 * 1144);
}

TEST(ZooRecommendationTest, WideDeep) {
  const ModelProfile& m = Model("wide-deep");
  EXPECT_DOUBLE_EQ(m.total_embedding_bytes(), kCriteoRows * 33 * 4);  // 32-dim + 1 wide weight
  EXPECT_DOUBLE_EQ(m.total_sparse_bytes_per_sample(), 26 * 33 * 4);
  // Deep MLP: 845 = 26 x 32 + 13 inputs; 845x1024+1024, 1024x512+512, 512x256+256, 256+1;
  // wide: 13 weights + bias.
  const double dense = (845 * 1024 + 1024) + (1024 * 512 + 512) + (512 * 256 + 256) + 257 + 14;
  EXPECT_DOUBLE_EQ(m.total_param_bytes(), dense * 4);
  // Sparse traffic is capped by the table: a batch can never touch more than all of it.
  EXPECT_DOUBLE_EQ(m.gradient_bytes(1 << 30), dense * 4 + kCriteoRows * 33 * 4);
}

TEST(ZooRecommendationTest, AutoencoderCf) {
  const ModelProfile& m = Model("recommendation-vae");
  // 20,108 x 200 + 200 (encoder) + 200 x 20,108 + 20,108 (decoder) = 8,063,508.
  EXPECT_DOUBLE_EQ(m.total_param_bytes() / 4, 8063508);
  EXPECT_DOUBLE_EQ(m.total_fwd_flops_per_sample(), 2 * 2 * 20108 * 200.0);
  EXPECT_DOUBLE_EQ(m.total_embedding_bytes(), 0);  // dense weights (Gavel: sparse=False)
  EXPECT_EQ(m.default_batch_size, 2048);            // Gavel's train.py default
}

}  // namespace
}  // namespace hetsched
