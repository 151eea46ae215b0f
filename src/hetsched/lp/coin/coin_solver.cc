// The COIN-OR back end of lp/ (lp/solver_backend.h), built as the module libhetsched_lp_coin.so:
// programs solved with Clp (LP, simplex; warm-started re-solves) and CBC (MIP, branch and cut).
// The only file that includes COIN-OR headers.
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <coin/CbcModel.hpp>
#include <coin/ClpSimplex.hpp>
#include <coin/ClpSolve.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include "hetsched/lp/solver_backend.h"
#include "hetsched/util/flat_hash_map.h"

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

// A program's matrix by columns (Load's; kept by a warm-start session between solves so that its
// arrays are not allocated afresh every time).
struct ColumnMatrix {
  std::vector<CoinBigIndex> start, next;
  std::vector<int> index;
  std::vector<double> value;
};

// Loads the program column by column, each column's entries in row order: the matrix Clp would
// make of RowMatrix(p) (its column-ordered copy), without the row-ordered one.
void Load(const LinearProgram& p, ClpSimplex* model, ColumnMatrix* scratch) {
  const size_t n = static_cast<size_t>(p.num_variables());
  std::vector<CoinBigIndex>& start = scratch->start;
  std::vector<CoinBigIndex>& next = scratch->next;
  start.assign(n + 1, 0);
  for (const auto& [var, coef] : p.row_terms()) ++start[static_cast<size_t>(var) + 1];
  for (size_t v = 0; v < n; ++v) start[v + 1] += start[v];
  scratch->index.resize(p.row_terms().size());
  scratch->value.resize(p.row_terms().size());
  next.assign(start.begin(), start.end() - 1);
  for (int r = 0; r < p.num_constraints(); ++r) {
    for (int k = p.row_start()[static_cast<size_t>(r)]; k < p.row_start()[static_cast<size_t>(r) + 1]; ++k) {
      const auto& [var, coef] = p.row_terms()[static_cast<size_t>(k)];
      const CoinBigIndex at = next[static_cast<size_t>(var)]++;
      scratch->index[static_cast<size_t>(at)] = r;
      scratch->value[static_cast<size_t>(at)] = coef;
    }
  }
  model->loadProblem(p.num_variables(), p.num_constraints(), start.data(), scratch->index.data(),
                     scratch->value.data(), p.lower().data(), p.upper().data(), p.objective().data(),
                     p.row_lower().data(), p.row_upper().data());
  model->setOptimizationDirection(p.sense() == Sense::kMaximize ? -1.0 : 1.0);
}

// Clp's own value for a lower (upper) bound given to loadProblem: beyond -1e27 (1e27) it is
// minus (plus) COIN_DBL_MAX (ClpModel::gutsOfLoadModel).
double ClpLower(double v) { return v < -1.0e27 ? -COIN_DBL_MAX : v; }
double ClpUpper(double v) { return v > 1.0e27 ? COIN_DBL_MAX : v; }

// The start loadProblem gives a row or column: its bound nearest 0 (ClpModel::gutsOfLoadModel).
double DefaultActivity(double lower, double upper) { return lower > 0.0 ? lower : upper < 0.0 ? upper : 0.0; }

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
    const double* y = model.getRowPrice();
    s.duals.assign(y, y + model.getNumRows());
  }
  return s;
}

