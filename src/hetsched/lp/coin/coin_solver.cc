// The COIN-OR back end of lp/ (lp/solver_backend.h), built as the module libhetsched_lp_coin.so:
// programs solved with Clp (LP, simplex; warm-started re-solves) and CBC (MIP, branch and cut).
// The only file that includes COIN-OR headers.
#include <cmath>
#include <exception>

#include <coin/CbcModel.hpp>
#include <coin/ClpSimplex.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include "hetsched/lp/solver_backend.h"

namespace hetsched::lp {
namespace {

CoinPackedMatrix RowMatrix(const LinearProgram& p) {
  std::vector<int> indices;
  std::vector<double> values;
  indices.reserve(p.row_terms().size());
  values.reserve(p.row_terms().size());
  for (const auto& [var, coef] : p.row_terms()) {
    indices.push_back(var);
    values.push_back(coef);
  }
  std::vector<int> lengths(static_cast<size_t>(p.num_constraints()));
  for (int r = 0; r < p.num_constraints(); ++r) {
    lengths[static_cast<size_t>(r)] = p.row_start()[static_cast<size_t>(r) + 1] - p.row_start()[static_cast<size_t>(r)];
  }
  // Row-ordered (colordered = false).
  return CoinPackedMatrix(false, p.num_variables(), p.num_constraints(), static_cast<CoinBigIndex>(values.size()),
                          values.data(), indices.data(), p.row_start().data(), lengths.data());
}

void Load(const LinearProgram& p, ClpSimplex* model) {
  const CoinPackedMatrix matrix = RowMatrix(p);
  model->loadProblem(matrix, p.lower().data(), p.upper().data(), p.objective().data(), p.row_lower().data(),
                     p.row_upper().data());
  model->setOptimizationDirection(p.sense() == Sense::kMaximize ? -1.0 : 1.0);
}

// Clp's status(): 0 optimal, 1 primal infeasible, 2 dual infeasible (unbounded), 3 stopped on
// limits, 4 stopped on errors.
Solution Extract(const ClpSimplex& model, long long iterations) {
  Solution s;
  s.iterations = iterations;
  switch (model.status()) {
    case 0: s.status = SolveStatus::kOptimal; break;
    case 1: s.status = SolveStatus::kInfeasible; break;
    case 2: s.status = SolveStatus::kUnbounded; break;
    default: s.status = SolveStatus::kLimitReached; break;
  }
  if (s.status == SolveStatus::kOptimal) {
    const double* x = model.getColSolution();
    s.values.assign(x, x + model.getNumCols());
    s.objective = model.objectiveValue();
  }
  return s;
}

// A cold solve: Clp's automatic choice of method, as its own driver does.
Solution ColdSolve(ClpSimplex* model) {
  model->initialSolve();
  long long iterations = model->numberIterations();
  if (model->status() >= 2) {
    // Confirm unboundedness (or recover from a numerical stop) with the primal simplex.
    model->primal();
    iterations += model->numberIterations();
  }
  return Extract(*model, iterations);
}

Result<Solution> CoinSolveLp(const LinearProgram& program, const SolveOptions& options) {
  try {
    ClpSimplex model;
    model.setLogLevel(options.log ? 1 : 0);
    Load(program, &model);
    return ColdSolve(&model);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("lp: Clp failed: ") + e.what());
  } catch (...) {
    return Status::Internal("lp: Clp failed with a non-standard exception");
  }
}

Result<Solution> CoinSolveMip(const LinearProgram& program, const SolveOptions& options) {
  try {
    OsiClpSolverInterface solver;
    const CoinPackedMatrix matrix = RowMatrix(program);
    solver.loadProblem(matrix, program.lower().data(), program.upper().data(), program.objective().data(),
                       program.row_lower().data(), program.row_upper().data());
    for (int v = 0; v < program.num_variables(); ++v) {
      if (program.integer()[static_cast<size_t>(v)]) solver.setInteger(v);
    }
    solver.setObjSense(program.sense() == Sense::kMaximize ? -1.0 : 1.0);
    solver.messageHandler()->setLogLevel(options.log ? 1 : 0);
    CbcModel model(solver);
    model.setLogLevel(options.log ? 1 : 0);
    model.setMaximumSeconds(options.time_limit_s);
    model.setAllowableFractionGap(options.relative_gap);
    model.branchAndBound();
    Solution s;
    s.iterations = model.getNodeCount();
    const bool has_incumbent = model.bestSolution() != nullptr;
    if (model.isProvenOptimal() && has_incumbent) {
      s.status = SolveStatus::kOptimal;
    } else if (model.isProvenInfeasible()) {
      s.status = SolveStatus::kInfeasible;
    } else if (model.isContinuousUnbounded() || model.isProvenDualInfeasible()) {
      s.status = SolveStatus::kUnbounded;
    } else {
      s.status = SolveStatus::kLimitReached;
    }
    if (has_incumbent) {
      const double* x = model.bestSolution();
      s.values.assign(x, x + program.num_variables());
      // Integral variables come back with round-off; snap them.
      for (int v = 0; v < program.num_variables(); ++v) {
        if (program.integer()[static_cast<size_t>(v)]) s.values[static_cast<size_t>(v)] = std::round(s.values[static_cast<size_t>(v)]);
      }
      s.objective = model.getObjValue();
    }
    return s;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("lp: CBC failed: ") + e.what());
  } catch (...) {
    return Status::Internal("lp: CBC failed with a non-standard exception");
  }
}

