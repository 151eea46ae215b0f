// Gavel's space-sharing ("packed") allocation policies (Narayanan et al., OSDI 2020, section 3.1:
// "space sharing"; stanford-futuredata/gavel @ c4fa400, scheduler/policies/*.py, the classes
// *WithPacking): the allocation LPs of allocation.h over combinations, each single job and each
// pair of AllocationProblem::pairs a row X[c][k] of its own. Formulations, with [SRC]/[REC] tags,
// in docs/space_sharing.md.
//
// Shared by every solve function here (Gavel's PolicyWithPacking.get_base_constraints,
// policy.py:163-182, with the per-job sums built from explicit index lists rather than Gavel's
// reshape, which is wrong when jobs have different numbers of pairs):
//   X >= 0;  per job i: sum_k X[i][k] + sum_{p contains i} sum_k X[p][k] <= 1;
//   per type k: sum_j g_j X[j][k] + sum_p g_p X[p][k] <= W_k (a pair takes its g devices once).
// Job i's effective throughput: sum_k T[i][k] X[i][k] + sum_{p contains i} sum_k T_i^p[k] X[p][k].
// Where Gavel's LPs keep a variable that can never run, these have none (X = 0) [REC]:
//   - a single job on a type where T = 0 or g > W_k (as the non-packed solvers);
//   - a pair on a type where either member's pair throughput is 0 (Gavel's LPs may give it time,
//     which adds nothing to their objectives and which its round mechanism never runs,
//     scheduler.py:821-827);
//   - a pair whose members ask for different GPU counts (Gavel never forms one and forces X = 0 on
//     it, max_min_fairness.py:341-344), or with a member that has no type it can run on alone.
// Jobs with no type they can run on alone are reported in Allocation::unplaceable (X = 0 on every
// row they are in). An empty problem is an optimal empty allocation.
#pragma once

#include <span>
#include <vector>

#include "hetsched/lp/linear_program.h"
#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/water_filling.h"
#include "hetsched/util/status.h"

