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

using cvxopt_internal::NormalFactor;
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
  if (lp.lower_rows()) out->unclipped = out->share;
  for (long r = 0; r < lp.rows(); ++r) {
    if (r > 0 && lp.source(r) == lp.source(r - 1)) continue;
    for (long k = 0; k < lp.types(); ++k) {
      const double v = x[lp.X(r, k)] / tau;
      if (!std::isfinite(v)) return Status::Internal("cvxopt shares: numerical failure");
      out->share[static_cast<size_t>(lp.source(r))][static_cast<size_t>(k)] = std::clamp(v, 0.0, 1.0);
      if (lp.lower_rows()) out->unclipped[static_cast<size_t>(lp.source(r))][static_cast<size_t>(k)] = v;
    }
  }
  out->z = lp.maxmin() ? x[lp.Z()] / tau : 0.0;
  return std::move(*out);
}

// The Nesterov-Todd scaling of conelp's homogeneous embedding for the LP cone: s = d .* lmbda,
// z = lmbda ./ d; the embedding's pair (tau, kappa) scaled by dg, with lmbda_k = sqrt(tau kappa).
struct Scaling {
  VectorXd d, lmbda;
  double lmbda_k = 0, dg = 0, dgi = 0;
};

// The Newton system of the embedding at one scaling (coneprog.py's f6): the KKT matrix factored
// for d, and x1, z1 the solution for the (c, h) column.
class EmbeddingNewton {
 public:
  EmbeddingNewton(const ShareLp& lp, Kkt& kkt, const Scaling& w) : lp_(lp), kkt_(kkt), w_(w) {}

  // Factors the KKT matrix for the scaling; false when it is singular.
  bool Factor() {
    if (!kkt_.Factor(lp_, w_.d)) return false;
    x1_ = -lp_.c();
    z1_ = lp_.h();
    kkt_.Solve(&x1_, &z1_);
    x1_ *= w_.dgi;
    z1_ *= w_.dgi;
    th_ = lp_.h().cwiseQuotient(w_.d);
    z1sq_ = 1.0 + z1_.squaredNorm();
    return true;
  }

  // f6 with one step of iterative refinement, in place.
  void Solve(VectorXd& ux, VectorXd& uz, double& utau, VectorXd& us, double& ukappa) const {
    const VectorXd wx = ux, wz = uz, ws = us;
    const double wtau = utau, wkappa = ukappa;
    SolveNoRefinement(ux, uz, utau, us, ukappa);
    VectorXd wx2 = wx, wz2 = wz, ws2 = ws;
    double wtau2 = wtau, wkappa2 = wkappa;
    AddResidual(ux, uz, utau, us, ukappa, wx2, wz2, wtau2, ws2, wkappa2);
    SolveNoRefinement(wx2, wz2, wtau2, ws2, wkappa2);
    ux += wx2;
    uz += wz2;
    utau += wtau2;
    us += ws2;
    ukappa += wkappa2;
  }

 private:
  // f6 without refinement: the Newton system of the embedding, solved in place.
  void SolveNoRefinement(VectorXd& ux, VectorXd& uz, double& utau, VectorXd& us, double& ukappa) const {
    us = -us.cwiseQuotient(w_.lmbda);
    uz = -(uz + w_.d.cwiseProduct(us));
    kkt_.Solve(&ux, &uz);
    ukappa = -ukappa / w_.lmbda_k;
    utau += ukappa / w_.dgi;
    utau = w_.dgi * (utau + lp_.c().dot(ux) + th_.dot(uz)) / z1sq_;
    ux += utau * x1_;
    uz += utau * z1_;
    us -= uz;
    ukappa -= utau;
  }
  // v := v + K(u) in cvxopt's sign convention, for the step of iterative refinement.
  void AddResidual(const VectorXd& ux, const VectorXd& uz, double utau, const VectorXd& us, double ukappa, VectorXd& vx,
                   VectorXd& vz, double& vtau, VectorXd& vs, double& vkappa) const {
    const VectorXd wz3 = uz.cwiseQuotient(w_.d);
    vx += -lp_.Gt(wz3) - (utau / w_.dg) * lp_.c();
    vz += lp_.G(ux) - (utau / w_.dg) * lp_.h() + w_.d.cwiseProduct(us);
    vtau += w_.dg * ukappa + lp_.c().dot(ux) + lp_.h().dot(wz3);
    vs += (us + uz).cwiseProduct(w_.lmbda);
    vkappa += w_.lmbda_k * (utau + ukappa);
  }

