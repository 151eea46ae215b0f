#include "hetsched/policies/gavel_cvxopt.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace hetsched::gavel {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// cvxopt's conelp constants (coneprog.py: STEP, EXPON, maxiters) and the stand-in's options
// (abstol = reltol = feastol = 1e-8, refinement = 1).
constexpr double kStep = 0.99;
constexpr int kMaxIters = 100;
constexpr double kAbsTol = 1e-8;
constexpr double kRelTol = 1e-8;
constexpr double kFeasTol = 1e-8;
constexpr int kMaxRefine = 30;
// Up to this many variables (jobs x types + 1) the KKT systems are solved as cvxopt solves them,
// by a dense Cholesky factor (32 MiB at the limit); above it by the structured solver (Kkt).
constexpr long kDirectMaxVars = 2048;
constexpr double kRefineTarget = 1e-13;  // residual of the normal equations, relative
// The stand-in's re-solve with kktsolver="ldl" factors the whole KKT matrix (variables + rows);
// up to this size it is re-solved so here (a dense LU: 8 MiB and ~0.7 GFLOP a factor at the
// limit); above it the caller keeps its own answer.
constexpr long kLdlMaxSize = 1024;

// min c'u s.t. G u <= h for a CentreProblem with every class expanded into its jobs. Variables:
// x[r][k] at r * K + k, then (kMaxMin) the epigraph variable z. Rows: capacity k, job r,
// epigraph (z - a_r.x_r <= 0) or floor (-a_r.x_r <= -floor_r) r, then -x[r][k] <= 0.
class ShareLp {
 public:
  explicit ShareLp(const CentreProblem& p) : types_(static_cast<long>(p.capacity.size())), maxmin_(p.mode == CentreProblem::Mode::kMaxMin) {
    for (size_t r = 0; r < p.a.size(); ++r) {
      const long copies = std::lround(p.count[r]);
      for (long c = 0; c < copies; ++c) {
        source_.push_back(static_cast<long>(r));
        gpus_.push_back(p.gpus[r]);
        a_.push_back(VectorXd::Zero(types_));
        for (long k = 0; k < types_ && k < static_cast<long>(p.a[r].size()); ++k) a_.back()[k] = p.a[r][static_cast<size_t>(k)];
      }
    }
    rows_ = static_cast<long>(a_.size());
    c_ = VectorXd::Zero(n());
    if (maxmin_) c_[n() - 1] = -1;
    h_ = VectorXd::Zero(m());
    for (long k = 0; k < types_; ++k) h_[k] = p.capacity[static_cast<size_t>(k)];
    for (long r = 0; r < rows_; ++r) {
      h_[Job(r)] = 1;
      h_[Epi(r)] = maxmin_ ? 0.0 : -p.floor[static_cast<size_t>(source(r))];
    }
  }

  long rows() const { return rows_; }
  long types() const { return types_; }
  bool maxmin() const { return maxmin_; }
  long n() const { return rows_ * types_ + (maxmin_ ? 1 : 0); }
  long m() const { return types_ + 2 * rows_ + rows_ * types_; }
  long X(long r, long k) const { return r * types_ + k; }
  long Z() const { return rows_ * types_; }
  long Job(long r) const { return types_ + r; }
  long Epi(long r) const { return types_ + rows_ + r; }
  long Nonneg(long r, long k) const { return types_ + 2 * rows_ + r * types_ + k; }
  double gpus(long r) const { return gpus_[static_cast<size_t>(r)]; }
  const VectorXd& a(long r) const { return a_[static_cast<size_t>(r)]; }
  long source(long r) const { return source_[static_cast<size_t>(r)]; }
  const VectorXd& c() const { return c_; }
  const VectorXd& h() const { return h_; }

  VectorXd G(const VectorXd& u) const {
    VectorXd out = VectorXd::Zero(m());
    const double z = maxmin_ ? u[Z()] : 0.0;
    for (long r = 0; r < rows_; ++r) {
      const auto xr = u.segment(X(r, 0), types_);
      out.head(types_) += gpus(r) * xr;
      out[Job(r)] = xr.sum();
      out[Epi(r)] = z - a(r).dot(xr);
      out.segment(Nonneg(r, 0), types_) = -xr;
    }
    return out;
  }