namespace hetsched::gavel {

class PairColumnMemory;  // packed_columns.h

// ---- The share variables of the packed LPs ----

// The columns (share variables) of a packed LP: one per placeable job and type it can run on, then
// one per usable pair and type (both members placeable, same num_gpus, both pair throughputs > 0,
// g <= W_k). Rows r are the placeable jobs (job_of[r]).
struct PackedLayout {
  struct Column {
    int pair = -1;  // index into problem.pairs, or -1: the single job of row `row`
    int row = -1;   // the single's row (pair == -1)
    size_t type = 0;
    int gpus = 1;
  };
  std::vector<size_t> job_of;           // row -> job index
  std::vector<int> row_of;              // job index -> row, or -1 (unplaceable)
  std::vector<Column> columns;
  std::vector<std::vector<int>> single;  // [row][type] -> column, or -1
  // Per row: the terms (column, T_i^{c,k}) of job job_of[r]'s effective throughput, its own
  // columns first, then its pairs' in the order of problem.pairs.
  std::vector<std::vector<std::pair<int, double>>> terms;
  size_t rows() const { return job_of.size(); }
};
// The layout of `problem`; unplaceable jobs are appended to allocation->unplaceable (if given).
// `with_pairs` false: the singles alone (the layout AddShareVariables poses).
PackedLayout MakePackedLayout(const AllocationProblem& problem, Allocation* allocation, bool with_pairs = true);

// A usable pair column (pair `pair` on type `type`): its members' rows and their pair rates.
struct PairColumn {
  size_t pair = 0;
  size_t type = 0;
  int row_a = -1, row_b = -1;
  double t_a = 0, t_b = 0;
  int gpus = 1;
};
// A usable pair column's conditions (ForEachPairColumn, UsablePairColumn). Per pair: both members
// placeable (rows `row_of` as PackedLayout's) and of one GPU count (Gavel never pairs different
// ones); then *column holds the pair's part (its rows and GPUs). Per type: both pair rates > 0,
// g <= W_k; then the column's rates are written.
inline bool UsablePair(const AllocationProblem& problem, const std::vector<int>& row_of, size_t p,
                       PairColumn* column) {
  const AllocationPair& pair = problem.pairs[p];
  const size_t n = problem.jobs.size();
  if (pair.a >= n || pair.b >= n || pair.a == pair.b) return false;
  const int ra = row_of[pair.a], rb = row_of[pair.b];
  if (ra < 0 || rb < 0) return false;
  const int g = problem.jobs[pair.a].num_gpus;
  if (problem.jobs[pair.b].num_gpus != g) return false;
  *column = PairColumn{p, 0, ra, rb, 0, 0, g};
  return true;
}
inline bool UsableOnType(const AllocationProblem& problem, const AllocationPair& pair, size_t k, PairColumn* column) {
  const double ta = ThroughputOn(pair.throughput_a, k), tb = ThroughputOn(pair.throughput_b, k);
  if (!(ta > 0) || !(tb > 0) || column->gpus > problem.capacity[k]) return false;
  column->type = k;
  column->t_a = ta;
  column->t_b = tb;
  return true;
}
// Whether pair `p` on type `k` is a usable pair column; if so, *column is it.
inline bool UsablePairColumn(const AllocationProblem& problem, const std::vector<int>& row_of, size_t p, size_t k,
                             PairColumn* column) {
  return k < problem.capacity.size() && UsablePair(problem, row_of, p, column) &&
         UsableOnType(problem, problem.pairs[p], k, column);
}
// Calls visit(PairColumn) for every usable pair column of `problem`, pair by pair and type by type:
// the pair columns of MakePackedLayout, in its order. Cost: O(pairs x types).
template <class Visit>
void ForEachPairColumn(const AllocationProblem& problem, const std::vector<int>& row_of, Visit&& visit) {
  const size_t types = problem.capacity.size();
  PairColumn column;
  for (size_t p = 0; p < problem.pairs.size(); ++p) {
    if (!UsablePair(problem, row_of, p, &column)) continue;
    const AllocationPair& pair = problem.pairs[p];
    for (size_t k = 0; k < types; ++k) {
      if (UsableOnType(problem, pair, k, &column)) visit(static_cast<const PairColumn&>(column));
    }
  }
}

// Adds the layout's columns as variables [first, first + columns) with bounds [0, 1], then a time
// row per row r (its single columns, then its pairs' columns, <= 1) and a capacity row per type
// with a column. Returns `first`. Without pairs, exactly the program AddShareVariables builds for
// the same rows (count 1). `keyed`: keys for lp::WarmStartMatch::kName as AddShareVariables gives
// (a pair's column: KeyKind::kPairShare, a hash of its two job ids, k).
int AddPackedShares(lp::LinearProgram& program, const AllocationProblem& problem, const PackedLayout& layout,
                    bool keyed = false);
// Reads columns from an LP solution (variable first + column), clipped to [0, 1], into
// allocation->share and ->pair_share.
void ReadPackedShares(const std::vector<double>& values, int first, const AllocationProblem& problem,
                      const PackedLayout& layout, Allocation* allocation);

// Job j's effective throughput under `allocation` (its own row and its pairs'), from the
// problem's throughputs.
double PackedEffectiveThroughput(const AllocationProblem& problem, const Allocation& allocation, size_t j);
// Job j's total time share: sum_k X[j][k] + sum_{p contains j} sum_k X[p][k].
double PackedTimeShare(const AllocationProblem& problem, const Allocation& allocation, size_t j);

// ---- Solve functions ----

// Gavel's max_min_fairness_packed (MaxMinFairnessPolicyWithPacking, max_min_fairness.py:274-358):
//   max min_i  sum_{c contains i, k} (T_i^{c,k} / w_i) g_c X[c][k] / P_i,
// P_i = ProportionalThroughput (isolated rates). objective = that min.
// The second phase of an LP packed policy [REC]: kOff, none; kHeld, after the first phase one LP
// over the columns it priced in (one solve; with every column posed, every one); kPriced, that LP
// with its columns priced in too. What the LP keeps and maximises is the policy's (below).
enum class PackedSecondPhase { kOff, kHeld, kPriced };

struct MaxMinPackedOptions {
  // kOff (default): the first LP's vertex, Gavel's plain max-min, whose non-bottleneck jobs get
  // whatever the solver returns; on the reference cases of gavel_packed_test.cc it gives the same
  // per-job rates as Gavel with HiGHS in 7 of 12, and elsewhere differs by up to 35% (the second
  // phase: 6 of 12, up to 257%). Otherwise a second LP keeps the min at its optimum (less 1e-7
  // relative) and maximises the sum of the same normalised throughputs (work-conserving, as
  // gavel-las's default) [REC]; kHeld over the columns the first phase priced in (one solve from
  // its optimum: a rule's choice among the first phase's optima over those columns, not the
  // optimum of the second phase's LP over every column).
  PackedSecondPhase second_phase = PackedSecondPhase::kOff;
  // kPriced: each LP by column generation over the pair columns (packed_columns.h).
  PairColumns columns = PairColumns::kAll;
};
// `memory` (kPriced; may be null): the last solve's pair columns, posed from the start, and this
// solve's kept for the next (the same for the other LP solvers here).
Result<Allocation> SolveMaxMinFairnessPacked(const AllocationProblem& problem, const MaxMinPackedOptions& options,
                                             lp::WarmStartLpSolver& solver, PairColumnMemory* memory = nullptr);

// Gavel's finish_time_fairness_packed (FinishTimeFairnessPolicyWithPacking,
// finish_time_fairness.py:123-219): min max_i rho_i,
//   rho_i = (elapsed_i + remaining_i / sum_{c contains i, k} (T_i^{c,k} / w_i) X[c][k]) / D_i,
// D_i = `isolated_s[i]` (one per job of the problem; GavelFtfState::IsolatedTimes gives Gavel's
// Cum_i + remaining_i / I_i with I_i = GavelIsolatedThroughput), by bisection on rho over
// feasibility LPs (relative tolerance; kPriced: by tangent cuts, below). objective = max_i rho_i at the allocation returned. A job
// with nothing left to do has no need row (and no rho); one with work left but no positive finite
// D_i is unplaceable here [REC].
struct FtfPackedOptions {
  double tolerance = 1e-6;
  // kOff (default): the feasible vertex at the bracket's end, which on the reference cases of
  // gavel_packed_test.cc gives Gavel's per-job rates (within 1e-5) in 5 of 12, elsewhere up to 61%
  // apart (kPriced: 3 of 12, up to 731%). Otherwise the sum of the jobs' effective throughputs as
  // fractions of their best rate is maximised (work-conserving, as gavel-ftf's default) [REC]:
  // kHeld by one LP at the least rho after the search, over the columns held (`columns` kAll:
  // every one); kPriced with every column posed by every feasibility LP of the search, with the
  // columns priced by that LP after it, priced too.
  PackedSecondPhase second_phase = PackedSecondPhase::kOff;
  // kPriced: the least rho by tangent cuts instead of the bisection: each step an LP "min rho s.t.
  // each job's share of its best rate >= the tangent of its need g_i(rho) at the last step's rho",
  // the pair columns priced in until none improves it (its rho a lower bound over every column),
  // until the rho its allocation reaches is within the tolerance of that bound; the allocation
  // returned is that step's, or the second phase's at that rho [REC]. `last_rho` (kPriced; may be null): the rho of the caller's last solve, where the first
  // tangents are taken, and this solve's on return.
  PairColumns columns = PairColumns::kAll;
};
Result<Allocation> SolveFinishTimeFairnessPacked(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                                 const std::vector<double>& isolated_s,
                                                 const FtfPackedOptions& options = {},
                                                 PairColumnMemory* memory = nullptr, double* last_rho = nullptr);

// Gavel's min_total_duration_packed (MinTotalDurationPolicyWithPacking, min_total_duration.py:99-170):
// bisection on the horizon T over feasibility LPs
//   sum_{c contains i, k} T_i^{c,k} X[c][k] >= remaining_i / T   (no weights, no g factor),
// from [100 s, 1e6 s] while hi > 1.05 lo, the bracket moved up tenfold while nothing is feasible;
// the allocation is the feasible point at the last feasible T (any feasible point: Gavel's LP has no
// objective). objective = that T in seconds. `point`: where no pair can run (every usable column a
// single) the problem is the non-packed one and SolveMinTotalDurationBisection answers with that
// point; with pairs only kVertex is supported (the note says so where another was asked for).
// `columns` kPriced [REC]: one LP, max theta s.t. each job's rate x 3600 / remaining >= theta (theta
// <= 36, T >= 100 s), by column generation; the same bisection then asks of each T whether
// 3600 / T <= theta* (to 1e-9 relative), and the allocation is the optimum's point (feasible at
// every T the bisection accepts). `second_phase` [REC]: kOff (Gavel's any feasible point), or after
// the search one LP that maximises the sum of the jobs' rates as fractions of their best rate over
// the columns held (kHeld: one solve; with every column, every one) or priced in (kPriced), each
// job's rate held to theta (`columns` kPriced: theta*; kAll: 3600 / the T found).
Result<Allocation> SolveMinTotalDurationPacked(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                               SharePoint point = SharePoint::kVertex,
                                               PairColumns columns = PairColumns::kAll,
                                               PairColumnMemory* memory = nullptr,
                                               PackedSecondPhase second_phase = PackedSecondPhase::kOff);

// Gavel's max_min_fairness_water_filling_packed (MaxMinFairnessWaterFillingPolicyWithPacking,
// max_min_fairness_water_filling.py:431-535): SolveWaterFilling's levels (water_filling.h) over
// the packed LP, normalised share n_i = sum_{c contains i, k} T_i^{c,k} X[c][k] / P_i, Gavel's
// M = max_i max_{c contains i, k} T_i^{c,k} g_c / P_i. `gavel_extra_level`: Gavel's packed loop
// stops only when a level freezes nobody (it compares the frozen count with the number of
// combinations, :478), so after the last job freezes it solves one more level LP, whose objective
// is constant, and returns that LP's point (any point keeping every job at its level); false: the
// allocation of the level LP that froze the last jobs (as the non-packed loop). Only the simplex's
// vertex (options.point kVertex) where pairs can run.
struct WaterFillingPackedOptions {
  WaterFillingOptions base;
  bool gavel_extra_level = false;
};
// `memory`: kept from one solve to the next (options.base.remember_pair_columns).
Result<Allocation> SolveWaterFillingPacked(const AllocationProblem& problem, const EntityAssignment& entities,
                                           const WaterFillingPackedOptions& options, lp::WarmStartLpSolver& solver,
                                           WaterFillingTrace* trace = nullptr, PairColumnMemory* memory = nullptr);

// Gavel's max_sum_throughput_normalized_by_cost_packed_SLOs (ThroughputNormalizedByCostSumWithPackingSLOs,
// max_sum_throughput.py:88-157): max sum_i sum_{c contains i, k} T_i^{c,k} X[c][k] / p_k (a pair
// counts both members' rates; raw rates, no weights, no g factor; p_k = price_per_hour[k], 1 for
// every type where the problem has no prices), with SLO rows
// sum_{c contains i, k} T_i^{c,k} X[c][k] >= remaining_i / deadline_in_s_i for the jobs with a
// deadline; where they cannot all be met, solved again without them (the note says so).
// objective = the sum. (Gavel's simulator cannot run this policy from a trace, docs/space_sharing.md.)
// `columns` kPriced: by column generation; where the SLO rows make the LP over the columns held
// infeasible, every column is posed (only that proves the SLOs infeasible) [REC].
Result<Allocation> SolveMaxThroughputPerCostPacked(const AllocationProblem& problem, lp::WarmStartLpSolver& solver,
                                                   PairColumns columns = PairColumns::kAll,
                                                   PairColumnMemory* memory = nullptr);

// Gavel's fifo_packed (FIFOPolicyWithPacking = FIFOPolicy(mode='packing'), fifo.py:10-196), no
// solver: jobs in id order each take, among the types with room for their GPU count (by name), the
// one where they are fastest (first by name on ties), the whole type (X = 1) if that throughput is
// > 0 (else the job is passed over); the first job with no room anywhere ends the pass and is
// lost for this call. Then, while jobs are left in the queue, its head h pairs with the allocated
// single s (same num_gpus) on s's type k that maximises the gain
//   T_s^{p,k} / T_s[k] + T_h^{p,k} / T_h[k]   (a member's term counted where its pair rate > 0),
// if the gain exceeds `threshold`; the pair takes s's place (X[p][k] = 1, s's row 0). Ties go to
// the earliest allocated. Stops at the first head with no such partner (no job jumps the queue).
// Only pairs of problem.pairs with both pair throughputs > 0 on k count [REC: Gavel's gain also
// counts a pair with one member at 0, which its mechanism then never runs].
struct FifoPackedOptions {
  double threshold = 1.5;
};
Allocation SolveFifoPacked(const AllocationProblem& problem, const FifoPackedOptions& options = {});

}  // namespace hetsched::gavel
