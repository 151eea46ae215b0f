// The point cvxopt's LP solver returns for Gavel's share LPs (policies/gavel/cvxopt.h): cases
// worked out by hand, and one recorded from cvxopt itself.
#include <gtest/gtest.h>

#include "hetsched/policies/gavel/centre.h"
#include "hetsched/policies/gavel/cvxopt.h"
#include "hetsched/policies/gavel/cvxopt_kkt.h"

namespace hetsched::gavel {
namespace {

CentreProblem Problem(CentreProblem::Mode mode, std::vector<std::vector<double>> a, std::vector<int> gpus,
                      std::vector<int> capacity) {
  CentreProblem p;
  p.mode = mode;
  p.count.assign(a.size(), 1.0);
  p.a = std::move(a);
  p.gpus = std::move(gpus);
  p.capacity = std::move(capacity);
  return p;
}

// A feasibility LP (no objective) whose least-squares start is already strictly feasible: cvxopt
// returns that start unchanged. One job, one type of one GPU, floor 0.5 on x: the rows
// x <= 1 (capacity), x <= 1 (job), -x <= -0.5 (floor), -x <= 0 give
//   argmin (x - 1)^2 + (x - 1)^2 + (0.5 - x)^2 + x^2  =>  4x = 2 + 0.5  =>  x = 0.625,
// where the analytic centre of [0.5, 1] under the same barrier lies elsewhere.
TEST(GavelCvxoptTest, FeasibilityLpReturnsTheLeastSquaresStart) {
  CentreProblem p = Problem(CentreProblem::Mode::kFeasible, {{1.0}}, {1}, {1});
  p.floor = {0.5};
  auto c = CvxoptShares(p);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_NEAR(c->share[0][0], 0.625, 1e-12);
  auto centre = CentralShares(p);
  ASSERT_TRUE(centre.ok());
  EXPECT_GT(std::abs(centre->share[0][0] - 0.625), 1e-3);
}

// Two equal jobs on one GPU: the optimum is unique (1/2 each, z = 1/2) and every interior-point
// method ends there.
TEST(GavelCvxoptTest, UniqueOptimumIsReached) {
  auto c = CvxoptShares(Problem(CentreProblem::Mode::kMaxMin, {{1.0}, {1.0}}, {1, 1}, {1}));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_NEAR(c->z, 0.5, 1e-8);
  EXPECT_NEAR(c->share[0][0], 0.5, 1e-7);
  EXPECT_NEAR(c->share[1][0], 0.5, 1e-7);
}

// A wide optimal face. Job 1 (2 GPUs, a = [2, 1, 1]) reaches z = 2 only with all its time on
// type 0, so z* = 2 and its row is [1, 0, 0] (by hand); job 0 (a = [1, 2, 3]) meets a.x >= 2
// with many splits. Where cvxopt stops inside that face is its own: recorded from cvxopt 1.3.0
// (Debian python3-cvxopt, solvers.lp with the stand-in's options: abstol = reltol = feastol =
// 1e-8, refinement 1) on the same rows; the central path's end is another point.
TEST(GavelCvxoptTest, WideFaceEndsWhereCvxoptEnds) {
  const CentreProblem p = Problem(CentreProblem::Mode::kMaxMin, {{1.0, 2.0, 3.0}, {2.0, 1.0, 1.0}}, {1, 2}, {4, 4, 4});
  auto c = CvxoptShares(p);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_NEAR(c->z, 2.0, 1e-8);
  EXPECT_NEAR(c->share[1][0], 1.0, 1e-8);
  EXPECT_NEAR(c->share[1][1], 0.0, 1e-8);
  EXPECT_NEAR(c->share[1][2], 0.0, 1e-8);
  const double cvxopt[] = {0.1692575828, 0.2182747892, 0.5429154954};
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(c->share[0][k], cvxopt[k], 1e-8) << k;
  auto centre = CentralShares(p);
  ASSERT_TRUE(centre.ok());
  EXPECT_GT(std::abs(centre->share[0][0] - cvxopt[0]), 1e-2);
  // InteriorShares dispatches on the option.
  auto via = InteriorShares(SharePoint::kCvxopt, p);
  ASSERT_TRUE(via.ok());
  EXPECT_EQ(via->share, c->share);
}

// kktsolver="ldl" (the stand-in's re-solve where the default stops with status "unknown")
// factors the whole KKT matrix instead of the normal equations: the same iterates to rounding.
// cvxopt 1.3.0 with kktsolver="ldl" on this LP gives the shares recorded above to 10 digits (6
// iterations, as the default).
TEST(GavelCvxoptTest, LdlKktSolverEndsWhereCvxoptsLdlEnds) {
  const CentreProblem p = Problem(CentreProblem::Mode::kMaxMin, {{1.0, 2.0, 3.0}, {2.0, 1.0, 1.0}}, {1, 2}, {4, 4, 4});
  auto c = CvxoptShares(p, CvxoptKkt::kLdl);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_NEAR(c->z, 2.0, 1e-8);
  const double cvxopt_ldl[] = {0.1692575828, 0.2182747892, 0.5429154954};
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(c->share[0][k], cvxopt_ldl[k], 1e-8) << k;
  EXPECT_NEAR(c->share[1][0], 1.0, 1e-8);
  // A unique optimum and an infeasible floor come out as with the default.
  auto unique = CvxoptShares(Problem(CentreProblem::Mode::kMaxMin, {{1.0}, {1.0}}, {1, 1}, {1}), CvxoptKkt::kLdl);
  ASSERT_TRUE(unique.ok()) << unique.status().message();
  EXPECT_NEAR(unique->share[0][0], 0.5, 1e-7);
}

// A class of identical jobs is solved as that many rows (cvxopt's start depends on the row count).
TEST(GavelCvxoptTest, ClassIsExpandedIntoItsJobs) {
  CentreProblem grouped = Problem(CentreProblem::Mode::kMaxMin, {{1.0, 2.0}, {3.0, 1.0}}, {1, 1}, {2, 1});
  grouped.count = {2.0, 1.0};
  const CentreProblem expanded =
      Problem(CentreProblem::Mode::kMaxMin, {{1.0, 2.0}, {1.0, 2.0}, {3.0, 1.0}}, {1, 1, 1}, {2, 1});
  auto g = CvxoptShares(grouped);
  auto e = CvxoptShares(expanded);
  ASSERT_TRUE(g.ok() && e.ok());
  EXPECT_DOUBLE_EQ(g->z, e->z);
  EXPECT_EQ(g->share[0], e->share[0]);
  EXPECT_EQ(g->share[1], e->share[2]);
  grouped.count[0] = 1.5;
  EXPECT_FALSE(CvxoptShares(grouped).ok());
}

// Floors no allocation meets: cvxopt's certificate of primal infeasibility.
TEST(GavelCvxoptTest, UnreachableFloorIsInfeasible) {
  CentreProblem p = Problem(CentreProblem::Mode::kFeasible, {{1.0, 1.0}}, {1}, {1, 1});
  p.floor = {2.5};
  auto c = CvxoptShares(p);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInfeasible);
}

// The product-form factor alone (no refinement) solves the normal equations G' diag(w) G u = v to
// rounding, with the scaling spanning 1e-9 to 1e9 as near an optimum: backward error below 1e-14
// (a wrong update, or one applied out of order, leaves errors of 1e-4 and more). Max-min (with the
// epigraph variable's border) and max-sum LPs of 40 jobs over three types.
TEST(GavelCvxoptTest, ProductFormFactorSolvesTheNormalEquations) {
  using cvxopt_internal::ProductNormal;
  using cvxopt_internal::ShareLp;
  uint64_t state = 777;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  std::vector<std::vector<double>> a;
  std::vector<int> gpus;
  for (int j = 0; j < 40; ++j) {
    a.push_back({0.5 + 3 * next(), 0.5 + 2 * next(), 0.2 + next()});
    gpus.push_back(1 << static_cast<int>(3 * next()));
  }
  for (CentreProblem::Mode mode : {CentreProblem::Mode::kMaxMin, CentreProblem::Mode::kMaxSum}) {
    const ShareLp lp(Problem(mode, a, gpus, {36, 36, 36}));
    Eigen::VectorXd w(lp.m());
    for (long i = 0; i < lp.m(); ++i) w[i] = std::pow(10.0, 18 * next() - 9);
    Eigen::VectorXd v(lp.n());
    for (long i = 0; i < lp.n(); ++i) v[i] = 2 * next() - 1;
    ProductNormal factor;
    ASSERT_TRUE(factor.Factor(lp, w));
    const Eigen::VectorXd u = factor.Solve(v);
    const Eigen::VectorXd back = lp.Gt(lp.G(u).cwiseProduct(w));
    // |N u - v| against |N| |u|, |N| bounded by its largest entries: max w x (largest G entry)^2.
    const double scale = w.maxCoeff() * 16 * 4 * u.norm();
    EXPECT_LT((back - v).norm() / scale, 1e-14) << (mode == CentreProblem::Mode::kMaxMin ? "max-min" : "max-sum");
  }
}

// The normal matrix's factor in product form (what kAuto uses) takes the same iterates as the
// explicit dense factor (kDense), to the solver's tolerance: 60 jobs of 1 to 4 GPUs over two,
// three and five types (the product form's solves are unrolled for up to four types, generic
// above), a max-min LP whose face is wide (many jobs reach the level many ways) and a max-sum one,
// each solved both ways.
TEST(GavelCvxoptTest, ProductFormFactorTakesTheSameSteps) {
  for (size_t types : {2u, 3u, 5u}) {
    std::vector<std::vector<double>> a;
    std::vector<int> gpus;
    uint64_t state = 12345;
    auto next = [&state] {  // a small LCG: the same problem on every machine
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<double>(state >> 11) / 9007199254740992.0;
    };
    for (int j = 0; j < 60; ++j) {
      std::vector<double> row;
      for (size_t k = 0; k < types; ++k) row.push_back(0.2 + (3.0 - static_cast<double>(k % 3)) * next());
      a.push_back(std::move(row));
      gpus.push_back(1 << static_cast<int>(3 * next()));
    }
    const std::vector<int> capacity(types, 36);
    for (CentreProblem::Mode mode : {CentreProblem::Mode::kMaxMin, CentreProblem::Mode::kMaxSum}) {
      const CentreProblem p = Problem(mode, a, gpus, capacity);
      auto dense = CvxoptShares(p, CvxoptKkt::kDense);
      auto product = CvxoptShares(p);
      ASSERT_TRUE(dense.ok()) << types << " types: " << dense.status().message();
      ASSERT_TRUE(product.ok()) << types << " types: " << product.status().message();
      EXPECT_EQ(dense->newton_steps, product->newton_steps) << types << " types";
      EXPECT_NEAR(dense->z, product->z, 1e-9) << types << " types";
      for (size_t j = 0; j < a.size(); ++j) {
        for (size_t k = 0; k < types; ++k) {
          EXPECT_NEAR(dense->share[j][k], product->share[j][k], 1e-7) << types << " types, job " << j << " type " << k;
        }
      }
    }
  }
}

}  // namespace
}  // namespace hetsched::gavel
