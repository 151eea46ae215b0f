// LinearProgram building, and its solution with COIN-OR Clp (LP) and CBC (MIP). The only file
// that includes COIN-OR headers (the contract is lp/linear_program.h).
#include "hetsched/lp/linear_program.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include <coin/CbcModel.hpp>
#include <coin/ClpSimplex.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>

namespace hetsched::lp {

int LinearProgram::AddVariable(double lower, double upper, double objective, bool integer, std::string name) {
  lower_.push_back(lower);
  upper_.push_back(upper);
  objective_.push_back(objective);
  integer_.push_back(integer);
  var_names_.push_back(std::move(name));
  return num_variables() - 1;
}

int LinearProgram::AddConstraint(std::span<const std::pair<int, double>> terms, double lower, double upper,
                                 std::string name) {
  // Sum duplicate variables so that each row holds a variable at most once (Clp requires it).
  const size_t begin = row_terms_.size();
  for (const auto& [var, coef] : terms) {
    bool merged = false;
    for (size_t k = begin; k < row_terms_.size(); ++k) {
      if (row_terms_[k].first == var) {
        row_terms_[k].second += coef;
        merged = true;
        break;
      }
    }
    if (!merged) row_terms_.emplace_back(var, coef);
  }
  row_start_.push_back(static_cast<int>(row_terms_.size()));
  row_lower_.push_back(lower);
  row_upper_.push_back(upper);
  row_names_.push_back(std::move(name));
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

bool LinearProgram::has_integers() const { return std::find(integer_.begin(), integer_.end(), true) != integer_.end(); }

namespace {

// Validates indices (a wrong index would crash inside COIN-OR) and builds the row-ordered matrix.
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

}  // namespace

Result<Solution> SolveLp(const LinearProgram& program, const SolveOptions& options) {
  HETSCHED_RETURN_IF_ERROR(CheckProgram(program));
  if (program.num_variables() == 0) return Solution{};  // an empty program: optimum 0
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

Result<Solution> SolveMip(const LinearProgram& program, const SolveOptions& options) {
  HETSCHED_RETURN_IF_ERROR(CheckProgram(program));
  if (program.num_variables() == 0) return Solution{};
  if (!program.has_integers()) return SolveLp(program, options);
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
struct WarmStartLpSolver::Impl {
  ClpSimplex model;
  std::vector<unsigned char> basis;
  int columns = -1;
  int rows = -1;
};

WarmStartLpSolver::WarmStartLpSolver() : impl_(std::make_unique<Impl>()) { impl_->model.setLogLevel(0); }
WarmStartLpSolver::~WarmStartLpSolver() = default;

Result<Solution> WarmStartLpSolver::Solve(const LinearProgram& program) {
  HETSCHED_RETURN_IF_ERROR(CheckProgram(program));
  if (program.num_variables() == 0) return Solution{};
  try {
    Impl& s = *impl_;
    const bool warm = !s.basis.empty() && s.columns == program.num_variables() && s.rows == program.num_constraints();
    Load(program, &s.model);
    Solution solution;
    if (warm) {
      ++warm_starts_;
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
    impl_->basis.clear();
    return Status::Internal(std::string("lp: Clp failed: ") + e.what());
  } catch (...) {
    impl_->basis.clear();
    return Status::Internal("lp: Clp failed with a non-standard exception");
  }
}

}  // namespace hetsched::lp