// A cold solve: Clp's automatic choice of method, as its own driver does (`presolve` false: with
// its presolve off).
Solution ColdSolve(ClpSimplex* model, bool presolve = true) {
  if (presolve) {
    model->initialSolve();
  } else {
    ClpSolve options;
    options.setPresolveType(ClpSolve::presolveOff);
    model->initialSolve(options);
  }
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
    ColumnMatrix matrix;
    Load(program, &model, &matrix);
    return ColdSolve(&model, options.presolve);
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
    if (options.max_nodes >= 0) {
      model.setMaximumNodes(static_cast<int>(std::min<long long>(options.max_nodes, std::numeric_limits<int>::max())));
    }
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

// An optimal basis (Clp's status array: one byte per column then per row) and the shape and names
// of its program, kept for a later program that matches it (lp::WarmStartMatch).
struct KeptBasis {
  std::vector<unsigned char> basis;
  int columns = -1;
  int rows = -1;
  // kName: the keys of the basis's program, when it keyed every variable and row, else its names,
  // when it named every one (at most one of the two is kept).
  std::vector<Key> column_keys, row_keys;
  std::vector<std::string> column_names, row_names;
};

// What a session's model was loaded with, for Reload: the program's matrix, and the ranges
// (upper - lower, in Clp's values) its variables and rows had then.
struct LoadedProgram {
  bool valid = false;
  // Its elements span more than 12 orders of magnitude: Clp's scaling then also raises that
  // solve's tolerances (ClpPackedMatrix::scale), which only a fresh load repeats.
  bool wide = false;
  std::vector<int> row_start;
  std::vector<std::pair<int, double>> row_terms;
  std::vector<double> ranges;  // columns, then rows
};

// Clp's primal feasibility tolerance in a warm-start session (Clp's default: 1e-7), set before
// every solve (Clp puts its default back after a solve in which it changed it). The Gavel
// policies' later phases hold the first phase's optimum to within 1e-7 of it, and on a trace's
// scale their optima move fast with that bound (gavel-makespan's theta, 3600 / makespan, is
// 1e-4 to 1e-2): at 1e-7, 1-14% of gavel-makespan's warm tie-break solves ended beyond the
// program's optimum, theta off its bound by less than the tolerance, with shares up to a whole
// job away from a cold solve's; the allocation depended on the path to the program, not on the
// program alone (docs/NOTES.md, "Session 25").
constexpr double kPrimalTolerance = 1e-10;

// The last optimal basis, and the last one of each slot (WarmStartLpSolver::Solve).
struct ClpWarmStartSession final : WarmStartSession {
  // The model is configured where it is made, by ColdLoad: a session's first solve has no basis
  // to start from, so it is always a cold one.
  ClpWarmStartSession(WarmStartMatch m, bool reuse) : match(m), in_place(reuse) {}
  Result<Solution> Solve(const LinearProgram& program, int slot, WarmAlgorithm algorithm,
                         WarmStartCounts* counts) override;
  // Puts `program` into the model for a warm start: in place where only its objective, bounds
  // and sense differ from the loaded one's (Reload; counted in *counts), else by loading it afresh.
  void Prepare(const LinearProgram& program, WarmStartCounts* counts);
  bool Reload(const LinearProgram& program);
  // Loads `program` into a new model for a cold solve. Clp's driver (initialSolve) changes some
  // of the model's settings for its own solve (special option 64, the factorisation frequency,
  // and more) and does not put all of them back when it ends without an optimum: a reused model
  // would make every later solve depend on whether an earlier program was infeasible.
  void ColdLoad(const LinearProgram& program);
  void Ranges(std::vector<double>* out) const;
  // The start for `program` from `kept`; empty when it does not match.
  std::vector<unsigned char> StartBasis(const LinearProgram& program, const KeptBasis& kept) const;
  void KeepBasis(const LinearProgram& program, KeptBasis* kept);

  WarmStartMatch match;
  bool in_place;
  ClpSimplex model;
  ColumnMatrix matrix;  // Load's arrays
  LoadedProgram loaded;
  std::vector<double> ranges;  // Reload's scratch
  KeptBasis last;
  std::map<int, KeptBasis> slots;
};

bool AllNamed(const LinearProgram& p) {
  auto named = [](const std::vector<std::string>& names) {
    return std::none_of(names.begin(), names.end(), [](const std::string& n) { return n.empty(); });
  };
  return named(p.variable_names()) && named(p.row_names());
}

bool AllKeyed(const LinearProgram& p) {
  auto keyed = [](const std::vector<Key>& keys) {
    return std::none_of(keys.begin(), keys.end(), [](Key k) { return k == kNoKey; });
  };
  return keyed(p.variable_keys()) && keyed(p.row_keys());
}

// Clp's status bytes (ClpSimplex::Status in the low three bits).
constexpr unsigned char kBasic = ClpSimplex::basic;
constexpr unsigned char kAtLowerBound = ClpSimplex::atLowerBound;

bool IsBasic(unsigned char status) { return (status & 7) == kBasic; }

// Each name's status in `status` (name i has status[i]); a repeated name keeps its first.
std::unordered_map<std::string_view, unsigned char> StatusByName(const std::vector<std::string>& names,
                                                                 const unsigned char* status) {
  std::unordered_map<std::string_view, unsigned char> out(names.size());
  for (size_t i = 0; i < names.size(); ++i) out.emplace(names[i], status[i]);
  return out;
}

// Each key's status in `status` (key i has status[i]); a repeated key keeps its first. Built and
// looked up in a few instructions a key, as every warm solve of a re-built program matches a
// thousand or so.
struct KeyHash {
  size_t operator()(Key key) const { return static_cast<size_t>(key); }  // FlatHashMap mixes it
};
using StatusByKey = FlatHashMap<Key, unsigned char, KeyHash>;

StatusByKey StatusOfKeys(const std::vector<Key>& keys, const unsigned char* status) {
  StatusByKey out;
  out.Reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] != kNoKey) out.Emplace(keys[i], status[i]);
  }
  return out;
}

