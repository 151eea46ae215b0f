#include "hetsched/perf/goodput_fit.h"

#include <nlopt.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetsched/util/units.h"

namespace hetsched {

namespace {

constexpr double kLow = 1e-8;
constexpr int kParams = 7;  // alpha_c, beta_c, alpha_n, beta_n, alpha_r, beta_r, gamma
using Vec = std::array<double, kParams>;

ThroughputParams ParamsOf(const Vec& v) { return {v[0], v[1], v[2], v[3], v[4], v[5], v[6]}; }

// The objective and its gradient over all 7 parameters.
double Objective(const Vec& v, std::span<const ThroughputSample> samples, Vec* grad) {
  const double ac = v[0], bc = v[1], an = v[2], bn = v[3], ar = v[4], br = v[5], g = v[6];
  const double n = static_cast<double>(samples.size());
  double sum1 = 0, sum2 = 0;
  Vec d1{}, d2{};  // gradients of the two sums of squares
  for (const ThroughputSample& s : samples) {
    const double a = ac + bc * s.atomic_bsz;
    const bool inter = s.nodes > 1, intra = !inter && s.replicas > 1;
    const double steps = std::max(static_cast<double>(s.replicas - 2), kLow);
    const double net = (inter ? an : intra ? ar : kLow) + (inter ? bn : intra ? br : kLow) * steps;
    const double e1 = std::log(a) - std::log(s.accum_step_s);
    const double ag = std::pow(a, g), ng = std::pow(net, g), sum = ag + ng;
    const double log_optim = std::log(sum) / g;
    const double e2 = log_optim - std::log(s.optim_step_s);
    sum1 += e1 * e1;
    sum2 += e2 * e2;
    // d log(a) / d(alpha_c, beta_c) = (1, b) / a
    d1[0] += 2 * e1 / a;
    d1[1] += 2 * e1 * s.atomic_bsz / a;
    // d log_optim: through a, through net, and through gamma.
    const double da = ag / (a * sum), dn = ng / (net * sum);
    const double dg = -std::log(sum) / (g * g) + (ag * std::log(a) + ng * std::log(net)) / (g * sum);
    d2[0] += 2 * e2 * da;
    d2[1] += 2 * e2 * da * s.atomic_bsz;
    if (inter) {
      d2[2] += 2 * e2 * dn;
      d2[3] += 2 * e2 * dn * steps;
    } else if (intra) {
      d2[4] += 2 * e2 * dn;
      d2[5] += 2 * e2 * dn * steps;
    }
    d2[6] += 2 * e2 * dg;
  }
  const double err1 = std::sqrt(sum1 / n), err2 = std::sqrt(sum2 / n);
  const double reg1 = 1e-3 * (g - 1) * (g - 1);
  const double reg2 = 1e-2 * ((bn / an) * (bn / an) + (br / ar) * (br / ar));
  if (grad != nullptr) {
    // d sqrt(S/n) = dS / (2 n sqrt(S/n)); no error, no gradient.
    for (int i = 0; i < kParams; ++i) {
      (*grad)[static_cast<size_t>(i)] = (err1 > 0 ? d1[static_cast<size_t>(i)] / (2 * n * err1) : 0.0) +
                                        (err2 > 0 ? d2[static_cast<size_t>(i)] / (2 * n * err2) : 0.0);
    }
    (*grad)[6] += 2e-3 * (g - 1);
    (*grad)[2] += -2e-2 * bn * bn / (an * an * an);
    (*grad)[3] += 2e-2 * bn / (an * an);
    (*grad)[4] += -2e-2 * br * br / (ar * ar * ar);
    (*grad)[5] += 2e-2 * br / (ar * ar);
  }
  return err1 + err2 + reg1 + reg2;
}

struct Problem {
  std::span<const ThroughputSample> samples;
  Vec full;                 // pinned values, and the free ones as last evaluated
  std::vector<int> free;    // indices of the free parameters
  // The best point evaluated. With one sample per kind the objective has a kink at its minimum
  // (an RMS of one error is its absolute value), where L-BFGS's line search may give up: NLopt
  // then reports a failure, scipy an abnormal termination, and either's best point stands.
  double best_f = std::numeric_limits<double>::infinity();
  Vec best{};
};

double NloptObjective(const std::vector<double>& x, std::vector<double>& grad, void* data) {
  auto* p = static_cast<Problem*>(data);
  for (size_t i = 0; i < p->free.size(); ++i) p->full[static_cast<size_t>(p->free[i])] = x[i];
  Vec g{};
  const double f = Objective(p->full, p->samples, grad.empty() ? nullptr : &g);
  for (size_t i = 0; i < grad.size(); ++i) grad[i] = g[static_cast<size_t>(p->free[i])];
  if (f < p->best_f) {
    p->best_f = f;
    p->best = p->full;
  }
  return f;
}

// NLopt's bounded L-BFGS over the free parameters from x; problem->full ends at the best point
// evaluated (a failure at a kink keeps it).
Status Minimise(Problem* problem, std::vector<double> x, const std::vector<double>& lo, const std::vector<double>& hi) {
  nlopt::opt opt(nlopt::LD_LBFGS, static_cast<unsigned>(x.size()));
  opt.set_lower_bounds(lo);
  opt.set_upper_bounds(hi);
  opt.set_min_objective(NloptObjective, problem);
  opt.set_ftol_rel(1e-12);
  opt.set_xtol_rel(1e-10);
  opt.set_maxeval(15000);
  double f = 0;
  try {
    opt.optimize(x, f);
  } catch (const nlopt::roundoff_limited&) {
    // As close as floating point allows.
  } catch (const std::invalid_argument& e) {
    return Status::Internal(std::string("throughput fit: NLopt refused the problem: ") + e.what());
  } catch (const std::bad_alloc&) {
    return Status::Internal("throughput fit: out of memory");
  } catch (const std::runtime_error&) {
    // nlopt::failure: the line search gave up at a kink (Problem::best).
  }
  if (!std::isfinite(problem->best_f)) return Status::Internal("throughput fit: no finite value of the objective");
  problem->full = problem->best;
  return Status::Ok();
}

}  // namespace

Result<ThroughputParams> FitThroughputParams(std::span<const ThroughputSample> samples) {
  if (samples.empty()) return Status::InvalidArgument("throughput fit: no sample");
  bool multi_node = false, single_node_multi = false, over_two = false;
  std::set<int> batch_sizes;
  double accum_mean = 0;
  for (const ThroughputSample& s : samples) {
    if (!(s.accum_step_s > 0) || !(s.optim_step_s > 0) || !std::isfinite(s.accum_step_s) ||
        !std::isfinite(s.optim_step_s) || s.nodes < 1 || s.replicas < s.nodes || s.atomic_bsz < 1) {
      return Status::InvalidArgument("throughput fit: a sample with nodes " + std::to_string(s.nodes) +
                                     ", replicas " + std::to_string(s.replicas) + ", atomic batch " +
                                     std::to_string(s.atomic_bsz) + " has times that are not finite and positive");
    }
    multi_node |= s.nodes > 1;
    single_node_multi |= s.nodes == 1 && s.replicas > 1;
    over_two |= s.replicas > 2;
    batch_sizes.insert(s.atomic_bsz);
    accum_mean += s.accum_step_s / static_cast<double>(samples.size());
  }
  Vec start{0.1, 0.01, 0.1, 0.01, 0.1, 0.01, 1.001};
  Vec lower{kLow, kLow, kLow, kLow, kLow, kLow, 1.0};
  Vec upper{kInf, kInf, kInf, kInf, kInf, kInf, 10.0};
  std::array<bool, kParams> pinned{};
  auto pin = [&](int i, double value) {
    start[static_cast<size_t>(i)] = value;
    pinned[static_cast<size_t>(i)] = true;
  };
  if (batch_sizes.size() == 1) pin(0, accum_mean / 2);
  if (!multi_node) pin(2, kLow), pin(3, kLow);
  if (!single_node_multi) pin(4, kLow), pin(5, kLow);
  if (!over_two) pin(3, kLow), pin(5, kLow);
  Problem problem{samples, start, {}, std::numeric_limits<double>::infinity(), start};
  std::vector<double> x, lo, hi;
  for (int i = 0; i < kParams; ++i) {
    if (pinned[static_cast<size_t>(i)]) continue;
    problem.free.push_back(i);
    x.push_back(start[static_cast<size_t>(i)]);
    lo.push_back(lower[static_cast<size_t>(i)]);
    hi.push_back(upper[static_cast<size_t>(i)]);
  }
  if (!x.empty()) HETSCHED_RETURN_IF_ERROR(Minimise(&problem, std::move(x), lo, hi));
  ThroughputParams fitted = ParamsOf(problem.full);
  if (!multi_node) {
    // The prior: synchronising across nodes costs at least 1.1 x within one.
    fitted.alpha_n = std::max(fitted.alpha_n, fitted.alpha_r * 1.1);
    fitted.beta_n = std::max(fitted.beta_n, fitted.beta_r * 1.1);
  }
  return fitted;
}

}  // namespace hetsched
