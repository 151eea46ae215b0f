// Internal to policies/gavel_cvxopt*: the share LP in cvxopt's form (G u <= h) and the solver of
// its KKT systems, as cvxopt's kktsolver "chol2" (the default) or "ldl" solves them
// (gavel_cvxopt_kkt.cc; the interior-point method itself is in gavel_cvxopt.cc).
#pragma once

#include <cmath>
#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "hetsched/policies/gavel/centre.h"

namespace hetsched::gavel::cvxopt_internal {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// min c'u s.t. G u <= h for a CentreProblem with every class expanded into its jobs. Variables:
// x[r][k] at r * K + k, then (kMaxMin) the epigraph variable z. Rows: capacity k, job r,
// (water filling only, WaterLevelRows) lower bound -b_r.x_r <= -lower_r, epigraph
// (z - a_r.x_r <= epi_rhs_r, 0 without) or floor (-a_r.x_r <= -floor_r) r (none for kMaxSum,
// whose objective is -sum a_r.x_r), then -x[r][k] <= 0.
class ShareLp {
 public:
  // `level`: water filling's extra rows and epigraph constants (WaterLevelRows), or none.
  explicit ShareLp(const CentreProblem& p, const WaterLevelRows* level = nullptr)
      : types_(static_cast<long>(p.capacity.size())),
        maxmin_(p.mode == CentreProblem::Mode::kMaxMin),
        epi_(p.mode != CentreProblem::Mode::kMaxSum),
        lower_rows_(level != nullptr) {
    for (size_t r = 0; r < p.a.size(); ++r) {
      const long copies = std::lround(p.count[r]);
      for (long c = 0; c < copies; ++c) {
        source_.push_back(static_cast<long>(r));
        gpus_.push_back(p.gpus[r]);
        a_.push_back(VectorXd::Zero(types_));
        for (long k = 0; k < types_ && k < static_cast<long>(p.a[r].size()); ++k) a_.back()[k] = p.a[r][static_cast<size_t>(k)];
        if (lower_rows_) {
          b_.push_back(VectorXd::Zero(types_));
          const std::vector<double>& b = level->b[r];
          for (long k = 0; k < types_ && k < static_cast<long>(b.size()); ++k) b_.back()[k] = b[static_cast<size_t>(k)];
        }
      }
    }
    rows_ = static_cast<long>(a_.size());
    c_ = VectorXd::Zero(n());
    if (maxmin_) c_[n() - 1] = -1;
    if (!epi_) {
      for (long r = 0; r < rows_; ++r) c_.segment(X(r, 0), types_) = -a(r);
    }
    h_ = VectorXd::Zero(m());
    for (long k = 0; k < types_; ++k) h_[k] = p.capacity[static_cast<size_t>(k)];
    for (long r = 0; r < rows_; ++r) {
      h_[Job(r)] = 1;
      if (epi_) h_[Epi(r)] = maxmin_ ? 0.0 : -p.floor[static_cast<size_t>(source(r))];
      if (lower_rows_ && maxmin_) h_[Epi(r)] = level->epi_rhs[static_cast<size_t>(source(r))];
      if (lower_rows_) h_[Lower(r)] = -level->lower[static_cast<size_t>(source(r))];
    }
  }

  long rows() const { return rows_; }
  long types() const { return types_; }
  bool maxmin() const { return maxmin_; }
  // Whether each job has its epigraph or floor row (not for kMaxSum).
  bool epi() const { return epi_; }
  long n() const { return rows_ * types_ + (maxmin_ ? 1 : 0); }
  long m() const { return types_ + PerJobRows() * rows_ + rows_ * types_; }
  long X(long r, long k) const { return r * types_ + k; }
  long Z() const { return rows_ * types_; }
  long Job(long r) const { return types_ + r; }
  long Epi(long r) const { return types_ + (lower_rows_ ? 2 : 1) * rows_ + r; }
  long Nonneg(long r, long k) const { return types_ + PerJobRows() * rows_ + r * types_ + k; }
  // Water filling's lower-bound rows (WaterLevelRows): whether there are any, row r's index.
  bool lower_rows() const { return lower_rows_; }
  long Lower(long r) const { return types_ + rows_ + r; }
  const VectorXd& b(long r) const { return b_[static_cast<size_t>(r)]; }
  // The weight of job r's epigraph or floor row in `w` (0 where it has none).
  double EpiWeight(const VectorXd& w, long r) const { return epi_ ? w[Epi(r)] : 0.0; }
  double gpus(long r) const { return gpus_[static_cast<size_t>(r)]; }
  const VectorXd& a(long r) const { return a_[static_cast<size_t>(r)]; }
  long source(long r) const { return source_[static_cast<size_t>(r)]; }
  const VectorXd& c() const { return c_; }
  const VectorXd& h() const { return h_; }

  // G u and G' v, row by row in plain loops (each sum in index order): Eigen's expressions over
  // K-long segments cost more in set-up than in arithmetic here.
  VectorXd G(const VectorXd& u) const {
    VectorXd out = VectorXd::Zero(m());
    const double z = maxmin_ ? u[Z()] : 0.0;
    const long K = types_;
    for (long r = 0; r < rows_; ++r) {
      const double* xr = u.data() + X(r, 0);
      const double g = gpus(r);
      const double* ar = a(r).data();
      double sum = 0, ax = 0, bx = 0;
      for (long k = 0; k < K; ++k) {
        out[k] += g * xr[k];
        sum += xr[k];
        ax += ar[k] * xr[k];
        out[Nonneg(r, k)] = -xr[k];
      }
      out[Job(r)] = sum;
      if (epi_) out[Epi(r)] = z - ax;
      if (lower_rows_) {
        const double* br = b(r).data();
        for (long k = 0; k < K; ++k) bx += br[k] * xr[k];
        out[Lower(r)] = -bx;
      }
    }
    return out;
  }

