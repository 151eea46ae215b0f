#include "hetsched/policies/gavel/centre.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

#include "hetsched/policies/gavel/cvxopt.h"

namespace hetsched::gavel {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr int kMaxNewtonSteps = 200;  // per centring
constexpr double kPathFactor = 10;    // t grows tenfold per outer step
constexpr double kCentred = 1e-10;    // lambda^2 / 2 at which a centring stops

// The log barrier of the share polytope, optionally with the epigraph variable z and the term
// -t z: F(x, z) = -t z - sum_r w_r (sum_k log x_rk + log s1_r + log s2_r) - sum_k log c_k, with
// s1_r = 1 - sum_k x_rk, s2_r = a_r.x_r - z (or - floor_r), c_k = W_k - sum_r w_r g_r x_rk.
class Barrier {
 public:
  Barrier(const CentreProblem& p, bool with_z, std::vector<std::vector<double>> a, std::vector<double> floor)
      : rows_(p.a.size()), types_(p.capacity.size()), with_z_(with_z), a_(std::move(a)), floor_(std::move(floor)) {
    w_.resize(rows_);
    wg_.resize(rows_);
    for (size_t r = 0; r < rows_; ++r) {
      w_[r] = p.count[r];
      wg_[r] = p.count[r] * p.gpus[r];
    }
    cap_.assign(p.capacity.begin(), p.capacity.end());
    weight_ = static_cast<double>(types_);
    for (size_t r = 0; r < rows_; ++r) weight_ += w_[r] * static_cast<double>(types_ + 2);
  }

  size_t rows() const { return rows_; }
  size_t types() const { return types_; }
  // The barrier's total weight: the duality gap of a point on the central path is weight / t.
  double weight() const { return weight_; }

  // Slacks of (x, z); false if any is not strictly positive.
  bool Slacks(const VectorXd& x, double z, VectorXd* s1, VectorXd* s2, VectorXd* c) const {
    s1->resize(static_cast<long>(rows_));
    s2->resize(static_cast<long>(rows_));
    c->resize(static_cast<long>(types_));
    for (size_t k = 0; k < types_; ++k) (*c)[static_cast<long>(k)] = cap_[k];
    for (size_t r = 0; r < rows_; ++r) {
      double sum = 0, dot = 0;
      for (size_t k = 0; k < types_; ++k) {
        const double v = x[Index(r, k)];
        if (!(v > 0)) return false;
        sum += v;
        dot += a_[r][k] * v;
        (*c)[static_cast<long>(k)] -= wg_[r] * v;
      }
      (*s1)[static_cast<long>(r)] = 1 - sum;
      (*s2)[static_cast<long>(r)] = dot - (with_z_ ? z : floor_[r]);
      if (!((*s1)[static_cast<long>(r)] > 0) || !((*s2)[static_cast<long>(r)] > 0)) return false;
    }
    for (size_t k = 0; k < types_; ++k) {
      if (!((*c)[static_cast<long>(k)] > 0)) return false;
    }
    return true;
  }

  // F at (x, z), +infinity outside the polytope.
  double Value(const VectorXd& x, double z, double t) const {
    VectorXd s1, s2, c;
    if (!Slacks(x, z, &s1, &s2, &c)) return std::numeric_limits<double>::infinity();
    double f = with_z_ ? -t * z : 0.0;
    for (size_t r = 0; r < rows_; ++r) {
      double logs = std::log(s1[static_cast<long>(r)]) + std::log(s2[static_cast<long>(r)]);
      for (size_t k = 0; k < types_; ++k) logs += std::log(x[Index(r, k)]);
      f -= w_[r] * logs;
    }
    for (size_t k = 0; k < types_; ++k) f -= std::log(c[static_cast<long>(k)]);
    return f;
  }

