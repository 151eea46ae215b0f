// The interior point of Gavel's share LPs (policies/gavel/centre.h), on cases solved by hand.
#include <cmath>

#include <gtest/gtest.h>

#include "hetsched/policies/gavel/centre.h"

namespace hetsched::gavel {
namespace {

CentreProblem MaxMin(std::vector<std::vector<double>> a, std::vector<int> capacity) {
  CentreProblem p;
  p.mode = CentreProblem::Mode::kMaxMin;
  p.gpus.assign(a.size(), 1);
  p.count.assign(a.size(), 1.0);
  p.a = std::move(a);
  p.capacity = std::move(capacity);
  return p;
}

// One job, two types of one GPU each, the same speed on both: every split x0 + x1 = 1 is optimal
// (z = 1). A vertex puts the job on one type; the central path ends at the face's analytic
// centre, which by symmetry is 1/2 on each.
TEST(GavelCentreTest, IndifferentJobIsSplitEvenly) {
  auto c = CentralShares(MaxMin({{1.0, 1.0}}, {1, 1}));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_NEAR(c->z, 1.0, 1e-7);
  EXPECT_NEAR(c->share[0][0], 0.5, 1e-6);
  EXPECT_NEAR(c->share[0][1], 0.5, 1e-6);
}

// A type the job cannot use (coefficient 0) keeps a small positive share at the end of the path,
// as an interior-point solver's answer does (a vertex has 0 there): of the order of the gap.
TEST(GavelCentreTest, UnusableTypeKeepsATinyShare) {
  auto c = CentralShares(MaxMin({{1.0, 0.0}}, {1, 1}));
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->z, 1.0, 1e-7);
  EXPECT_NEAR(c->share[0][0], 1.0, 1e-6);
  EXPECT_GT(c->share[0][1], 0.0);
  EXPECT_LT(c->share[0][1], 1e-6);
}

// Two jobs on one 2-GPU type, job 1 twice as fast: z = 1 needs x0 = 1 and x1 in [1/2, 1]. On
// that face the barrier of the constraints not tight on all of it is log x1 + log(1 - x1) (time)
// + log(2 x1 - 1) (its z row) + log(1 - x1) (capacity: 2 - 1 - x1); its maximum solves
// 8 x1^2 - 7 x1 + 1 = 0: x1 = (7 + sqrt(17)) / 16 (a vertex: 1/2 or 1).
TEST(GavelCentreTest, PathEndsAtTheFacesAnalyticCentre) {
  auto c = CentralShares(MaxMin({{1.0}, {2.0}}, {2}));
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->z, 1.0, 1e-7);
  EXPECT_NEAR(c->share[0][0], 1.0, 1e-6);
  EXPECT_NEAR(c->share[1][0], (7 + std::sqrt(17.0)) / 16, 1e-5);
}

// A class of two identical jobs as one row of weight 2 has the centre of the two rows.
TEST(GavelCentreTest, ClassRowEqualsItsJobs) {
  CentreProblem two = MaxMin({{1.0, 0.5}, {1.0, 0.5}, {0.2, 1.0}}, {2, 1});
  CentreProblem one = MaxMin({{1.0, 0.5}, {0.2, 1.0}}, {2, 1});
  one.count = {2.0, 1.0};
  auto a = CentralShares(two);
  auto b = CentralShares(one);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NEAR(a->z, b->z, 1e-7);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_NEAR(a->share[0][k], b->share[0][k], 1e-6);
    EXPECT_NEAR(a->share[1][k], b->share[0][k], 1e-6);
    EXPECT_NEAR(a->share[2][k], b->share[1][k], 1e-6);
  }
}

// Feasibility: one job, one 1-GPU type, floor x >= 1/2. The barrier is log x + log(1 - x) (time)
// + log(1 - x) (capacity) + log(x - 1/2); its stationary point solves 4x^2 - 3.5x + 0.5 = 0:
// x = (3.5 + sqrt(4.25)) / 8.
TEST(GavelCentreTest, FeasibleModeReturnsTheAnalyticCentre) {
  CentreProblem p = MaxMin({{1.0}}, {1});
  p.mode = CentreProblem::Mode::kFeasible;
  p.floor = {0.5};
  auto c = CentralShares(p);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_NEAR(c->share[0][0], (3.5 + std::sqrt(4.25)) / 8, 1e-7);
}

TEST(GavelCentreTest, FeasibleModeWithoutInteriorIsInfeasible) {
  CentreProblem p = MaxMin({{1.0}}, {1});
  p.mode = CentreProblem::Mode::kFeasible;
  p.floor = {2.0};
  auto c = CentralShares(p);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInfeasible);
}

TEST(GavelCentreTest, RowWithoutPositiveCoefficientIsAnError) {
  EXPECT_FALSE(CentralShares(MaxMin({{0.0, 0.0}}, {1, 1})).ok());
}

}  // namespace
}  // namespace hetsched::gavel
