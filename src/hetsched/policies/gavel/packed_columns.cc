// PackedColumnSet (packed_columns.h): the restricted layout, the pricing of the pair columns left
// out of it, and the column generation loop.
#include "hetsched/policies/gavel/packed_columns.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <unordered_map>
#include <utility>

namespace hetsched::gavel {

PackedColumnSet::PackedColumnSet(const AllocationProblem& problem, Allocation* allocation, PairColumns columns)
    : problem_(&problem), own_(MakePackedLayout(problem, allocation, columns == PairColumns::kAll)),
      all_held_(columns == PairColumns::kAll || problem.pairs.empty()) {
  if (columns == PairColumns::kAll) {
    layout_ = std::move(own_);  // every column: the layout itself, no copy
    own_ = {};
  } else {
    layout_ = own_;
  }
}

// The singles (own_'s columns, which come first in MakePackedLayout's order), then the pair
// columns held in id order (its order too): the layout MakePackedLayout's columns restricted to
// those held would be.
void PackedColumnSet::Rebuild() {
  layout_.columns.resize(own_.columns.size());
  for (size_t r = 0; r < own_.rows(); ++r) layout_.terms[r].resize(own_.terms[r].size());
  for (const PairColumn& pc : held_pairs_) {
    const int c = static_cast<int>(layout_.columns.size());
    layout_.columns.push_back({static_cast<int>(pc.pair), -1, pc.type, pc.gpus});
    layout_.terms[static_cast<size_t>(pc.row_a)].emplace_back(c, pc.t_a);
    layout_.terms[static_cast<size_t>(pc.row_b)].emplace_back(c, pc.t_b);
  }
}

template <class Visit>
void PackedColumnSet::ForEachCandidate(Visit&& visit) const {
  const size_t types = problem_->capacity.size();
  ForEachPairColumn(*problem_, layout_.row_of, [&](const PairColumn& pc) { visit(pc.pair * types + pc.type, pc); });
}

PairColumn PackedColumnSet::CandidateColumn(size_t id) const {
  const size_t types = problem_->capacity.size();
  PairColumn column;
  UsablePairColumn(*problem_, layout_.row_of, id / types, id % types, &column);
  return column;
}

void PackedColumnSet::HoldEveryColumn() {
  if (holds_every_column()) return;
  held_pairs_.clear();
  held_ids_.clear();
  ForEachCandidate([&](size_t id, const PairColumn& pc) {
    held_ids_.push_back(id);
    held_pairs_.push_back(pc);
  });
  all_held_ = true;
  Rebuild();
}

void PairColumnMemory::Remember(const AllocationProblem& problem, const PackedLayout& layout,
                                const std::vector<double>& values, int first) {
  columns_.clear();
  for (size_t c = 0; c < layout.columns.size(); ++c) {
    const PackedLayout::Column& col = layout.columns[c];
    if (col.pair < 0 || !(values[static_cast<size_t>(first) + c] > 0)) continue;
    const AllocationPair& pair = problem.pairs[static_cast<size_t>(col.pair)];
    columns_.push_back({problem.jobs[pair.a].id, problem.jobs[pair.b].id, col.type});
  }
}

void PairColumnMemory::Remember(const AllocationProblem& problem, std::span<const PairShare> shares) {
  columns_.clear();
  for (const PairShare& share : shares) {
    if (!(share.value > 0)) continue;
    const AllocationPair& pair = problem.pairs[share.pair];
    columns_.push_back({problem.jobs[pair.a].id, problem.jobs[pair.b].id, share.type});
  }
}

void PackedColumnSet::HoldRemembered(const PairColumnMemory& memory) {
  const size_t rows = layout_.rows();
  const AllocationProblem* problem = problem_;
  if (all_held_ || memory.columns().empty()) return;
  std::unordered_map<JobId, int> row_of_id;
  for (size_t r = 0; r < rows; ++r) row_of_id.emplace(problem->jobs[layout_.job_of[r]].id, static_cast<int>(r));
  // Per row, the partners remembered with it and the types, one bit each (the first 8 types), both
  // ways round (a pair's members come in the problem's job order, which may change): a few per
  // row, looked up in a short list rather than a rows x rows table (2 MB zeroed at every reset on
  // 1,500 rows, and a cache miss per column priced).
  struct End {
    int row = 0, other = 0;
    uint8_t types = 0;
  };
  std::vector<End> ends;  // twice per column remembered, then one per (row, other row)
  for (const PairColumnMemory::Column& col : memory.columns()) {
    const auto a = row_of_id.find(col.a), b = row_of_id.find(col.b);
    if (a == row_of_id.end() || b == row_of_id.end() || col.type >= 8) continue;
    const uint8_t bit = uint8_t(1u << col.type);
    ends.push_back({a->second, b->second, bit});
    ends.push_back({b->second, a->second, bit});
  }
  if (ends.empty()) return;
  std::sort(ends.begin(), ends.end(),
            [](const End& x, const End& y) { return x.row != y.row ? x.row < y.row : x.other < y.other; });
  size_t kept = 0;
  for (const End& e : ends) {
    if (kept > 0 && ends[kept - 1].row == e.row && ends[kept - 1].other == e.other) {
      ends[kept - 1].types |= e.types;
    } else {
      ends[kept++] = e;
    }
  }
  ends.resize(kept);
  const size_t types = problem->capacity.size();
  std::vector<size_t> ids;  // the columns remembered, increasing
  if (problem->pairs_ordered) {
    // Each pair remembered found by its jobs (high, low), in O(log pairs).
    PairColumn column;
    for (const End& e : ends) {
      const size_t ja = layout_.job_of[static_cast<size_t>(e.row)], jb = layout_.job_of[static_cast<size_t>(e.other)];
      if (ja > jb) continue;  // each pair once, from its lower job's end
      const auto at = std::lower_bound(problem->pairs.begin(), problem->pairs.end(), std::pair{jb, ja},
                                       [](const AllocationPair& x, const std::pair<size_t, size_t>& key) {
                                         return x.b != key.first ? x.b < key.first : x.a < key.second;
                                       });
      if (at == problem->pairs.end() || at->b != jb || at->a != ja) continue;
      const size_t p = static_cast<size_t>(at - problem->pairs.begin());
      for (size_t k = 0; k < types && k < 8; ++k) {
        if ((e.types & (1u << k)) != 0 && UsablePairColumn(*problem, layout_.row_of, p, k, &column)) {
          ids.push_back(p * types + k);
        }
      }
    }
    std::sort(ids.begin(), ids.end());
  } else {
    std::vector<size_t> first_end(rows + 1, 0);  // row r's partners: ends[first_end[r], first_end[r + 1])
    for (const End& e : ends) ++first_end[static_cast<size_t>(e.row) + 1];
    for (size_t r = 0; r < rows; ++r) first_end[r + 1] += first_end[r];
    ForEachCandidate([&](size_t id, const PairColumn& pc) {
      const size_t r = static_cast<size_t>(pc.row_a);
      for (size_t e = first_end[r]; e < first_end[r + 1]; ++e) {
        if (ends[e].other == pc.row_b) {
          if ((ends[e].types & (1u << pc.type)) != 0) ids.push_back(id);
          return;
        }
      }
    });
  }
  Hold(ids);
}

void PackedColumnSet::Hold(const std::vector<size_t>& ids) {
  std::vector<size_t> merged_ids;
  std::set_union(held_ids_.begin(), held_ids_.end(), ids.begin(), ids.end(), std::back_inserter(merged_ids));
  std::vector<PairColumn> merged;
  merged.reserve(merged_ids.size());
  size_t i = 0;
  for (const size_t id : merged_ids) {
    if (i < held_ids_.size() && held_ids_[i] == id) {
      merged.push_back(held_pairs_[i++]);
    } else {
      merged.push_back(CandidateColumn(id));
    }
  }
  held_pairs_ = std::move(merged);
  held_ids_ = std::move(merged_ids);
  Rebuild();
}

size_t PackedColumnSet::PriceIn(const std::vector<double>& duals, int first_row, const std::vector<double>& per_rate,
                                double tolerance, size_t max_added, std::span<const double> gain_per_type) {
  // The rows AddPackedShares made of layout_: a time row per row with a column, then a capacity
  // row per type with a column.
  const size_t rows = layout_.rows();
  std::vector<double> time_price(rows, 0.0);
  size_t next = static_cast<size_t>(first_row);
  for (size_t r = 0; r < rows; ++r) {
    if (!layout_.terms[r].empty()) time_price[r] = duals[next++];
  }
  last_largest_reduced_cost_ = 0;
  if (all_held_) return 0;
  const size_t types = problem_->capacity.size();
  std::vector<char> has_column(types, 0);
  for (const PackedLayout::Column& col : layout_.columns) has_column[col.type] = 1;
  std::vector<double> capacity_price(types, 0.0);
  for (size_t k = 0; k < types; ++k) {
    if (has_column[k]) capacity_price[k] = duals[next++];
  }
  // The columns above the tolerance, by (reduced cost, id): the best `max_added` of them are kept.
  // Visited in id order, a column whose reduced cost is at most the max_added-th best so far can
  // no longer be among them (a tie goes to the first column), so that once 2 max_added are held
  // the list is cut back to the best max_added and later columns must beat the last of those:
  // O(max_added) memory however many columns improve (on the overloaded 1,928-job case millions
  // did, a page fault per few of them).
  std::vector<std::pair<double, size_t>> candidates;  // (reduced cost, id)
  auto better = [](const std::pair<double, size_t>& x, const std::pair<double, size_t>& y) {
    return x.first > y.first || (x.first == y.first && x.second < y.second);
  };
  auto keep_best = [&] {
    if (max_added == 0) {
      candidates.clear();
      return std::numeric_limits<double>::infinity();
    }
    std::nth_element(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(max_added - 1),
                     candidates.end(), better);
    candidates.resize(max_added);
    return candidates.back().first;
  };
  const size_t cut_at = max_added > (static_cast<size_t>(-1) >> 2) ? static_cast<size_t>(-1) : 2 * max_added;
  double bar = tolerance;  // a column must price above it
  size_t left_out = 0, improving = 0;
  auto held_cursor = held_ids_.begin();
  ForEachCandidate([&](size_t id, const PairColumn& pc) {
    while (held_cursor != held_ids_.end() && *held_cursor < id) ++held_cursor;
    if (held_cursor != held_ids_.end() && *held_cursor == id) return;
    ++left_out;
    const size_t a = static_cast<size_t>(pc.row_a), b = static_cast<size_t>(pc.row_b);
    double rate_a = per_rate[a], rate_b = per_rate[b];
    if (!gain_per_type.empty()) {
      rate_a -= gain_per_type[pc.type];
      rate_b -= gain_per_type[pc.type];
    }
    const double reduced =
        -(time_price[a] + time_price[b] + pc.gpus * capacity_price[pc.type] + pc.t_a * rate_a + pc.t_b * rate_b);
    if (!(reduced > tolerance)) return;
    ++improving;
    last_largest_reduced_cost_ = std::max(last_largest_reduced_cost_, reduced);
    if (!(reduced > bar)) return;
    candidates.emplace_back(reduced, id);
    if (candidates.size() >= cut_at) bar = keep_best();
  });
  if (left_out == 0) all_held_ = true;
  if (candidates.empty()) return 0;
  if (candidates.size() > max_added) keep_best();
  if (left_out == improving && improving == candidates.size()) all_held_ = true;
  std::vector<size_t> ids;
  ids.reserve(candidates.size());
  for (const auto& [reduced, id] : candidates) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  Hold(ids);
  return candidates.size();
}

Result<lp::Solution> SolvePricingIn(PackedColumnSet& columns, const PairColumnPricing& pricing,
                                    lp::WarmStartLpSolver& solver, Allocation* out) {
  std::vector<double> per_rate;
  for (bool first = true;; first = false) {
    lp::LinearProgram program;
    const int first_row = pricing.pose(program);
    HETSCHED_ASSIGN_OR_RETURN(
        lp::Solution solution,
        solver.Solve(program, pricing.slot, first ? pricing.first_algorithm : lp::WarmAlgorithm::kPrimal));
    ++out->lp_solves;
    out->simplex_iterations += solution.iterations;
    if (solution.status != lp::SolveStatus::kOptimal || columns.holds_every_column()) return solution;
    if (pricing.enough && pricing.enough(solution)) return solution;
    if (!first && columns.PricingStalled(solution)) return solution;
    per_rate.assign(columns.layout().rows(), 0.0);
    pricing.per_rate(solution, &per_rate);
    if (columns.PriceIn(solution.duals, first_row, per_rate, kPairPricingTolerance,
                        PairPricingBatch(columns.layout().rows()), pricing.gain_per_type) == 0) {
      return solution;
    }
  }
}

}  // namespace hetsched::gavel