  VectorXd Gt(const VectorXd& v) const {
    VectorXd out(n());
    const auto cap = v.head(types_);
    for (long r = 0; r < rows_; ++r) {
      out.segment(X(r, 0), types_) =
          gpus(r) * cap + VectorXd::Constant(types_, v[Job(r)]) - v[Epi(r)] * a(r) - v.segment(Nonneg(r, 0), types_);
    }
    if (maxmin_) out[Z()] = v.segment(Epi(0), rows_).sum();
    return out;
  }

 private:
  long types_;
  bool maxmin_;
  long rows_ = 0;
  std::vector<long> source_;
  std::vector<double> gpus_;
  std::vector<VectorXd> a_;
  VectorXd c_, h_;
};

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
      MatrixXd b = w[lp.Job(r)] * MatrixXd::Ones(K, K) + w[lp.Epi(r)] * a * a.transpose();
      for (long k = 0; k < K; ++k) b(k, k) += w[lp.Nonneg(r, k)];
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

// cvxopt's kktsolver for W = diag(d): solves [0 G'; G -W'W] [ux; uz] = [bx; bz] and returns ux
// and W uz (the scaled z, cvxopt's convention). Up to kDirectMaxVars variables as cvxopt's chol2
// does: one Cholesky factor of the normal matrix per scaling and plain triangular solves (no
// refinement of the normal equations; f6's refinement step is cvxopt's). Above that, where the
// dense factor's memory grows (n^2 doubles), by conjugate gradients preconditioned by the
// structured solver, and by the dense factor where those do not converge.
class Kkt {
 public:
  // ldl: as cvxopt's kktsolver="ldl" (the stand-in's re-solve where the default stops without an
  // answer): the whole scaled KKT matrix [0 G'W^-1; W^-1 G -I] factored at once (here by LU with
  // partial pivoting, where cvxopt uses LAPACK's symmetric indefinite sytrf), not the normal
  // equations, whose conditioning is the square of it.
  explicit Kkt(bool ldl = false) : ldl_(ldl) {}

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
      const VectorXd u = whole_.solve(rhs);
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

double MaxStep(const VectorXd& v) { return -v.minCoeff(); }  // min {t : v + t e >= 0}

// cvxopt's duality-gap test: absolute, or relative to the primal cost when it is negative, else to
// the dual cost when that is positive.
bool GapClosed(double gap, double pcost, double dcost) {
  const double relgap = pcost < 0 ? gap / -pcost : dcost > 0 ? gap / dcost : -1;
  return gap <= kAbsTol || (relgap >= 0 && relgap <= kRelTol);
}

// The shares of x / tau, clipped to [0, 1] as Gavel's policies clip them; the first job of each
// class stands for it.
Result<CentreResult> Answer(const ShareLp& lp, const VectorXd& x, double tau, CentreResult* out) {
  for (long r = 0; r < lp.rows(); ++r) {
    if (r > 0 && lp.source(r) == lp.source(r - 1)) continue;
    for (long k = 0; k < lp.types(); ++k) {
      const double v = x[lp.X(r, k)] / tau;
      if (!std::isfinite(v)) return Status::Internal("cvxopt shares: numerical failure");
      out->share[static_cast<size_t>(lp.source(r))][static_cast<size_t>(k)] = std::clamp(v, 0.0, 1.0);
    }
  }
  out->z = lp.maxmin() ? x[lp.Z()] / tau : 0.0;
  return std::move(*out);
}

// cvxopt's conelp on `lp` with the default KKT solver (chol2) or kktsolver="ldl". *unknown is
// set where cvxopt's status would be "unknown": no convergence in maxiters, or a KKT matrix its
// factorisation finds singular.
Result<CentreResult> Conelp(const ShareLp& lp, bool ldl, CentreResult out, bool* unknown) {
  *unknown = false;
  const long n = lp.n(), m = lp.m();
  const VectorXd& c = lp.c();
  const VectorXd& h = lp.h();
  const double resx0 = std::max(1.0, c.norm());
  const double resz0 = std::max(1.0, h.norm());

  // The start: with W = I, x0 = argmin ||G x - h|| (s = h - G x0), z0 = G (G'G)^-1 (-c).
  Kkt kkt(ldl);
  if (!kkt.Factor(lp, VectorXd::Ones(m))) return Status::Internal("cvxopt shares: rank(G) < n");
  VectorXd x = VectorXd::Zero(n), s = h;
  kkt.Solve(&x, &s);
  s = -s;
  VectorXd dx = -c, z = VectorXd::Zero(m);
  kkt.Solve(&dx, &z);
  double ts = MaxStep(s), tz = MaxStep(z);
  const double nrms = s.norm(), nrmz = z.norm();
  // The least-squares start may already be optimal (a feasibility LP, c = 0, whose start is
  // strictly inside): cvxopt returns it as it is.
  if (ts <= 0 && tz <= 0 && GapClosed(s.dot(z), c.dot(x), -h.dot(z))) return Answer(lp, x, 1.0, &out);
  if (ts >= -1e-8 * std::max(nrms, 1.0)) s.array() += 1 + ts;
  if (tz >= -1e-8 * std::max(nrmz, 1.0)) z.array() += 1 + tz;
  double tau = 1, kappa = 1;
  double gap = s.dot(z);

  VectorXd d, lmbda(m);  // lmbda: the scaled point, its last entry sqrt(tau kappa) in lmbda_k
  double lmbda_k = 0, dg = 0, dgi = 0;
  VectorXd x1, z1, th;
  for (int iters = 0; iters <= kMaxIters; ++iters) {
    const VectorXd hrx = -lp.Gt(z);
    const double hresx = hrx.norm();
    const VectorXd rx = hrx - tau * c;
    const double resx = rx.norm() / tau;
    const VectorXd hrz = lp.G(x) + s;
    const double hresz = hrz.norm();
    const VectorXd rz = hrz - tau * h;
    const double resz = rz.norm() / tau;
    const double cx = c.dot(x), hz = h.dot(z);
    const double rt = kappa + cx + hz;
    const double pres = resz / resz0, dres = resx / resx0;
    out.newton_steps = iters;
    if (pres <= kFeasTol && dres <= kFeasTol && GapClosed(gap, cx / tau, -hz / tau)) return Answer(lp, x, tau, &out);
    if (iters == kMaxIters) break;
    if (hz < 0 && hresx / resx0 / -hz <= kFeasTol) return Status::Infeasible("cvxopt shares: primal infeasible");
    if (cx < 0 && hresz / resz0 / -cx <= kFeasTol) return Status::Internal("cvxopt shares: dual infeasible");

    if (iters == 0) {
      d = (s.array() / z.array()).sqrt().matrix();
      lmbda = (s.array() * z.array()).sqrt().matrix();
      dg = std::sqrt(kappa / tau);
      dgi = std::sqrt(tau / kappa);
      lmbda_k = std::sqrt(tau * kappa);
    }
    const VectorXd lmbdasq = lmbda.array().square().matrix();
    const double lmbdasq_k = lmbda_k * lmbda_k;
    if (!kkt.Factor(lp, d)) {
      *unknown = true;
      return Status::Internal("cvxopt shares: singular KKT system");
    }
    x1 = -c;
    z1 = h;
    kkt.Solve(&x1, &z1);
    x1 *= dgi;
    z1 *= dgi;
    th = h.cwiseQuotient(d);
    const double z1sq = 1.0 + z1.squaredNorm();

    // f6 without refinement: the Newton system of the embedding, solved in place.
    auto f6_no_ir = [&](VectorXd& ux, VectorXd& uz, double& utau, VectorXd& us, double& ukappa) {
      us = -us.cwiseQuotient(lmbda);
      uz = -(uz + d.cwiseProduct(us));
      kkt.Solve(&ux, &uz);
      ukappa = -ukappa / lmbda_k;
      utau += ukappa / dgi;
      utau = dgi * (utau + c.dot(ux) + th.dot(uz)) / z1sq;
      ux += utau * x1;
      uz += utau * z1;
      us -= uz;
      ukappa -= utau;
    };
    // res: v := v + K(u) in cvxopt's sign convention, for one step of iterative refinement.
    auto res = [&](const VectorXd& ux, const VectorXd& uz, double utau, const VectorXd& us, double ukappa, VectorXd& vx,
                   VectorXd& vz, double& vtau, VectorXd& vs, double& vkappa) {
      const VectorXd wz3 = uz.cwiseQuotient(d);
      vx += -lp.Gt(wz3) - (utau / dg) * c;
      vz += lp.G(ux) - (utau / dg) * h + d.cwiseProduct(us);
      vtau += dg * ukappa + c.dot(ux) + h.dot(wz3);
      vs += (us + uz).cwiseProduct(lmbda);
      vkappa += lmbda_k * (utau + ukappa);
    };
    auto f6 = [&](VectorXd& ux, VectorXd& uz, double& utau, VectorXd& us, double& ukappa) {
      const VectorXd wx = ux, wz = uz, ws = us;
      const double wtau = utau, wkappa = ukappa;
      f6_no_ir(ux, uz, utau, us, ukappa);
      VectorXd wx2 = wx, wz2 = wz, ws2 = ws;
      double wtau2 = wtau, wkappa2 = wkappa;
      res(ux, uz, utau, us, ukappa, wx2, wz2, wtau2, ws2, wkappa2);
      f6_no_ir(wx2, wz2, wtau2, ws2, wkappa2);
      ux += wx2;
      uz += wz2;
      utau += wtau2;
      us += ws2;
      ukappa += wkappa2;
    };

    const double mu = (lmbda.squaredNorm() + lmbda_k * lmbda_k) / static_cast<double>(1 + m);
    double sigma = 0, step = 1, tt = 0, tk = 0;
    VectorXd ds, dz, ws3;
    double dtau = 0, dkappa = 0, wkappa3 = 0;
    for (int i = 0; i < 2; ++i) {
      ds = lmbdasq;
      dkappa = lmbdasq_k;
      if (i == 1) {
        ds += ws3;
        ds.array() -= sigma * mu;
        dkappa += wkappa3 - sigma * mu;
      }
      dx = (1 - sigma) * rx;
      dz = (1 - sigma) * rz;
      dtau = (1 - sigma) * rt;
      f6(dx, dz, dtau, ds, dkappa);
      if (i == 0) {
        ws3 = ds.cwiseProduct(dz);
        wkappa3 = dtau * dkappa;
      }
      ds = ds.cwiseQuotient(lmbda);
      dz = dz.cwiseQuotient(lmbda);
      ts = MaxStep(ds);
      tz = MaxStep(dz);
      tt = -dtau / lmbda_k;
      tk = -dkappa / lmbda_k;
      const double t = std::max({0.0, ts, tz, tt, tk});
      step = t == 0 ? 1.0 : std::min(1.0, (i == 0 ? 1.0 : kStep) / t);
      if (i == 0) sigma = std::pow(1 - step, 3);
    }
    x += step * dx;
    // The new iterates in the current scaling, then the scaling updated to them.
    ds = ((step * ds).array() + 1).matrix().cwiseProduct(lmbda);
    dz = ((step * dz).array() + 1).matrix().cwiseProduct(lmbda);
    const VectorXd ss = ds.array().sqrt().matrix(), zs = dz.array().sqrt().matrix();
    d = d.cwiseProduct(ss).cwiseQuotient(zs);
    lmbda = ss.cwiseProduct(zs);
    dg *= std::sqrt(1 - step * tk) / std::sqrt(1 - step * tt);
    dgi = 1 / dg;
    lmbda_k *= std::sqrt(1 - step * tt) * std::sqrt(1 - step * tk);
    s = d.cwiseProduct(lmbda);
    z = lmbda.cwiseQuotient(d);
    kappa = lmbda_k / dgi;
    tau = lmbda_k * dgi;
    gap = (lmbda.norm() / tau) * (lmbda.norm() / tau);
  }
  *unknown = true;
  return Status::Internal("cvxopt shares: no convergence in 100 iterations");
}

}  // namespace

Result<CentreResult> CvxoptShares(const CentreProblem& p, CvxoptKkt kkt) {
  const size_t types = p.capacity.size();
  CentreResult out;
  out.share.assign(p.a.size(), std::vector<double>(types, 0.0));
  if (p.a.empty() || types == 0) return out;
  for (double c : p.count) {
    if (!(c >= 1) || c != std::floor(c)) return Status::InvalidArgument("cvxopt shares: a class count is not a whole number");
  }
  const ShareLp lp(p);
  bool unknown = false;
  if (kkt == CvxoptKkt::kLdl) return Conelp(lp, true, out, &unknown);
  Result<CentreResult> first = Conelp(lp, false, out, &unknown);
  // gavel_cvxpy_shim.py, _cvxopt_lp: status "unknown" is solved again with kktsolver="ldl".
  if (first.ok() || !unknown || lp.n() + lp.m() > kLdlMaxSize) return first;
  return Conelp(lp, true, out, &unknown);
}

}  // namespace hetsched::gavel
