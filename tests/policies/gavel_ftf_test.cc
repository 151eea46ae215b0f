// gavel-ftf: finish-time fairness by bisection, on cases solved by hand.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "hetsched/policies/gavel/allocation.h"

namespace hetsched::gavel {
namespace {

AllocationJob FtfJob(JobId id, double remaining, double total, double elapsed_s) {
  AllocationJob j;
  j.id = id;
  j.throughput = {1.0};
  j.remaining_iterations = remaining;
  j.total_iterations = total;
  j.elapsed_s = elapsed_s;
  return j;
}

// One GPU, two new jobs of 100 iterations at 1 it/s: the 1/2 share runs each at 0.5 it/s, so
// D = 200 s; rho_j = (100 / x_j) / 200 = 1 / (2 x_j): x = 1/2 each, rho = 1.
TEST(GavelFtfLpTest, SymmetricJobsGetRhoOne) {
  AllocationProblem p;
  p.capacity = {1};
  p.jobs = {FtfJob(0, 100, 100, 0), FtfJob(1, 100, 100, 0)};
  lp::WarmStartLpSolver solver;
  auto a = SolveFinishTimeFairness(p, solver, FtfOptions{.tolerance = 1e-6});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_NEAR(a->objective, 1.0, 1e-5);
  EXPECT_NEAR(a->share[0][0], 0.5, 1e-4);
}

// Job 0 has run 100 s already (total 200, 100 left: D0 = 200/0.5 = 400 s); job 1 is new (D1 =
// 200 s). rho0 = (100 + 100/x0)/400, rho1 = 1/(2 x1), x1 = 1 - x0. Equal when
// 2(1 + x0)(1 - x0) = 4 x0, i.e. x0^2 + 2 x0 - 1 = 0: x0 = sqrt(2) - 1 = 0.41421, and
// rho = 1 / (2 (2 - sqrt(2))) = 0.85355.
TEST(GavelFtfLpTest, ElapsedTimeCounts) {
  AllocationProblem p;
  p.capacity = {1};
  p.jobs = {FtfJob(0, 100, 200, 100), FtfJob(1, 100, 100, 0)};
  lp::WarmStartLpSolver solver;
  auto a = SolveFinishTimeFairness(p, solver, FtfOptions{.tolerance = 1e-7});
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->objective, 1.0 / (2.0 * (2.0 - std::sqrt(2.0))), 1e-5);
  EXPECT_NEAR(a->share[0][0], std::sqrt(2.0) - 1.0, 1e-4);
  EXPECT_GT(a->lp_solves, 5);
}

// Gavel's IsolatedPolicy: x_k = W_k / (n g) on every type, scaled to a row sum <= 1. Types of 4
// and 2 devices, two jobs. Job 0 (1 GPU, T = [3, 0]): x = [2, 1], sum 3 -> [2/3, 1/3]; I = 3 x 2/3
// = 2 (the type it cannot use still takes its part of the time). Job 1 (4 GPUs, T = [1, 2]):
// x = [1/2, 1/4], sum 3/4 (kept); I = 1/2 + 1/2 = 1.
TEST(GavelFtfLpTest, GavelIsolatedThroughputCountsEveryType) {
  AllocationProblem p;
  p.capacity = {4, 2};
  p.jobs = {FtfJob(0, 100, 100, 0), FtfJob(1, 100, 100, 0)};
  p.jobs[0].throughput = {3.0, 0.0};
  p.jobs[1].throughput = {1.0, 2.0};
  p.jobs[1].num_gpus = 4;
  EXPECT_NEAR(GavelIsolatedThroughput(p, 0), 2.0, 1e-12);
  EXPECT_NEAR(GavelIsolatedThroughput(p, 1), 1.0, 1e-12);
}

// Gavel's cumulative isolated time on one 1-it/s GPU. Solve 1: job 0 alone, 100 left, I = 1:
// D0 = 100 s. Solve 2: job 0 has 60 left (40 steps at the previous I = 1: C0 = 40 s), job 1 new
// with 100; I = 1/2 each: D0 = 40 + 60 / 0.5 = 160 s, D1 = 200 s. With job 0 submitted 40 s ago:
// rho0 = (40 + 60 / x0) / 160, rho1 = 100 / x1 / 200, x1 = 1 - x0; equal where
// 2 x0^2 + 5 x0 - 3 = 0: x0 = 1/2, rho = 1.
TEST(GavelFtfLpTest, GavelReferenceAccumulatesIsolatedTime) {
  GavelFtfState state;
  AllocationProblem p;
  p.capacity = {1};
  p.jobs = {FtfJob(0, 100, 100, 0)};
  std::vector<double> d = state.IsolatedTimes(p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NEAR(d[0], 100.0, 1e-12);
  p.jobs = {FtfJob(0, 60, 100, 40), FtfJob(1, 100, 100, 0)};
  d = state.IsolatedTimes(p);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_NEAR(d[0], 160.0, 1e-12);
  EXPECT_NEAR(d[1], 200.0, 1e-12);
  lp::WarmStartLpSolver solver;
  for (bool second_phase : {true, false}) {
    auto a = SolveFinishTimeFairness(p, solver, FtfOptions{.tolerance = 1e-7, .second_phase = second_phase}, &d);
    ASSERT_TRUE(a.ok());
    EXPECT_NEAR(a->objective, 1.0, 1e-5);
    EXPECT_NEAR(a->share[0][0], 0.5, 1e-4) << second_phase;
    EXPECT_NEAR(a->share[1][0], 0.5, 1e-4) << second_phase;
  }
}

// Without the second phase the allocation is the level LP's: every job gets at least what the
// optimal rho asks of it. Two GPUs, job 0 needs most of one, job 1 is nearly done: both reach
// their need at the rho found, and capacity holds.
TEST(GavelFtfLpTest, LevelAllocationMeetsEveryNeed) {
  AllocationProblem p;
  p.capacity = {2};
  p.jobs = {FtfJob(0, 900, 1000, 50), FtfJob(1, 10, 1000, 500), FtfJob(2, 400, 400, 0)};
  lp::WarmStartLpSolver solver;
  auto a = SolveFinishTimeFairness(p, solver, FtfOptions{.tolerance = 1e-7, .second_phase = false});
  ASSERT_TRUE(a.ok());
  double used = 0;
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    const AllocationJob& job = p.jobs[j];
    const double isolated = std::max(job.total_iterations, job.remaining_iterations) / EqualShareThroughput(p, j);
    const double rho = (job.elapsed_s + job.remaining_iterations / a->share[j][0]) / isolated;
    EXPECT_LE(rho, a->objective * (1 + 1e-6)) << j;
    used += a->share[j][0];
  }
  EXPECT_LE(used, 2.0 + 1e-9);
}

TEST(GavelFtfLpTest, UnplaceableJobIsListed) {
  AllocationProblem p;
  p.capacity = {1};
  p.jobs = {FtfJob(0, 100, 100, 0)};
  p.jobs[0].num_gpus = 2;
  lp::WarmStartLpSolver solver;
  auto a = SolveFinishTimeFairness(p, solver);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->unplaceable.size(), 1u);
  EXPECT_EQ(a->share[0][0], 0.0);
}

