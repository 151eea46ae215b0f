// Linear and mixed-integer programs, solved with COIN-OR Clp (LP, simplex) and CBC (MIP,
// branch and cut). The only place that includes COIN-OR headers: callers build a
// LinearProgram and get a Solution, with solver failures as Status values.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::lp {

inline constexpr double kInfinity = 1e30;  // COIN-OR's "no bound"

enum class Sense { kMinimize, kMaximize };

// A variable's or a row's name as a number, for WarmStartMatch::kName: a program built afresh
// for every solve names its variables and rows far more cheaply so than with strings (no string
// is built, hashed or compared). 0: none.
using Key = uint64_t;
inline constexpr Key kNoKey = 0;

class LinearProgram {
 public:
  // Adds a variable with bounds [lower, upper] (use +-kInfinity for none) and objective
  // coefficient `objective`. Returns its index.
  int AddVariable(double lower, double upper, double objective, bool integer = false, std::string name = "");
  // Adds lower <= sum(coef * x[var]) <= upper. Returns its index. Terms with the same variable
  // are summed. Cost: O(terms).
  int AddConstraint(std::span<const std::pair<int, double>> terms, double lower, double upper,
                    std::string name = "");
  void SetObjective(int var, double coefficient);
  // Changes a variable's or a constraint's bounds (same shape: a WarmStartLpSolver re-solve
  // starts from the previous basis).
  void SetVariableBounds(int var, double lower, double upper);
  void SetConstraintBounds(int row, double lower, double upper);
  void SetSense(Sense sense) { sense_ = sense; }
  // Gives a variable or a row a key (lp::Key), replacing its previous one.
  void SetVariableKey(int var, Key key);
  void SetConstraintKey(int row, Key key);

  int num_variables() const { return static_cast<int>(lower_.size()); }
  int num_constraints() const { return static_cast<int>(row_lower_.size()); }
  bool has_integers() const;

  // Read access for the solver back ends.
  Sense sense() const { return sense_; }
  const std::vector<double>& lower() const { return lower_; }
  const std::vector<double>& upper() const { return upper_; }
  const std::vector<double>& objective() const { return objective_; }
  const std::vector<bool>& integer() const { return integer_; }
  const std::vector<std::string>& variable_names() const { return var_names_; }
  const std::vector<double>& row_lower() const { return row_lower_; }
  const std::vector<double>& row_upper() const { return row_upper_; }
  const std::vector<std::string>& row_names() const { return row_names_; }
  // One per variable (row); kNoKey where none was set.
  const std::vector<Key>& variable_keys() const { return var_keys_; }
  const std::vector<Key>& row_keys() const { return row_keys_; }
  // Rows in compressed form: row r's terms are row_terms_[row_start_[r] .. row_start_[r+1]).
  const std::vector<int>& row_start() const { return row_start_; }
  const std::vector<std::pair<int, double>>& row_terms() const { return row_terms_; }

 private:
  Sense sense_ = Sense::kMinimize;
  std::vector<double> lower_, upper_, objective_;
  std::vector<bool> integer_;
  std::vector<std::string> var_names_;
  std::vector<double> row_lower_, row_upper_;
  std::vector<std::string> row_names_;
  std::vector<Key> var_keys_, row_keys_;
  std::vector<int> row_start_{0};
  std::vector<std::pair<int, double>> row_terms_;
  std::vector<int> term_of_;  // AddConstraint's scratch: per variable, its term in the row (-1)
};

enum class SolveStatus { kOptimal, kInfeasible, kUnbounded, kLimitReached };

struct Solution {
  SolveStatus status = SolveStatus::kOptimal;
  double objective = 0;
  std::vector<double> values;  // one per variable (empty unless optimal or a feasible incumbent)
  // LP optima only (else empty): one per row, the objective's rate of change per unit of the row's
  // binding bound, in the program's own sense (>= 0 for a binding upper bound of a maximisation).
  // A column a_j left out of the program would improve a maximisation's optimum only if
  // c_j - sum_i duals[i] a_ij > 0 (its reduced cost; < 0 for a minimisation).
  std::vector<double> duals;
  long long iterations = 0;    // simplex iterations (LP) or nodes (MIP)
};

