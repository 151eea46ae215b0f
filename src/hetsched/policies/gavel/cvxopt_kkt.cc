// The KKT systems of cvxopt's conelp on Gavel's share LPs (gavel_cvxopt_kkt.h): by a Cholesky
// factor of the normal matrix as cvxopt's chol2 (in product form, or explicit and dense:
// NormalFactor), or by the whole KKT matrix as its kktsolver="ldl".
#include "hetsched/policies/gavel/cvxopt_kkt.h"

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

namespace hetsched::gavel::cvxopt_internal {
namespace {

constexpr int kMaxRefine = 30;
// One column of a rank-one update L L' += x x' (LINPACK's dchud: a rotation of column k of L with
// x), rows k to `to`; x is updated below k for the next column.
template <typename Mat, typename Vec>
void RotateColumn(Mat&& l, Vec&& x, long k, long to) {
  const double lkk = l(k, k);
  // sqrt(a^2 + b^2), not hypot (a sixth of a run's time): the factor's entries are square roots of
  // scaling weights (at most ~1e18), far from where the squares would overflow.
  const double r = std::sqrt(lkk * lkk + x[k] * x[k]);
  const double c = r / lkk, s = x[k] / lkk;
  l(k, k) = r;
  for (long i = k + 1; i < to; ++i) {
    l(i, k) = (l(i, k) + s * x[i]) / c;
    x[i] = c * x[i] - s * l(i, k);
  }
}

// Job r's own K x K part of the factor of G' diag(w) G (its x >= 0 rows' diagonal, then its job,
// lower-bound and epigraph rows as rank-one updates), into `l`, zero on entry: a block of the
// explicit factor or the product form's.
template <typename Mat>
void FactorJobBlock(const ShareLp& lp, const VectorXd& w, long r, Mat&& l) {
  const long K = lp.types();
  for (long k = 0; k < K; ++k) l(k, k) = std::sqrt(w[lp.Nonneg(r, k)]);
  VectorXd u(K);
  auto update = [&] {
    for (long k = 0; k < K; ++k) RotateColumn(l, u, k, K);
  };
  u.setConstant(std::sqrt(w[lp.Job(r)]));
  update();
  if (lp.lower_rows()) {
    u = std::sqrt(w[lp.Lower(r)]) * lp.b(r);
    update();
  }
  if (lp.epi()) {
    u = std::sqrt(w[lp.Epi(r)]) * lp.a(r);
    update();
  }
}

// Capacity row k's update vector: sqrt(w_k) g_r at each job's variable on type k.
VectorXd CapacityUpdate(const ShareLp& lp, const VectorXd& w, long k) {
  VectorXd cap = VectorXd::Zero(lp.rows() * lp.types());
  for (long r = 0; r < lp.rows(); ++r) cap[lp.X(r, k)] = std::sqrt(w[k]) * lp.gpus(r);
  return cap;
}

// The epigraph variable's border of a max-min LP's normal matrix (N_xz = -w_epi a, N_zz = sum
// w_epi), given `forward` = M^-1 for the factor M M' of the shares' part: border = M^-1 N_xz and
// corner = sqrt(N_zz - |border|^2); false where that pivot is not positive (not positive definite
// to rounding: cvxopt's chol2 fails too).
template <typename Forward>
bool FactorBorder(const ShareLp& lp, const VectorXd& w, Forward&& forward, VectorXd* border, double* corner) {
  const long K = lp.types();
  VectorXd b(lp.rows() * K);
  double zz = 0;
  for (long r = 0; r < lp.rows(); ++r) {
    b.segment(lp.X(r, 0), K) = -w[lp.Epi(r)] * lp.a(r);
    zz += w[lp.Epi(r)];
  }
  *border = forward(b);
  const double pivot = zz - border->squaredNorm();
  if (!(pivot > 0)) return false;
  *corner = std::sqrt(pivot);
  return true;
}

// N^-1 v from M's solves (`forward` M^-1, `backward` M'^-1), bordered by the epigraph variable
// (the last of v) where the LP is max-min.
template <typename Forward, typename Backward>
VectorXd SolveBordered(const ShareLp& lp, const VectorXd& v, const VectorXd& border, double corner,
                       Forward&& forward, Backward&& backward) {
  const long nx = lp.rows() * lp.types();
  VectorXd y = forward(VectorXd(v.head(nx)));
  if (!lp.maxmin()) return backward(std::move(y));
  const double yz = (v[nx] - border.dot(y)) / corner;
  const double uz = yz / corner;
  VectorXd out(nx + 1);
  out.head(nx) = backward(VectorXd(y - border * uz));
  out[nx] = uz;
  return out;
}

constexpr double kRefineTarget = 1e-13;  // residual of the normal equations, relative


// The Cholesky factor of G' diag(w) G, built from the diagonal of the x >= 0 rows by rank-one
// updates (LINPACK's dchud: backward stable, as a Cholesky factor of the whole matrix is), then
// bordered by the epigraph variable: the per-job rows update within their block, each capacity
// row fills the factor in O(n^2), so a factor costs O(types n^2), not the O(n^3) of factoring the
// dense matrix, which cvxopt's chol2 factors (its fill is complete). Used with NormalFactor::kDense,
// and where the product form (ProductNormal) fails.
class DenseNormal {
 public:
  bool Factor(const ShareLp& lp, const VectorXd& w) {
    const long K = lp.types(), R = lp.rows(), nx = R * K;
    lp_ = &lp;
    if (l_.rows() != nx) l_.resize(nx, nx);
    for (long r = 0; r < R; ++r) {  // within job r's block
      const long b = lp.X(r, 0);
      l_.block(b, b, nx - b, K).setZero();  // the lower part of its columns (the rest is never read)
      FactorJobBlock(lp, w, r, l_.block(b, b, K, K));
    }
    // The capacity rows, dense from their first entry on: K rank-one updates in one sweep over the
    // columns (update k+1 meets each column after update k, as when they run one after another:
    // every entry's arithmetic is the same), each column checked finite once it is final.
    MatrixXd cap(nx, K);  // column k: row k's u (nothing above entry k)
    for (long k = 0; k < K; ++k) cap.col(k) = CapacityUpdate(lp, w, k);
    for (long col = 0; col < nx; ++col) {
      for (long k = 0; k < K && k <= col; ++k) RotateColumn(l_, cap.col(k), col, nx);
      if (!std::isfinite((l_.col(col).tail(nx - col).array() * 0.0).sum())) return false;
    }
    return !lp.maxmin() || FactorBorder(lp, w, [this](const VectorXd& b) { return Forward(b); }, &border_, &corner_);
  }

