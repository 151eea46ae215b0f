// lp/'s solver back end: COIN-OR Clp (LP) and CBC (MIP) live in the module
// libhetsched_lp_coin.so (sources in lp/coin/), opened on the first solve (util/module_loader.h),
// so that a process that solves no program (a FIFO simulation, `hetsched --version`) does not
// load and relocate COIN-OR's libraries (about 10-20 ms of start-up). The functions of
// linear_program.h check the program, then call this back end. Plain C++ types only.
#pragma once

#include <memory>

#include "hetsched/lp/linear_program.h"
#include "hetsched/util/status.h"

namespace hetsched::lp {

// Bumped whenever an interface below changes: a module built from other sources is refused.
inline constexpr int kSolverBackendAbiVersion = 6;

// One WarmStartLpSolver's state (Clp's model and the last optimal basis).
class WarmStartSession {
 public:
  virtual ~WarmStartSession() = default;
  // REQUIRES: a checked program with at least one variable. `slot` and `algorithm` as
  // WarmStartLpSolver::Solve's. Adds to *counts.
  virtual Result<Solution> Solve(const LinearProgram& program, int slot, WarmAlgorithm algorithm,
                                 WarmStartCounts* counts) = 0;
};

class SolverBackend {
 public:
  virtual ~SolverBackend() = default;
  // REQUIRES (for all three): a checked program with at least one variable; SolveMip's has integers.
  virtual Result<Solution> SolveLp(const LinearProgram& program, const SolveOptions& options) const = 0;
  virtual Result<Solution> SolveMip(const LinearProgram& program, const SolveOptions& options) const = 0;
  virtual std::unique_ptr<WarmStartSession> NewWarmStartSession(WarmStartMatch match, bool in_place) const = 0;
};

// The back end, loaded on the first call (thread-safe; kept for the life of the process). Error:
// the module is missing, cannot be loaded, or was built from other sources (the message names
// the paths tried); kept, later calls return it.
Result<const SolverBackend*> LpSolverBackend();

}  // namespace hetsched::lp

// The module's one exported symbol: its back end, or null when `abi_version` differs.
extern "C" {
using HetschedLpBackendFn = const hetsched::lp::SolverBackend* (*)(int abi_version);
}
#define HETSCHED_LP_BACKEND_SYMBOL "hetsched_lp_backend"
