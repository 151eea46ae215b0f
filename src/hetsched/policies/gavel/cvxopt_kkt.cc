// The KKT systems of cvxopt's conelp on Gavel's share LPs (gavel_cvxopt_kkt.h): by the LP's
// structure, by a dense Cholesky factor of the normal matrix as cvxopt's chol2, or by the whole
// KKT matrix as its kktsolver="ldl".
#include "hetsched/policies/gavel/cvxopt_kkt.h"

#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

namespace hetsched::gavel::cvxopt_internal {
namespace {

constexpr int kMaxRefine = 30;
// Up to this many variables (jobs x types + 1) the KKT systems are solved as cvxopt solves them,
// by a dense Cholesky factor (32 MiB at the limit); above it by the structured solver (Kkt).
constexpr long kDirectMaxVars = 2048;
constexpr double kRefineTarget = 1e-13;  // residual of the normal equations, relative


// Solves G' diag(w) G u = v by the LP's structure: per job a K x K block (its job, epigraph and
// x >= 0 rows), the capacity rows as a rank-K term by Woodbury, and the epigraph variable by one
// more Schur step. O(rows K^3), but not backward stable near an optimum (Woodbury cancels): the
// KKT solver uses it as the preconditioner of conjugate gradients.
class NormalSolver {
 public:
  // false where the epigraph variable's pivot is not positive (the KKT solver then factors
  // densely).
  bool Factor(const ShareLp& lp, const VectorXd& w) {
    lp_ = &lp;
    const long K = lp.types(), R = lp.rows();
    blocks_.clear();
    blocks_.reserve(static_cast<size_t>(R));
    zr_.assign(static_cast<size_t>(R), MatrixXd());
    MatrixXd schur = MatrixXd::Zero(K, K);
    for (long k = 0; k < K; ++k) schur(k, k) = 1 / w[k];
    for (long r = 0; r < R; ++r) {
      const VectorXd& a = lp.a(r);
      MatrixXd b = w[lp.Job(r)] * MatrixXd::Ones(K, K) + lp.EpiWeight(w, r) * a * a.transpose();
      for (long k = 0; k < K; ++k) b(k, k) += w[lp.Nonneg(r, k)];
      if (lp.lower_rows()) b += w[lp.Lower(r)] * lp.b(r) * lp.b(r).transpose();
      blocks_.emplace_back(b);
      zr_[static_cast<size_t>(r)] = blocks_.back().solve(MatrixXd::Identity(K, K) * lp.gpus(r));
      schur += lp.gpus(r) * zr_[static_cast<size_t>(r)];
    }
    schur_.compute(schur);
    if (lp.maxmin()) {
      coupling_ = VectorXd::Zero(lp.n() - 1);
      double zz = 0;
      for (long r = 0; r < R; ++r) {
        coupling_.segment(lp.X(r, 0), K) = -w[lp.Epi(r)] * lp.a(r);
        zz += w[lp.Epi(r)];
      }
      q_ = SolveX(coupling_);
      pivot_ = zz - coupling_.dot(q_);
      if (!(pivot_ > 0)) return false;
    }
    return true;
  }

  VectorXd Solve(const VectorXd& v) const {
    if (!lp_->maxmin()) return SolveX(v);
    const long nx = lp_->n() - 1;
    const VectorXd p = SolveX(v.head(nx));
    VectorXd out(lp_->n());
    const double uz = (v[nx] - coupling_.dot(p)) / pivot_;
    out.head(nx) = p - q_ * uz;
    out[nx] = uz;
    return out;
  }

 private:
  // (B + U E U')^-1 v over the share variables.
  VectorXd SolveX(const VectorXd& v) const {
    const long K = lp_->types(), R = lp_->rows();
    VectorXd y(R * K);
    VectorXd u = VectorXd::Zero(K);
    for (long r = 0; r < R; ++r) {
      y.segment(r * K, K) = blocks_[static_cast<size_t>(r)].solve(v.segment(r * K, K));
      u += lp_->gpus(r) * y.segment(r * K, K);
    }
    const VectorXd cc = schur_.solve(u);
    for (long r = 0; r < R; ++r) y.segment(r * K, K) -= zr_[static_cast<size_t>(r)] * cc;
    return y;
  }