  VectorXd Solve(const VectorXd& v) const {
    return SolveBordered(
        *lp_, v, border_, corner_, [this](const VectorXd& x) { return Forward(x); },
        [this](const VectorXd& y) { return VectorXd(l_.transpose().triangularView<Eigen::Upper>().solve(y)); });
  }

 private:
  VectorXd Forward(const VectorXd& v) const { return l_.triangularView<Eigen::Lower>().solve(v); }

  const ShareLp* lp_ = nullptr;
  MatrixXd l_;
  VectorXd border_;
  double corner_ = 1;
};


}  // namespace

bool ProductNormal::Factor(const ShareLp& lp, const VectorXd& w) {
  lp_ = &lp;
  const long K = lp.types(), R = lp.rows(), nx = R * K;
  blocks_.assign(static_cast<size_t>(nx * K), 0.0);
  inv_diag_.resize(nx);
  for (long r = 0; r < R; ++r) {
    Eigen::Map<MatrixXd> l(blocks_.data() + r * K * K, K, K);
    FactorJobBlock(lp, w, r, l);
    if (!l.allFinite()) return false;
    for (long k = 0; k < K; ++k) inv_diag_[r * K + k] = 1.0 / l(k, k);
  }
  updates_.clear();
  for (long k = 0; k < K; ++k) {
    Update up;
    up.p = Forward(CapacityUpdate(lp, w, k));
    up.beta.resize(nx);
    up.inv_root_d.resize(nx);
    double t = 1;
    for (long j = 0; j < nx; ++j) {
      const double next = t + up.p[j] * up.p[j];
      up.inv_root_d[j] = std::sqrt(t / next);
      up.beta[j] = up.p[j] / next;
      t = next;
    }
    if (!std::isfinite(t)) return false;
    updates_.push_back(std::move(up));
  }
  return !lp.maxmin() || FactorBorder(lp, w, [this](const VectorXd& b) { return Forward(b); }, &border_, &corner_);
}

VectorXd ProductNormal::Solve(const VectorXd& v) const {
  return SolveBordered(
      *lp_, v, border_, corner_, [this](const VectorXd& x) { return Forward(x); },
      [this](VectorXd y) { return Backward(std::move(y)); });
}

namespace {

// The capacity updates' solves (ProductNormal::Forward, Backward) for U updates, U known at compile
// time for 1-4 GPU types so that the running sums live in registers (the sweeps are chains of
// dependent multiply-adds, and a sum kept in memory adds a store and a load to each link); U = 0:
// `num` updates, the sums in memory.
template <int U>
class RunningSums {
 public:
  explicit RunningSums(size_t num) : any_(U == 0 ? num : 0, 0.0) {}
  size_t size() const { return U > 0 ? U : any_.size(); }
  double& operator[](size_t k) {
    if constexpr (U > 0) {
      return fixed_[k];
    } else {
      return any_[k];
    }
  }

