// dlas-gpu-gittins and gittins: Tiresias' simulator's Gittins-index policies (run_sim.py
// dlas_sim_jobs with dlas-gpu-gittins, gittins_sim_jobs), and the duration distribution they
// learn (duration_distribution.h). Every expected index is worked by hand from the peer's
// formula, quoted in duration_distribution.h; tests/scenarios/tiresias_reproduction_test.cc holds
// the peer's own figures.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "fake_backend.h"
#include "hetsched/policies/tiresias/duration_distribution.h"

namespace hetsched {
namespace {

using test::kFast;
using test::PolicyHarness;
using ::testing::ElementsAre;

// Python 3's round: the exact binary value rounded, ties to even (2.675 is 2.67499999... in binary;
// 0.125 and 0.375 are exact ties), and the sign of a zero kept.
TEST(TiresiasGittinsTest, RoundsLikePython) {
  EXPECT_EQ(RoundLikePython(2.675, 2), 2.67);
  EXPECT_EQ(RoundLikePython(0.125, 2), 0.12);
  EXPECT_EQ(RoundLikePython(0.375, 2), 0.38);
  EXPECT_EQ(RoundLikePython(2.5, 0), 2.0);
  EXPECT_TRUE(std::signbit(RoundLikePython(-0.001, 2)));
  EXPECT_EQ(RoundLikePython(2.0 / 3, 5), 0.66667);
}

// Samples 10, 20, 30, 40 (n = 4), delta = 15. The table holds the index at a = sample - 1:
//  a = 9:  i = 0 (first sample > 9), a + 15 = 24 <= 39 so j = 2 (first > 24): P = 2/4 = 0.5,
//          E = (10 + 20 + 15 x 2) / 4 = 15, index = 0.5e6 / 15 = 33333.3333
//  a = 19: i = 1, 34 <= 39 so j = 3: P = round(2/3, 5) = 0.66667,
//          E = round((20 + 30 + 15 x 1) / 3, 5) = 21.66667, index = round(666670 / 21.66667, 4) = 30769.3799
//  a = 29: i = 2, 44 > 39 so j = n - 1 = 3 (the peer's quirk: the largest sample counts as delta):
//          P = 1/2, E = (30 + 15) / 2 = 22.5, index = 22222.2222
//  a = 39: i = 3, j = 3: P = 0, index 0; past the largest sample: 0.
// A job's index is the entry of the first sample above its attained service.
TEST(TiresiasGittinsTest, IndexFollowsThePeersFormula) {
  const auto d = TiresiasDurationDistribution::FromSamples({40, 10, 30, 20}, 15);
  EXPECT_EQ(d.GittinsIndex(0), 33333.3333);
  EXPECT_EQ(d.GittinsIndex(9), 33333.3333);
  EXPECT_EQ(d.GittinsIndex(10), 30769.3799);
  EXPECT_EQ(d.GittinsIndex(19), 30769.3799);
  EXPECT_EQ(d.GittinsIndex(20), 22222.2222);
  EXPECT_EQ(d.GittinsIndex(29), 22222.2222);
  EXPECT_EQ(d.GittinsIndex(30), 0.0);
  EXPECT_EQ(d.GittinsIndex(40), 0.0);
  EXPECT_EQ(d.GittinsIndex(1000), 0.0);
}

// Samples 2, 10, 10, 10, delta 5: the index rises with service.
//  a = 1: i = 0, 6 <= 9 so j = 1: P = 0.25, E = (2 + 5 x 3) / 4 = 4.25, index = 58823.5294
//  a = 9: i = 1, 14 > 9 so j = 3: P = round(2/3, 5) = 0.66667, E = round((10 + 10 + 5) / 3, 5) =
//         8.33333, index = round(666670 / 8.33333, 4) = 80000.432
TEST(TiresiasGittinsTest, IndexCanRiseWithService) {
  const auto d = TiresiasDurationDistribution::FromSamples({2, 10, 10, 10}, 5);
  EXPECT_EQ(d.GittinsIndex(1), 58823.5294);
  EXPECT_EQ(d.GittinsIndex(2), 80000.432);
  EXPECT_EQ(d.GittinsIndex(9), 80000.432);
  EXPECT_EQ(d.GittinsIndex(10), 0.0);
}

// cal_shortest_expected_remaining on 10, 20, 30, 40: the mean of the samples above a without the
// largest: a = 0: (10 + 20 + 30) / 3 = 20; a = 15: (20 + 30) / 2 = 25; a = 25: 30; a = 30: only the
// largest is above, itself: 40; a = 40: none above, the peer's 0 / -1 = -0.0.
TEST(TiresiasGittinsTest, ExpectedDurationFollowsThePeer) {
  const auto d = TiresiasDurationDistribution::FromSamples({10, 20, 30, 40}, 15);
  EXPECT_EQ(d.ExpectedDuration(0), 20.0);
  EXPECT_EQ(d.ExpectedDuration(15), 25.0);
  EXPECT_EQ(d.ExpectedDuration(25), 30.0);
  EXPECT_EQ(d.ExpectedDuration(30), 40.0);
  EXPECT_EQ(d.ExpectedDuration(40), 0.0);
  EXPECT_TRUE(std::signbit(d.ExpectedDuration(40)));
}

// The shipped distribution (the peer's yarn-gput1000.csv): values printed by the peer's own
// get_gittins_index and cal_shortest_expected_remaining (run_sim.py under Python 3).
TEST(TiresiasGittinsTest, DefaultDistributionIsThePeers) {
  auto d = TiresiasDistributionFromOptions("gittins", Options());
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)->num_samples(), 1001);
  EXPECT_EQ((*d)->GittinsIndex(0), 299.555);
  EXPECT_EQ((*d)->GittinsIndex(121), 299.0826);
  EXPECT_EQ((*d)->GittinsIndex(122), 298.6106);
  EXPECT_EQ((*d)->GittinsIndex(7901752), 0.0881);
  EXPECT_EQ((*d)->GittinsIndex(53294624), 0.0);
  EXPECT_EQ((*d)->ExpectedDuration(0), 97695.37);
  EXPECT_EQ((*d)->ExpectedDuration(121), 97793.05);
  EXPECT_EQ((*d)->ExpectedDuration(53294623), 53294624.0);
}

