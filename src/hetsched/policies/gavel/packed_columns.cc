// PackedColumnSet (packed_columns.h): the restricted layout and the pricing of the pair columns
// left out of it.
#include "hetsched/policies/gavel/packed_columns.h"

#include <algorithm>
#include <cstddef>

namespace hetsched::gavel {

PackedColumnSet::PackedColumnSet(const PackedLayout& full, bool all_pairs) : full_(full) {
  const size_t n = full.columns.size();
  held_.assign(n, 0);
  members_.assign(n, Members{});
  for (size_t c = 0; c < n; ++c) held_[c] = full.columns[c].pair < 0 || all_pairs ? 1 : 0;
  for (size_t r = 0; r < full.rows(); ++r) {
    for (const auto& [c, t] : full.terms[r]) {
      if (full.columns[static_cast<size_t>(c)].pair < 0) continue;
      Members& m = members_[static_cast<size_t>(c)];
      if (m.a < 0) {
        m.a = static_cast<int>(r);
        m.t_a = t;
      } else {
        m.b = static_cast<int>(r);
        m.t_b = t;
      }
    }
  }
  Rebuild();
}

void PackedColumnSet::Rebuild() {
  const size_t n = full_.columns.size();
  column_of_.assign(n, -1);
  full_of_.clear();
  layout_.job_of = full_.job_of;
  layout_.row_of = full_.row_of;
  layout_.columns.clear();
  for (size_t c = 0; c < n; ++c) {
    if (!held_[c]) continue;
    column_of_[c] = static_cast<int>(full_of_.size());
    full_of_.push_back(static_cast<int>(c));
    layout_.columns.push_back(full_.columns[c]);
  }
  layout_.single.assign(full_.single.size(), {});
  for (size_t r = 0; r < full_.single.size(); ++r) {
    layout_.single[r].reserve(full_.single[r].size());
    for (int c : full_.single[r]) layout_.single[r].push_back(c < 0 ? -1 : column_of_[static_cast<size_t>(c)]);
  }
  layout_.pair.assign(full_.pair.size(), {});
  for (size_t p = 0; p < full_.pair.size(); ++p) {
    layout_.pair[p].reserve(full_.pair[p].size());
    for (int c : full_.pair[p]) layout_.pair[p].push_back(c < 0 ? -1 : column_of_[static_cast<size_t>(c)]);
  }
  layout_.terms.resize(full_.terms.size());
  for (size_t r = 0; r < full_.terms.size(); ++r) Restrict(full_.terms[r], &layout_.terms[r]);
}

void PackedColumnSet::Restrict(std::span<const std::pair<int, double>> terms,
                               std::vector<std::pair<int, double>>* out) const {
  out->clear();
  for (const auto& [c, v] : terms) {
    const int held = column_of_[static_cast<size_t>(c)];
    if (held >= 0) out->emplace_back(held, v);
  }
}

void PackedColumnSet::HoldEveryColumn() {
  if (holds_every_column()) return;
  held_.assign(full_.columns.size(), 1);
  Rebuild();
}

size_t PackedColumnSet::PriceIn(const std::vector<double>& duals, int first_row, const std::vector<double>& per_rate,
                                double tolerance, size_t max_added) {
  // The rows AddPackedShares made of layout_: a time row per row with a column, then a capacity
  // row per type with a column.
  const size_t rows = layout_.rows();
  std::vector<double> time_price(rows, 0.0);
  size_t next = static_cast<size_t>(first_row);
  for (size_t r = 0; r < rows; ++r) {
    if (!layout_.terms[r].empty()) time_price[r] = duals[next++];
  }
  size_t types = 0;
  for (const PackedLayout::Column& col : full_.columns) types = std::max(types, col.type + 1);
  std::vector<char> has_column(types, 0);
  for (const PackedLayout::Column& col : layout_.columns) has_column[col.type] = 1;
  std::vector<double> capacity_price(types, 0.0);
  for (size_t k = 0; k < types; ++k) {
    if (has_column[k]) capacity_price[k] = duals[next++];
  }
  std::vector<std::pair<double, size_t>> candidates;  // (reduced cost, column)
  for (size_t c = 0; c < full_.columns.size(); ++c) {
    if (held_[c]) continue;
    const Members& m = members_[c];
    const PackedLayout::Column& col = full_.columns[c];
    const size_t a = static_cast<size_t>(m.a), b = static_cast<size_t>(m.b);
    const double reduced = -(time_price[a] + time_price[b] + col.gpus * capacity_price[col.type] +
                             m.t_a * per_rate[a] + m.t_b * per_rate[b]);
    if (reduced > tolerance) candidates.emplace_back(reduced, c);
  }
  if (candidates.empty()) return 0;
  // The most promising first, ties by column (deterministic).
  auto better = [](const std::pair<double, size_t>& x, const std::pair<double, size_t>& y) {
    return x.first > y.first || (x.first == y.first && x.second < y.second);
  };
  if (candidates.size() > max_added) {
    std::nth_element(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(max_added), candidates.end(),
                     better);
    candidates.resize(max_added);
  }
  for (const auto& [reduced, c] : candidates) held_[c] = 1;
  Rebuild();
  return candidates.size();
}

}  // namespace hetsched::gavel