 private:
  std::array<double, U> fixed_{};
  std::vector<double> any_;
};

template <int U, typename Update>
void UpdatesForward(const Update* up, size_t num, double* y, long n) {
  RunningSums<U> sums(num);
  const size_t count = sums.size();
  for (long i = 0; i < n; ++i) {
    double yi = y[i];
    for (size_t k = 0; k < count; ++k) {
      const double t = yi - up[k].p[i] * sums[k];
      sums[k] += up[k].beta[i] * t;
      yi = t * up[k].inv_root_d[i];
    }
    y[i] = yi;
  }
}

template <int U, typename Update>
void UpdatesBackward(const Update* up, size_t num, double* y, long n) {
  RunningSums<U> sums(num);
  const size_t count = sums.size();
  for (long j = n - 1; j >= 0; --j) {
    double yj = y[j];
    for (size_t k = count; k-- > 0;) {
      const double xj = yj * up[k].inv_root_d[j] - up[k].beta[j] * sums[k];
      sums[k] += up[k].p[j] * xj;
      yj = xj;
    }
    y[j] = yj;
  }
}

// The per-job blocks' solves (L_B y = v, then L_B' x = y) for KC GPU types, known at compile time
// for 1-4 (the loops unrolled); KC = 0: `types`.
template <int KC>
void BlocksForward(long types, const double* blocks, const double* inv_diag, const double* v, double* y, long nx) {
  const long K = KC > 0 ? KC : types;
  for (long b = 0; b < nx; b += K) {
    const double* l = blocks + b * K;  // job b / K's block, column-major
    for (long i = 0; i < K; ++i) {
      double sum = v[b + i];
      for (long j = 0; j < i; ++j) sum -= l[i + j * K] * y[b + j];
      y[b + i] = sum * inv_diag[b + i];
    }
  }
}

template <int KC>
void BlocksBackward(long types, const double* blocks, const double* inv_diag, double* y, long nx) {
  const long K = KC > 0 ? KC : types;
  for (long b = 0; b < nx; b += K) {
    const double* l = blocks + b * K;
    for (long i = K - 1; i >= 0; --i) {
      double sum = y[b + i];
      for (long j = i + 1; j < K; ++j) sum -= l[j + i * K] * y[b + j];
      y[b + i] = sum * inv_diag[b + i];
    }
  }
}

// Calls f(std::integral_constant<int, N>) with N = n for n in 1..4, else N = 0 (any).
template <typename F>
void WithSmallCount(size_t n, F&& f) {
  switch (n) {
    case 1: f(std::integral_constant<int, 1>()); break;
    case 2: f(std::integral_constant<int, 2>()); break;
    case 3: f(std::integral_constant<int, 3>()); break;
    case 4: f(std::integral_constant<int, 4>()); break;
    default: f(std::integral_constant<int, 0>());
  }
}

}  // namespace

// The updates in one sweep: update k meets entry i after update k-1 has, each with its own running
// sum (the arithmetic of one sweep per update, while the updates' dependency chains overlap in the
// processor). Divisions are multiplications by the reciprocals kept in the factor (a solve's
// divisions were half its time; the refinement absorbs the extra rounding).
VectorXd ProductNormal::Forward(const VectorXd& v) const {
  const long K = lp_->types(), nx = v.size();
  VectorXd y(nx);
  WithSmallCount(static_cast<size_t>(K), [&](auto kc) {
    BlocksForward<decltype(kc)::value>(K, blocks_.data(), inv_diag_.data(), v.data(), y.data(), nx);
  });
  WithSmallCount(updates_.size(), [&](auto u) {
    UpdatesForward<decltype(u)::value>(updates_.data(), updates_.size(), y.data(), nx);
  });
  return y;
}

VectorXd ProductNormal::Backward(VectorXd y) const {
  const long K = lp_->types(), nx = y.size();
  WithSmallCount(updates_.size(), [&](auto u) {
    UpdatesBackward<decltype(u)::value>(updates_.data(), updates_.size(), y.data(), nx);
  });
  WithSmallCount(static_cast<size_t>(K), [&](auto kc) {
    BlocksBackward<decltype(kc)::value>(K, blocks_.data(), inv_diag_.data(), y.data(), nx);
  });
  return y;
}

class Kkt::Impl {
 public:
  Impl(bool ldl, NormalFactor factor) : ldl_(ldl), direct_(factor == NormalFactor::kDense) {}

