// Fitting a job's throughput model (perf/goodput.h) to the configurations it has run in, as
// Pollux does online [SRC: Pollux, OSDI 2021, sec. 3.2; the objective and the priors as its
// simulator fits them: petuum/adaptdl @ osdi21-artifact, simulator/goodput.py fit_perf_params]:
// minimise the RMS error of log(T_acc) plus that of log(T_optim), plus 1e-3 (gamma - 1)^2 (a
// smaller gamma is easier to fit) and 1e-2 ((beta_n/alpha_n)^2 + (beta_r/alpha_r)^2) (prefer
// optimistic scaling), over alpha, beta >= 1e-8 and gamma in [1, 10], from (0.1, 0.01) x 3 and
// gamma 1.001. Parameters the samples cannot tell are pinned: alpha_c at half the mean pass time
// when one atomic batch size was seen; alpha_n, beta_n at 1e-8 without a multi-node sample (then
// raised to 1.1 x alpha_r, beta_r after the fit); alpha_r, beta_r without a single-node
// multi-GPU one; beta_n, beta_r without one over 2 GPUs.
//
// The minimiser is Pollux's: L-BFGS-B 3.0 (Debian's liblbfgsb, the Fortran code under scipy's
// L-BFGS-B) with scipy 1.10's settings, over all 7 parameters (a pinned one with equal bounds),
// from the start clipped to the bounds; its last iterate is the fit, as scipy returns it. The
// gradient is analytic (Pollux's: autograd's), so the last digits can differ (docs/goodput.md).
// The same bits on every x86-64 CPU: liblbfgsb is linked statically, its BLAS and LAPACK calls
// answered by perf/lbfgsb/fixed_blas.h and the objective's exp, log and pow by util/fixed_math.h.
#pragma once

#include <span>

#include "hetsched/perf/goodput.h"
#include "hetsched/util/status.h"

namespace hetsched {

// One measured configuration: where the job ran and its two measured times.
struct ThroughputSample {
  int nodes = 1;
  int replicas = 1;
  int atomic_bsz = 1;
  double accum_step_s = 0;  // one accumulated (non-synchronising) pass
  double optim_step_s = 0;  // one synchronised pass
};

// The fitted parameters. Errors: no sample, or a time that is not finite and positive.
// `tolerance`: scipy.optimize.minimize's `tol` (its ftol and gtol); 0: scipy's defaults, as
// Pollux calls it (ftol 2.2e-9, gtol 1e-5). Sia's simulator passes 1e-5 ("for speed",
// sia-simulator/goodput.py:201-203), which stops the fit far sooner: a different model.
Result<ThroughputParams> FitThroughputParams(std::span<const ThroughputSample> samples, double tolerance = 0);

}  // namespace hetsched
