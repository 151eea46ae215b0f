// A goodput job split over two GPU types (sim/goodput_split.cc), on two hand-made applications whose
// figures are chosen so that every value is worked out on paper:
//  - "fast" (type 0): on one GPU, a step of 0.1 s at local batch 32 and 0.2 s at 64; on two GPUs of
//    one node, 0.2 s and 0.3 s with 0.05 s of it the all-reduce: a pass of 0.05 + 0.003125 b s;
//  - "slow" (type 1): every pass twice as long, at local batches 16 and 32 (0.1 s and 0.2 s on one
//    GPU; 0.25 s and 0.35 s on two, 0.05 s the all-reduce): a pass of 0.1 + 0.00625 b s. Its
//    one-GPU throughput is half the fast type's (32 / 0.2 = 160 samples/s against 64 / 0.2 = 320);
//  - validated batches 32 (the initial) and 256, gradient statistics (sqr, var) = (1, 3) in each.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>

#include "hetsched/perf/goodput_application.h"
#include "hetsched/perf/goodput_job.h"
#include "../common/toy_goodput_app.h"

namespace hetsched::sim_internal {
namespace {

// What a job knows of one type before it measured anything there.
GoodputTypeKnowledge Know(DeviceTypeId type, const GoodputApplication* app) {
  GoodputTypeKnowledge k;
  k.type = type;
  k.app = app;
  return k;
}

constexpr DeviceTypeId kFast = 0, kSlow = 1;

std::shared_ptr<const GoodputApplication> App(bool slow) {
  using testing_util::ToyRow;
  if (slow) {
    return testing_util::ToyApplication(
        {ToyRow("1", 16, 0.1, 0), ToyRow("1", 32, 0.2, 0), ToyRow("2", 16, 0.25, 0.05), ToyRow("2", 32, 0.35, 0.05)});
  }
  return testing_util::ToyFastApplication();
}

// An adaptive job on 2 fast GPUs of one node whose model there is the fast type's truth (pass
// 0.05 + 0.003125 b, 0.05 s to synchronise, no overlap: gamma 1), never run on the slow type: its
// model there is Sia's projection by the one-GPU throughputs (160 / 320 samples/s), every pass
// twice as long, which here is the slow type's truth too.
struct SplitJob {
  std::shared_ptr<const GoodputApplication> fast = App(false), slow = App(true);
  GoodputJob job;
  SplitJob() {
    job.types = {Know(kFast, fast.get()),
                 Know(kSlow, slow.get())};
    job.types[0].samples.push_back(ThroughputSample{1, 2, 32, 0.15, 0.2});
    job.types[0].params = ThroughputParams{0.05, 0.003125, 0.05, 0, 0.05, 0, 1};
    job.app = fast.get();
    job.adaptive = true;
    job.grad = GradientStats{1, 3};
    EXPECT_TRUE(GoodputSteps::Place(job, {2}, kFast).ok());
  }
};

TEST(GoodputSplitTest, ThePassesAreBalancedAndTheSplitPaysTheJointRing) {
  // For each of 24 fast local batches round(32 x 2^(k/23)), the largest slow one whose pass is no
  // longer: 0.1 + 0.00625 b2 <= 0.05 + 0.003125 b1, b2 = floor(b1 / 2 - 8), at least 16 (b1 >= 48).
  // Each type's own step is its pass plus 0.05 s, longer than the pass plus the joint ring's 0.02 s:
  // the step is the fast pass plus 0.05 s. Progress per second: gain / step, gain = (3 + 1) /
  // (3 / (batch / 32) + 1) = 4 batch / (96 + batch):
  //   b1 = 49, b2 = 16: batch 130, step 0.253125 s: 9.0899;  b1 = 50, b2 = 17: 134, 0.25625 s: 9.0944;
  //   b1 = 52, b2 = 18: 140, 0.2625 s: 9.0396; ... b1 = 64, b2 = 24: 176, 0.3 s: 8.6275.
  // The fast pair alone does at best 8.08 (local batch 32 ... 64, batch up to 256): the job splits
  // at (50, 17), no accumulation.
  SplitJob s;
  ASSERT_TRUE(GoodputSteps::PlaceSecond(s.job, {2}, kSlow, 0.02).ok());
  EXPECT_TRUE(s.job.split());
  EXPECT_EQ(s.job.atomic_bsz, 50);
  EXPECT_EQ(s.job.accum_steps, 0);
  EXPECT_EQ(s.job.second.atomic_bsz, 17);
  EXPECT_DOUBLE_EQ(s.job.batch_size(), 134);
  // Its truth: the fast pair at 50, 0.2 + 0.1 x 18 / 32 = 0.25625 s (pass 0.20625); the slow pair
  // at 17, 0.25 + 0.1 x 1 / 16 = 0.25625 s (pass 0.20625): balanced. The joint ring's 0.02 s after
  // the pass is inside either's own step: 0.25625 s, 0.05 of it synchronisation.
  auto t = GoodputSteps::SplitStepTime(s.job);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_NEAR(t->step_s, 0.25625, 1e-12);
  EXPECT_NEAR(t->sync_s, 0.05, 1e-12);
  // Progress per second: gain / step, gain = (3 + 1) / (3 / (134 / 32) + 1) = 2.330435.
  const double gain = 4 / (3 / (134.0 / 32) + 1);
  auto rate = GoodputSteps::TrueGoodput(s.job);
  ASSERT_TRUE(rate.ok());
  EXPECT_NEAR(*rate, gain / 0.25625, 1e-9);
  // A slower joint ring (0.1 s) is not hidden: 0.20625 + 0.1 = 0.30625 s, 0.1 of it synchronisation.
  s.job.second.ring_sync_s = 0.1;
  t = GoodputSteps::SplitStepTime(s.job);
  ASSERT_TRUE(t.ok());
  EXPECT_NEAR(t->step_s, 0.30625, 1e-12);
  EXPECT_NEAR(t->sync_s, 0.1, 1e-12);
}

TEST(GoodputSplitTest, ASecondTypeThatDoesNotPayIsLeftIdle) {
  // Behind a joint ring of 1 s a step (at most 4 / 1.15 = 3.5 progress a second split), the fast
  // pair alone does better: the slow GPUs idle, the job runs as it would alone.
  SplitJob s;
  const int alone_bsz = s.job.atomic_bsz, alone_accum = s.job.accum_steps;
  auto alone = GoodputSteps::TrueGoodput(s.job);
  ASSERT_TRUE(alone.ok());
  ASSERT_TRUE(GoodputSteps::PlaceSecond(s.job, {2}, kSlow, 1.0).ok());
  EXPECT_EQ(s.job.second.atomic_bsz, 0);
  EXPECT_EQ(s.job.atomic_bsz, alone_bsz);
  EXPECT_EQ(s.job.accum_steps, alone_accum);
  auto rate = GoodputSteps::TrueGoodput(s.job);
  ASSERT_TRUE(rate.ok());
  EXPECT_DOUBLE_EQ(*rate, *alone);
  // A new placement on one type ends the split; a second type it has no profile of is an error.
  ASSERT_TRUE(GoodputSteps::Place(s.job, {2}, kFast).ok());
  EXPECT_FALSE(s.job.split());
  EXPECT_FALSE(GoodputSteps::PlaceSecond(s.job, {2}, DeviceTypeId{7}, 0.02).ok());
  EXPECT_FALSE(GoodputSteps::PlaceSecond(s.job, {2}, kFast, 0.02).ok());
}

TEST(GoodputSplitTest, TheJobSplitsOnWhatItKnowsNotOnTheTruth) {
  // Its model of the slow type (fitted where it ran there) says every pass takes 0.3 + 0.0125 b,
  // four times the truth's: no slow local batch of 16 or more fits in a fast pass (at most 0.25 s).
  // It leaves the slow GPUs idle, although the truth would gain (the test above).
  SplitJob s;
  s.job.types[1].samples.push_back(ThroughputSample{1, 2, 16, 0.5, 0.55});
  s.job.types[1].params = ThroughputParams{0.3, 0.0125, 0.05, 0, 0.05, 0, 1};
  ASSERT_TRUE(GoodputSteps::PlaceSecond(s.job, {2}, kSlow, 0.02).ok());
  EXPECT_EQ(s.job.second.atomic_bsz, 0);
  // Its model says as fast as the fast type (0.05 + 0.003125 b): it splits at local batches the
  // truth does not balance (the slow pass as long as the fast one by its model), and its step is
  // the slow type's.
  s.job.types[1].params = ThroughputParams{0.05, 0.003125, 0.05, 0, 0.05, 0, 1};
  ASSERT_TRUE(GoodputSteps::PlaceSecond(s.job, {2}, kSlow, 0.02).ok());
  const int b1 = s.job.atomic_bsz, b2 = s.job.second.atomic_bsz;
  ASSERT_GT(b2, 0);
  EXPECT_EQ(b2, std::min(b1, 32));  // the slow placement's largest measured local batch is 32
  auto t = GoodputSteps::SplitStepTime(s.job);
  ASSERT_TRUE(t.ok());
  EXPECT_NEAR(t->step_s, 0.1 + 0.00625 * b2 + 0.05, 1e-12);  // the slow pair's own step
  // It times that split (its workers' passes and the joint step): its slow passes are twice its
  // model's, and its next pick balances them as the truth does: 50 and 17.
  ASSERT_TRUE(GoodputSteps::Observe(s.job).ok());
  ASSERT_TRUE(s.job.split_measured.has_value());
  EXPECT_EQ(s.job.split_measured->bsz2, b2);
  EXPECT_NEAR(s.job.split_measured->pass2_s, 0.1 + 0.00625 * b2, 1e-12);
  ASSERT_TRUE(GoodputSteps::RepickBatch(s.job).ok());
  EXPECT_EQ(s.job.atomic_bsz, 50);
  EXPECT_EQ(s.job.second.atomic_bsz, 17);
}

// sia-plus's `history` [REC] (JobScheduler::shares_application_history): jobs of one application
// share what they measured per type. Job a, on 2 fast GPUs at local batch 32 (true step 0.2 s,
// pass 0.15 s), measures itself: the history holds that sample and its first gradient statistics
// (epoch 0 at batch 64, the validation's (1, 3)). Job b, new, takes both in when it first looks;
// a job without a history takes in nothing.
TEST(GoodputSplitTest, AJobStartsFromWhatItsApplicationMeasured) {
  const auto fast = App(false), slow = App(true);
  ApplicationHistory on_fast, on_slow;
  auto make = [&](bool shared) {
    GoodputJob job;
    job.types = {Know(kFast, fast.get()), Know(kSlow, slow.get())};
    if (shared) job.types[0].history = &on_fast, job.types[1].history = &on_slow;
    job.app = fast.get();
    job.adaptive = true;
    return job;
  };
  GoodputJob a = make(true);
  ASSERT_TRUE(GoodputSteps::Place(a, {2}, kFast).ok());  // no model yet: the initial batch 32 or the
  // smallest local batch on each GPU, 2 x 32 = 64
  ASSERT_EQ(a.atomic_bsz, 32);
  ASSERT_TRUE(GoodputSteps::Observe(a).ok());
  ASSERT_EQ(on_fast.samples.size(), 1u);
  EXPECT_EQ(on_fast.samples[0].replicas, 2);
  EXPECT_NEAR(on_fast.samples[0].accum_step_s, 0.15, 1e-12);
  EXPECT_NEAR(on_fast.samples[0].optim_step_s, 0.2, 1e-12);
  ASSERT_TRUE(on_fast.first_grad.has_value());
  EXPECT_DOUBLE_EQ(on_fast.first_grad->sqr, 1);
  EXPECT_DOUBLE_EQ(on_fast.first_grad->var, 3);
  EXPECT_TRUE(on_slow.samples.empty());
  GoodputJob b = make(true);
  GoodputSteps::MergeHistory(b);
  ASSERT_EQ(b.types[0].samples.size(), 1u);
  EXPECT_TRUE(b.types[0].refit_due);
  EXPECT_TRUE(b.types[1].samples.empty());
  ASSERT_TRUE(b.grad.has_value());
  EXPECT_DOUBLE_EQ(b.grad->var, 3);
  // Taken in once: b measuring the same configuration adds nothing to either.
  GoodputSteps::MergeHistory(b);
  ASSERT_TRUE(GoodputSteps::Place(b, {2}, kFast).ok());
  b.atomic_bsz = 32;
  b.accum_steps = 0;
  ASSERT_TRUE(GoodputSteps::Observe(b).ok());
  EXPECT_EQ(b.types[0].samples.size(), 1u);
  EXPECT_EQ(on_fast.samples.size(), 1u);
  GoodputJob alone = make(false);
  GoodputSteps::MergeHistory(alone);
  EXPECT_TRUE(alone.types[0].samples.empty());
  EXPECT_FALSE(alone.grad.has_value());
}

}  // namespace
}  // namespace hetsched::sim_internal