// A solver matching by job (option warm_start=by-job) starts warm after a job left and another
// arrived, and reaches the fresh solver's max rho. Job 0 has waited so long that its bound (alone
// on its best type) is the optimum: one LP per solve, as on long traces.
TEST(GavelFtfLpTest, ByJobWarmStartAfterArrivalAndDeparture) {
  AllocationProblem p;
  p.capacity = {4, 4};
  for (JobId id = 0; id < 6; ++id) {
    AllocationJob j = FtfJob(id, 100.0 + 50.0 * static_cast<double>(id), 600, id == 0 ? 1e5 : 10.0 * static_cast<double>(id));
    j.throughput = {2.0 + static_cast<double>(id % 2), 1.0};
    p.jobs.push_back(j);
  }
  lp::WarmStartLpSolver solver(lp::WarmStartMatch::kName);
  const FtfOptions untied{.tie_break = TieBreak::kNone};
  auto first = SolveFinishTimeFairness(p, solver, untied);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->lp_solves, 1);
  p.jobs.erase(p.jobs.begin() + 3);
  AllocationJob arrival = FtfJob(8, 300, 300, 0);
  arrival.throughput = {2.5, 1.0};
  p.jobs.push_back(arrival);
  auto warm = SolveFinishTimeFairness(p, solver, untied);
  lp::WarmStartLpSolver fresh;
  auto cold = SolveFinishTimeFairness(p, fresh, untied);
  ASSERT_TRUE(warm.ok() && cold.ok());
  ASSERT_EQ(warm->status, lp::SolveStatus::kOptimal);
  ASSERT_EQ(warm->lp_solves, 1);
  EXPECT_EQ(solver.warm_starts(), 1);
  EXPECT_EQ(fresh.warm_starts(), 0);
  EXPECT_NEAR(warm->objective, cold->objective, 1e-9 * cold->objective);
}