  const ShareLp* lp_ = nullptr;
  std::vector<Eigen::LDLT<MatrixXd>> blocks_;
  std::vector<MatrixXd> zr_;
  Eigen::LDLT<MatrixXd> schur_;
  VectorXd coupling_, q_;
  double pivot_ = 1;
};

// The Cholesky factor of G' diag(w) G, built from the diagonal of the x >= 0 rows by rank-one
// updates (LINPACK's dchud: backward stable, as a Cholesky factor of the whole matrix is), then
// bordered by the epigraph variable: the per-job rows update within their block, each capacity
// row fills the factor in O(n^2), so a factor costs O(types n^2), not the O(n^3) of factoring the
// dense matrix, which cvxopt's chol2 factors (its fill is complete). Used where the structured
// solve does not reach full accuracy (near the end, where the weights span 1e-9 to 1e9 and more).
class DenseNormal {
 public:
  bool Factor(const ShareLp& lp, const VectorXd& w) {
    const long K = lp.types(), R = lp.rows(), nx = R * K;
    lp_ = &lp;
    l_ = MatrixXd::Zero(nx, nx);
    for (long r = 0; r < R; ++r) {
      for (long k = 0; k < K; ++k) l_(lp.X(r, k), lp.X(r, k)) = std::sqrt(w[lp.Nonneg(r, k)]);
    }
    VectorXd u(nx);
    for (long r = 0; r < R; ++r) {  // within job r's block
      const long b = lp.X(r, 0);
      u.segment(b, K).setConstant(std::sqrt(w[lp.Job(r)]));
      Update(&u, b, b + K);
      if (lp.lower_rows()) {
        u.segment(b, K) = std::sqrt(w[lp.Lower(r)]) * lp.b(r);
        Update(&u, b, b + K);
      }
      if (!lp.epi()) continue;
      u.segment(b, K) = std::sqrt(w[lp.Epi(r)]) * lp.a(r);
      Update(&u, b, b + K);
    }
    for (long k = 0; k < K; ++k) {  // capacity rows: dense from their first entry on
      for (long r = 0; r < R; ++r) u[lp.X(r, k)] = std::sqrt(w[k]) * lp.gpus(r);
      Update(&u, k, nx);
    }
    if (!l_.allFinite()) return false;
    if (lp.maxmin()) {  // the border: N_xz = -w_epi a, N_zz = sum w_epi
      VectorXd b(nx);
      double zz = 0;
      for (long r = 0; r < R; ++r) {
        b.segment(lp.X(r, 0), K) = -w[lp.Epi(r)] * lp.a(r);
        zz += w[lp.Epi(r)];
      }
      border_ = l_.triangularView<Eigen::Lower>().solve(b);
      const double pivot = zz - border_.squaredNorm();
      if (!(pivot > 0)) return false;  // not positive definite to rounding (cvxopt's chol2 fails too)
      corner_ = std::sqrt(pivot);
    }
    return true;
  }

  VectorXd Solve(const VectorXd& v) const {
    const long nx = l_.rows();
    VectorXd y = l_.triangularView<Eigen::Lower>().solve(v.head(nx));
    if (!lp_->maxmin()) return l_.transpose().triangularView<Eigen::Upper>().solve(y);
    const double yz = (v[nx] - border_.dot(y)) / corner_;
    const double uz = yz / corner_;
    VectorXd out(nx + 1);
    out.head(nx) = l_.transpose().triangularView<Eigen::Upper>().solve(y - border_ * uz);
    out[nx] = uz;
    return out;
  }

 private:
  // L L' += u u' for u zero outside [from, to); u is consumed.
  void Update(VectorXd* u, long from, long to) {
    VectorXd& x = *u;
    for (long k = from; k < to; ++k) {
      const double lkk = l_(k, k);
      const double r = std::hypot(lkk, x[k]);
      const double c = r / lkk, s = x[k] / lkk;
      l_(k, k) = r;
      for (long i = k + 1; i < to; ++i) {
        l_(i, k) = (l_(i, k) + s * x[i]) / c;
        x[i] = c * x[i] - s * l_(i, k);
      }
    }
    x.segment(from, to - from).setZero();
  }

  const ShareLp* lp_ = nullptr;
  MatrixXd l_;
  VectorXd border_;
  double corner_ = 1;
};

}  // namespace

class Kkt::Impl {
 public:
  explicit Impl(bool ldl) : ldl_(ldl) {}

