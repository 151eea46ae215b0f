// gavel-throughput (Gavel's max_sum_throughput_perf) on cases solved by hand.
#include <gtest/gtest.h>

#include "hetsched/policies/gavel/allocation.h"

namespace hetsched::gavel {
namespace {

AllocationJob Job(JobId id, std::vector<double> throughput, int gpus = 1) {
  AllocationJob j;
  j.id = id;
  j.throughput = std::move(throughput);
  j.num_gpus = gpus;
  j.remaining_iterations = 1000;
  return j;
}

// Types A and B, one GPU each; job 0 runs at 4 it/s on A and 1 on B, job 1 at 3 and 2. The sum
// 4 a0 + b0 + 3 a1 + 2 b1 is largest with job 0 on A and job 1 on B: 6 (the swap gives 4).
TEST(GavelThroughputLpTest, EachJobOnTheTypeThatAddsMost) {
  AllocationProblem p;
  p.capacity = {1, 1};
  p.jobs = {Job(0, {4, 1}), Job(1, {3, 2})};
  lp::WarmStartLpSolver solver;
  auto a = SolveMaxSumThroughput(p, solver);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->status, lp::SolveStatus::kOptimal);
  EXPECT_NEAR(a->objective, 6, 1e-9);
  EXPECT_NEAR(a->share[0][0], 1, 1e-9);
  EXPECT_NEAR(a->share[1][1], 1, 1e-9);
  EXPECT_NEAR(a->share[0][1] + a->share[1][0], 0, 1e-9);
}

// Unlike max-min fairness it starves: three one-GPU jobs on one GPU of A, the fastest (5 it/s)
// takes all of it; a 2-GPU job cannot use a type of one GPU at all.
TEST(GavelThroughputLpTest, TheFastestJobTakesTheGpuAndTooLargeJobsGetNone) {
  AllocationProblem p;
  p.capacity = {1};
  p.jobs = {Job(0, {2}), Job(1, {5}), Job(2, {3}), Job(3, {9}, 2)};
  lp::WarmStartLpSolver solver;
  auto a = SolveMaxSumThroughput(p, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->objective, 5, 1e-9);
  EXPECT_NEAR(a->share[1][0], 1, 1e-9);
  EXPECT_NEAR(a->share[0][0] + a->share[2][0] + a->share[3][0], 0, 1e-9);
  ASSERT_EQ(a->unplaceable.size(), 1u);
  EXPECT_EQ(a->unplaceable[0], 3);
}

// point=cvxopt: where the optimum is not unique cvxopt's interior point lies inside the optimal
// face. Two identical one-GPU jobs at 3 it/s on one GPU: every split x0 + x1 = 1 is optimal (3);
// the simplex returns a vertex (one job all of it), cvxopt's path is symmetric in the two jobs
// and ends at 1/2 each. Where the optimum is unique (the first case above) both agree.
TEST(GavelThroughputLpTest, CvxoptsPointSplitsATieEvenly) {
  AllocationProblem p;
  p.capacity = {1};
  p.jobs = {Job(0, {3}), Job(1, {3})};
  lp::WarmStartLpSolver solver;
  auto vertex = SolveMaxSumThroughput(p, solver);
  ASSERT_TRUE(vertex.ok());
  EXPECT_NEAR(vertex->share[0][0] * vertex->share[1][0], 0, 1e-9);
  auto interior = SolveMaxSumThroughput(p, solver, SharePoint::kCvxopt);
  ASSERT_TRUE(interior.ok()) << interior.status().message();
  EXPECT_NEAR(interior->objective, 3, 1e-6);
  EXPECT_NEAR(interior->share[0][0], 0.5, 1e-6);
  EXPECT_NEAR(interior->share[1][0], 0.5, 1e-6);

  AllocationProblem q;
  q.capacity = {1, 1};
  q.jobs = {Job(0, {4, 1}), Job(1, {3, 2})};
  auto unique = SolveMaxSumThroughput(q, solver, SharePoint::kCvxopt);
  ASSERT_TRUE(unique.ok());
  EXPECT_NEAR(unique->objective, 6, 1e-6);
  EXPECT_NEAR(unique->share[0][0], 1, 1e-6);
  EXPECT_NEAR(unique->share[1][1], 1, 1e-6);
  // No central-path point for this LP.
  CentreProblem centre{CentreProblem::Mode::kMaxSum, {{3}, {3}}, {}, {1, 1}, {1, 1}, {1}};
  EXPECT_FALSE(CentralShares(centre).ok());
}

}  // namespace
}  // namespace hetsched::gavel
