// exp, log, log1p, log10, pow and cos that give the same bits on every x86-64 CPU: for the goodput
// model, its fit and the goodput policies' objectives (issue 46; docs/goodput.md, "The same bits
// on every CPU"), and for the random draws of the workload generators (util/rng.h).
//
// glibc's libm picks code paths for the CPU it runs on (exp, log and pow have FMA variants chosen
// at load time), and their results differ in rare last bits; in a goodput run those bits reach the
// fit, the fit's optimum reaches the policy's choices, and runs that were byte-identical on one
// machine were not across CPU generations (measured: glibc with its FMA paths turned off,
// GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA, changed 3 of Sia's six workloads under sia-plus).
// These call SLEEF's deterministic scalar functions (Debian's libsleef-dev, the "cinz" "purec"
// builds: pure C, no FMA; error at most 1 ULP, as glibc's), whose results do not depend on the CPU.
//
// Not used where a peer's own arithmetic is reproduced (CPython's random draws in
// util/python_random.h, the cvxopt interior point of policies/gavel/): those call glibc's libm, as
// the peer's Python does on the same machine.
#pragma once

namespace hetsched {

double FixedExp(double x);
double FixedLog(double x);
double FixedLog1p(double x);
double FixedLog10(double x);
double FixedCos(double x);
double FixedPow(double x, double y);

}  // namespace hetsched