  const ShareLp& lp_;
  Kkt& kkt_;
  const Scaling& w_;
  VectorXd x1_, z1_, th_;
  double z1sq_ = 0;
};

// conelp's iterate: the primal and dual points of the homogeneous embedding.
struct ConelpPoint {
  VectorXd x, s, z;
  double tau = 1, kappa = 1, gap = 0;
};

// The residuals of the embedding at an iterate (rx, rz, rt) and what the stopping tests read.
struct ConelpResiduals {
  VectorXd rx, rz;
  double rt = 0, hresx = 0, hresz = 0, resx = 0, resz = 0, cx = 0, hz = 0;
};

ConelpResiduals ResidualsAt(const ShareLp& lp, const ConelpPoint& p) {
  const VectorXd& c = lp.c();
  const VectorXd& h = lp.h();
  ConelpResiduals r;
  const VectorXd hrx = -lp.Gt(p.z);
  r.hresx = hrx.norm();
  r.rx = hrx - p.tau * c;
  r.resx = r.rx.norm() / p.tau;
  const VectorXd hrz = lp.G(p.x) + p.s;
  r.hresz = hrz.norm();
  r.rz = hrz - p.tau * h;
  r.resz = r.rz.norm() / p.tau;
  r.cx = c.dot(p.x);
  r.hz = h.dot(p.z);
  r.rt = p.kappa + r.cx + r.hz;
  return r;
}

// The search direction: Mehrotra's predictor, then the corrector with sigma = (1 - step)^3.
// Leaves the direction scaled by lmbda in ds and dz, and returns the step; *tt and *tk are the
// steps to the boundary of tau and kappa.
double SearchStep(const EmbeddingNewton& newton, const Scaling& w, const ConelpResiduals& r, long m, VectorXd* dx,
                  VectorXd* ds, VectorXd* dz, double* tt, double* tk) {
  const VectorXd lmbdasq = w.lmbda.array().square().matrix();
  const double lmbdasq_k = w.lmbda_k * w.lmbda_k;
  const double mu = (w.lmbda.squaredNorm() + w.lmbda_k * w.lmbda_k) / static_cast<double>(1 + m);
  double sigma = 0, step = 1;
  VectorXd ws3;
  double dtau = 0, dkappa = 0, wkappa3 = 0;
  for (int i = 0; i < 2; ++i) {
    *ds = lmbdasq;
    dkappa = lmbdasq_k;
    if (i == 1) {
      *ds += ws3;
      ds->array() -= sigma * mu;
      dkappa += wkappa3 - sigma * mu;
    }
    *dx = (1 - sigma) * r.rx;
    *dz = (1 - sigma) * r.rz;
    dtau = (1 - sigma) * r.rt;
    newton.Solve(*dx, *dz, dtau, *ds, dkappa);
    if (i == 0) {
      ws3 = ds->cwiseProduct(*dz);
      wkappa3 = dtau * dkappa;
    }
    *ds = ds->cwiseQuotient(w.lmbda);
    *dz = dz->cwiseQuotient(w.lmbda);
    const double ts = MaxStep(*ds);
    const double tz = MaxStep(*dz);
    *tt = -dtau / w.lmbda_k;
    *tk = -dkappa / w.lmbda_k;
    const double t = std::max({0.0, ts, tz, *tt, *tk});
    step = t == 0 ? 1.0 : std::min(1.0, (i == 0 ? 1.0 : kStep) / t);
    if (i == 0) sigma = std::pow(1 - step, 3);
  }
  return step;
}

