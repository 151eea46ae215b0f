// gavel-las: the max-min LP on cases solved by hand, aggregation, degenerate inputs, and the
// policy driving rounds on a fake back end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "fake_backend.h"
#include "hetsched/policies/gavel/allocation.h"

namespace hetsched::gavel {
namespace {

using ::testing::ElementsAre;

AllocationJob LasJob(JobId id, int gpus, std::vector<double> t, double weight = 1) {
  AllocationJob j;
  j.id = id;
  j.num_gpus = gpus;
  j.weight = weight;
  j.throughput = std::move(t);
  return j;
}

AllocationProblem TwoByTwo() {
  AllocationProblem p;
  p.capacity = {1, 1};
  p.jobs = {LasJob(0, 1, {4, 1}), LasJob(1, 1, {2, 1})};
  return p;
}

// The issue's example with raw throughputs (normalise=false). Both GPUs are fully used when job 0
// has a on type 0 and 1-a on type 1 and job 1 the rest: throughputs 4a + (1-a) = 3a + 1 and
// 2(1-a) + a = 2 - a. Equal at a = 1/4: each gets 1.75, X = [[1/4, 3/4], [3/4, 1/4]].
TEST(GavelLasLpTest, IssueExampleRawThroughputsGiveEach175) {
  lp::WarmStartLpSolver solver;
  MaxMinOptions o;
  o.normalise = false;
  auto a = SolveMaxMinFairness(TwoByTwo(), o, solver);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->status, lp::SolveStatus::kOptimal);
  EXPECT_NEAR(a->objective, 1.75, 1e-6);
  const auto p = TwoByTwo();
  EXPECT_NEAR(EffectiveThroughput(p.jobs[0], a->share[0]), 1.75, 1e-6);
  EXPECT_NEAR(EffectiveThroughput(p.jobs[1], a->share[1]), 1.75, 1e-6);
  EXPECT_NEAR(a->share[0][0], 0.25, 1e-6);
  EXPECT_NEAR(a->share[0][1], 0.75, 1e-6);
  EXPECT_NEAR(a->share[1][0], 0.75, 1e-6);
  EXPECT_NEAR(a->share[1][1], 0.25, 1e-6);
}

// Same example with the paper's normalisation by the equal-share throughput: each job's 1/2
// share is half of each GPU: 0.5 x 4 + 0.5 x 1 = 2.5 and 0.5 x 2 + 0.5 x 1 = 1.5. On the full-use
// line, (3a + 1)/2.5 = (2 - a)/1.5 at a = 1/2: both ratios are 1 (throughputs 2.5 and 1.5), and
// no allocation raises both (job 1 above 1.5 needs a < 1/2, job 0 above 2.5 needs a > 1/2).
TEST(GavelLasLpTest, IssueExampleNormalisedGivesEachItsEqualShare) {
  lp::WarmStartLpSolver solver;
  auto a = SolveMaxMinFairness(TwoByTwo(), MaxMinOptions{}, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->objective, 1.0, 1e-6);
  const auto p = TwoByTwo();
  EXPECT_NEAR(EffectiveThroughput(p.jobs[0], a->share[0]), 2.5, 1e-6);
  EXPECT_NEAR(EffectiveThroughput(p.jobs[1], a->share[1]), 1.5, 1e-6);
}

// Priority weights: one GPU, T = 1, weights 2 and 1, raw: max min(x0/2, x1) with x0 + x1 <= 1:
// x0 = 2/3, x1 = 1/3, min = 1/3.
TEST(GavelLasLpTest, PriorityWeights) {
  AllocationProblem p;
  p.capacity = {1};
  p.jobs = {LasJob(0, 1, {1}, 2.0), LasJob(1, 1, {1}, 1.0)};
  lp::WarmStartLpSolver solver;
  MaxMinOptions o;
  o.normalise = false;
  auto a = SolveMaxMinFairness(p, o, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->objective, 1.0 / 3.0, 1e-6);
  EXPECT_NEAR(a->share[0][0], 2.0 / 3.0, 1e-6);
  EXPECT_NEAR(a->share[1][0], 1.0 / 3.0, 1e-6);
}

// Multi-GPU: 4 GPUs, a 4-GPU and a 1-GPU job, T = 1, raw: x0 = x1 = t with 4t + t <= 4: t = 0.8,
// and the 1-GPU job cannot exceed 4 - 4 x 0.8 = 0.8 without pushing the other below 0.8.
TEST(GavelLasLpTest, ScaleFactorCountsDevices) {
  AllocationProblem p;
  p.capacity = {4};
  p.jobs = {LasJob(0, 4, {1}), LasJob(1, 1, {1})};
  lp::WarmStartLpSolver solver;
  MaxMinOptions o;
  o.normalise = false;
  auto a = SolveMaxMinFairness(p, o, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->share[0][0], 0.8, 1e-6);
  EXPECT_NEAR(a->share[1][0], 0.8, 1e-6);
}

// Identical jobs aggregated into classes give the same optimum as one row per job.
TEST(GavelLasLpTest, AggregationMatchesPerJobLp) {
  AllocationProblem p;
  p.capacity = {3, 2};
  for (int i = 0; i < 4; ++i) p.jobs.push_back(LasJob(i, 1, {3, 1}));
  for (int i = 4; i < 7; ++i) p.jobs.push_back(LasJob(i, 2, {2, 1.5}));
  lp::WarmStartLpSolver s1, s2;
  MaxMinOptions agg, per_job;
  per_job.aggregate = false;
  auto a = SolveMaxMinFairness(p, agg, s1);
  auto b = SolveMaxMinFairness(p, per_job, s2);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NEAR(a->objective, b->objective, 1e-6);
  double sum_a = 0, sum_b = 0;
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    sum_a += EffectiveThroughput(p.jobs[j], a->share[j]);
    sum_b += EffectiveThroughput(p.jobs[j], b->share[j]);
    // Capacity and per-job time hold.
    EXPECT_LE(a->share[j][0] + a->share[j][1], 1 + 1e-9);
  }
  EXPECT_NEAR(sum_a, sum_b, 1e-5);
}

