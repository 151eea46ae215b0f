// gavel-cost: throughput per dollar with SLOs, on cases solved by hand.
#include <gtest/gtest.h>

#include "hetsched/policies/gavel/allocation.h"

namespace hetsched::gavel {
namespace {

// Types A ($3/h) and B ($1/h), one GPU each; the job runs at 3 it/s on A and 2 on B
// (normalised 1 and 2/3). Per dollar: A 1/3, B 2/3: all of its time on B, objective 2/3.
AllocationProblem OneJob() {
  AllocationProblem p;
  p.capacity = {1, 1};
  p.price_per_hour = {3, 1};
  AllocationJob j;
  j.id = 0;
  j.throughput = {3, 2};
  j.remaining_iterations = 250;
  p.jobs = {j};
  return p;
}

TEST(GavelCostLpTest, CheapestPerThroughputWins) {
  lp::WarmStartLpSolver solver;
  auto a = SolveMaxThroughputPerDollar(OneJob(), solver);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_NEAR(a->objective, 2.0 / 3.0, 1e-6);
  EXPECT_NEAR(a->share[0][1], 1.0, 1e-6);
  EXPECT_NEAR(a->share[0][0], 0.0, 1e-6);
}

// SLO: 250 iterations in 100 s needs 2.5 it/s: 3a + 2b >= 2.5 with a + b <= 1. Maximising
// a/3 + 2b/3 pushes b up: b = 1 - a gives 3a + 2 - 2a >= 2.5, a >= 1/2: a = b = 1/2, objective
// 1/6 + 1/3 = 1/2.
TEST(GavelCostLpTest, SloForcesTheFasterType) {
  AllocationProblem p = OneJob();
  p.jobs[0].deadline_in_s = 100;
  lp::WarmStartLpSolver solver;
  auto a = SolveMaxThroughputPerDollar(p, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->objective, 0.5, 1e-6);
  EXPECT_NEAR(a->share[0][0], 0.5, 1e-6);
  EXPECT_TRUE(a->note.empty());
}

// Two such jobs both needing 2.5 it/s cannot share one A and one B (each needs half of A):
// 3a0 + 2b0 >= 2.5 and 3a1 + 2b1 >= 2.5 need a0, a1 >= 1/2 with b = 1/2 each... that is exactly
// feasible, so ask for 2.8 it/s (280 iterations in 100 s): a_j >= 0.8 each, a0 + a1 <= 1:
// infeasible, solved without SLOs (note says so).
TEST(GavelCostLpTest, JointlyInfeasibleSlosAreRelaxed) {
  AllocationProblem p = OneJob();
  p.jobs[0].remaining_iterations = 280;
  p.jobs[0].deadline_in_s = 100;
  p.jobs.push_back(p.jobs[0]);
  p.jobs[1].id = 1;
  lp::WarmStartLpSolver solver;
  auto a = SolveMaxThroughputPerDollar(p, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, lp::SolveStatus::kOptimal);
  EXPECT_NE(a->note.find("infeasible"), std::string::npos);
}

// An SLO that even the best type cannot meet (300 it in 50 s = 6 it/s > 3) is dropped, counted.
TEST(GavelCostLpTest, UnreachableSloIsDropped) {
  AllocationProblem p = OneJob();
  p.jobs[0].remaining_iterations = 300;
  p.jobs[0].deadline_in_s = 50;
  lp::WarmStartLpSolver solver;
  auto a = SolveMaxThroughputPerDollar(p, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_NE(a->note.find("1 SLO"), std::string::npos);
  EXPECT_NEAR(a->share[0][1], 1.0, 1e-6);
}

}  // namespace
}  // namespace hetsched::gavel