  bool Factor(const ShareLp& lp, const VectorXd& d) {
    lp_ = &lp;
    d_ = d;
    if (ldl_) return FactorWhole();
    w_ = d.array().square().inverse().matrix();
    dense_ready_ = false;
    if (direct_) return Dense();
    product_ok_ = product_.Factor(lp, w_);
    return product_ok_ || Dense();
  }
  void Solve(VectorXd* x, VectorXd* z) {
    if (ldl_) {
      const long n = lp_->n();
      VectorXd rhs(n + lp_->m());
      rhs << *x, z->cwiseQuotient(d_);
      const VectorXd u = sparse_.solve(rhs);
      *x = u.head(n);
      *z = u.tail(lp_->m());
      return;
    }
    const VectorXd rhs = *x + lp_->Gt(z->cwiseProduct(w_));
    VectorXd ux = direct_ ? dense_.Solve(rhs) : Iterative(rhs);
    *z = (lp_->G(ux) - *z).cwiseQuotient(d_);
    *x = std::move(ux);
  }

 private:
  // The product-form factor with refinement, else the dense one.
  VectorXd Iterative(const VectorXd& rhs) {
    if (product_ok_) return Refine(rhs, [this](const VectorXd& v) { return product_.Solve(v); });
    Dense();
    return Refine(rhs, [this](const VectorXd& v) { return dense_.Solve(v); });
  }

