// PackedColumnSet (packed_columns.h): the restricted layout, the pricing of the pair columns left
// out of it, and the column generation loop.
#include "hetsched/policies/gavel/packed_columns.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
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
  if (all_held_ || memory.columns().empty() || rows > 8192) return;
  std::unordered_map<JobId, int> row_of_id;
  for (size_t r = 0; r < rows; ++r) row_of_id.emplace(problem->jobs[layout_.job_of[r]].id, static_cast<int>(r));
  // Per (row a, row b): the types remembered, one bit each (the first 8 types).
  std::vector<uint8_t> types_of(rows * rows, 0);
  bool any = false;
  for (const PairColumnMemory::Column& col : memory.columns()) {
    const auto a = row_of_id.find(col.a), b = row_of_id.find(col.b);
    if (a == row_of_id.end() || b == row_of_id.end() || col.type >= 8) continue;
    // Either way round: a pair's members come in the problem's job order, which may change.
    const size_t ra = static_cast<size_t>(a->second), rb = static_cast<size_t>(b->second);
    types_of[ra * rows + rb] |= uint8_t(1u << col.type);
    types_of[rb * rows + ra] |= uint8_t(1u << col.type);
    any = true;
  }
  if (!any) return;
  auto remembered = [&](const PairColumn& pc) {
    return (types_of[static_cast<size_t>(pc.row_a) * rows + static_cast<size_t>(pc.row_b)] & (1u << pc.type)) != 0;
  };
  std::vector<PairColumn> merged;
  std::vector<size_t> merged_ids;
  size_t i = 0;
  ForEachCandidate([&](size_t id, const PairColumn& pc) {
    const bool held = i < held_ids_.size() && held_ids_[i] == id;
    if (held) ++i;
    if (!held && !remembered(pc)) return;
    merged.push_back(pc);
    merged_ids.push_back(id);
  });
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
  std::vector<std::pair<double, size_t>> candidates;  // (reduced cost, id)
  std::vector<PairColumn> found;                      // each candidate's column
  size_t left_out = 0;
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
    if (reduced > tolerance) {
      candidates.emplace_back(reduced, found.size());
      found.push_back(pc);
    }
  });
  if (left_out == 0) all_held_ = true;
  if (candidates.empty()) return 0;
  for (const auto& candidate : candidates) last_largest_reduced_cost_ = std::max(last_largest_reduced_cost_, candidate.first);
  // The most promising first, ties by column (deterministic: `found` is in id order, so its index
  // orders as the id does).
  auto better = [](const std::pair<double, size_t>& x, const std::pair<double, size_t>& y) {
    return x.first > y.first || (x.first == y.first && x.second < y.second);
  };
  if (candidates.size() > max_added) {
    std::nth_element(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(max_added), candidates.end(),
                     better);
    candidates.resize(max_added);
  }
  {
    // Merge the new columns into the held ones, in id order.
    auto by_id = [](const std::pair<double, size_t>& x, const std::pair<double, size_t>& y) {
      return x.second < y.second;
    };
    std::sort(candidates.begin(), candidates.end(), by_id);
    std::vector<PairColumn> merged;
    std::vector<size_t> merged_ids;
    merged.reserve(held_pairs_.size() + candidates.size());
    merged_ids.reserve(merged.capacity());
    size_t i = 0;
    for (const auto& [reduced, f] : candidates) {
      const PairColumn& pc = found[f];
      const size_t id = pc.pair * types + pc.type;
      for (; i < held_ids_.size() && held_ids_[i] < id; ++i) {
        merged.push_back(held_pairs_[i]);
        merged_ids.push_back(held_ids_[i]);
      }
      merged.push_back(pc);
      merged_ids.push_back(id);
    }
    for (; i < held_ids_.size(); ++i) {
      merged.push_back(held_pairs_[i]);
      merged_ids.push_back(held_ids_[i]);
    }
    held_pairs_ = std::move(merged);
    held_ids_ = std::move(merged_ids);
    if (left_out == candidates.size()) all_held_ = true;
  }
  Rebuild();
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
        solver.Solve(program, pricing.slot, first ? lp::WarmAlgorithm::kDual : lp::WarmAlgorithm::kPrimal));
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
