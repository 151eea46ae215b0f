// gavel-makespan: the LP on cases solved by hand.
#include <gtest/gtest.h>

#include "hetsched/policies/gavel_allocation.h"

namespace hetsched::gavel {
namespace {

AllocationJob Job(JobId id, std::vector<double> t, double remaining) {
  AllocationJob j;
  j.id = id;
  j.throughput = std::move(t);
  j.remaining_iterations = remaining;
  j.total_iterations = remaining;
  return j;
}

// One GPU, T = 1 it/s, 100 and 300 iterations left: x0 >= 100 theta, x1 >= 300 theta,
// x0 + x1 <= 1 -> theta = 1/400: makespan 400 s with x = (1/4, 3/4).
TEST(GavelMakespanLpTest, OneGpuSharesInProportionToWork) {
  AllocationProblem p;
  p.capacity = {1};
  p.jobs = {Job(0, {1}, 100), Job(1, {1}, 300)};
  lp::WarmStartLpSolver solver;
  auto a = SolveMinMakespan(p, solver);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_NEAR(a->objective, 400, 1e-3);
  EXPECT_NEAR(a->share[0][0], 0.25, 1e-6);
  EXPECT_NEAR(a->share[1][0], 0.75, 1e-6);
}

// Two types, one GPU each; 100 iterations each; job 0 runs at 2 it/s on type 0 and 1 on type 1,
// job 1 at 1 on both. Job 1 can never exceed 1 it/s (its time fraction is at most 1), so the
// makespan is at least 100 s; it is reached with job 0 on type 0 (2 it/s: 50 s) and job 1 on
// type 1 (100 s).
TEST(GavelMakespanLpTest, HeterogeneousTypes) {
  AllocationProblem p;
  p.capacity = {1, 1};
  p.jobs = {Job(0, {2, 1}, 100), Job(1, {1, 1}, 100)};
  lp::WarmStartLpSolver solver;
  auto a = SolveMinMakespan(p, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->objective, 100, 1e-3);
  EXPECT_NEAR(EffectiveThroughput(p.jobs[1], a->share[1]), 1.0, 1e-6);
  EXPECT_GE(EffectiveThroughput(p.jobs[0], a->share[0]), 1.0 - 1e-6);
}

TEST(GavelMakespanLpTest, NoJobs) {
  AllocationProblem p;
  p.capacity = {1};
  lp::WarmStartLpSolver solver;
  auto a = SolveMinMakespan(p, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, lp::SolveStatus::kOptimal);
  EXPECT_TRUE(a->share.empty());
}

}  // namespace
}  // namespace hetsched::gavel