// `key`'s status in `known`, or `otherwise`.
unsigned char StatusOr(const StatusByKey& known, Key key, unsigned char otherwise) {
  const unsigned char* status = known.Find(key);
  return status != nullptr ? *status : otherwise;
}

std::vector<unsigned char> ClpWarmStartSession::StartBasis(const LinearProgram& program, const KeptBasis& kept) const {
  const size_t n = static_cast<size_t>(program.num_variables()), m = static_cast<size_t>(program.num_constraints());
  if (kept.basis.empty()) return {};
  const bool same_shape = kept.columns == program.num_variables() && kept.rows == program.num_constraints();
  // Keys where both programs key everything, else names where both name everything, else shape.
  const bool by_key = match == WarmStartMatch::kName && !kept.column_keys.empty() && AllKeyed(program);
  const bool by_name =
      !by_key && match == WarmStartMatch::kName && !kept.column_names.empty() && AllNamed(program);
  if (!by_key && !by_name) return same_shape ? kept.basis : std::vector<unsigned char>{};
  std::vector<unsigned char> start(n + m);
  if (by_key) {
    if (program.variable_keys() == kept.column_keys && program.row_keys() == kept.row_keys) return kept.basis;
    const StatusByKey column_status = StatusOfKeys(kept.column_keys, kept.basis.data());
    const StatusByKey row_status = StatusOfKeys(kept.row_keys, kept.basis.data() + kept.column_keys.size());
    for (size_t v = 0; v < n; ++v) start[v] = StatusOr(column_status, program.variable_keys()[v], kAtLowerBound);
    for (size_t r = 0; r < m; ++r) start[n + r] = StatusOr(row_status, program.row_keys()[r], kBasic);
  } else {
    if (program.variable_names() == kept.column_names && program.row_names() == kept.row_names) return kept.basis;
    const auto column_status = StatusByName(kept.column_names, kept.basis.data());
    const auto row_status = StatusByName(kept.row_names, kept.basis.data() + kept.column_names.size());
    for (size_t v = 0; v < n; ++v) {
      const auto it = column_status.find(program.variable_names()[v]);
      start[v] = it != column_status.end() ? it->second : kAtLowerBound;
    }
    for (size_t r = 0; r < m; ++r) {
      const auto it = row_status.find(program.row_names()[r]);
      start[n + r] = it != row_status.end() ? it->second : kBasic;
    }
  }
  // A basis has one basic variable per row: where leavers and newcomers upset that, columns are
  // made nonbasic (at their lower bound) or rows basic, from the last.
  size_t basic = static_cast<size_t>(std::count_if(start.begin(), start.end(), IsBasic));
  for (size_t v = n; v-- > 0 && basic > m;) {
    if (IsBasic(start[v])) {
      start[v] = kAtLowerBound;
      --basic;
    }
  }
  for (size_t r = m; r-- > 0 && basic < m;) {
    if (!IsBasic(start[n + r])) {
      start[n + r] = kBasic;
      ++basic;
    }
  }
  return start;
}

void ClpWarmStartSession::KeepBasis(const LinearProgram& program, KeptBasis* kept) {
  const unsigned char* status = model.statusArray();
  kept->basis.assign(status, status + program.num_variables() + program.num_constraints());
  kept->columns = program.num_variables();
  kept->rows = program.num_constraints();
  const bool keyed = match == WarmStartMatch::kName && AllKeyed(program);
  const bool named = !keyed && match == WarmStartMatch::kName && AllNamed(program);
  if (keyed) {
    kept->column_keys = program.variable_keys();
    kept->row_keys = program.row_keys();
  } else {
    kept->column_keys.clear();
    kept->row_keys.clear();
  }
  if (!named) {
    kept->column_names.clear();
    kept->row_names.clear();
  } else if (kept->column_names != program.variable_names() || kept->row_names != program.row_names()) {
    kept->column_names = program.variable_names();
    kept->row_names = program.row_names();
  }
}