  // The Newton step (dx, dz) at a strictly feasible (x, z); returns lambda^2 = -grad.step.
  double NewtonStep(const VectorXd& x, double z, double t, VectorXd* dx, double* dz) const {
    VectorXd s1, s2, c;
    Slacks(x, z, &s1, &s2, &c);
    const long m = static_cast<long>(types_);
    VectorXd gx(x.size());
    double gz = with_z_ ? -t : 0.0;
    double hzz = 0;
    VectorXd bx(x.size());  // d2F / dx dz
    std::vector<Eigen::LLT<MatrixXd>> blocks;
    blocks.reserve(rows_);
    std::vector<MatrixXd> zr(rows_);  // B_r^-1 D_r, D_r = w_r g_r I
    MatrixXd s = MatrixXd::Zero(m, m);
    for (long k = 0; k < m; ++k) s(k, k) = c[k] * c[k];
    for (size_t r = 0; r < rows_; ++r) {
      const double w = w_[r], i1 = 1 / s1[static_cast<long>(r)], i2 = 1 / s2[static_cast<long>(r)];
      MatrixXd b(m, m);
      VectorXd a(m);
      for (long k = 0; k < m; ++k) a[k] = a_[r][static_cast<size_t>(k)];
      b = w * i1 * i1 * MatrixXd::Ones(m, m) + w * i2 * i2 * a * a.transpose();
      for (long k = 0; k < m; ++k) {
        const double v = x[Index(r, static_cast<size_t>(k))];
        b(k, k) += w / (v * v);
        gx[Index(r, static_cast<size_t>(k))] = w * (-1 / v + i1 - a[k] * i2) + wg_[r] / c[k];
        bx[Index(r, static_cast<size_t>(k))] = -w * a[k] * i2 * i2;
      }
      if (with_z_) {
        gz += w * i2;
        hzz += w * i2 * i2;
      }
      blocks.emplace_back(b);
      zr[r] = blocks.back().solve(MatrixXd::Identity(m, m) * wg_[r]);
      s += wg_[r] * zr[r];
    }
    const Eigen::LLT<MatrixXd> schur(s);
    // Solves (B + U C U^T) y = v by Woodbury: U has w_r g_r at (r, k) for column k.
    auto solve = [&](const VectorXd& v) {
      VectorXd y(v.size());
      VectorXd u = VectorXd::Zero(m);
      for (size_t r = 0; r < rows_; ++r) {
        const VectorXd yr = blocks[r].solve(v.segment(Index(r, 0), m));
        y.segment(Index(r, 0), m) = yr;
        u += wg_[r] * yr;
      }
      const VectorXd cc = schur.solve(u);
      for (size_t r = 0; r < rows_; ++r) y.segment(Index(r, 0), m) -= zr[r] * cc;
      return y;
    };
    const VectorXd p = solve(-gx);
    *dz = 0;
    if (with_z_) {
      const VectorXd q = solve(bx);
      *dz = (-gz - bx.dot(p)) / (hzz - bx.dot(q));
      *dx = p - q * *dz;
    } else {
      *dx = p;
    }
    return -(gx.dot(*dx) + gz * *dz);
  }

  long Index(size_t r, size_t k) const { return static_cast<long>(r * types_ + k); }

 private:
  size_t rows_, types_;
  bool with_z_;
  std::vector<std::vector<double>> a_;
  std::vector<double> floor_;
  std::vector<double> w_, wg_, cap_;
  double weight_ = 0;
};

// Damped Newton to the minimiser of F(., t) from a strictly feasible (x, z). `stop` is checked
// after every step (Phase I ends as soon as z passes 1). Returns the steps taken.
template <typename Stop>
int Centre(const Barrier& f, double t, VectorXd* x, double* z, Stop stop) {
  int steps = 0;
  for (; steps < kMaxNewtonSteps; ++steps) {
    VectorXd dx;
    double dz = 0;
    const double lambda2 = f.NewtonStep(*x, *z, t, &dx, &dz);
    if (!(lambda2 > 2 * kCentred)) break;
    const double f0 = f.Value(*x, *z, t);
    double alpha = 1;
    for (int i = 0; i < 80; ++i, alpha *= 0.5) {
      const double f1 = f.Value(*x + alpha * dx, *z + alpha * dz, t);
      if (f1 <= f0 - 0.25 * alpha * lambda2) break;
    }
    *x += alpha * dx;
    *z += alpha * dz;
    if (stop(*z)) return steps + 1;
  }
  return steps;
}

// A strictly feasible start: every share delta, half of each row's time and each type. Refuses a
// row with no positive coefficient and a type without devices.
Result<double> StartShare(const CentreProblem& p) {
  const size_t rows = p.a.size(), types = p.capacity.size();
  for (size_t r = 0; r < rows; ++r) {
    double best = 0;
    for (size_t k = 0; k < types; ++k) best = std::max(best, p.a[r][k]);
    if (!(best > 0)) return Status::InvalidArgument("central shares: row " + std::to_string(r) + " has no positive coefficient");
  }
  double demand = 0;  // devices all rows would hold at a share of 1 on one type
  for (size_t r = 0; r < rows; ++r) demand += p.count[r] * p.gpus[r];
  double delta = 0.5 / static_cast<double>(types);
  for (size_t k = 0; k < types; ++k) {
    if (!(p.capacity[k] > 0)) return Status::InvalidArgument("central shares: a type without devices");
    delta = std::min(delta, 0.5 * p.capacity[k] / demand);
  }
  return delta;
}

// The shares from the solution vector (row-major, `types` per row).
Status CopyShares(const VectorXd& x, size_t types, std::vector<std::vector<double>>* share) {
  for (size_t r = 0; r < share->size(); ++r) {
    for (size_t k = 0; k < types; ++k) {
      const double v = x[static_cast<long>(r * types + k)];
      // Newton keeps every iterate strictly inside; anything else is a numerical failure, which
      // the callers answer with the simplex's vertex.
      if (!std::isfinite(v) || v < 0 || v > 1 + 1e-9) return Status::Internal("central shares: numerical failure");
      (*share)[r][k] = std::min(v, 1.0);
    }
  }
  return Status::Ok();
}

}  // namespace

