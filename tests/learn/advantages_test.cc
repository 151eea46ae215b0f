#include "hetsched/learn/advantages.h"

#include <gtest/gtest.h>

#include <vector>

namespace hetsched::learn {
namespace {

// Two interleaved chains: job A decides at 0 (i=0) and 2 (i=2), job B at 1 (i=1) and 3 (i=3).
// gamma 0.5 per period, lambda 0.5; rewards 1, 10, 2, 20; values 4, 40, 3, 30.
//   i=3 (B, terminal): delta = 20 - 30 = -10; A = -10; target 20.
//   i=2 (A, terminal): delta = 2 - 3 = -1;    A = -1;  target 2.
//   i=1 (B -> 3, gap 2): discount 0.25; delta = 10 + 0.25 x 30 - 40 = -22.5;
//        A = -22.5 + (0.5 x 0.5)^2 x (-10) = -23.125; target 16.875.
//   i=0 (A -> 2, gap 1): discount 0.5; delta = 1 + 0.5 x 3 - 4 = -1.5;
//        A = -1.5 + 0.5 x 0.5 x (-1) = -1.75; target 2.25.
// Job B's reward (10, 20) never reaches job A's decisions: each is credited with its own.
TEST(ChainAdvantagesTest, GoldenTwoChains) {
  const std::vector<double> reward{1, 10, 2, 20}, gap{1, 2, 0, 0}, value{4, 40, 3, 30};
  const std::vector<int64_t> next{2, 3, -1, -1};
  auto out = ChainAdvantages({reward, next, gap, value}, 0.5, 0.5);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const std::vector<double> a{-1.75, -23.125, -1, -10}, t{2.25, 16.875, 2, 20};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(out->advantage[i], a[i]) << i;
    EXPECT_DOUBLE_EQ(out->target[i], t[i]) << i;
  }
}

// lambda = 1 and zero values: the target is the discounted Monte-Carlo return of the chain.
TEST(ChainAdvantagesTest, LambdaOneGivesDiscountedReturns) {
  const std::vector<double> reward{1, 2, 4}, gap{1, 1, 0}, value{0, 0, 0};
  const std::vector<int64_t> next{1, 2, -1};
  auto out = ChainAdvantages({reward, next, gap, value}, 0.5, 1.0);
  ASSERT_TRUE(out.ok());
  EXPECT_DOUBLE_EQ(out->target[0], 1 + 0.5 * (2 + 0.5 * 4));  // 3
  EXPECT_DOUBLE_EQ(out->target[1], 2 + 0.5 * 4);
  EXPECT_DOUBLE_EQ(out->target[2], 4);
}

TEST(ChainAdvantagesTest, RefusesBadInput) {
  const std::vector<double> r{1, 2}, g{1, 0}, v{0, 0};
  EXPECT_FALSE(ChainAdvantages({r, std::vector<int64_t>{0, -1}, g, v}, 0.9, 0.9).ok());  // successor not later
  EXPECT_FALSE(ChainAdvantages({r, std::vector<int64_t>{5, -1}, g, v}, 0.9, 0.9).ok());  // out of range
  EXPECT_FALSE(ChainAdvantages({r, std::vector<int64_t>{1}, g, v}, 0.9, 0.9).ok());      // sizes
  EXPECT_FALSE(ChainAdvantages({r, std::vector<int64_t>{1, -1}, std::vector<double>{-1, 0}, v}, 0.9, 0.9).ok());
  EXPECT_FALSE(ChainAdvantages({r, std::vector<int64_t>{1, -1}, g, v}, 1.5, 0.9).ok());
}

}  // namespace
}  // namespace hetsched::learn