// The ranges (upper - lower) of the model's variables, then rows; from 1e27 on, infinity (a
// range that wide meets none of the scaling's tests, below).
void ClpWarmStartSession::Ranges(std::vector<double>* out) const {
  const int n = model.getNumCols(), m = model.getNumRows();
  out->resize(static_cast<size_t>(n + m));
  auto range = [](double lower, double upper) {
    const double d = upper - lower;
    return d >= 1.0e27 ? std::numeric_limits<double>::infinity() : d;
  };
  for (int v = 0; v < n; ++v) (*out)[static_cast<size_t>(v)] = range(model.columnLower()[v], model.columnUpper()[v]);
  for (int r = 0; r < m; ++r) (*out)[static_cast<size_t>(n + r)] = range(model.rowLower()[r], model.rowUpper()[r]);
}

// A program whose matrix is the loaded one's (the phases of one re-solve, the steps of a
// bisection) is put into the model in place, as loadProblem would leave it: Clp's values of its
// bounds and objective, every row and column at its default start, no duals. Unlike a fresh load,
// this keeps the model's scale factors (ClpPackedMatrix::scale, computed at the first solve after
// the load: about a tenth of a warm re-solve's time) and reuses its arrays. Those factors are a
// function of the matrix, of which variables are fixed (for a fixed one, of its status too) and
// of the ranges of the bounds; so the reload is refused, and the program loaded afresh, unless no
// variable is fixed and every range is the one the factors were computed with. The scaling's
// other effects on the model (lowered zero tolerances) are repeated alike by every solve of one
// matrix, except the raised primal and dual tolerances of a matrix whose elements span more
// than 12 orders of magnitude, which the next solve resets: such a matrix is loaded afresh. The
// solve is then the one a fresh load would give.
bool ClpWarmStartSession::Reload(const LinearProgram& p) {
  // The same row starts are the same number of rows; the model has the loaded program's columns.
  if (!loaded.valid || loaded.wide || model.getNumCols() != p.num_variables() || loaded.row_start != p.row_start() ||
      loaded.row_terms != p.row_terms()) {
    return false;
  }
  const int n = p.num_variables(), m = p.num_constraints();
  double* column_lower = model.columnLower();
  double* column_upper = model.columnUpper();
  double* row_lower = model.rowLower();
  double* row_upper = model.rowUpper();
  for (int v = 0; v < n; ++v) {
    column_lower[v] = ClpLower(p.lower()[static_cast<size_t>(v)]);
    column_upper[v] = ClpUpper(p.upper()[static_cast<size_t>(v)]);
  }
  for (int r = 0; r < m; ++r) {
    row_lower[r] = ClpLower(p.row_lower()[static_cast<size_t>(r)]);
    row_upper[r] = ClpUpper(p.row_upper()[static_cast<size_t>(r)]);
  }
  Ranges(&ranges);
  const bool fixed = std::any_of(ranges.begin(), ranges.begin() + n, [](double d) { return d <= 1.0e-12; });
  if (fixed || ranges != loaded.ranges) return false;
  model.chgObjCoefficients(p.objective().data());  // also marks everything changed (whatsChanged)
  model.setWhatsChanged(0);
  double* column_activity = model.primalColumnSolution();
  double* row_activity = model.primalRowSolution();
  for (int v = 0; v < n; ++v) column_activity[v] = DefaultActivity(column_lower[v], column_upper[v]);
  for (int r = 0; r < m; ++r) row_activity[r] = DefaultActivity(row_lower[r], row_upper[r]);
  std::fill_n(model.dualColumnSolution(), n, 0.0);
  std::fill_n(model.dualRowSolution(), m, 0.0);
  model.setOptimizationDirection(p.sense() == Sense::kMaximize ? -1.0 : 1.0);
  return true;
}