  VectorXd Gt(const VectorXd& v) const {
    VectorXd out(n());
    const long K = types_;
    for (long r = 0; r < rows_; ++r) {
      double* xr = out.data() + X(r, 0);
      const double g = gpus(r), job = v[Job(r)], epi = epi_ ? v[Epi(r)] : 0.0;
      const double lower = lower_rows_ ? v[Lower(r)] : 0.0;
      const double* ar = a(r).data();
      const double* nonneg = v.data() + Nonneg(r, 0);
      for (long k = 0; k < K; ++k) {
        xr[k] = g * v[k] + job - epi * ar[k] - nonneg[k];
        if (lower_rows_) xr[k] -= lower * b(r)[k];
      }
    }
    if (maxmin_) {
      double sum = 0;
      for (long r = 0; r < rows_; ++r) sum += v[Epi(r)];
      out[Z()] = sum;
    }
    return out;
  }

 private:
  long PerJobRows() const { return 1 + (epi_ ? 1 : 0) + (lower_rows_ ? 1 : 0); }

  long types_;
  bool maxmin_;
  bool epi_;
  bool lower_rows_;
  long rows_ = 0;
  std::vector<long> source_;
  std::vector<double> gpus_;
  std::vector<VectorXd> a_;
  std::vector<VectorXd> b_;  // lower-bound rows' coefficients (lower_rows_)
  VectorXd c_, h_;
};


// The same factor in product form (Gill, Golub, Murray & Saunders 1974, "Methods for modifying
// matrix factorizations", method C1): the per-job blocks' K x K factors L_B (by the rotations
// above), then each capacity row's update L L' + u u' = L (I + p p') L' with p = L^-1 u, whose
// factor I + p p' = T D T' is kept as three vectors: T unit lower with T_ij = p_i beta_j (i > j),
// t_j = t_j-1 + p_j^2 (t_0 = 1), d_j = t_j / t_j-1, beta_j = p_j / t_j. Positive updates only, so
// the recurrence adds and never cancels (as stable as the rotations: the solves' backward error
// was the dense factor's to within a factor 2 on normal matrices of condition up to 1e17, checked
// in development). A factor costs O(n K^2) and a solve O(n K) where the explicit factor costs
// O(K n^2) and O(n^2): Kkt's default (NormalFactor; docs/gavel.md, "Interior point").
class ProductNormal {
 public:
  // Factors G' diag(w) G of `lp` (kept by reference); false where a factor is not finite or the
  // epigraph variable's pivot is not positive.
  bool Factor(const ShareLp& lp, const VectorXd& w);
  // (G' diag(w) G)^-1 v, unrefined.
  VectorXd Solve(const VectorXd& v) const;

 private:
  struct Update {
    VectorXd p, beta, inv_root_d;  // inv_root_d = d^-1/2
  };
  VectorXd Forward(const VectorXd& v) const;   // M^-1 v, M = L_B T_1 D_1^1/2 ... (the updates so far)
  VectorXd Backward(VectorXd y) const;         // M'^-1 y

  const ShareLp* lp_ = nullptr;
  std::vector<double> blocks_;  // each job's K x K block of the factor, column-major, job by job
  VectorXd inv_diag_;            // 1 / each block's diagonal, job by job
  std::vector<Update> updates_;
  VectorXd border_;
  double corner_ = 1;
};

// How Kkt factors the normal matrix G' W^-2 G. kProduct (the default since session 43): in product
// form (ProductNormal: O(n types^2) a scaling, O(n types) a solve), the normal equations refined to
// rounding level, and the explicit factor where the product form fails. kDense: the explicit dense
// factor at every size (DenseNormal: O(types n^2) and O(n^2), 32 MiB at 1,024 variables), unrefined,
// as cvxopt's chol2 solves (it factors the same matrix, which fills in completely); the default up
// to 1,024 variables before session 43, kept for tests and comparisons. The two differ by rounding
// only; on the validation cases the figures moved by at most 0.3%, no further from Gavel's
// (docs/gavel.md, "Interior point").
enum class NormalFactor { kProduct, kDense };

// cvxopt's kktsolver for W = diag(d): solves [0 G'; G -W'W] [ux; uz] = [bx; bz] and returns ux
// and W uz (the scaled z, cvxopt's convention), through one factor of the normal matrix per
// scaling (NormalFactor; f6's refinement step is cvxopt's).
class Kkt {
 public:
  // ldl: as cvxopt's kktsolver="ldl" (the stand-in's re-solve where the default stops without an
  // answer): the whole scaled KKT matrix [0 G'W^-1; W^-1 G -I] factored at once (here by LU with
  // partial pivoting, where cvxopt uses LAPACK's symmetric indefinite sytrf), not the normal
  // equations, whose conditioning is the square of it.
  explicit Kkt(bool ldl = false, NormalFactor factor = NormalFactor::kProduct);
  ~Kkt();
  Kkt(const Kkt&) = delete;
  Kkt& operator=(const Kkt&) = delete;
  // Factors for the scaling W = diag(d) of `lp` (kept by reference until the next Factor); false
  // where the factorisation fails (cvxopt: a singular KKT matrix).
  bool Factor(const ShareLp& lp, const VectorXd& d);
  // Solves [0 G'; G -W'W] [ux; uz] = [*x; *z] in place: *x = ux, *z = W uz.
  void Solve(VectorXd* x, VectorXd* z);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hetsched::gavel::cvxopt_internal