std::string WriteGittinsSamples(const std::string& name, const std::string& rows) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << "duration\n" << rows;
  return path;
}

// dlas-gpu-gittins, one GPU, samples 10, 20, 30, 40, delta 15, limits far away (one queue).
// 0: job 1 starts. 15: job 1 has 15 GPU-s, index 30769.3799; job 2 is new, 33333.3333: higher
// first, so job 2 preempts job 1 (dlas-gpu would keep job 1, running first in queue 0). 25: job 1
// (15, pending) and job 2 (10) tie at 30769.3799, job 3 (new) is first; the tie goes to the
// earlier submitted job 1, job 2 is preempted. 30: job 3 (5 GPU-s) and job 4 (new) tie at
// 33333.3333: job 3, submitted first, keeps running.
TEST(TiresiasGittinsTest, DlasGpuGittinsRunsTheHighestIndexFirst) {
  const std::string dist = WriteGittinsSamples("gittins_10_40.csv", "10\n20\n30\n40\n");
  PolicyHarness h({{kFast, 1}}, "dlas-gpu-gittins",
                  {"distribution=" + dist, "delta=15", "thresholds=100000;200000", "placement=count"});
  h.Submit(1, 1, 0, 100000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
  h.Submit(2, 1, 15, 100000);
  h.ScheduleAt(15);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 2 on [0]"));
  h.Submit(3, 1, 25, 100000);
  h.ScheduleAt(25);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 2", "start 3 on [0]"));
  h.Submit(4, 1, 30, 100000);
  h.ScheduleAt(30);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
}

// gittins, two GPUs, samples 2, 10, 10, 10, delta 5. 0: job 1 (2 GPUs) starts. 1: job 1 has 2
// GPU-s (index 80000.432), job 2 (1 GPU, new) 58823.5294: the peer sorts ascending, job 2 first;
// job 1 no longer fits and is preempted. 3: job 1 is pending with 1 s executed, and a pending
// job is ranked by executed time alone: 58823.5294 (as running it would be 2 GPU-s, 80000.432);
// job 2 has 2 GPU-s (80000.432), job 3 is new (58823.5294). Order: job 1, job 3 (ties keep the
// list order, new jobs at its end), job 2: job 1 takes both GPUs, job 2 is preempted.
// Gittins units: the first at delta = 5; after the events at 0, 1 and 3 it moves to 5, 6, 9.
TEST(TiresiasGittinsTest, GittinsRunsTheLowestIndexFirstAsThePeerDoes) {
  const std::string dist = WriteGittinsSamples("gittins_2_10.csv", "2\n10\n10\n10\n");
  PolicyHarness h({{kFast, 2}}, "gittins", {"distribution=" + dist, "delta=5", "placement=count"});
  h.Submit(1, 2, 0, 100000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
  h.Submit(2, 1, 1, 100000);
  h.ScheduleAt(1);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 2 on [0]"));
  h.Submit(3, 1, 3, 100000);
  h.ScheduleAt(3);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 2", "start 1 on [0,1]"));
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(5.0, 6.0, 9.0));
}

// Units before the first arrival (delta 15, first job at 100): the peer's events at 15, 30 and 60
// change nothing but move the unit to 30, 60, 120; the arrival at 100 moves it to 120 + 100. A
// unit reached with no other event re-plans: at 220, 220 + 220.
TEST(TiresiasGittinsTest, GittinsUnitsGrowByTheEventTime) {
  const std::string dist = WriteGittinsSamples("gittins_units.csv", "10\n20\n30\n40\n");
  PolicyHarness h({{kFast, 1}}, "gittins", {"distribution=" + dist, "delta=15"});
  h.Submit(1, 1, 100, 100000);
  h.ScheduleAt(100);
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(220.0));
  h.ScheduleAt(150);  // no event, no unit: nothing happens
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(220.0));
  h.ScheduleAt(220);
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(220.0, 440.0));
}

