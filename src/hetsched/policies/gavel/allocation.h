// Gavel's heterogeneity-aware allocation problems (Narayanan et al., OSDI 2020, section 4): the
// inputs every allocation policy shares, and one solve function per objective. Formulations,
// with [SRC]/[REC] tags, in docs/gavel.md.
//
// An allocation X[j][k] is the fraction of time job j runs on its num_gpus devices of type k:
//   X >= 0,  sum_k X[j][k] <= 1 (per job),  sum_j g_j X[j][k] <= W_k (per type),
// and X[j][k] = 0 where the job cannot run (throughput 0). Effective throughput:
// sum_k T[j][k] X[j][k]. Every function here is pure apart from the warm-started solver it is
// given, and reports an empty problem (no jobs) as an optimal empty allocation.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "hetsched/lp/linear_program.h"
#include "hetsched/policies/gavel/centre.h"
#include "hetsched/model/job.h"
#include "hetsched/util/status.h"

namespace hetsched::gavel {

inline constexpr double kNoDeadlineS = std::numeric_limits<double>::infinity();

struct AllocationJob {
  JobId id = 0;
  int num_gpus = 1;
  double weight = 1;                // priority weight (> 0)
  std::vector<double> throughput;   // T[j][k], iterations/s on num_gpus devices of type k; 0 = cannot
  double remaining_iterations = 0;  // makespan, ftf, cost SLOs
  double total_iterations = 0;      // ftf
  double elapsed_s = 0;             // ftf: time since submission
  double deadline_in_s = kNoDeadlineS;  // cost: deadline minus now (SLO), or none
};

// A throughput row's rate on type k (AllocationJob::throughput, AllocationPair's views); 0 where
// the row has no entry for k (a type past its end).
inline double ThroughputOn(std::span<const double> t, size_t k) { return k < t.size() ? t[k] : 0.0; }

// Space sharing (Gavel's packed policies; docs/space_sharing.md): two jobs of the problem run
// together on the same num_gpus devices of a type (both jobs ask for the same num_gpus; Gavel
// pairs only jobs of one scale factor, scheduler.py:2208-2209). The rates are views: whoever poses
// the problem keeps them alive while it is solved (a policy poses O(active^2) pairs at every reset,
// not copied).
struct AllocationPair {
  size_t a = 0, b = 0;                    // indices into AllocationProblem::jobs, a < b
  std::span<const double> throughput_a;  // job a's iterations/s on type k while paired there; 0: cannot pair there
  std::span<const double> throughput_b;  // job b's
};

// Which pair columns a packed LP poses (option `columns` of the LP packed policies, packed.h): kAll
// every one (a column per pair and type, O(active^2)); kPriced only those priced in from the LP's
// duals (column generation, packed_columns.h): an optimum of the same LP, another vertex where the
// optimum is not unique [REC].
enum class PairColumns { kAll, kPriced };

struct AllocationProblem {
  std::vector<int> capacity;               // W_k, devices of type k
  std::vector<std::string> type_names;     // catalog name of type k (Gavel's FIFO orders by name)
  std::vector<double> price_per_hour;      // per device of type k (cost policy)
  std::vector<AllocationJob> jobs;
  // Packed policies only (empty otherwise): the pairs they may give time to, each pair a combination
  // with its own shares X[p][k]. A job's time constraint then sums its own row and its pairs'
  // (sum_k X[j][k] + sum_{p containing j} sum_k X[p][k] <= 1), and a pair takes its num_gpus
  // devices of type k once (sum_j g_j X[j][k] + sum_p g_p X[p][k] <= W_k).
  std::vector<AllocationPair> pairs;
  // Whether `pairs` is in increasing (b, a) order with no pair twice (RoundPolicy::ProblemNow's, as
  // Gavel's priority lists): a pair is then found from its two jobs by a binary search
  // (PackedColumnSet::HoldRemembered), not a pass over them all.
  bool pairs_ordered = false;
};

// `rows` rows of shares by type, 0 until written. Only the rows written are stored: a packed
// problem has O(active^2) pair rows at every reset, and most get no share (fifo and gandiva write a
// few): no block of them all to allocate and clear.
class ShareRows {
 public:
  ShareRows() = default;
  ShareRows(size_t rows, size_t types) : rows_(rows), zero_(types, 0.0) {}
  size_t size() const { return rows_; }
  bool empty() const { return rows_ == 0; }
  // Row `row` to write (stored, at 0, on first access); the view is valid until another row is
  // first accessed. REQUIRES: row < size().
  std::span<double> operator[](size_t row);
  // Row `row` to read (0 where never written); valid as above.
  std::span<const double> operator[](size_t row) const;
  // The rows accessed for writing, in the order first accessed (every other row is 0).
  const std::vector<size_t>& written() const { return written_; }