  bool Factor(const ShareLp& lp, const VectorXd& d) {
    lp_ = &lp;
    d_ = d;
    if (ldl_) return FactorWhole();
    w_ = d.array().square().inverse().matrix();
    dense_ready_ = false;
    direct_ = lp.n() <= kDirectMaxVars;
    if (direct_) return Dense();
    structured_ = normal_.Factor(lp, w_);
    return structured_ || Dense();
  }
  void Solve(VectorXd* x, VectorXd* z) {
    if (ldl_) {
      const long n = lp_->n();
      VectorXd rhs(n + lp_->m());
      rhs << *x, z->cwiseQuotient(d_);
      const VectorXd u = sparse_whole_ ? VectorXd(sparse_.solve(rhs)) : VectorXd(whole_.solve(rhs));
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
  // Above kDirectMaxVars: CG on the structured solve, else the dense factor with refinement.
  VectorXd Iterative(const VectorXd& rhs) {
    if (structured_) {
      VectorXd u = Conjugate(rhs);
      if (converged_) return u;
    }
    Dense();
    return Refine(rhs, [this](const VectorXd& v) { return dense_.Solve(v); });
  }

  // Conjugate gradients on the normal equations, preconditioned by the structured solve. Near the
  // optimum that solve loses accuracy in the few directions the capacity and epigraph couplings
  // span (Woodbury's cancellation), so its error has rank of about types + 1 and CG removes it in
  // about that many steps, where plain refinement can diverge.
  VectorXd Conjugate(const VectorXd& rhs) {
    auto apply = [this](const VectorXd& v) { return lp_->Gt(lp_->G(v).cwiseProduct(w_)); };
    VectorXd u = normal_.Solve(rhs);
    VectorXd r = rhs - apply(u);
    const double target = kRefineTarget * rhs.norm();
    converged_ = false;
    VectorXd zv = normal_.Solve(r), p = zv;
    double rz = r.dot(zv);
    for (int i = 0; i < kMaxRefine; ++i) {
      if (r.norm() <= target) {
        converged_ = true;
        break;
      }
      const VectorXd ap = apply(p);
      const double pap = p.dot(ap);
      if (!(pap > 0) || !(rz > 0)) break;
      const double alpha = rz / pap;
      u += alpha * p;
      r = i % 8 == 7 ? rhs - apply(u) : VectorXd(r - alpha * ap);  // the true residual now and then
      zv = normal_.Solve(r);
      const double rz_next = r.dot(zv);
      p = zv + (rz_next / rz) * p;
      rz = rz_next;
    }
    return u;
  }

  // Solves and refines while the residual of the normal equations halves; converged_ says
  // whether it reached rounding level.
  template <typename SolveFn>
  VectorXd Refine(const VectorXd& rhs, SolveFn solve) {
    VectorXd u = solve(rhs);
    const double target = kRefineTarget * rhs.norm();
    double last = std::numeric_limits<double>::infinity();
    converged_ = false;
    for (int i = 0; i < kMaxRefine; ++i) {
      const VectorXd r = rhs - lp_->Gt(lp_->G(u).cwiseProduct(w_));
      const double norm = r.norm();
      if (norm <= target) {
        converged_ = true;
        break;
      }
      if (!(norm < 0.5 * last)) break;
      last = norm;
      u += solve(r);
    }
    return u;
  }

  // The whole KKT matrix, its G block built column by column; false where it is singular.
  bool FactorWhole() {
    sparse_whole_ = lp_->lower_rows();
    if (sparse_whole_) return FactorWholeSparse();
    const long n = lp_->n(), m = lp_->m();
    MatrixXd k = MatrixXd::Zero(n + m, n + m);
    VectorXd e = VectorXd::Zero(n);
    for (long j = 0; j < n; ++j) {
      e[j] = 1;
      const VectorXd g = lp_->G(e).cwiseQuotient(d_);  // column j of W^-1 G
      e[j] = 0;
      k.block(n, j, m, 1) = g;
      k.block(j, n, 1, m) = g.transpose();
    }
    k.bottomRightCorner(m, m).diagonal().setConstant(-1);
    whole_.compute(k);
    // Singular where elimination meets a zero (or non-finite) pivot, as LAPACK's sytrf reports; an
    // ill-conditioned matrix is not singular (near an optimum the scaling spans 1e-9 to 1e9).
    const VectorXd pivots = whole_.matrixLU().diagonal();
    return pivots.allFinite() && (pivots.array() != 0).all();
  }

  // Water filling's LPs (ShareLp::lower_rows): the same matrix by a sparse LU (COLAMD ordering,
  // analysed once per LP; its fill is small, where the dense LU costs (n + m)^3 a factor: the
  // stand-in's "ldl" re-solves mostly run all 100 iterations without converging, as cvxopt's do).
  bool FactorWholeSparse() {
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
  Eigen::PartialPivLU<MatrixXd> whole_;
  bool sparse_whole_ = false;
  Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> sparse_;
  const ShareLp* pattern_lp_ = nullptr;          // the LP whose pattern sparse_ has analysed
  std::vector<Eigen::Triplet<double>> g_entries_;  // its G, entry by entry
  const ShareLp* lp_ = nullptr;
  VectorXd d_, w_;
  NormalSolver normal_;
  DenseNormal dense_;
  bool direct_ = false;
  bool structured_ = false;
  bool dense_ready_ = false;
  bool dense_ok_ = false;
  bool converged_ = false;
};

Kkt::Kkt(bool ldl) : impl_(std::make_unique<Impl>(ldl)) {}
Kkt::~Kkt() = default;
bool Kkt::Factor(const ShareLp& lp, const VectorXd& d) { return impl_->Factor(lp, d); }
void Kkt::Solve(VectorXd* x, VectorXd* z) { impl_->Solve(x, z); }

}  // namespace hetsched::gavel::cvxopt_internal
