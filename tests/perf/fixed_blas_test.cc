// L-BFGS-B's BLAS and LAPACK routines in fixed arithmetic (perf/lbfgsb/fixed_blas.h), worked by
// hand: strided level-1 routines, a Cholesky factor in both triangles, the four triangular solves,
// and the info codes LAPACK gives for a matrix that is not positive definite, a singular one and a
// bad argument.
#include "hetsched/perf/lbfgsb/fixed_blas.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace {

TEST(FixedBlasTest, LevelOneRoutinesWalkStridesAsFortranDoes) {
  const std::array<double, 6> x = {1, 2, 3, 4, 5, 6};
  const std::array<double, 3> y = {10, 20, 30};
  int n = 3, one = 1, two = 2, minus_one = -1;
  // x(1), x(3), x(5) . y = 10 + 60 + 150.
  EXPECT_EQ(ddot_(&n, x.data(), &two, y.data(), &one), 220);
  // A negative increment starts at the far end: x(3), x(2), x(1) against y(1..3) = 30 + 40 + 30.
  EXPECT_EQ(ddot_(&n, x.data(), &minus_one, y.data(), &one), 100);
  int zero_n = 0;
  EXPECT_EQ(ddot_(&zero_n, x.data(), &one, y.data(), &one), 0);

  std::array<double, 3> z = {1, 1, 1};
  const double a = 2;
  daxpy_(&n, &a, x.data(), &two, z.data(), &one);  // z += 2 x (1, 3, 5)
  EXPECT_EQ(z, (std::array<double, 3>{3, 7, 11}));
  std::array<double, 6> w{};
  dcopy_(&n, y.data(), &one, w.data(), &two);
  EXPECT_EQ(w, (std::array<double, 6>{10, 0, 20, 0, 30, 0}));
  const double half = 0.5;
  dscal_(&n, &half, w.data(), &two);
  EXPECT_EQ(w, (std::array<double, 6>{5, 0, 10, 0, 15, 0}));
}

// A = [[4, 12, -16], [12, 37, -43], [-16, -43, 98]] = L L^T with L = [[2, 0, 0], [6, 1, 0], [-8, 5, 3]]
// (column major below; the unused triangle holds a marker that must stay).
TEST(FixedBlasTest, CholeskyInEitherTriangle) {
  const int n = 3, lda = 3;
  int info = -99;
  std::vector<double> upper = {4, -1, -1, 12, 37, -1, -16, -43, 98};
  dpotrf_("U", &n, upper.data(), &lda, &info, 1);
  EXPECT_EQ(info, 0);
  EXPECT_EQ(upper, (std::vector<double>{2, -1, -1, 6, 1, -1, -8, 5, 3}));  // U = L^T
  std::vector<double> lower = {4, 12, -16, -1, 37, -43, -1, -1, 98};
  dpotrf_("l", &n, lower.data(), &lda, &info, 1);
  EXPECT_EQ(info, 0);
  EXPECT_EQ(lower, (std::vector<double>{2, 6, -8, -1, 1, 5, -1, -1, 3}));
}

TEST(FixedBlasTest, CholeskyReportsTheFirstMinorThatIsNotPositive) {
  const int n = 2, lda = 2;
  int info = 0;
  // [[1, 2], [2, 1]]: the second pivot is 1 - 4 = -3, left in place.
  std::vector<double> a = {1, 2, 2, 1};
  dpotrf_("U", &n, a.data(), &lda, &info, 1);
  EXPECT_EQ(info, 2);
  EXPECT_EQ(a[3], -3);
  const int small_lda = 1;
  dpotrf_("U", &n, a.data(), &small_lda, &info, 1);
  EXPECT_EQ(info, -4);
  dpotrf_("X", &n, a.data(), &lda, &info, 1);
  EXPECT_EQ(info, -1);
}

// T = [[2, 1, 0], [0, 4, 2], [0, 0, 8]] (upper), its transpose as the lower one.
TEST(FixedBlasTest, TriangularSolvesInAllFourForms) {
  const int n = 3, nrhs = 1, ld = 3;
  const std::vector<double> upper = {2, 0, 0, 1, 4, 0, 0, 2, 8};
  const std::vector<double> lower = {2, 1, 0, 0, 4, 2, 0, 0, 8};
  int info = -99;
  // T x = (4, 12, 16): x3 = 2, x2 = (12 - 4) / 4 = 2, x1 = (4 - 2) / 2 = 1.
  std::vector<double> b = {4, 12, 16};
  dtrtrs_("U", "N", "N", &n, &nrhs, upper.data(), &ld, b.data(), &ld, &info, 1, 1, 1);
  EXPECT_EQ(info, 0);
  EXPECT_EQ(b, (std::vector<double>{1, 2, 2}));
  // T^T x = (2, 9, 20): x1 = 1, x2 = (9 - 1) / 4 = 2, x3 = (20 - 4) / 8 = 2; the same with the
  // lower matrix untransposed.
  b = {2, 9, 20};
  dtrtrs_("U", "T", "N", &n, &nrhs, upper.data(), &ld, b.data(), &ld, &info, 1, 1, 1);
  EXPECT_EQ(b, (std::vector<double>{1, 2, 2}));
  b = {2, 9, 20};
  dtrtrs_("L", "N", "N", &n, &nrhs, lower.data(), &ld, b.data(), &ld, &info, 1, 1, 1);
  EXPECT_EQ(b, (std::vector<double>{1, 2, 2}));
  b = {4, 12, 16};
  dtrtrs_("L", "C", "N", &n, &nrhs, lower.data(), &ld, b.data(), &ld, &info, 1, 1, 1);
  EXPECT_EQ(b, (std::vector<double>{1, 2, 2}));
  // A unit diagonal is not read: [[1, 1, 0], [0, 1, 2], [0, 0, 1]] x = (3, 8, 3) gives x3 = 3,
  // x2 = 8 - 6 = 2, x1 = 3 - 2 = 1.
  b = {3, 8, 3};
  dtrtrs_("U", "N", "U", &n, &nrhs, upper.data(), &ld, b.data(), &ld, &info, 1, 1, 1);
  EXPECT_EQ(b, (std::vector<double>{1, 2, 3}));
}

TEST(FixedBlasTest, TriangularSolveRefusesASingularMatrixAndBadArguments) {
  const int n = 2, nrhs = 1, ld = 2;
  const std::vector<double> singular = {1, 0, 3, 0};
  std::vector<double> b = {1, 1};
  int info = 0;
  dtrtrs_("U", "N", "N", &n, &nrhs, singular.data(), &ld, b.data(), &ld, &info, 1, 1, 1);
  EXPECT_EQ(info, 2);
  EXPECT_EQ(b, (std::vector<double>{1, 1}));  // nothing solved
  dtrtrs_("U", "Q", "N", &n, &nrhs, singular.data(), &ld, b.data(), &ld, &info, 1, 1, 1);
  EXPECT_EQ(info, -2);
  const int small = 1;
  dtrtrs_("U", "N", "N", &n, &nrhs, singular.data(), &ld, b.data(), &small, &info, 1, 1, 1);
  EXPECT_EQ(info, -9);
}

}  // namespace