Result<CentreResult> CentralShares(const CentreProblem& p, double gap) {
  if (p.mode == CentreProblem::Mode::kMaxSum) {
    return Status::InvalidArgument("central shares: a max-sum LP has cvxopt's point only (point=cvxopt)");
  }
  const size_t rows = p.a.size(), types = p.capacity.size();
  CentreResult out;
  out.share.assign(rows, std::vector<double>(types, 0.0));
  if (rows == 0 || types == 0) return out;
  HETSCHED_ASSIGN_OR_RETURN(const double delta, StartShare(p));
  VectorXd x = VectorXd::Constant(static_cast<long>(rows * types), delta);
  auto start_z = [&](const std::vector<std::vector<double>>& a) {
    double low = std::numeric_limits<double>::infinity();
    for (size_t r = 0; r < rows; ++r) {
      double dot = 0;
      for (size_t k = 0; k < types; ++k) dot += a[r][k] * delta;
      low = std::min(low, dot);
    }
    return 0.5 * low;
  };

  // The central path of max z: t grows until the gap weight / t is within `gap` (absolute, or
  // relative to |z| when larger: an interior-point solver's stopping rule).
  auto follow = [&](const Barrier& f, double* z, auto stop) -> bool {
    for (double t = 1;; t *= kPathFactor) {
      out.newton_steps += Centre(f, t, &x, z, stop);
      if (stop(*z)) return true;
      if (f.weight() / t <= gap * std::max(1.0, std::abs(*z))) return false;
    }
  };

  if (p.mode == CentreProblem::Mode::kMaxMin) {
    const Barrier f(p, true, p.a, {});
    double z = start_z(p.a);
    follow(f, &z, [](double) { return false; });
    out.z = z;
  } else {
    // Phase I: max z over the rows scaled by their floors, until z > 1 (a strictly feasible x).
    std::vector<std::vector<double>> scaled = p.a;
    for (size_t r = 0; r < rows; ++r) {
      for (double& v : scaled[r]) v /= p.floor[r];
    }
    const Barrier phase1(p, true, scaled, {});
    double z = start_z(scaled);
    if (z <= 1 && !follow(phase1, &z, [](double zz) { return zz > 1; })) {
      return Status::Infeasible("central shares: the floors leave no interior point");
    }
    // Phase II: the analytic centre of the feasible set.
    const Barrier phase2(p, false, scaled, std::vector<double>(rows, 1.0));
    double unused = 0;
    out.newton_steps += Centre(phase2, 0, &x, &unused, [](double) { return false; });
  }
  HETSCHED_RETURN_IF_ERROR(CopyShares(x, types, &out.share));
  if (!std::isfinite(out.z)) return Status::Internal("central shares: numerical failure");
  return out;
}

Result<CentreResult> InteriorShares(SharePoint point, const CentreProblem& problem) {
  if (point == SharePoint::kCvxopt) return CvxoptShares(problem);
  return CentralShares(problem);
}

}  // namespace hetsched::gavel
