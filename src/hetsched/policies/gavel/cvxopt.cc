#include "hetsched/policies/gavel/cvxopt.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "hetsched/policies/gavel/cvxopt_kkt.h"

namespace hetsched::gavel {
namespace {

using cvxopt_internal::Kkt;
using cvxopt_internal::ShareLp;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// cvxopt's conelp constants (coneprog.py: STEP, EXPON, maxiters) and the stand-in's options
// (abstol = reltol = feastol = 1e-8, refinement = 1).
constexpr double kStep = 0.99;
constexpr int kMaxIters = 100;
constexpr double kAbsTol = 1e-8;
constexpr double kRelTol = 1e-8;
constexpr double kFeasTol = 1e-8;
// The stand-in's re-solve with kktsolver="ldl" factors the whole KKT matrix (variables + rows);
// up to this size it is re-solved so here (a dense LU: 8 MiB and ~0.7 GFLOP a factor at the
// limit); above it the caller keeps its own answer.
constexpr long kLdlMaxSize = 1024;

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
