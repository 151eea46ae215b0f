// LinearProgram building and checking; the solvers run in the COIN-OR back end (lp/coin/,
// opened on first use: lp/solver_backend.h). The contract is lp/linear_program.h.
#include "hetsched/lp/linear_program.h"

#include <algorithm>
#include <cmath>

#include "hetsched/lp/solver_backend.h"
#include "hetsched/util/module_loader.h"

namespace hetsched::lp {

int LinearProgram::AddVariable(double lower, double upper, double objective, bool integer, std::string name) {
  lower_.push_back(lower);
  upper_.push_back(upper);
  objective_.push_back(objective);
  integer_.push_back(integer);
  var_names_.push_back(std::move(name));
  var_keys_.push_back(kNoKey);
  return num_variables() - 1;
}

int LinearProgram::AddConstraint(std::span<const std::pair<int, double>> terms, double lower, double upper,
                                 std::string name) {
  // Sum duplicate variables so that each row holds a variable at most once (Clp requires it),
  // in one pass: term_of_[var] is the position of var's term in this row (-1: none yet). An index
  // outside the variables is kept as given, for CheckProgram to report.
  const size_t begin = row_terms_.size();
  term_of_.resize(lower_.size(), -1);
  for (const auto& [var, coef] : terms) {
    const bool known = var >= 0 && static_cast<size_t>(var) < term_of_.size();
    if (known && term_of_[static_cast<size_t>(var)] >= 0) {
      row_terms_[static_cast<size_t>(term_of_[static_cast<size_t>(var)])].second += coef;
      continue;
    }
    if (known) term_of_[static_cast<size_t>(var)] = static_cast<int>(row_terms_.size());
    row_terms_.emplace_back(var, coef);
  }
  for (size_t k = begin; k < row_terms_.size(); ++k) {
    const int var = row_terms_[k].first;
    if (var >= 0 && static_cast<size_t>(var) < term_of_.size()) term_of_[static_cast<size_t>(var)] = -1;
  }
  row_start_.push_back(static_cast<int>(row_terms_.size()));
  row_lower_.push_back(lower);
  row_upper_.push_back(upper);
  row_names_.push_back(std::move(name));
  row_keys_.push_back(kNoKey);
  return num_constraints() - 1;
}

void LinearProgram::SetObjective(int var, double coefficient) { objective_.at(static_cast<size_t>(var)) = coefficient; }

void LinearProgram::SetVariableBounds(int var, double lower, double upper) {
  lower_.at(static_cast<size_t>(var)) = lower;
  upper_.at(static_cast<size_t>(var)) = upper;
}

void LinearProgram::SetConstraintBounds(int row, double lower, double upper) {
  row_lower_.at(static_cast<size_t>(row)) = lower;
  row_upper_.at(static_cast<size_t>(row)) = upper;
}

void LinearProgram::SetVariableKey(int var, Key key) { var_keys_.at(static_cast<size_t>(var)) = key; }

void LinearProgram::SetConstraintKey(int row, Key key) { row_keys_.at(static_cast<size_t>(row)) = key; }

bool LinearProgram::has_integers() const { return std::find(integer_.begin(), integer_.end(), true) != integer_.end(); }

namespace {

// Validates indices (a wrong index would crash inside COIN-OR).
Status CheckProgram(const LinearProgram& p) {
  const int n = p.num_variables();
  for (int r = 0; r < p.num_constraints(); ++r) {
    for (int k = p.row_start()[static_cast<size_t>(r)]; k < p.row_start()[static_cast<size_t>(r) + 1]; ++k) {
      const auto& [var, coef] = p.row_terms()[static_cast<size_t>(k)];
      if (var < 0 || var >= n) {
        return Status::InvalidArgument("lp: constraint " + std::to_string(r) + " names variable " +
                                       std::to_string(var) + " (program has " + std::to_string(n) + ")");
      }
      if (!std::isfinite(coef)) {
        return Status::InvalidArgument("lp: constraint " + std::to_string(r) + " has a non-finite coefficient");
      }
    }
  }
  for (int v = 0; v < n; ++v) {
    if (!std::isfinite(p.objective()[static_cast<size_t>(v)])) {
      return Status::InvalidArgument("lp: variable " + std::to_string(v) + " has a non-finite objective");
    }
  }
  return Status::Ok();
}

Result<const SolverBackend*> OpenSolverBackend() {
  constexpr const char* kModule = "libhetsched_lp_coin.so";
  HETSCHED_ASSIGN_OR_RETURN(
      void* entry, OpenModuleSymbol(kModule, HETSCHED_LP_BACKEND_SYMBOL, "COIN-OR's LP/MIP back end (for the LP-based methods)"));
  const SolverBackend* backend = reinterpret_cast<HetschedLpBackendFn>(entry)(kSolverBackendAbiVersion);
  if (backend == nullptr) {
    return Status::IoError(std::string(kModule) + ": LP back end built from other hetsched sources (interface version differs); rebuild it");
  }
  return backend;
}

}  // namespace

Result<const SolverBackend*> LpSolverBackend() {
  static const Result<const SolverBackend*> backend = OpenSolverBackend();
  return backend;
}

Result<Solution> SolveLp(const LinearProgram& program, const SolveOptions& options) {
  HETSCHED_RETURN_IF_ERROR(CheckProgram(program));
  if (program.num_variables() == 0) return Solution{};  // an empty program: optimum 0
  HETSCHED_ASSIGN_OR_RETURN(const SolverBackend* backend, LpSolverBackend());
  return backend->SolveLp(program, options);
}

Result<Solution> SolveMip(const LinearProgram& program, const SolveOptions& options) {
  HETSCHED_RETURN_IF_ERROR(CheckProgram(program));
  if (program.num_variables() == 0) return Solution{};
  if (!program.has_integers()) return SolveLp(program, options);
  HETSCHED_ASSIGN_OR_RETURN(const SolverBackend* backend, LpSolverBackend());
  return backend->SolveMip(program, options);
}

struct WarmStartLpSolver::Impl {
  WarmStartMatch match;
  bool in_place;
  std::unique_ptr<WarmStartSession> session;  // from the first Solve
};

WarmStartLpSolver::WarmStartLpSolver(WarmStartMatch match, bool in_place)
    : impl_(std::make_unique<Impl>(Impl{match, in_place, nullptr})) {}
WarmStartLpSolver::~WarmStartLpSolver() = default;

Result<Solution> WarmStartLpSolver::Solve(const LinearProgram& program, int slot, WarmAlgorithm algorithm) {
  HETSCHED_RETURN_IF_ERROR(CheckProgram(program));
  if (program.num_variables() == 0) return Solution{};
  if (!impl_->session) {
    HETSCHED_ASSIGN_OR_RETURN(const SolverBackend* backend, LpSolverBackend());
    impl_->session = backend->NewWarmStartSession(impl_->match, impl_->in_place);
  }
  return impl_->session->Solve(program, slot, algorithm, &counts_);
}

}  // namespace hetsched::lp