// The previous optimal basis (Clp's status array: one byte per column then per row), kept while
// the family's shape stays the same.
struct ClpWarmStartSession final : WarmStartSession {
  ClpWarmStartSession() { model.setLogLevel(0); }
  Result<Solution> Solve(const LinearProgram& program, long long* warm_starts) override;

  ClpSimplex model;
  std::vector<unsigned char> basis;
  int columns = -1;
  int rows = -1;
};


Result<Solution> ClpWarmStartSession::Solve(const LinearProgram& program, long long* warm_starts) {
  try {
    ClpWarmStartSession& s = *this;
    const bool warm = !s.basis.empty() && s.columns == program.num_variables() && s.rows == program.num_constraints();
    Load(program, &s.model);
    Solution solution;
    if (warm) {
      ++*warm_starts;
      s.model.copyinStatus(s.basis.data());
      // Bounds and coefficients changed a little: the dual simplex repairs primal infeasibility
      // from the old basis, then the primal simplex finishes any remaining dual infeasibility.
      s.model.dual(0);
      long long iterations = s.model.numberIterations();
      if (s.model.status() != 0) {
        s.model.primal(0);
        iterations += s.model.numberIterations();
      }
      solution = Extract(s.model, iterations);
      if (solution.status != SolveStatus::kOptimal) {
        // Let a cold solve have the last word on infeasible/unbounded.
        Load(program, &s.model);
        const long long before = iterations;
        solution = ColdSolve(&s.model);
        solution.iterations += before;
      }
    } else {
      solution = ColdSolve(&s.model);
    }
    if (solution.status == SolveStatus::kOptimal) {
      const unsigned char* status = s.model.statusArray();
      s.basis.assign(status, status + program.num_variables() + program.num_constraints());
      s.columns = program.num_variables();
      s.rows = program.num_constraints();
    } else {
      s.basis.clear();
    }
    return solution;
  } catch (const std::exception& e) {
    basis.clear();
    return Status::Internal(std::string("lp: Clp failed: ") + e.what());
  } catch (...) {
    basis.clear();
    return Status::Internal("lp: Clp failed with a non-standard exception");
  }
}

class CoinBackend final : public SolverBackend {
 public:
  Result<Solution> SolveLp(const LinearProgram& program, const SolveOptions& options) const override {
    return CoinSolveLp(program, options);
  }
  Result<Solution> SolveMip(const LinearProgram& program, const SolveOptions& options) const override {
    return CoinSolveMip(program, options);
  }
  std::unique_ptr<WarmStartSession> NewWarmStartSession() const override { return std::make_unique<ClpWarmStartSession>(); }
};

}  // namespace
}  // namespace hetsched::lp

extern "C" __attribute__((visibility("default"))) const hetsched::lp::SolverBackend* hetsched_lp_backend(int abi_version) {
  static const hetsched::lp::CoinBackend backend;
  return abi_version == hetsched::lp::kSolverBackendAbiVersion ? &backend : nullptr;
}