struct SolveOptions {
  double time_limit_s = 60;     // MIP only
  // MIP only: the most branch-and-bound nodes CBC explores (-1: no limit). Unlike the time limit,
  // where it stops does not depend on the machine's speed: a MILP whose answer must repeat
  // (water filling's bottleneck) stops by nodes, its time limit off.
  long long max_nodes = -1;
  double relative_gap = 1e-9;   // MIP only
  bool log = false;             // solver log to stdout
  // LP only: false solves without Clp's presolve, for many small programs in which it finds
  // nothing to remove but costs more than the simplex (water filling's bottleneck relaxations:
  // 60% of their time, the same pivots and answers without it; docs/PERFORMANCE.md).
  bool presolve = true;
};

// SolveLp ignores integrality (it solves the relaxation); SolveMip honours it. Errors only for solver failures; infeasible/unbounded are
// statuses in the Solution.
Result<Solution> SolveLp(const LinearProgram& program, const SolveOptions& options = {});
Result<Solution> SolveMip(const LinearProgram& program, const SolveOptions& options = {});

// How a WarmStartLpSolver matches a program to the previous one's optimal basis.
enum class WarmStartMatch {
  // Warm only when the numbers of variables and rows are unchanged, index for index.
  kShape,
  // By name, when every variable and row of the program has one (else as kShape): each keeps the
  // status it had under its name (its key, lp::Key, where every variable and row has one: keys
  // are matched with keys, names with names); a new variable starts nonbasic at its lower bound,
  // a new row basic. A family whose programs gain or lose a few variables and rows (a job arrives or leaves)
  // then still starts warm. Names should be unique (a repeated one takes the first's status).
  kName,
};

// Which simplex a warm start runs from the kept basis.
enum class WarmAlgorithm {
  // The dual simplex (then the primal one for what is left): for a program whose bounds or rows
  // moved so that the old point is no longer feasible (the steps of a bisection, a new round).
  kDual,
  // The primal simplex (a cold solve where it ends without an optimum): for a program that the old
  // point still meets, where what changed makes the old basis dual infeasible (a row freed, an
  // objective changed). From a point on the edge of feasibility, the dual simplex can take hundreds
  // of pivots or declare such a program infeasible (gavel/water_filling.cc's later levels).
  kPrimal,
};

// What a WarmStartLpSolver counts (its accessors below).
struct WarmStartCounts {
  long long warm_starts = 0;
  long long in_place = 0;
};

// Re-solves a sequence of LPs of the same family, warm-starting each from the previous optimal
// basis when the new program matches it (WarmStartMatch). Used by round-based policies whose LP
// changes a little between rounds. Where an optimum is not unique, which optimal vertex comes back
// depends on the start: the same sequence of programs gives the same answers. After a solve
// without an optimum, kShape starts the next one cold; kName from the last optimum.
class WarmStartLpSolver {
 public:
  // `in_place`: a program whose matrix is the last solved one's (the phases of one re-solve, the
  // steps of a bisection) is solved in the loaded model, changed in place, rather than loaded
  // afresh; the answer is the same bit for bit (lp/coin/coin_solver.cc, Reload). false: every
  // warm solve loads its program (for comparison).
  explicit WarmStartLpSolver(WarmStartMatch match = WarmStartMatch::kShape, bool in_place = true);
  ~WarmStartLpSolver();
  WarmStartLpSolver(const WarmStartLpSolver&) = delete;
  WarmStartLpSolver& operator=(const WarmStartLpSolver&) = delete;
  // Starts from the last optimal basis (slot 0), or with `slot` > 0 from the last optimal basis of
  // a solve given that slot, where it matches (else the last one), and keeps the optimum under
  // the slot too. A family solved in phases (a first LP, then others from its optimum) starts
  // each first phase from the previous first phase's basis this way. `algorithm`: the simplex a
  // warm start runs (a cold solve is Clp's own choice either way).
  Result<Solution> Solve(const LinearProgram& program, int slot = 0, WarmAlgorithm algorithm = WarmAlgorithm::kDual);
  long long warm_starts() const { return counts_.warm_starts; }
  // Warm solves made in the loaded model (`in_place`).
  long long in_place_solves() const { return counts_.in_place; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  WarmStartCounts counts_;
};

}  // namespace hetsched::lp
