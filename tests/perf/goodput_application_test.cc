// GoodputApplication (perf/goodput_application.h) on a profile made by hand: step times that are
// linear in (nodes, replicas, local batch), so that every interpolation has a value worked out on
// paper whatever the triangulation.
#include "hetsched/perf/goodput_application.h"

#include <gtest/gtest.h>

#include <vector>

namespace hetsched {
namespace {

double StepOf(int nodes, int replicas, int bsz) { return 0.01 * nodes + 0.005 * replicas + 0.001 * bsz; }
double SyncOf(int nodes, int replicas) { return 0.002 * nodes + 0.001 * replicas; }

PolluxPlacementRow Placement(const std::string& p, int bsz, double delta = 0) {
  PolluxPlacementRow r;
  r.placement = p;
  r.local_bsz = bsz;
  r.step_time_s = StepOf(r.nodes(), r.replicas(), bsz) + delta;
  r.sync_time_s = SyncOf(r.nodes(), r.replicas()) + delta / 10;
  return r;
}

PolluxScalabilityRow Scalability(int nodes, int replicas, int bsz) {
  return PolluxScalabilityRow{nodes, replicas, bsz, StepOf(nodes, replicas, bsz), SyncOf(nodes, replicas)};
}

PolluxValidationRow Epoch(double progress, long long iteration, double sqr, double var) {
  return PolluxValidationRow{progress, iteration, 0.5, sqr, var};
}

// Placements "1", "2", "22" measured at local batches 32 and 64; "13" at 32 only, where it and
// "22" (both 2 nodes, 4 GPUs) are 0.01 s off the plane either way: their mean is on it.
PolluxModelProfile Toy() {
  PolluxModelProfile p;
  p.model = "toy";
  p.placements = {Placement("1", 32),        Placement("1", 64),  Placement("2", 32), Placement("2", 64),
                  Placement("22", 32, 0.01), Placement("22", 64), Placement("13", 32, -0.01)};
  p.scalability = {Scalability(4, 4, 32), Scalability(4, 4, 64), Scalability(4, 16, 32), Scalability(4, 16, 64)};
  p.validation[128] = {Epoch(100, 99, 8, 4), Epoch(200, 199, 2, 1), Epoch(300, 299, 1, 0.5)};
  p.validation[512] = {Epoch(50, 25, 10, 20), Epoch(120, 60, 4, 6)};
  return p;
}

TEST(GoodputApplicationTest, ReadsItsLimitsFromTheProfile) {
  auto app = GoodputApplication::Create(Toy());
  ASSERT_TRUE(app.ok()) << app.status().message();
  const GoodputApplication& a = **app;
  EXPECT_EQ(a.name(), "toy");
  EXPECT_EQ(a.init_batch_size(), 128);
  EXPECT_EQ(a.max_batch_size(), 512);
  EXPECT_EQ(a.min_local_bsz(), 32);
  EXPECT_EQ(a.max_local_bsz(), 64);
  EXPECT_EQ(a.max_epochs(), 2);  // the shorter validation file
  EXPECT_EQ(a.completion_epoch(), 1);
  ApplicationSettings set;
  set.max_local_bsz = 48;
  set.max_epochs = 1;
  auto b = GoodputApplication::Create(Toy(), set);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->max_local_bsz(), 48);
  EXPECT_EQ((*b)->max_epochs(), 1);
}

TEST(GoodputApplicationTest, StepTimeOfAMeasuredPlacementIsLinearInTheLocalBatch) {
  auto app = GoodputApplication::Create(Toy());
  ASSERT_TRUE(app.ok());
  // "22" at 48: halfway between 32 (0.072 + 0.01) and 64 (0.104): 0.093; sync (0.009, 0.008) -> 0.0085.
  const std::vector<int> two_by_two = {2, 2};
  auto t = (*app)->StepTime(two_by_two, 48);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_NEAR(t->step_s, 0.093, 1e-12);
  EXPECT_NEAR(t->sync_s, 0.0085, 1e-12);
  // Empty nodes are dropped.
  const std::vector<int> with_empty = {0, 2, 0, 2};
  EXPECT_NEAR((*app)->StepTime(with_empty, 48)->step_s, 0.093, 1e-12);
  // Outside the measured batches of a measured placement: an error, not a guess.
  EXPECT_FALSE((*app)->StepTime(two_by_two, 65).ok());
  // "31" is "13" turned: measured at one batch only, nothing to interpolate between.
  const std::vector<int> three_one = {3, 1};
  auto single = (*app)->StepTime(three_one, 32);
  ASSERT_FALSE(single.ok());
  EXPECT_NE(single.status().message().find("'13'"), std::string::npos) << single.status().message();
}

TEST(GoodputApplicationTest, StepTimeOfAnUnmeasuredPlacementComesFromTheTriangulation) {
  auto app = GoodputApplication::Create(Toy());
  ASSERT_TRUE(app.ok());
  // "121" (smallest rotation "112") was never measured: (3 nodes, 4 replicas, 48) lies inside the
  // points, whose values are on the plane (the two at (2, 4, 32) through their mean).
  const std::vector<int> placement = {1, 2, 1};
  auto t = (*app)->StepTime(placement, 48);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_NEAR(t->step_s, StepOf(3, 4, 48), 1e-12);
  EXPECT_NEAR(t->sync_s, SyncOf(3, 4), 1e-12);
  // 5 nodes x 4: beyond every measured node count.
  const std::vector<int> wide = {4, 4, 4, 4, 4};
  EXPECT_FALSE((*app)->StepTime(wide, 48).ok());
  const std::vector<int> none = {0, 0};
  EXPECT_FALSE((*app)->StepTime(none, 48).ok());
}

TEST(GoodputApplicationTest, GradientStatisticsAreLinearInTheBatchBetweenValidatedSizes) {
  auto app = GoodputApplication::Create(Toy());
  ASSERT_TRUE(app.ok());
  const GoodputApplication& a = **app;
  auto at128 = a.GradStats(128, 0);
  ASSERT_TRUE(at128.ok());
  EXPECT_EQ(at128->sqr, 8);
  EXPECT_EQ(at128->var, 4);
  // 320 is halfway between 128 and 512: epoch 1's (2, 1) and (4, 6) average to (3, 3.5).
  auto mid = a.GradStats(320, 1);
  ASSERT_TRUE(mid.ok());
  EXPECT_DOUBLE_EQ(mid->sqr, 3);
  EXPECT_DOUBLE_EQ(mid->var, 3.5);
  EXPECT_FALSE(a.GradStats(600, 0).ok());
  EXPECT_FALSE(a.GradStats(100, 0).ok());
  EXPECT_FALSE(a.GradStats(128, 2).ok());  // the third epoch is beyond max_epochs
}

TEST(GoodputApplicationTest, EpochsBeginAtTheSmallestProgressOfAnyValidatedSize) {
  auto app = GoodputApplication::Create(Toy());
  ASSERT_TRUE(app.ok());
  const GoodputApplication& a = **app;
  EXPECT_EQ(a.ProgressAt(0), 0);
  EXPECT_EQ(a.ProgressAt(1), 50);   // min(100, 50)
  EXPECT_EQ(a.ProgressAt(2), 120);  // min(200, 120)
  // The most epochs any file has completed at that progress.
  EXPECT_EQ(a.EpochAt(10), 0);
  EXPECT_EQ(a.EpochAt(50), 1);
  EXPECT_EQ(a.EpochAt(110), 1);
  EXPECT_EQ(a.EpochAt(150), 2);
  EXPECT_EQ(a.EpochAt(1000), 3);
}

// Sia's largest local batch per placement (get_max_local_bsz): a measured placement's own rows
// (keyed by its smallest rotation), else the scalability rows on at least as many nodes and GPUs,
// else the application's; and the largest measured on a GPU count, in any placement.
TEST(GoodputApplicationTest, LargestLocalBatchPerPlacement) {
  PolluxModelProfile p = Toy();
  p.placements.push_back(Placement("4", 48));
  auto app = GoodputApplication::Create(p);
  ASSERT_TRUE(app.ok()) << app.status().message();
  const GoodputApplication& a = **app;
  EXPECT_EQ(a.MaxLocalBszOn(std::vector<int>{1}), 64);
  EXPECT_EQ(a.MaxLocalBszOn(std::vector<int>{0, 2, 0}), 64);
  EXPECT_EQ(a.MaxLocalBszOn(std::vector<int>{3, 1}), 32);   // "13"
  EXPECT_EQ(a.MaxLocalBszOn(std::vector<int>{4}), 48);
  EXPECT_EQ(a.MaxLocalBszOn(std::vector<int>{2, 2, 2}), 64);  // scalability (4, 16)
  EXPECT_EQ(a.MaxLocalBszOn(std::vector<int>{4, 4, 4, 4, 4}), 64);  // none: the application's
  EXPECT_EQ(a.MaxLocalBszForReplicas(4), 64);  // "22" at 64, "13" and "4" below
  EXPECT_EQ(a.MaxLocalBszForReplicas(2), 64);
  EXPECT_EQ(a.MaxLocalBszForReplicas(3), 0);
}

TEST(GoodputApplicationTest, RefusesProfilesItCannotUse) {
  PolluxModelProfile none = Toy();
  none.placements.clear();
  EXPECT_FALSE(GoodputApplication::Create(none).ok());
  ApplicationSettings too_many;
  too_many.max_epochs = 3;  // validation-512 has 2 rows
  EXPECT_FALSE(GoodputApplication::Create(Toy(), too_many).ok());
  ApplicationSettings small_batch;
  small_batch.max_batch_size = 16;  // below the smallest local batch, 32
  EXPECT_FALSE(GoodputApplication::Create(Toy(), small_batch).ok());
  ApplicationSettings negative_delay;
  negative_delay.restart_delay_s = -1;
  EXPECT_FALSE(GoodputApplication::Create(Toy(), negative_delay).ok());
  ApplicationSettings no_progress;
  no_progress.progress_scale = 0;
  EXPECT_FALSE(GoodputApplication::Create(Toy(), no_progress).ok());
}

}  // namespace
}  // namespace hetsched