TEST(TiresiasGittinsTest, RejectsBadOptionsAndFiles) {
  auto& registry = Registry<JobScheduler>::Instance();
  const std::string ok = WriteGittinsSamples("gittins_ok.csv", "10\n20\n");
  for (const std::string& policy : std::vector<std::string>{"dlas-gpu-gittins", "gittins"}) {
    EXPECT_TRUE(registry.Create(policy, *Options::Parse({"distribution=" + ok})).ok()) << policy;
    EXPECT_FALSE(registry.Create(policy, *Options::Parse({"distribution=/no/such/file.csv"})).ok()) << policy;
    EXPECT_FALSE(registry.Create(policy, *Options::Parse({"distribution=" + ok, "delta=0"})).ok()) << policy;
    EXPECT_FALSE(registry.Create(policy, *Options::Parse({"distribution=" + ok, "placement=x"})).ok())
        << policy;
  }
  const std::string no_column = ::testing::TempDir() + "/gittins_no_column.csv";
  std::ofstream(no_column) << "job_id,num_gpu\na,1\n";
  auto made = registry.Create("gittins", *Options::Parse({"distribution=" + no_column}));
  ASSERT_FALSE(made.ok());
  EXPECT_THAT(made.status().message(), ::testing::HasSubstr("gittins_no_column.csv:1: no duration column"));
  made = registry.Create(
      "gittins", *Options::Parse({"distribution=" + WriteGittinsSamples("gittins_frac.csv", "10\n2.5\n")}));
  ASSERT_FALSE(made.ok());
  EXPECT_THAT(made.status().message(), ::testing::HasSubstr("gittins_frac.csv:3: field 'duration'"));
  made = registry.Create("gittins",
                         *Options::Parse({"distribution=" + WriteGittinsSamples("gittins_neg.csv", "-1\n")}));
  ASSERT_FALSE(made.ok());
  EXPECT_THAT(made.status().message(), ::testing::HasSubstr("negative"));
  made = registry.Create("gittins",
                         *Options::Parse({"distribution=" + WriteGittinsSamples("gittins_empty.csv", "")}));
  ASSERT_FALSE(made.ok());
  EXPECT_THAT(made.status().message(), ::testing::HasSubstr("no durations"));
}

}  // namespace
}  // namespace hetsched
