// Column generation over a packed LP's pair columns [REC]: a program over every single column and
// only the pair columns that have been priced in, grown until no pair column left out could
// improve its optimum (reduced cost from the program's row duals). The packed LPs have a column per
// pair and type (O(active^2)), of which an optimum uses at most one per row; on 1,559 jobs of msr
// 11cb48 at 36:36:36 a water filling reset holds up to 105,160 of them (272 jobs). The optimum so
// found is an optimal vertex of the whole program (the columns left out at 0, their reduced costs
// within the tolerance), not always the vertex the simplex reaches over every column.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "hetsched/policies/gavel/packed.h"

namespace hetsched::gavel {

class PackedColumnSet {
 public:
  // Every single column of `full`, and every pair column too where `all_pairs` (no generation).
  // `full` must outlive this.
  PackedColumnSet(const PackedLayout& full, bool all_pairs);

  // The program's layout (for AddPackedShares): full's rows, the columns held in full's order.
  const PackedLayout& layout() const { return layout_; }
  // The program's column of full's column `c`, or -1 (not held); and full's column of the program's.
  int column_of(int c) const { return column_of_[static_cast<size_t>(c)]; }
  int full_column(int c) const { return full_of_[static_cast<size_t>(c)]; }
  // `terms` (full's column, value) restricted to the columns held, as (program's column, value).
  void Restrict(std::span<const std::pair<int, double>> terms, std::vector<std::pair<int, double>>* out) const;
  bool holds_every_column() const { return full_of_.size() == full_.columns.size(); }
  void HoldEveryColumn();

  // The dual prices a program built on layout() has for a pair column it lacks, where AddPackedShares
  // began its rows at `first_row`: its time row per row r (first_row + r), its capacity row per type
  // (in type order, types without a column have none), and, per row r, `per_rate[r]`: the objective
  // change per unit of job r's effective throughput sum_c T_r^c X_c through the program's own rows
  // (e.g. a floor row's dual over P_r). Adds every pair column left out whose reduced cost
  //   -(y_time[a] + y_time[b] + g y_capacity[k] + T_a per_rate[a] + T_b per_rate[b])
  // exceeds `tolerance` (a maximisation; objective 0 on pair columns), at most `max_added` of them:
  // those of the largest reduced costs (ties: the first column). Returns how many it added. Cost:
  // O(full's pair columns + the held columns' terms where any is added).
  size_t PriceIn(const std::vector<double>& duals, int first_row, const std::vector<double>& per_rate,
                 double tolerance, size_t max_added = static_cast<size_t>(-1));

 private:
  void Rebuild();

  const PackedLayout& full_;
  std::vector<char> held_;        // per full column
  std::vector<int> column_of_;    // full column -> program column, or -1
  std::vector<int> full_of_;      // program column -> full column
  PackedLayout layout_;
  // Per full pair column: its two members' rows and their pair rates (T_a, T_b); singles unused.
  struct Members {
    int a = -1, b = -1;
    double t_a = 0, t_b = 0;
  };
  std::vector<Members> members_;
};

}  // namespace hetsched::gavel