 private:
  size_t rows_ = 0;
  std::vector<double> zero_;                   // a row of 0 (its length: the number of types)
  std::unordered_map<size_t, size_t> offset_;  // row -> its values' offset in values_
  std::vector<size_t> written_;
  std::vector<double> values_;
};

struct Allocation {
  std::vector<std::vector<double>> share;  // X[j][k], in the order of problem.jobs
  ShareRows pair_share;                    // X[p][k], in the order of problem.pairs (packed policies)
  double objective = 0;                    // the objective's value (policy-specific, see docs)
  lp::SolveStatus status = lp::SolveStatus::kOptimal;
  long long lp_solves = 0;
  long long simplex_iterations = 0;
  std::vector<JobId> unplaceable;          // jobs with no type they can run on (X = 0)
  std::string note;                        // e.g. "SLOs infeasible: solved without them"
};

// An optimal allocation of nothing: X = 0 for every job and type (each solve starts from it).
Allocation ZeroAllocation(const AllocationProblem& problem);

// Effective throughput sum_k T[j][k] X[j][k].
double EffectiveThroughput(const AllocationJob& job, const std::vector<double>& share);

// Throughput of job j under an equal 1/n share of the cluster (n = number of jobs): g_j devices
// for a fraction W_k / (n g_j) of the time on each type it can use, scaled down to a total
// fraction of at most 1. [REC] from the paper's X^equal normalisation (docs/gavel.md).
double EqualShareThroughput(const AllocationProblem& problem, size_t j);
// The type indices in the order of their names (Gavel's policies sort their worker types:
// policy.py flatten); catalog order where the problem does not name every type.
std::vector<size_t> TypesByName(const AllocationProblem& problem);

// Gavel's ProportionalPolicy throughput: sum_k T[j][k] W_k / sum_k W_k (every type counts,
// whether or not the job can use it; policies/proportional.py:27-35).
double ProportionalThroughput(const AllocationProblem& problem, size_t j);

// gavel-las: max min_j  T_j.X_j / (w_j * EqualShareThroughput_j). With `aggregate` jobs with the
// same (g, w, T row) share one set of variables (exact: the LP is symmetric in them, so a
// symmetric optimum exists). A second LP keeps the min at its optimum and maximises the sum of the
// normalised throughputs, so no capacity is left idle that a job could use.
struct MaxMinOptions {
  bool normalise = true;   // false: max min_j T_j.X_j / w_j (raw throughputs)
  // Gavel's simulator's normaliser instead (policies/max_min_fairness.py:51-63 with
  // proportional.py:27-35): max min_j g_j T_j.X_j / (w_j P_j), P_j = sum_k T[j][k] W_k / sum_k W_k.
  bool proportional = false;
  bool aggregate = true;
  bool second_phase = true;
  SharePoint point = SharePoint::kVertex;  // which optimum where it is not unique (gavel_centre.h)
};
Result<Allocation> SolveMaxMinFairness(const AllocationProblem& problem, const MaxMinOptions& options,
                                       lp::WarmStartLpSolver& solver);

// Which optimum gavel-makespan and gavel-ftf keep where their final LP's is not unique (jobs of
// one model are interchangeable, so the optimal face is often wide). [REC] docs/gavel.md.
enum class TieBreak {
  // The vertex the simplex reaches: it depends on where the solve started (a warm start from
  // another program's basis ends elsewhere than a cold solve).
  kNone,
  // A last LP keeps the final objective at its optimum and maximises the squares of the same
  // normalised throughputs (per type), weighted by the jobs' rank (the first weighs 1, the last 1/n): gavel-makespan ranks the job with the least time left alone on its best type
  // first, gavel-ftf the job with the largest rho bound (alone on its best type) first; ties by
  // job id. Of two interchangeable jobs the higher-ranked gets the share, on the faster type, so
  // the allocation depends far less on where the simplex started (SolveTieBreak).
  kRanked,
};

// gavel-makespan: min max_j remaining_j / T_j.X_j, as max theta s.t. T_j.X_j >= remaining_j theta
// (makespan = 1/theta), then a second LP as above, then the tie-break's. objective = the makespan
// in seconds.
Result<Allocation> SolveMinMakespan(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                    TieBreak tie_break = TieBreak::kRanked);
// Gavel's min_total_duration_perf as its code solves it (policies/min_total_duration.py:74-96):
// bisection on the makespan over pure feasibility LPs (no objective), stopped when the bracket is
// within 5%; the allocation is the solver's feasible point at the bracket's upper end (not an
// optimum, and no second phase). objective = that makespan in seconds.
// With `point` kCentre the allocation is the analytic centre of the feasible set at that makespan
// (what an interior-point solver tends to for a problem without objective), with kCvxopt the point
// cvxopt's solver returns, instead of a vertex.
Result<Allocation> SolveMinTotalDurationBisection(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                                  SharePoint point = SharePoint::kVertex);

// gavel-ftf: min max_j rho_j, rho_j = (elapsed_j + remaining_j / T_j.X_j) / D_j (Themis's
// finish-time fairness), by bisection on rho over feasibility LPs (relative tolerance
// `tolerance`). objective = the max rho reached. D_j, the job's time in isolation, is
// `isolated_s[j]` when given (one per job of the problem), else hetsched's total_j / equal_j.
// With `second_phase` the allocation at the optimum maximises the sum of the jobs' throughputs as
// fractions of their best (work-conserving); without, it maximises min_j T_j.X_j / need_j, the
// level LP of Gavel's solver stand-in (every job's share of what the optimum asks of it).
struct FtfOptions {
  double tolerance = 1e-3;
  bool second_phase = true;
  TieBreak tie_break = TieBreak::kRanked;  // with second_phase and point kVertex only
  SharePoint point = SharePoint::kVertex;  // without second phase: the level LP's point (gavel_centre.h)
};
Result<Allocation> SolveFinishTimeFairness(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                           const FtfOptions& options = {},
                                           const std::vector<double>* isolated_s = nullptr);

// Gavel's IsolatedPolicy throughput (policies/isolated.py:25-47): x[k] = W_k / (n g_j) on every
// type of the cluster (usable or not), scaled so that sum_k x[k] <= 1; returns sum_k T[j][k] x[k].
double GavelIsolatedThroughput(const AllocationProblem& problem, size_t j);
// The factor that keeps an isolated job's shares (capacity[k] / (jobs x gpus) of each type k)
// within one round: 1 / max(sum of them, 1) (isolated.py). Shared by the isolated policy and the
// finish-time fairness reference.
double IsolatedShareScale(const AllocationProblem& problem, double gpus);

// What Gavel's finish_time_fairness_perf keeps between solves (policies/finish_time_fairness.py:
// 44-120): each job's cumulative isolated time C_j, grown at every solve by the steps it made
// since the previous one over its isolated throughput at that solve. IsolatedTimes returns
// D_j = C_j + remaining_j / I_j for this solve's jobs and records this solve for the next.
class GavelFtfState {
 public:
  std::vector<double> IsolatedTimes(const AllocationProblem& problem);

