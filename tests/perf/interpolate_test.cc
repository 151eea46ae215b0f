// Interp1d and DelaunayInterpolator (perf/interpolate.h) on cases worked by hand.
#include "hetsched/perf/interpolate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace hetsched {
namespace {

TEST(Interp1dTest, SortsThePointsAndIsLinearBetweenThem) {
  // Points given out of order: x 4, 1, 2 with two columns (y, 10 y).
  const std::vector<double> xs = {4, 1, 2};
  const std::vector<double> ys = {7, 70, 1, 10, 3, 30};
  auto f = Interp1d::Create(xs, ys, 2);
  ASSERT_TRUE(f.ok()) << f.status().message();
  // Between 2 (y 3) and 4 (y 7): slope 2, so at 3: 5.
  auto v = f->At(3);
  ASSERT_TRUE(v.has_value());
  EXPECT_DOUBLE_EQ((*v)[0], 5);
  EXPECT_DOUBLE_EQ((*v)[1], 50);
  // Between 1 and 2: slope 2, at 1.25: 1.5.
  EXPECT_DOUBLE_EQ((*f->At(1.25))[0], 1.5);
  // The ends are inside, nothing beyond them.
  EXPECT_DOUBLE_EQ((*f->At(1))[0], 1);
  EXPECT_DOUBLE_EQ((*f->At(4))[0], 7);
  EXPECT_FALSE(f->At(0.999).has_value());
  EXPECT_FALSE(f->At(4.001).has_value());
  EXPECT_FALSE(f->At(std::nan("")).has_value());
}

TEST(Interp1dTest, AMeasuredPointIsComputedFromTheSegmentBelowIt) {
  // scipy computes y at x_k (k >= 1) as slope(k-1, k) * (x_k - x_{k-1}) + y_{k-1}; with these
  // values that is not y_k's bits: 0.1 + (0.3 - 0.1) / 3 * 3.
  const std::vector<double> xs = {0, 3};
  const std::vector<double> ys = {0.1, 0.3};
  auto f = Interp1d::Create(xs, ys, 1);
  ASSERT_TRUE(f.ok());
  const double slope = (0.3 - 0.1) / 3.0;
  EXPECT_EQ((*f->At(3))[0], slope * 3.0 + 0.1);
  EXPECT_EQ((*f->At(0))[0], 0.1);  // the first point: segment 0, x - x_lo = 0
}

TEST(Interp1dTest, RefusesTooFewPointsAndBadValues) {
  const std::vector<double> one = {1}, y1 = {2};
  EXPECT_FALSE(Interp1d::Create(one, y1, 1).ok());
  const std::vector<double> xs = {1, 2}, bad = {1, std::nan("")};
  EXPECT_FALSE(Interp1d::Create(xs, bad, 1).ok());
  const std::vector<double> short_ys = {1, 2, 3};
  EXPECT_FALSE(Interp1d::Create(xs, short_ys, 2).ok());
}

// f(x, y) = x y on A(0,0), B(2,0), C(0,2), D(3,3). D lies outside ABC's circumcircle (centre
// (1,1), radius sqrt 2; D is sqrt 8 away), so the Delaunay triangles are ABC and BCD.
TEST(DelaunayInterpolatorTest, InterpolatesOverTheDelaunayTriangles) {
  const std::vector<double> points = {0, 0, 2, 0, 0, 2, 3, 3};
  const std::vector<double> values = {0, 0, 0, 9};
  auto f = DelaunayInterpolator::Create(points, 2, values, 1);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->simplices(), 2u);
  // (1, 1.5) is in BCD: 2a + 3d = 1, 2b + 3d = 1.5, a + b + d = 1 give d = 1/8, so 9/8.
  const double in_bcd[] = {1, 1.5};
  EXPECT_NEAR((*f->At(in_bcd))[0], 1.125, 1e-12);
  // (0.5, 0.5) is in ABC, all of whose corners are 0 (the other diagonal would give more).
  const double in_abc[] = {0.5, 0.5};
  EXPECT_NEAR((*f->At(in_abc))[0], 0.0, 1e-12);
  // A corner gives its value; outside the hull, nothing.
  const double at_d[] = {3, 3};
  EXPECT_NEAR((*f->At(at_d))[0], 9.0, 1e-12);
  const double outside[] = {-0.1, 0};
  EXPECT_FALSE(f->At(outside).has_value());
}

TEST(DelaunayInterpolatorTest, ReproducesALinearFunctionInThreeDimensions) {
  // The 8 corners of a box and its centre; g = 1 + 2x - y + 0.5z (and 2g as a second column)
  // is linear, so every triangulation reproduces it exactly.
  std::vector<double> points, values;
  auto g = [](double x, double y, double z) { return 1 + 2 * x - y + 0.5 * z; };
  for (double x : {1.0, 4.0}) {
    for (double y : {2.0, 8.0}) {
      for (double z : {16.0, 64.0}) {
        points.insert(points.end(), {x, y, z});
        values.insert(values.end(), {g(x, y, z), 2 * g(x, y, z)});
      }
    }
  }
  points.insert(points.end(), {2.5, 5, 40});
  values.insert(values.end(), {g(2.5, 5, 40), 2 * g(2.5, 5, 40)});
  auto f = DelaunayInterpolator::Create(points, 3, values, 2);
  ASSERT_TRUE(f.ok()) << f.status().message();
  for (const auto& p : std::vector<std::vector<double>>{{1.5, 3, 20}, {3.9, 7.5, 60}, {2.5, 5, 40}, {1, 2, 16}}) {
    auto v = f->At(p);
    ASSERT_TRUE(v.has_value()) << p[0] << "," << p[1] << "," << p[2];
    EXPECT_NEAR((*v)[0], g(p[0], p[1], p[2]), 1e-9);
    EXPECT_NEAR((*v)[1], 2 * g(p[0], p[1], p[2]), 1e-9);
  }
  const double above[] = {2, 5, 64.5};
  EXPECT_FALSE(f->At(above).has_value());
}

TEST(DelaunayInterpolatorTest, RefusesFlatOrTooFewPoints) {
  // All in the plane z = 0: Qhull's own error, reported.
  const std::vector<double> flat = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 3, 0};
  const std::vector<double> five = {1, 2, 3, 4, 5};
  auto f = DelaunayInterpolator::Create(flat, 3, five, 1);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("Qhull"), std::string::npos) << f.status().message();
  const std::vector<double> two = {0, 0, 1, 1}, v2 = {1, 2};
  EXPECT_FALSE(DelaunayInterpolator::Create(two, 2, v2, 1).ok());
  const std::vector<double> tri = {0, 0, 1, 0, 0, std::nan("")}, v3 = {1, 2, 3};
  EXPECT_FALSE(DelaunayInterpolator::Create(tri, 2, v3, 1).ok());
}

}  // namespace
}  // namespace hetsched
