#include "hetsched/perf/interpolate.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>

#include <Eigen/Dense>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace hetsched {
namespace {

bool AllFinite(std::span<const double> v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// scipy's tolerances: Delaunay.find_simplex's eps, and the condition limit of its transforms.
constexpr double kInsideEps = 100 * DBL_EPSILON;
constexpr double kConditionLimit = 1000 * DBL_EPSILON;

// The simplices (lower Delaunay facets, triangulated) of `points`, dims + 1 point ids each, as
// scipy.spatial.Delaunay computes them.
Result<std::vector<int>> DelaunaySimplices(std::span<const double> points, int dims) {
  const int n = static_cast<int>(points.size() / static_cast<size_t>(dims));
  std::vector<coordT> coords(points.begin(), points.end());  // Qhull may not keep a const array
  char* buffer = nullptr;
  size_t buffer_size = 0;
  FILE* errors = open_memstream(&buffer, &buffer_size);
  if (errors == nullptr) return Status::Internal("Delaunay triangulation: cannot open a memory stream");
  qhT qh_storage;
  qhT* qh = &qh_storage;
  qh_zero(qh, errors);
  char options[] = "qhull d Qbb Qc Qz Q12 Qt";
  const int exit_code = qh_new_qhull(qh, dims, n, coords.data(), False, options, nullptr, errors);
  std::vector<int> out;
  if (exit_code == 0) {
    qh_triangulate(qh);
    facetT* facet;
    FORALLfacets {
      if (facet->upperdelaunay != qh->UPPERdelaunay) continue;
      std::vector<int> ids;
      vertexT *vertex, **vertexp;
      FOREACHvertex_(facet->vertices) ids.push_back(qh_pointid(qh, vertex->point));
      if (static_cast<int>(ids.size()) != dims + 1 ||
          std::any_of(ids.begin(), ids.end(), [&](int id) { return id < 0 || id >= n; })) {
        continue;  // not a simplex of input points (cannot happen with "Qt"; never interpolated over)
      }
      out.insert(out.end(), ids.begin(), ids.end());
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0, totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  std::fclose(errors);
  std::string message(buffer != nullptr ? buffer : "", buffer_size);
  std::free(buffer);
  if (exit_code != 0) {
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    const size_t cut = message.find('\n');
    return Status::InvalidArgument("Delaunay triangulation of " + std::to_string(n) + " points failed (Qhull: " +
                                   message.substr(0, cut) + ")");
  }
  if (out.empty()) return Status::InvalidArgument("Delaunay triangulation: the points span no volume");
  return out;
}

}  // namespace

Result<Interp1d> Interp1d::Create(std::span<const double> xs, std::span<const double> ys, int columns) {
  if (columns < 1 || ys.size() != xs.size() * static_cast<size_t>(columns)) {
    return Status::InvalidArgument("interp1d: " + std::to_string(ys.size()) + " values for " +
                                   std::to_string(xs.size()) + " points of " + std::to_string(columns));
  }
  if (xs.size() < 2) return Status::InvalidArgument("interp1d: needs at least 2 points, got " + std::to_string(xs.size()));
  if (!AllFinite(xs) || !AllFinite(ys)) return Status::InvalidArgument("interp1d: a value that is not finite");
  std::vector<size_t> order(xs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xs[a] < xs[b]; });
  Interp1d out;
  out.columns_ = columns;
  for (size_t i : order) {
    out.xs_.push_back(xs[i]);
    for (int c = 0; c < columns; ++c) out.ys_.push_back(ys[i * static_cast<size_t>(columns) + static_cast<size_t>(c)]);
  }
  return out;
}

std::optional<std::vector<double>> Interp1d::At(double x) const {
  if (!(x >= xs_.front() && x <= xs_.back())) return std::nullopt;
  const size_t n = xs_.size();
  size_t hi = static_cast<size_t>(std::lower_bound(xs_.begin(), xs_.end(), x) - xs_.begin());
  hi = std::clamp<size_t>(hi, 1, n - 1);
  const size_t lo = hi - 1;
  const auto cols = static_cast<size_t>(columns_);
  std::vector<double> out(cols);
  for (size_t c = 0; c < cols; ++c) {
    const double y_lo = ys_[lo * cols + c], y_hi = ys_[hi * cols + c];
    const double slope = (y_hi - y_lo) / (xs_[hi] - xs_[lo]);
    out[c] = slope * (x - xs_[lo]) + y_lo;
  }
  return out;
}

Result<DelaunayInterpolator> DelaunayInterpolator::Create(std::span<const double> points, int dims,
                                                          std::span<const double> values, int columns) {
  if (dims < 2 || columns < 1 || points.size() % static_cast<size_t>(dims) != 0 ||
      values.size() != points.size() / static_cast<size_t>(dims) * static_cast<size_t>(columns)) {
    return Status::InvalidArgument("Delaunay interpolation: the points and values do not match in shape");
  }
  const size_t n = points.size() / static_cast<size_t>(dims);
  if (n < static_cast<size_t>(dims) + 1) {
    return Status::InvalidArgument("Delaunay interpolation: " + std::to_string(n) + " points in " +
                                   std::to_string(dims) + " dimensions (needs at least " + std::to_string(dims + 1) + ")");
  }
  if (!AllFinite(points) || !AllFinite(values)) {
    return Status::InvalidArgument("Delaunay interpolation: a value that is not finite");
  }
  DelaunayInterpolator out;
  out.dims_ = dims;
  out.columns_ = columns;
  out.values_.assign(values.begin(), values.end());
  HETSCHED_ASSIGN_OR_RETURN(out.vertices_, DelaunaySimplices(points, dims));
  const size_t d = static_cast<size_t>(dims);
  const size_t stride = d * d + d;
  out.transforms_.assign(out.simplices() * stride, 0.0);
  Eigen::MatrixXd t(dims, dims);
  for (size_t s = 0; s < out.simplices(); ++s) {
    const int* v = &out.vertices_[s * (d + 1)];
    const double* last = &points[static_cast<size_t>(v[d]) * d];
    for (size_t i = 0; i < d; ++i) {
      for (size_t j = 0; j < d; ++j) t(static_cast<long>(i), static_cast<long>(j)) = points[static_cast<size_t>(v[j]) * d + i] - last[i];
    }
    double* transform = &out.transforms_[s * stride];
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(t);
    if (!(lu.rcond() >= kConditionLimit)) {
      std::fill(transform, transform + stride, std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    const Eigen::MatrixXd inverse = lu.inverse();
    for (size_t i = 0; i < d; ++i) {
      for (size_t j = 0; j < d; ++j) transform[i * d + j] = inverse(static_cast<long>(i), static_cast<long>(j));
      transform[d * d + i] = last[i];
    }
  }
  return out;
}

bool DelaunayInterpolator::Inside(size_t simplex, std::span<const double> x, double eps, std::vector<double>* c) const {
  const size_t d = static_cast<size_t>(dims_);
  const double* transform = &transforms_[simplex * (d * d + d)];
  if (std::isnan(transform[0])) return false;  // degenerate
  (*c)[d] = 1.0;
  for (size_t i = 0; i < d; ++i) {
    double ci = 0;
    for (size_t j = 0; j < d; ++j) ci += transform[d * i + j] * (x[j] - transform[d * d + j]);
    (*c)[i] = ci;
    (*c)[d] -= ci;
    if (!(ci >= -eps && ci <= 1 + eps)) return false;
  }
  return (*c)[d] >= -eps && (*c)[d] <= 1 + eps;
}

std::optional<std::vector<double>> DelaunayInterpolator::At(std::span<const double> x) const {
  if (x.size() != static_cast<size_t>(dims_) || !AllFinite(x)) return std::nullopt;
  std::vector<double> c(static_cast<size_t>(dims_) + 1);
  const size_t d = static_cast<size_t>(dims_), cols = static_cast<size_t>(columns_);
  // scipy's search tolerance first; then its broader one (sqrt eps, which it allows next to a
  // degenerate simplex), so that a point on a face of flat simplices only is still found.
  for (double eps : {kInsideEps, std::sqrt(DBL_EPSILON)}) {
    for (size_t s = 0; s < simplices(); ++s) {
      if (!Inside(s, x, eps, &c)) continue;
      std::vector<double> out(cols, 0.0);
      for (size_t k = 0; k <= d; ++k) {
        const size_t point = static_cast<size_t>(vertices_[s * (d + 1) + k]);
        for (size_t col = 0; col < cols; ++col) out[col] += c[k] * values_[point * cols + col];
      }
      return out;
    }
  }
  return std::nullopt;
}

}  // namespace hetsched
