// Column generation over a packed LP's pair columns [REC]: a program over every single column and
// only the pair columns that have been priced in, grown until no pair column left out could
// improve its optimum (reduced cost from the program's row duals). The packed LPs have a column per
// pair and type (O(active^2)), of which an optimum uses at most one per row; on 1,559 jobs of msr
// 11cb48 at 36:36:36 a water filling reset holds up to 105,160 of them (272 jobs), on the
// overloaded 1,928 jobs of msr 6214e9 a reset up to 4 million (1,663 jobs). The optimum so found is
// an optimal vertex of the whole program (the columns left out at 0, their reduced costs within the
// tolerance), not always the vertex the simplex reaches over every column.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "hetsched/lp/linear_program.h"
#include "hetsched/policies/gavel/packed.h"
#include "hetsched/util/status.h"

namespace hetsched::gavel {

// A pair column left out is priced in where its reduced cost exceeds this: Clp's dual feasibility
// tolerance (ClpSimplex's default), so that the program over the columns held is optimal over
// every column as far as Clp would tell [REC].
constexpr double kPairPricingTolerance = 1e-7;
// The most pair columns one pricing adds: a few per job (a vertex uses at most one column per row),
// those of the largest reduced costs; adding every improving column held 38% of a large water
// filling reset's pair columns (27,000 of 71,000), whose relaxations and MILPs then took most of
// the run.
inline size_t PairPricingBatch(size_t rows) { return 2 * rows + 8; }

// One pair column's share at a solution: pair (index into problem.pairs), type, value.
struct PairShare {
  size_t pair = 0;
  size_t type = 0;
  double value = 0;
};

// Where a re-solve after a pricing ends it although columns left out still price above the
// tolerance: it made no pivot, so the simplex entered none of the columns just priced in, and the
// largest reduced cost among them was at most this. Clp tests a column's reduced cost against
// its dual tolerance (1e-7, as kPairPricingTolerance) after scaling the program, PriceIn against
// the same figure unscaled, so a column priced in at 1e-7 to 4e-7 can be optimal to Clp. Without
// this end, on the overloaded 1,928-job case in the default mode one water filling level took 226
// pricing rounds from its 12th on, 1,764 columns each (396,660 held; the run stopped unfinished
// after 11 minutes): every column above 1e-7 unscaled, none of which Clp entered. The columns
// left out price below those just declined. A larger reduced cost declined goes on pricing. [REC]
constexpr double kPricingStallReducedCost = 10 * kPairPricingTolerance;

// What a packed policy keeps of one solve for the next (a reset later): the pair columns with a
// share at the last optimum, by their jobs' ids and type. PackedColumnSet::HoldRemembered poses
// them from the start, so that a warm start by key (lp::WarmStartMatch::kName) finds the last
// optimum's basis nearly whole and few columns are left to price in.
class PairColumnMemory {
 public:
  // The pair columns of `layout` with a share > 0 in `values` (from variable `first`).
  void Remember(const AllocationProblem& problem, const PackedLayout& layout, const std::vector<double>& values,
                int first);
  // The pair columns with a share > 0 in `shares`.
  void Remember(const AllocationProblem& problem, std::span<const PairShare> shares);
  struct Column {
    JobId a = 0, b = 0;
    size_t type = 0;
  };
  const std::vector<Column>& columns() const { return columns_; }

 private:
  std::vector<Column> columns_;
};

class PackedColumnSet {
 public:
  // The columns of `problem` (MakePackedLayout's; its unplaceable jobs appended to
  // allocation->unplaceable, if given): with `columns` kAll every one (the full layout, held), with
  // kPriced the singles and no pair column, the pair columns enumerated from problem.pairs at each
  // pricing (ForEachPairColumn) and never all laid out: O(singles + held) memory.
  // `problem` must outlive this.
  PackedColumnSet(const AllocationProblem& problem, Allocation* allocation, PairColumns columns);

  // The program's layout (for AddPackedShares): MakePackedLayout's rows, the singles, then the
  // pair columns held in MakePackedLayout's order (the full layout's restricted to those held).
  const PackedLayout& layout() const { return layout_; }
  // Whether every column is held (known to be after a pricing found none left out).
  bool holds_every_column() const { return all_held_; }
  void HoldEveryColumn();
  // Holds the pair columns of `memory` that the problem has (both jobs placeable, the column
  // usable; the first 8 types). Cost: O(memory x log pairs) where problem.pairs_ordered, else one
  // pass over the pair columns (as a pricing); O(rows + memory) space.
  void HoldRemembered(const PairColumnMemory& memory);