TEST(GavelLasLpTest, NoJobsAndUnplaceableJobs) {
  lp::WarmStartLpSolver solver;
  AllocationProblem empty;
  empty.capacity = {2};
  auto e = SolveMaxMinFairness(empty, MaxMinOptions{}, solver);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->status, lp::SolveStatus::kOptimal);
  EXPECT_TRUE(e->share.empty());

  // Job 1 needs 8 GPUs (only 2 exist); job 2 runs nowhere (T = 0): both unplaceable with X = 0;
  // job 0 gets the whole GPU... of which it may use only one at a time: X = 1.
  AllocationProblem p;
  p.capacity = {2};
  p.jobs = {LasJob(0, 1, {1}), LasJob(1, 8, {1}), LasJob(2, 1, {0})};
  auto a = SolveMaxMinFairness(p, MaxMinOptions{}, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_THAT(a->unplaceable, ElementsAre(1, 2));
  EXPECT_NEAR(a->share[0][0], 1.0, 1e-6);
  EXPECT_EQ(a->share[1][0], 0.0);
  EXPECT_EQ(a->share[2][0], 0.0);
}

// The policy: two single-GPU jobs on one fast GPU with 100 s rounds take turns, and between
// rounds nothing happens.
TEST(GavelLasPolicyTest, AlternatesJobsOnOneGpuEveryRound) {
  test::PolicyHarness h({{test::kFast, 1}}, "gavel-las", {"round=100"});
  EXPECT_EQ(h.scheduler().round_period_s(), 100);
  h.Submit(1, 1, 0, 1000000);
  h.Submit(2, 1, 0, 1000000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
  h.ScheduleAt(50);  // mid-round: no change
  EXPECT_TRUE(h.TakeLog().empty());
  h.ScheduleAt(100);  // job 2 has received nothing: it runs; job 1 pauses
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 2 on [0]"));
  // t = 200: both have had 100 of 200 s (priority 0.5 / 0.5 = 1): the tie goes to the job that
  // holds the GPU, so nobody pays a restart. t = 300: job 1 has had 100 of 300 s (priority 1.5),
  // job 2 200 of 300 s (0.75): job 1 runs.
  h.ScheduleAt(200);
  EXPECT_TRUE(h.TakeLog().empty());
  h.ScheduleAt(300);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 2", "start 1 on [0]"));
}

// A job alone keeps its GPU round after round (no preemption, so no restart cost).
TEST(GavelLasPolicyTest, JobAloneIsNeverMoved) {
  test::PolicyHarness h({{test::kFast, 1}, {test::kSlow, 1}}, "gavel-las");
  h.Submit(1, 1, 0, 1000000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
  for (int r = 1; r < 5; ++r) h.ScheduleAt(360.0 * r);
  EXPECT_TRUE(h.TakeLog().empty());
}

// A job wider than every server of its type is split over servers at once: waiting for a
// server that can hold it would be for ever. (It once waited whenever another type had servers
// that wide: 8-GPU jobs on the demo cluster's 4-GPU K80 servers never ran.)
TEST(GavelLasPolicyTest, JobWiderThanItsTypesServersIsSplitNotKeptWaiting) {
  test::PolicyHarness h({{test::kFast, 8}, {test::kSlow, 4}, {test::kSlow, 4}}, "gavel-las-agnostic");
  h.Submit(1, 8, 0, 1000000, 0, {test::kSlow});
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre(::testing::StartsWith("start 1 on")));
}

// With a measured profile, a type the profile did not measure for the job gets the model's speed
// scaled into the profile's units. The fake planner models fast 1 it/s and slow 0.5 it/s; the
// profile measures the job on slow only, at 10 steps/s (20 x the model): fast is then 1 x 20 =
// 20 steps/s, and the job alone goes to the fast GPU (device 0). Unscaled, fast's 1 against
// slow's measured 10 sent it to the slow GPU (device 1).
TEST(GavelLasPolicyTest, ProfileScalesUnmeasuredTypesIntoItsUnits) {
  const std::string path = ::testing::TempDir() + "/gavel_las_profile.csv";
  {
    std::ofstream out(path);
    out << "gpu_type,consolidated,job_type,scale_factor,steps_per_second\n"
        << "slow-gpu,no,toyjob,1,10\n";
  }
  test::PolicyHarness h({{test::kFast, 1}, {test::kSlow, 1}}, "gavel-las", {"profile=" + path});
  h.SubmitNamed(1, "toyjob", 1, 1000000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
}

// A job that no type can run (here: 3 GPUs, and each type has one) gets no share, and the policy
// says why in the job's status (the simulator's stall error quotes it); a job it can run gets
// none of that.
TEST(GavelLasPolicyTest, AJobNoTypeCanRunIsNotedWithTheReason) {
  test::PolicyHarness h({{test::kFast, 1}, {test::kSlow, 1}}, "gavel-las");
  h.Submit(1, 3, 0, 1000);
  h.Submit(2, 1, 0, 1000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 2 on [0]"));
  const std::string& reason = h.backend().job_status(1).pending_reason;
  EXPECT_NE(reason.find("gavel-las can never give it a share"), std::string::npos) << reason;
  EXPECT_NE(reason.find("3 device(s)"), std::string::npos) << reason;
  EXPECT_TRUE(h.backend().job_status(2).pending_reason.empty());
}

TEST(GavelLasPolicyTest, BadRoundOption) {
  auto made = Registry<JobScheduler>::Instance().Create("gavel-las", *Options::Parse({"round=0"}));
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("round"), std::string::npos);
}

}  // namespace
}  // namespace hetsched::gavel