 private:
  struct Seen {
    double cumulative_s = 0;
    double remaining = 0;   // at the previous solve
    double isolated = 0;    // I_j at the previous solve
    bool in_previous = false;
  };
  std::map<JobId, Seen> jobs_;
};

// gavel-cost: max sum_j sum_k (T[j][k] / T_j^max) X[j][k] / (g_j p_k): normalised throughput per
// dollar per hour, with SLOs T_j.X_j >= remaining_j / deadline_in_j as constraints. If the SLOs
// cannot all be met the LP is solved without them (note says so).
Result<Allocation> SolveMaxThroughputPerDollar(const AllocationProblem& problem, lp::WarmStartLpSolver& solver);

// gavel-isolated (isolated.cc): the cluster split evenly over the jobs, W_k / (n g_j) of each type,
// each row scaled to at most 1; 0 where a job cannot run.
Allocation SolveIsolated(const AllocationProblem& problem);

// gavel-throughput (Gavel's max_sum_throughput_perf): max sum_j sum_k T[j][k] X[j][k].
// `point`: kVertex (the simplex's) or kCvxopt (cvxopt's interior point; gavel_cvxopt.h).
Result<Allocation> SolveMaxSumThroughput(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                         SharePoint point = SharePoint::kVertex);

// ---- Shared by the solve functions (one per policy file) ----

// Share variables X[r][k] in [0, 1] for rows r (a job, or a class of identical jobs), only where
// throughput[r][k] > 0 and gpus[r] <= capacity[k]; index -1 elsewhere. Adds the per-row time
// constraint sum_k X[r][k] <= 1 and the per-type capacity sum_r count[r] g[r] X[r][k] <= W_k.
// With `row_ids` (one job id per row) they are keyed for lp::WarmStartMatch::kName (lp::Key,
// JobKey): X[r][k] (kShare, id, k), the time row (kTime, id), the capacity rows (kCapacity, -, k);
// a caller keys its own variables and rows alike.
struct ShareVariables {
  std::vector<std::vector<int>> index;  // [row][type] -> variable, or -1
};
ShareVariables AddShareVariables(lp::LinearProgram& program, const std::vector<const std::vector<double>*>& throughput,
                                 const std::vector<int>& gpus, const std::vector<double>& count,
                                 const std::vector<int>& capacity, const std::vector<JobId>& row_ids = {});
// The key (lp::Key) of a variable or row of the allocation LPs: its kind, the job's id (0 where
// none; ids below 2^48) and the type k (below 256). Never lp::kNoKey.
enum class KeyKind : uint8_t { kTheta = 1, kShare, kTime, kCapacity, kNeed, kWork, kPairShare, kFloor, kEpigraph };
lp::Key JobKey(KeyKind kind, JobId id = 0, size_t type = 0);
std::vector<double> ReadShares(const lp::Solution& solution, const ShareVariables& vars, size_t row, size_t types);

// The bisection solvers' searches. `feasible_at(x, &solution)`: whether the program is feasible at
// x (its solution then written); a solver fault is an error.
using FeasibleAt = std::function<Result<bool>(double, lp::Solution*)>;
// Gavel's min_total_duration horizon search (min_total_duration.py:74-96, :145-166): bisection on
// the horizon T in [100 s, 1e6 s] while the bracket is wider than 5%, moved up tenfold while nothing
// in it is feasible. Returns the last feasible T and writes its solution. `who` names the policy in
// the error where no horizon is (an infinite bracket).
Result<double> GavelHorizonSearch(const FeasibleAt& feasible_at, lp::Solution* at, const std::string& who);
// The least x >= lo at which the program is feasible, to relative `tolerance`: `*hi` starts at
// max(lo, 1e-9), is doubled (at most 80 times) until feasible, then bisected against `lo`; `*at_hi`
// is the solution at the returned `*hi`. False where no x was feasible. An infinite tolerance
// keeps the first feasible hi.
Result<bool> LeastFeasible(const FeasibleAt& feasible_at, double lo, double tolerance, double* hi, lp::Solution* at_hi);

// Whether job j can run on at least one type (some T > 0 with g <= W).
bool Placeable(const AllocationProblem& problem, size_t j);
// The LP rows of the jobs that can run somewhere (row r is job job_of[r]); the others are added to
// allocation->unplaceable.
struct PlaceableRows {
  std::vector<const std::vector<double>*> throughput;
  std::vector<int> gpus;
  std::vector<size_t> job_of;
  std::vector<JobId> id;  // of job job_of[r]
  bool empty() const { return job_of.empty(); }
  size_t size() const { return job_of.size(); }
};
PlaceableRows CollectPlaceableRows(const AllocationProblem& problem, Allocation* allocation);
// max_k T[j][k] over the types it can use (0 if none).
double BestThroughput(const AllocationProblem& problem, size_t j);

// Solves `program` (whose objective is to maximise `epigraph`), then, if `second_objective` is
// non-empty, keeps the epigraph variable at its optimum (relative slack 1e-7) and maximises
// second_objective (one coefficient per variable). Counts solves and iterations in `allocation`.
// The first LP is solved in the solver's slot `first_slot` (lp::WarmStartLpSolver::Solve).
Result<lp::Solution> SolveEpigraphTwoPhase(lp::LinearProgram& program, int epigraph,
                                           const std::vector<double>& second_objective,
                                           lp::WarmStartLpSolver& solver, Allocation* allocation, int first_slot = 0);

// TieBreak::kRanked's last LP. AddWorkRow adds the row "work" (key kWork), sum_v objective[v] x_v, free until
// SolveTieBreak bounds it (added with the other rows, so that every phase has one shape).
// SolveTieBreak keeps that sum >= `optimum` (relative slack 1e-7) and maximises
// sum_v objective[v]^2 x_v (n - rank(v)) / n, rank(v) the position of v's row when the rows
// are sorted by `key` (ascending), then by `row_ids`; `vars` maps rows to variables. It starts
// from the basis of the previous tie-break (solver slot kTieBreakSlot). Returns `at_optimum`
// where the LP ends without an optimum. Counts the solve in `allocation`.
inline constexpr int kTieBreakSlot = 3;
int AddWorkRow(lp::LinearProgram& program, const std::vector<double>& objective);
Result<lp::Solution> SolveTieBreak(lp::LinearProgram& program, int work_row, const std::vector<double>& objective,
                                   double optimum, const ShareVariables& vars, const std::vector<JobId>& row_ids,
                                   const std::vector<double>& key, lp::Solution at_optimum, lp::WarmStartLpSolver& solver,
                                   Allocation* allocation);

}  // namespace hetsched::gavel
