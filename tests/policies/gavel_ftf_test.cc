// gavel-ftf: finish-time fairness by bisection, on cases solved by hand.
#include <cmath>

#include <gtest/gtest.h>

#include "hetsched/policies/gavel_allocation.h"

namespace hetsched::gavel {
namespace {

AllocationJob Job(JobId id, double remaining, double total, double elapsed_s) {
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
  p.jobs = {Job(0, 100, 100, 0), Job(1, 100, 100, 0)};
  lp::WarmStartLpSolver solver;
  auto a = SolveFinishTimeFairness(p, solver, 1e-6);
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
  p.jobs = {Job(0, 100, 200, 100), Job(1, 100, 100, 0)};
  lp::WarmStartLpSolver solver;
  auto a = SolveFinishTimeFairness(p, solver, 1e-7);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->objective, 1.0 / (2.0 * (2.0 - std::sqrt(2.0))), 1e-5);
  EXPECT_NEAR(a->share[0][0], std::sqrt(2.0) - 1.0, 1e-4);
  EXPECT_GT(a->lp_solves, 5);
}

TEST(GavelFtfLpTest, UnplaceableJobIsListed) {
  AllocationProblem p;
  p.capacity = {1};
  p.jobs = {Job(0, 100, 100, 0)};
  p.jobs[0].num_gpus = 2;
  lp::WarmStartLpSolver solver;
  auto a = SolveFinishTimeFairness(p, solver);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->unplaceable.size(), 1u);
  EXPECT_EQ(a->share[0][0], 0.0);
}

}  // namespace
}  // namespace hetsched::gavel
