// Interpolation of measured tables, computed as the peers' simulators compute it with scipy, so
// that a value between measurements is the same number here as there:
//  - Interp1d: piecewise-linear in one variable [SRC: scipy.interpolate.interp1d(kind="linear"),
//    bounds_error=True: the points sorted (stable) by x; for x in [x_0, x_n] the segment is found
//    by a left binary search clipped to 1..n, and y = (y_hi - y_lo) / (x_hi - x_lo) * (x - x_lo)
//    + y_lo (so at a measured x_k, k >= 1, it is computed from segment k-1, not read);
//    outside: none].
//  - DelaunayInterpolator: piecewise-linear over a Delaunay triangulation of scattered points
//    [SRC: scipy.interpolate.LinearNDInterpolator with fill_value NaN; scipy.spatial.Delaunay: Qhull
//    ("qhull d Qbb Qc Qz Q12 Qt", then triangulated; the lower Delaunay facets are the simplices);
//    barycentric coordinates c = T^-1 (x - r_n), T_ij = (r_j - r_n)_i, a simplex whose T has a
//    reciprocal condition number below 1000 eps counts as degenerate; a point is inside when
//    every c is within [-eps, 1 + eps], eps = 100 DBL_EPSILON]. Qhull comes from Debian
//    (libqhull-dev, the reentrant libqhull_r). A point in several simplices (on a shared face) gets
//    the first one's value: the same up to rounding, as the interpolant is continuous.
// Both hold several value columns per point (e.g. step time and sync time).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched {

class Interp1d {
 public:
  // `ys`: xs.size() rows of `columns` values, row-major. At least 2 points, finite values.
  static Result<Interp1d> Create(std::span<const double> xs, std::span<const double> ys, int columns);

  // The values at x (`columns` of them); nothing outside [min x, max x].
  std::optional<std::vector<double>> At(double x) const;
  double min_x() const { return xs_.front(); }
  double max_x() const { return xs_.back(); }

 private:
  std::vector<double> xs_, ys_;
  int columns_ = 1;
};

class DelaunayInterpolator {
 public:
  // `points`: n points of `dims` coordinates (row-major); `values`: n rows of `columns` values.
  // Errors: fewer than dims + 1 points, a non-finite coordinate or value, or Qhull's own error
  // (e.g. all points in one plane), its message included.
  static Result<DelaunayInterpolator> Create(std::span<const double> points, int dims, std::span<const double> values,
                                             int columns);

  // The values at `x` (dims coordinates); nothing outside the points' convex hull.
  std::optional<std::vector<double>> At(std::span<const double> x) const;
  size_t simplices() const { return vertices_.size() / static_cast<size_t>(dims_ + 1); }

 private:
  bool Inside(size_t simplex, std::span<const double> x, double eps, std::vector<double>* c) const;

  int dims_ = 0, columns_ = 0;
  std::vector<double> values_;
  std::vector<int> vertices_;        // dims + 1 point indices per simplex
  std::vector<double> transforms_;   // per simplex: T^-1 (dims x dims, row-major), then r_n; NaN: degenerate
};

}  // namespace hetsched