// Takes the step: the new iterates in the current scaling, then the scaling updated to them.
void TakeStep(double step, const VectorXd& dx, VectorXd ds, VectorXd dz, double tt, double tk, Scaling* w,
              ConelpPoint* p) {
  p->x += step * dx;
  ds = ((step * ds).array() + 1).matrix().cwiseProduct(w->lmbda);
  dz = ((step * dz).array() + 1).matrix().cwiseProduct(w->lmbda);
  const VectorXd ss = ds.array().sqrt().matrix(), zs = dz.array().sqrt().matrix();
  w->d = w->d.cwiseProduct(ss).cwiseQuotient(zs);
  w->lmbda = ss.cwiseProduct(zs);
  w->dg *= std::sqrt(1 - step * tk) / std::sqrt(1 - step * tt);
  w->dgi = 1 / w->dg;
  w->lmbda_k *= std::sqrt(1 - step * tt) * std::sqrt(1 - step * tk);
  p->s = w->d.cwiseProduct(w->lmbda);
  p->z = w->lmbda.cwiseQuotient(w->d);
  p->kappa = w->lmbda_k / w->dgi;
  p->tau = w->lmbda_k * w->dgi;
  p->gap = (w->lmbda.norm() / p->tau) * (w->lmbda.norm() / p->tau);
}

// The start: with W = I, x0 = argmin ||G x - h|| (s = h - G x0), z0 = G (G'G)^-1 (-c). *done when
// the least-squares start is already optimal (a feasibility LP, c = 0, whose start is strictly
// inside: cvxopt returns it as it is).
Result<ConelpPoint> ConelpStart(const ShareLp& lp, Kkt& kkt, bool* done) {
  const VectorXd& c = lp.c();
  const VectorXd& h = lp.h();
  if (!kkt.Factor(lp, VectorXd::Ones(lp.m()))) return Status::Internal("cvxopt shares: rank(G) < n");
  ConelpPoint p;
  p.x = VectorXd::Zero(lp.n());
  p.s = h;
  kkt.Solve(&p.x, &p.s);
  p.s = -p.s;
  VectorXd dx = -c;
  p.z = VectorXd::Zero(lp.m());
  kkt.Solve(&dx, &p.z);
  const double ts = MaxStep(p.s), tz = MaxStep(p.z);
  const double nrms = p.s.norm(), nrmz = p.z.norm();
  *done = ts <= 0 && tz <= 0 && GapClosed(p.s.dot(p.z), c.dot(p.x), -h.dot(p.z));
  if (*done) return p;
  if (ts >= -1e-8 * std::max(nrms, 1.0)) p.s.array() += 1 + ts;
  if (tz >= -1e-8 * std::max(nrmz, 1.0)) p.z.array() += 1 + tz;
  p.gap = p.s.dot(p.z);
  return p;
}

