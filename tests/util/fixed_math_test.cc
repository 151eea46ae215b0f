// exp, log, log1p, log10, pow and cos of the same bits on every CPU (util/fixed_math.h): close to
// the C library's (both are within 1 ULP of the exact value), exact where the value is, and the
// special values C99 gives.
#include "hetsched/util/fixed_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace hetsched {
namespace {

TEST(FixedMathTest, AgreesWithTheCLibraryToAnUlpOrTwo) {
  for (double x : {-20.0, -3.75, -0.5, 1e-9, 0.1, 1.0, 2.5, 30.0}) {
    EXPECT_NEAR(FixedExp(x) / std::exp(x), 1.0, 4e-16) << x;
    EXPECT_NEAR(FixedCos(x), std::cos(x), 4e-16) << x;
  }
  for (double x : {1e-300, 1e-9, 0.3, 3.0, 1e6}) {
    EXPECT_NEAR(FixedLog(x), std::log(x), 4e-16 * std::abs(std::log(x)) + 1e-300) << x;
    EXPECT_NEAR(FixedLog10(x), std::log10(x), 4e-16 * std::abs(std::log10(x)) + 1e-300) << x;
  }
  for (double x : {-0.75, -1e-12, 0.25, 10.0}) EXPECT_NEAR(FixedLog1p(x) / std::log1p(x), 1.0, 4e-16) << x;
  for (double y : {-0.5, 0.3, 2.3, 7.0}) EXPECT_NEAR(FixedPow(1.7, y) / std::pow(1.7, y), 1.0, 4e-16) << y;
}

TEST(FixedMathTest, ExactValuesAndSpecialCases) {
  EXPECT_EQ(FixedExp(0), 1);
  EXPECT_EQ(FixedLog(1), 0);
  EXPECT_EQ(FixedLog10(1000), 3);
  EXPECT_EQ(FixedPow(10, 2), 100);
  EXPECT_EQ(FixedPow(2, -3), 0.125);
  EXPECT_EQ(FixedPow(0, 0), 1);
  EXPECT_EQ(FixedCos(0), 1);
  EXPECT_EQ(FixedLog1p(0), 0);
  EXPECT_EQ(FixedLog(0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(FixedLog(-1)));
  EXPECT_EQ(FixedExp(-1000), 0);
  EXPECT_EQ(FixedExp(1000), std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace hetsched