// Twelve jobs of one model on two types, one of which has waited so long that its bound is the
// optimum: every other job's need row is slack, so the optimal face is wide and the simplex's
// vertex depends on its start. With the ranked tie-break (the default) a re-solve warm-started by
// job from an earlier program's basis and a cold solve give one allocation (without it, here, they
// differ), and of two jobs with the same rho bound (ranked by it, then by id) the older gets at
// least the newer one's throughput.
AllocationProblem FtfTwins(JobId first, int count, double progress) {
  AllocationProblem p;
  p.capacity = {4, 4};
  for (JobId id = first; id < first + count; ++id) {
    AllocationJob j = FtfJob(id, 400 * progress, 400, id == first ? 1e5 : 50.0);
    j.throughput = {3.0, 1.0};
    p.jobs.push_back(j);
  }
  return p;
}

double LargestWarmColdDifference(const FtfOptions& options) {
  lp::WarmStartLpSolver solver(lp::WarmStartMatch::kName);
  EXPECT_TRUE(SolveFinishTimeFairness(FtfTwins(0, 12, 1.0), solver, options).ok());
  const AllocationProblem later = FtfTwins(2, 12, 0.7);
  auto warm = SolveFinishTimeFairness(later, solver, options);
  lp::WarmStartLpSolver fresh;
  auto cold = SolveFinishTimeFairness(later, fresh, options);
  EXPECT_TRUE(warm.ok() && cold.ok());
  EXPECT_GE(solver.warm_starts(), 1);
  double out = 0;
  for (size_t j = 0; j < later.jobs.size(); ++j) {
    for (size_t k = 0; k < later.capacity.size(); ++k) out = std::max(out, std::abs(warm->share[j][k] - cold->share[j][k]));
  }
  return out;
}

TEST(GavelFtfLpTest, TieBreakGivesWarmAndColdSolvesOneAllocation) {
  EXPECT_GT(LargestWarmColdDifference(FtfOptions{.tie_break = TieBreak::kNone}), 0.01);  // the face is wide
  EXPECT_LT(LargestWarmColdDifference(FtfOptions{}), 1e-7);

  const AllocationProblem p = FtfTwins(2, 12, 0.7);
  lp::WarmStartLpSolver fresh;
  auto a = SolveFinishTimeFairness(p, fresh);
  ASSERT_TRUE(a.ok());
  for (size_t j = 1; j + 1 < p.jobs.size(); ++j) {
    EXPECT_GE(EffectiveThroughput(p.jobs[j], a->share[j]), EffectiveThroughput(p.jobs[j + 1], a->share[j + 1]) - 1e-7)
        << "job " << p.jobs[j].id;
  }
}

}  // namespace
}  // namespace hetsched::gavel