// cvxopt's conelp on `lp` with the default KKT solver (chol2) or kktsolver="ldl". *unknown is
// set where cvxopt's status would be "unknown": no convergence in maxiters, or a KKT matrix its
// factorisation finds singular.
Result<CentreResult> Conelp(const ShareLp& lp, bool ldl, CentreResult out, bool* unknown,
                            NormalFactor factor = NormalFactor::kProduct) {
  *unknown = false;
  const double resx0 = std::max(1.0, lp.c().norm());
  const double resz0 = std::max(1.0, lp.h().norm());
  Kkt kkt(ldl, factor);
  bool done = false;
  HETSCHED_ASSIGN_OR_RETURN(ConelpPoint p, ConelpStart(lp, kkt, &done));
  if (done) return Answer(lp, p.x, 1.0, &out);
  Scaling w;
  EmbeddingNewton newton(lp, kkt, w);
  VectorXd dx, ds, dz;
  for (int iters = 0; iters <= kMaxIters; ++iters) {
    const ConelpResiduals r = ResidualsAt(lp, p);
    const double pres = r.resz / resz0, dres = r.resx / resx0;
    out.newton_steps = iters;
    if (pres <= kFeasTol && dres <= kFeasTol && GapClosed(p.gap, r.cx / p.tau, -r.hz / p.tau)) {
      return Answer(lp, p.x, p.tau, &out);
    }
    if (iters == kMaxIters) break;
    if (r.hz < 0 && r.hresx / resx0 / -r.hz <= kFeasTol) return Status::Infeasible("cvxopt shares: primal infeasible");
    if (r.cx < 0 && r.hresz / resz0 / -r.cx <= kFeasTol) return Status::Internal("cvxopt shares: dual infeasible");
    if (iters == 0) {
      w.d = (p.s.array() / p.z.array()).sqrt().matrix();
      w.lmbda = (p.s.array() * p.z.array()).sqrt().matrix();
      w.dg = std::sqrt(p.kappa / p.tau);
      w.dgi = std::sqrt(p.tau / p.kappa);
      w.lmbda_k = std::sqrt(p.tau * p.kappa);
    }
    if (!newton.Factor()) {
      *unknown = true;
      return Status::Internal("cvxopt shares: singular KKT system");
    }
    double tt = 0, tk = 0;
    const double step = SearchStep(newton, w, r, lp.m(), &dx, &ds, &dz, &tt, &tk);
    TakeStep(step, dx, std::move(ds), std::move(dz), tt, tk, &w, &p);
  }
  *unknown = true;
  return Status::Internal("cvxopt shares: no convergence in 100 iterations");
}

// Both CvxoptShares: `level` null for every policy but water filling.
Result<CentreResult> CvxoptSharesOf(const CentreProblem& p, const WaterLevelRows* level, CvxoptKkt kkt);

}  // namespace

Result<CentreResult> CvxoptShares(const CentreProblem& p, CvxoptKkt kkt) {
  return CvxoptSharesOf(p, nullptr, kkt);
}

Result<CentreResult> CvxoptShares(const CentreProblem& p, const WaterLevelRows& level) {
  if (p.mode != CentreProblem::Mode::kMaxMin || level.b.size() != p.a.size() || level.lower.size() != p.a.size() ||
      level.epi_rhs.size() != p.a.size()) {
    return Status::InvalidArgument("cvxopt shares: water filling's rows do not match the problem");
  }
  return CvxoptSharesOf(p, &level, CvxoptKkt::kAuto);
}

namespace {

Result<CentreResult> CvxoptSharesOf(const CentreProblem& p, const WaterLevelRows* level, CvxoptKkt kkt) {
  const size_t types = p.capacity.size();
  CentreResult out;
  out.share.assign(p.a.size(), std::vector<double>(types, 0.0));
  if (p.a.empty() || types == 0) return out;
  for (double c : p.count) {
    if (!(c >= 1) || c != std::floor(c)) return Status::InvalidArgument("cvxopt shares: a class count is not a whole number");
  }
  const ShareLp lp(p, level);
  bool unknown = false;
  if (kkt == CvxoptKkt::kLdl) return Conelp(lp, true, out, &unknown);
  Result<CentreResult> first = Conelp(lp, false, out, &unknown, kkt == CvxoptKkt::kDense ? NormalFactor::kDense : NormalFactor::kProduct);
  // gavel_cvxpy_shim.py, _cvxopt_lp: status "unknown" is solved again with kktsolver="ldl".
  if (first.ok() || !unknown || lp.n() + lp.m() > kLdlMaxSize) return first;
  return Conelp(lp, true, out, &unknown);
}

}  // namespace

}  // namespace hetsched::gavel