void ClpWarmStartSession::Prepare(const LinearProgram& p, WarmStartCounts* counts) {
  if (in_place && Reload(p)) {
    ++counts->in_place;
    return;
  }
  Load(p, &model, &matrix);
  loaded.valid = true;
  double smallest = 1.0e50, largest = 0.0;  // as ClpPackedMatrix::scale: elements above 1e-20
  for (const auto& term : p.row_terms()) {
    const double a = std::abs(term.second);
    if (a <= 1.0e-20) continue;
    smallest = std::min(smallest, a);
    largest = std::max(largest, a);
  }
  loaded.wide = smallest * 1.0e12 < largest;
  loaded.row_start = p.row_start();
  loaded.row_terms = p.row_terms();
  Ranges(&loaded.ranges);
}

void ClpWarmStartSession::ColdLoad(const LinearProgram& program) {
  loaded.valid = false;  // the cold solve that follows (Clp's own driver) leaves it otherwise than a load
  model = ClpSimplex();
  model.setLogLevel(0);
  model.setPrimalTolerance(kPrimalTolerance);
  Load(program, &model, &matrix);
}

Result<Solution> ClpWarmStartSession::Solve(const LinearProgram& program, int slot, WarmAlgorithm algorithm,
                                            WarmStartCounts* counts) {
  // kShape forgets its basis after a solve without an optimum (the next one starts cold); kName
  // starts the next one from the last optimum it kept.
  auto forget = [&] {
    if (match == WarmStartMatch::kShape) last.basis.clear();
  };
  try {
    const auto kept_slot = slot > 0 ? slots.find(slot) : slots.end();
    std::vector<unsigned char> start;
    if (kept_slot != slots.end()) start = StartBasis(program, kept_slot->second);
    if (start.empty()) start = StartBasis(program, last);
    Solution solution;
    if (!start.empty()) {
      Prepare(program, counts);
      ++counts->warm_starts;
      model.copyinStatus(start.data());
      model.setPrimalTolerance(kPrimalTolerance);
      long long iterations = 0;
      bool proven_infeasible = false;
      if (algorithm == WarmAlgorithm::kPrimal) {
        // The old point still meets the program (else phase 1 first): the primal simplex goes on
        // from it; anything but an optimum goes to the cold solve below.
        model.primal(0);
        iterations = model.numberIterations();
      } else {
        // Bounds and coefficients changed a little: the dual simplex repairs primal infeasibility
        // from the old basis, then the primal simplex finishes any remaining dual infeasibility.
        model.dual(0);
        iterations = model.numberIterations();
        // The dual simplex ends on status 1 when it has proven the program infeasible (a dual
        // ray), and that is final. A bisection meets many such programs, and confirming each with
        // the primal simplex and a cold solve cost 10-30 times the proof; of 857 counted on two
        // traces, every one was confirmed (docs/PERFORMANCE.md, "Session 23").
        proven_infeasible = model.status() == 1;
        if (model.status() != 0 && !proven_infeasible) {
          model.primal(0);
          iterations += model.numberIterations();
        }
      }
      solution = Extract(model, iterations);
      if (solution.status != SolveStatus::kOptimal && !proven_infeasible) {
        // Let a cold solve have the last word on an unbounded or unfinished solve.
        ColdLoad(program);
        const long long before = iterations;
        solution = ColdSolve(&model);
        solution.iterations += before;
      }
    } else {
      ColdLoad(program);
      solution = ColdSolve(&model);
    }
    if (solution.status == SolveStatus::kOptimal) {
      KeepBasis(program, &last);
      if (slot > 0) KeepBasis(program, &slots[slot]);
    } else {
      forget();
    }
    return solution;
  } catch (const std::exception& e) {
    forget();
    loaded.valid = false;
    return Status::Internal(std::string("lp: Clp failed: ") + e.what());
  } catch (...) {
    forget();
    loaded.valid = false;
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
  std::unique_ptr<WarmStartSession> NewWarmStartSession(WarmStartMatch match, bool in_place) const override {
    return std::make_unique<ClpWarmStartSession>(match, in_place);
  }
};

}  // namespace
}  // namespace hetsched::lp

extern "C" __attribute__((visibility("default"))) const hetsched::lp::SolverBackend* hetsched_lp_backend(int abi_version) {
  static const hetsched::lp::CoinBackend backend;
  return abi_version == hetsched::lp::kSolverBackendAbiVersion ? &backend : nullptr;
}
