#include "hetsched/perf/goodput_fit.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/util/fixed_math.h"
#include "hetsched/util/units.h"

namespace hetsched {

namespace {

constexpr double kLow = 1e-8;
constexpr int kParams = 7;  // alpha_c, beta_c, alpha_n, beta_n, alpha_r, beta_r, gamma
using Vec = std::array<double, kParams>;

ThroughputParams ParamsOf(const Vec& v) { return {v[0], v[1], v[2], v[3], v[4], v[5], v[6]}; }

// A sample as the objective reads it: the logarithms of its measured times taken once per fit,
// not at each of the minimiser's evaluations (the same values: the objective's arithmetic is
// unchanged).
struct FitSample {
  int nodes;
  int replicas;
  int atomic_bsz;
  double log_accum;  // log of the measured accumulated pass
  double log_optim;  // log of the measured synchronised pass
};

std::vector<FitSample> FitSamplesOf(std::span<const ThroughputSample> samples) {
  std::vector<FitSample> out;
  out.reserve(samples.size());
  for (const ThroughputSample& s : samples) {
    out.push_back({s.nodes, s.replicas, s.atomic_bsz, FixedLog(s.accum_step_s), FixedLog(s.optim_step_s)});
  }
  return out;
}

// The objective and its gradient over all 7 parameters.
double Objective(const Vec& v, std::span<const FitSample> samples, Vec* grad) {
  const double ac = v[0], bc = v[1], an = v[2], bn = v[3], ar = v[4], br = v[5], g = v[6];
  const double n = static_cast<double>(samples.size());
  double sum1 = 0, sum2 = 0;
  Vec d1{}, d2{};  // gradients of the two sums of squares
  for (const FitSample& s : samples) {
    const double a = ac + bc * s.atomic_bsz;
    const bool inter = s.nodes > 1, intra = !inter && s.replicas > 1;
    const double steps = std::max(static_cast<double>(s.replicas - 2), kLow);
    const double net = (inter ? an : intra ? ar : kLow) + (inter ? bn : intra ? br : kLow) * steps;
    const double log_a = FixedLog(a);
    const double e1 = log_a - s.log_accum;
    const double ag = FixedPow(a, g), ng = FixedPow(net, g), sum = ag + ng;
    const double log_sum = FixedLog(sum);
    const double log_optim = log_sum / g;
    const double e2 = log_optim - s.log_optim;
    sum1 += e1 * e1;
    sum2 += e2 * e2;
    if (grad == nullptr) continue;
    // d log(a) / d(alpha_c, beta_c) = (1, b) / a
    d1[0] += 2 * e1 / a;
    d1[1] += 2 * e1 * s.atomic_bsz / a;
    // d log_optim: through a, through net, and through gamma.
    const double da = ag / (a * sum), dn = ng / (net * sum);
    const double dg = -log_sum / (g * g) + (ag * log_a + ng * FixedLog(net)) / (g * sum);
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

// L-BFGS-B 3.0 (Zhu, Byrd, Lu, Nocedal; Morales and Nocedal's 2011 correction), Debian's
// liblbfgsb: the Fortran code scipy.optimize.minimize(method="L-BFGS-B") drives. Reverse
// communication: `task` says whether the caller is to evaluate f and g at x (FG), a new iterate
// was accepted (NEW_X), or the run stopped (CONVERGENCE, ABNORMAL_TERMINATION_IN_LNSRCH, ...).
extern "C" void setulb_(const int* n, const int* m, double* x, const double* l, const double* u, const int* nbd,
                        double* f, double* g, const double* factr, const double* pgtol, double* wa, int* iwa,
                        char* task, const int* iprint, char* csave, int* lsave, int* isave, double* dsave,
                        size_t task_len, size_t csave_len);

constexpr size_t kTaskLen = 60;

// Debian's liblbfgsb writes "ascent direction in projection gd = ..." to Fortran unit 6, the
// process's standard output, whenever a line search starts uphill, whatever `iprint` says
// (scipy's copy of the same code checks iprint, so Pollux and Sia run silently). A minimisation
// therefore runs with file descriptor 1 on /dev/null, the C and C++ streams flushed before and
// gfortran's unit 6 flushed into /dev/null before it is restored; one at a time. Output another
// thread writes to standard output during those milliseconds is lost with it (hetsched writes its
// own from the thread that runs the simulation). Best effort: where a step fails, the text shows.
class QuietFortranOutput {
 public:
  QuietFortranOutput() : lock_(Mutex()) {
    std::cout.flush();
    std::fflush(stdout);
    saved_ = dup(STDOUT_FILENO);
    const int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && null_fd >= 0 && dup2(null_fd, STDOUT_FILENO) < 0) {
      close(saved_);
      saved_ = -1;
    }
    if (null_fd >= 0) close(null_fd);
  }
  ~QuietFortranOutput() {
    if (saved_ < 0) return;
    using FlushUnit = void (*)(int*);
    static const auto flush_unit = reinterpret_cast<FlushUnit>(dlsym(RTLD_DEFAULT, "_gfortran_flush_i4"));
    int unit = 6;
    if (flush_unit != nullptr) flush_unit(&unit);
    dup2(saved_, STDOUT_FILENO);
    close(saved_);
  }
  QuietFortranOutput(const QuietFortranOutput&) = delete;
  QuietFortranOutput& operator=(const QuietFortranOutput&) = delete;

 private:
  static std::mutex& Mutex() {
    static std::mutex mu;
    return mu;
  }
  std::lock_guard<std::mutex> lock_;
  int saved_ = -1;
};

void SetTask(std::array<char, kTaskLen>& task, std::string_view text) {
  task.fill(' ');
  std::copy(text.begin(), text.end(), task.begin());
}

bool TaskIs(const std::array<char, kTaskLen>& task, std::string_view prefix) {
  return std::string_view(task.data(), prefix.size()) == prefix;
}

// Minimises from `x` over all 7 parameters within [lower, upper] (a pinned one has lower =
// upper) as scipy 1.10's _minimize_lbfgsb does with Pollux's call: x0 clipped to the bounds,
// m = 10, factr = ftol / eps = 1e7, pgtol = 1e-5, at most 15000 iterations and 15000
// evaluations; the result is the last iterate (after a failed line search, the one before it).
Result<Vec> Minimise(std::span<const FitSample> samples, Vec x, const Vec& lower, const Vec& upper,
                     double tolerance) {
  constexpr int n = kParams, m = 10, iprint = -1;
  // scipy: factr = ftol / eps (ftol default 2.220446049250313e-09: factr 1e7), pgtol = gtol.
  const double factr = tolerance > 0 ? tolerance / std::numeric_limits<double>::epsilon() : 1e7;
  const double pgtol = tolerance > 0 ? tolerance : 1e-5;
  constexpr int kMaxIterations = 15000, kMaxEvaluations = 15000;
  std::array<int, kParams> nbd{};
  for (int i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i);
    x[k] = std::clamp(x[k], lower[k], upper[k]);
    nbd[k] = std::isfinite(upper[k]) ? 2 : 1;  // every lower bound is finite here
  }
  std::vector<double> wa(static_cast<size_t>(2 * m * n + 5 * n + 11 * m * m + 8 * m));
  std::vector<int> iwa(static_cast<size_t>(3 * n));
  std::array<char, kTaskLen> task{}, csave{};
  std::array<int, 4> lsave{};
  std::array<int, 44> isave{};
  std::array<double, 29> dsave{};
  SetTask(task, "START");
  csave.fill(' ');
  double f = 0;
  Vec g{};
  int iterations = 0, evaluations = 0;
  const QuietFortranOutput quiet;
  while (true) {
    setulb_(&n, &m, x.data(), lower.data(), upper.data(), nbd.data(), &f, g.data(), &factr, &pgtol, wa.data(),
            iwa.data(), task.data(), &iprint, csave.data(), lsave.data(), isave.data(), dsave.data(), kTaskLen,
            kTaskLen);
    if (TaskIs(task, "FG")) {
      f = Objective(x, samples, &g);
      ++evaluations;
    } else if (TaskIs(task, "NEW_X")) {
      ++iterations;
      if (iterations >= kMaxIterations) {
        SetTask(task, "STOP: TOTAL NO. of ITERATIONS REACHED LIMIT");
      } else if (evaluations > kMaxEvaluations) {
        SetTask(task, "STOP: TOTAL NO. of f AND g EVALUATIONS EXCEEDS LIMIT");
      }
    } else {
      break;
    }
  }
  if (TaskIs(task, "ERROR")) {
    std::string text(task.data(), kTaskLen);
    text.erase(text.find_last_not_of(' ') + 1);
    return Status::Internal("throughput fit: L-BFGS-B refused the problem: " + text);
  }
  if (!std::isfinite(Objective(x, samples, nullptr))) return Status::Internal("throughput fit: no finite value of the objective");
  return x;
}

}  // namespace

Result<ThroughputParams> FitThroughputParams(std::span<const ThroughputSample> samples, double tolerance) {
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
  for (int i = 0; i < kParams; ++i) {
    if (pinned[static_cast<size_t>(i)]) lower[static_cast<size_t>(i)] = upper[static_cast<size_t>(i)] = start[static_cast<size_t>(i)];
  }
  HETSCHED_ASSIGN_OR_RETURN(const Vec x, Minimise(FitSamplesOf(samples), start, lower, upper, tolerance));
  ThroughputParams fitted = ParamsOf(x);
  if (!multi_node) {
    // The prior: synchronising across nodes costs at least 1.1 x within one.
    fitted.alpha_n = std::max(fitted.alpha_n, fitted.alpha_r * 1.1);
    fitted.beta_n = std::max(fitted.beta_n, fitted.beta_r * 1.1);
  }
  return fitted;
}

}  // namespace hetsched