  // Solves and refines while the residual of the normal equations halves, to rounding level.
  template <typename SolveFn>
  VectorXd Refine(const VectorXd& rhs, SolveFn solve) {
    VectorXd u = solve(rhs);
    const double target = kRefineTarget * rhs.norm();
    double last = std::numeric_limits<double>::infinity();
    for (int i = 0; i < kMaxRefine; ++i) {
      const VectorXd r = rhs - lp_->Gt(lp_->G(u).cwiseProduct(w_));
      const double norm = r.norm();
      if (norm <= target || !(norm < 0.5 * last)) break;
      last = norm;
      u += solve(r);
    }
    return u;
  }

  // The whole KKT matrix [0, (W^-1 G)^T; W^-1 G, -I] by a sparse LU (COLAMD ordering, analysed
  // once per LP); false where it is singular (a zero pivot, as LAPACK's sytrf reports; an
  // ill-conditioned matrix is not singular: near an optimum the scaling spans 1e-9 to 1e9). Its
  // fill is small, where a dense LU cost (n + m)^3 a factor: the stand-in's "ldl" re-solves mostly
  // run all 100 iterations without converging, as cvxopt's do (water filling's levels; the
  // heterogeneity-blind finish-time fairness's bisection, 2.7x faster than the dense LU with the
  // same optima to 0.1%: docs/validation.md, "gavel-makespan-agnostic and gavel-ftf-agnostic").
  bool FactorWhole() {
    const long n = lp_->n(), m = lp_->m();
    if (pattern_lp_ != lp_) {  // G's entries, once per LP (only the scaling changes between factors)
      g_entries_.clear();
      VectorXd e = VectorXd::Zero(n);
      for (long j = 0; j < n; ++j) {
        e[j] = 1;
        const VectorXd g = lp_->G(e);  // column j of G
        e[j] = 0;
        for (long i = 0; i < m; ++i) {
          if (g[i] != 0) g_entries_.emplace_back(static_cast<int>(i), static_cast<int>(j), g[i]);
        }
      }
    }
    std::vector<Eigen::Triplet<double>> entries;
    entries.reserve(2 * g_entries_.size() + static_cast<size_t>(m));
    for (const auto& t : g_entries_) {  // W^-1 G and its transpose
      const double v = t.value() / d_[t.row()];
      entries.emplace_back(n + t.row(), t.col(), v);
      entries.emplace_back(t.col(), n + t.row(), v);
    }
    for (long i = 0; i < m; ++i) entries.emplace_back(n + i, n + i, -1.0);
    Eigen::SparseMatrix<double> k(n + m, n + m);
    k.setFromTriplets(entries.begin(), entries.end());
    k.makeCompressed();
    if (pattern_lp_ != lp_) {
      sparse_.analyzePattern(k);
      pattern_lp_ = lp_;
    }
    sparse_.factorize(k);
    return sparse_.info() == Eigen::Success;
  }

  // Factors the dense normal matrix once per scaling; false if it is not positive definite.
  bool Dense() {
    if (!dense_ready_) {
      dense_ok_ = dense_.Factor(*lp_, w_);
      dense_ready_ = true;
    }
    return dense_ok_;
  }

  bool ldl_ = false;
  Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> sparse_;
  const ShareLp* pattern_lp_ = nullptr;          // the LP whose pattern sparse_ has analysed
  std::vector<Eigen::Triplet<double>> g_entries_;  // its G, entry by entry
  const ShareLp* lp_ = nullptr;
  VectorXd d_, w_;
  ProductNormal product_;
  DenseNormal dense_;
  bool direct_ = false;  // NormalFactor::kDense
  bool product_ok_ = false;
  bool dense_ready_ = false;
  bool dense_ok_ = false;
};

Kkt::Kkt(bool ldl, NormalFactor factor) : impl_(std::make_unique<Impl>(ldl, factor)) {}
Kkt::~Kkt() = default;
bool Kkt::Factor(const ShareLp& lp, const VectorXd& d) { return impl_->Factor(lp, d); }
void Kkt::Solve(VectorXd* x, VectorXd* z) { impl_->Solve(x, z); }

}  // namespace hetsched::gavel::cvxopt_internal