  // The dual prices a program built on layout() has for a pair column it lacks, where AddPackedShares
  // began its rows at `first_row`: its time row per row r (first_row + r), its capacity row per type
  // (in type order, types without a column have none), and, per row r, `per_rate[r]`: the objective
  // change per unit of job r's effective throughput sum_c T_r^c X_c through the program's own rows
  // (e.g. a floor row's dual over P_r), less what a unit of it adds to the objective where the
  // objective counts the rates (`gain_per_type[k]` more on type k where given: a price's 1 / p_k).
  // Adds every pair column left out whose reduced cost
  //   -(y_time[a] + y_time[b] + g y_capacity[k] + T_a (per_rate[a] - gain_k) + T_b (per_rate[b] - gain_k))
  // exceeds `tolerance` (a maximisation), at most `max_added` of them: those of the largest reduced
  // costs (ties: the first column). Returns how many it added. Cost: O(pair columns (held or not) +
  // the held columns' terms where any is added).
  size_t PriceIn(const std::vector<double>& duals, int first_row, const std::vector<double>& per_rate,
                 double tolerance, size_t max_added = static_cast<size_t>(-1),
                 std::span<const double> gain_per_type = {});
  // Whether `resolve`, the program's solve after the last PriceIn, ends the pricing: no pivot, and
  // every column that PriceIn added priced at most kPricingStallReducedCost.
  bool PricingStalled(const lp::Solution& resolve) const {
    return resolve.iterations == 0 && last_largest_reduced_cost_ <= kPricingStallReducedCost;
  }

 private:
  void Rebuild();
  // Calls visit(id, PairColumn) for every pair column of the problem, held or not, in
  // MakePackedLayout's order; id: pair x types + type (increasing in that order).
  template <class Visit>
  void ForEachCandidate(Visit&& visit) const;
  // The usable pair column of id `id` (ForEachCandidate's), as ForEachCandidate gives it.
  PairColumn CandidateColumn(size_t id) const;
  // Holds the columns of `ids` (increasing; ids already held are skipped), then rebuilds the layout.
  void Hold(const std::vector<size_t>& ids);

  const AllocationProblem* problem_ = nullptr;
  PackedLayout own_;                    // the singles (kPriced); empty with kAll (layout_ is every column)
  bool all_held_ = false;
  std::vector<PairColumn> held_pairs_;  // the pair columns held, by id
  std::vector<size_t> held_ids_;        // their ids, increasing
  PackedLayout layout_;
  double last_largest_reduced_cost_ = 0;  // of the columns the last PriceIn added
};

// The simplex by which a priced packed LP starts from a kept basis that is not its own last
// optimum (a reset's first solve, from the last reset's over other jobs): the primal. The old point, the jobs gone taken out, meets every row but those of
// the jobs that came (a max-min floor, a need row they cannot meet at 0); from there the primal
// simplex took a tenth of the dual's pivots on the overloaded 1,928 jobs of msr 6214e9 at 8:8:8
// (max-min packed: 44,000 against 467,000 over 962 resets, the run 68.7 -> 49.1 s; makespan packed
// 61,000 -> 19,000 pivots, 66.8 -> 56.0 s; docs/PERFORMANCE.md, "A reset's first solve") [REC].
constexpr lp::WarmAlgorithm kPricedWarmAlgorithm = lp::WarmAlgorithm::kPrimal;

// A program over a PackedColumnSet's columns, solved by column generation (PriceIn). `pose`
// builds it over columns.layout() (AddPackedShares's rows from the returned first row, the rest
// the caller's); `per_rate` writes PriceIn's per_rate (one per row of the layout) from an optimum;
// `gain_per_type` as PriceIn's; `enough`, where given, ends the pricing at an optimum it accepts
// (a feasibility test met over the columns held). Each re-solve after a pricing starts from the
// last optimum by the primal simplex (the old point, new columns at 0, still meets it: the solver
// should match by key, lp::WarmStartMatch::kName); the first by `first_algorithm`, in `slot`.
struct PairColumnPricing {
  std::function<int(lp::LinearProgram&)> pose;  // returns AddPackedShares's first row
  std::function<void(const lp::Solution&, std::vector<double>*)> per_rate;
  std::vector<double> gain_per_type;
  std::function<bool(const lp::Solution&)> enough;
  int slot = 0;
  // The first solve's simplex from the kept basis: the dual where the program is the last one with
  // bounds moved (a search's steps, whose infeasible programs the dual simplex proves so, where the
  // primal would fall back on a cold solve); kPricedWarmAlgorithm where the kept optimum is another
  // reset's.
  lp::WarmAlgorithm first_algorithm = lp::WarmAlgorithm::kDual;
};
// Returns the last solution (over columns.layout() as it is on return); its status is not optimal
// where a solve had no optimum (the pricing then stops). Counts the solves in `out`.
Result<lp::Solution> SolvePricingIn(PackedColumnSet& columns, const PairColumnPricing& pricing,
                                    lp::WarmStartLpSolver& solver, Allocation* out);

}  // namespace hetsched::gavel
