// A split job's own prediction (perf/goodput_split.h), worked by hand on two types whose passes are
// linear: the first 0.05 + 0.003125 b s (local batches 32..64), the second twice as long; two GPUs
// of one node on each side, 0.05 s to synchronise within a node, no overlap (gamma 1); gradient
// statistics (sqr, var) = (1, 3) at the initial batch 32; the largest batch 256.
#include "hetsched/perf/goodput_split.h"

#include <gtest/gtest.h>

namespace hetsched {
namespace {

const ThroughputParams kFirst{0.05, 0.003125, 0.05, 0, 0.05, 0, 1};

SplitKnowledge Known(const ThroughputParams& second, double ring_s) {
  SplitKnowledge k;
  k.first = SplitSide{kFirst, 1, 2, 32, 64, 1};
  k.second = SplitSide{second, 1, 2, 16, 32, 1};
  k.ring_s = ring_s;
  return k;
}

// Progress per second of a batch at a step, in GoodputModel::Goodput's unit: 32 x gain / step,
// gain = (3 + 1) / (3 / (batch / 32) + 1).
double Goodput(double batch, double step_s) { return 32 * (4 / (3 / (batch / 32) + 1)) / step_s; }

TEST(SplitPredictionTest, TheJobBalancesItsPassesOnItsModels) {
  // Sia's projection of the first type's model onto a type of half its one-GPU throughput: every
  // pass twice as long, 0.1 + 0.00625 b; the synchronisation as on the first type.
  const ThroughputParams second = ProjectedParams(kFirst, 0.5);
  EXPECT_DOUBLE_EQ(second.alpha_c, 0.1);
  EXPECT_DOUBLE_EQ(second.beta_c, 0.00625);
  EXPECT_DOUBLE_EQ(second.alpha_r, 0.05);
  // For b1 = round(32 x 2^(i/23)), b2 = floor((0.05 + 0.003125 b1 - 0.1) / 0.00625) = floor(b1 / 2 - 8);
  // each side's own step (its pass + 0.05 s) is longer than the pass plus the ring's 0.02 s. At
  // b1 = 50, b2 = 17: batch 134, step 0.20625 + 0.05 = 0.25625 s, the best of the 24 (49/16:
  // 130 at 0.253125 s; 52/18: 140 at 0.2625 s).
  const SplitKnowledge k = Known(second, 0.02);
  EXPECT_NEAR(PredictSplitStepS(k, 50, 17), 0.25625, 1e-12);
  const SplitChoice c = PickSplitBatches(k, GradientStats{1, 3}, 32, 256);
  EXPECT_EQ(c.bsz1, 50);
  EXPECT_EQ(c.bsz2, 17);
  EXPECT_NEAR(c.step_s, 0.25625, 1e-12);
  EXPECT_NEAR(c.goodput, Goodput(134, 0.25625), 1e-9);
  EXPECT_GT(c.goodput, Goodput(130, 0.253125));
  // Behind a joint ring of 1 s the step is the pass plus 1 s: the pick is still the best pair, but
  // worth far less (the caller compares it with the job alone).
  const SplitChoice slow_ring = PickSplitBatches(Known(second, 1.0), GradientStats{1, 3}, 32, 256);
  EXPECT_LT(slow_ring.goodput, Goodput(128, 0.3));
  // A second type whose model says 10 times slower has no local batch of 16 or more whose pass
  // fits in the first type's (at most 0.25 s against 1 + 0.1 b): no pair.
  ThroughputParams crawling = kFirst;
  crawling.alpha_c = 1;
  crawling.beta_c = 0.1;
  EXPECT_EQ(PickSplitBatches(Known(crawling, 0.02), GradientStats{1, 3}, 32, 256).bsz2, 0);
}

TEST(SplitPredictionTest, WhatTheJobTimedCorrectsItsModel) {
  // Its model of the second type says as fast as the first (0.05 + 0.003125 b); it timed, at local
  // batches 40 and 32, passes of 0.175 s (its first type's model: 0.175, scale 1) and 0.3 s (the
  // model: 0.15, scale 2), and a joint step of 0.36 s where the corrected model says 0.3 + 0.05:
  // the step's scale 0.36 / 0.35.
  SplitKnowledge k = Known(kFirst, 0.02);
  const SplitMeasurement m{1, 1, 2, 1, 2, 40, 32, 0.175, 0.3, 0.36};
  CorrectByMeasurement(m, 1, &k);
  EXPECT_DOUBLE_EQ(k.first.pass_scale, 1);
  EXPECT_DOUBLE_EQ(k.second.pass_scale, 2);
  EXPECT_NEAR(k.step_scale, 0.36 / 0.35, 1e-12);
  // Corrected, the second type's pass is 0.1 + 0.00625 b: the pair at b1 = 50 is 17 again.
  EXPECT_NEAR(PredictSplitStepS(k, 50, 17), 0.25625 * 0.36 / 0.35, 1e-12);
  EXPECT_EQ(PickSplitBatches(k, GradientStats{1, 3}, 32, 256).bsz2, 17);
  // A measurement of another shape, or of another type, corrects nothing.
  SplitKnowledge other = Known(kFirst, 0.02);
  SplitMeasurement wider = m;
  wider.replicas2 = 4;
  CorrectByMeasurement(wider, 1, &other);
  CorrectByMeasurement(m, 2, &other);
  EXPECT_DOUBLE_EQ(other.second.pass_scale, 1);
  EXPECT_DOUBLE_EQ(other.step_scale, 1);
  // What it timed, as goodput: batch 2 x 40 + 2 x 32 = 144 at 0.36 s.
  EXPECT_NEAR(MeasuredSplitGoodput(m, GradientStats{1, 3}, 32), Goodput(144, 0.36), 1e-9);
}

}  // namespace
}  // namespace hetsched
