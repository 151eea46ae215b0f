#include "hetsched/lp/linear_assignment.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace hetsched::lp {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Crouse's method on a matrix with rows <= columns (`c`, row-major). Returns the column of each row.
Result<std::vector<int>> AssignRowsToColumns(const std::vector<double>& c, size_t rows, size_t columns) {
  // Dual variables of the rows and the columns, and the current matching both ways.
  std::vector<double> row_dual(rows, 0.0), column_dual(columns, 0.0);
  std::vector<int> column_of(rows, -1), row_of(columns, -1);
  // Per search: each column's shortest path cost from the new row and the row it is reached from.
  std::vector<double> path_cost(columns);
  std::vector<int> reached_from(columns, -1);
  std::vector<char> row_visited(rows), column_done(columns);
  std::vector<int> unscanned;
  unscanned.reserve(columns);

  for (size_t start = 0; start < rows; ++start) {
    std::fill(path_cost.begin(), path_cost.end(), kInf);
    std::fill(row_visited.begin(), row_visited.end(), 0);
    std::fill(column_done.begin(), column_done.end(), 0);
    unscanned.clear();
    for (size_t k = columns; k-- > 0;) unscanned.push_back(static_cast<int>(k));  // last column first

    // Dijkstra over the reduced costs from row `start`, until a free column is settled.
    double settled = 0;  // the path cost of the column settled last
    int row = static_cast<int>(start);
    int free_column = -1;
    while (free_column < 0) {
      row_visited[static_cast<size_t>(row)] = 1;
      const double* costs = c.data() + static_cast<size_t>(row) * columns;
      double best = kInf;
      size_t best_at = 0;
      for (size_t at = 0; at < unscanned.size(); ++at) {
        const size_t col = static_cast<size_t>(unscanned[at]);
        const double through_row = settled + costs[col] - row_dual[static_cast<size_t>(row)] - column_dual[col];
        if (through_row < path_cost[col]) {
          path_cost[col] = through_row;
          reached_from[col] = row;
        }
        // Ties: a free column wins (the path can end there), the later of two free ones.
        if (path_cost[col] < best || (path_cost[col] == best && row_of[col] < 0)) {
          best = path_cost[col];
          best_at = at;
        }
      }
      if (best == kInf) return Status::Infeasible("linear assignment: no assignment of finite cost");
      settled = best;
      const int col = unscanned[best_at];
      column_done[static_cast<size_t>(col)] = 1;
      unscanned[best_at] = unscanned.back();
      unscanned.pop_back();
      if (row_of[static_cast<size_t>(col)] < 0) {
        free_column = col;
      } else {
        row = row_of[static_cast<size_t>(col)];
      }
    }

    // Duals: keep the reduced costs of the matched cells at 0 and all others >= 0.
    row_dual[start] += settled;
    for (size_t r = 0; r < rows; ++r) {
      if (row_visited[r] && r != start) row_dual[r] += settled - path_cost[static_cast<size_t>(column_of[r])];
    }
    for (size_t col = 0; col < columns; ++col) {
      if (column_done[col]) column_dual[col] -= settled - path_cost[col];
    }
    // Augment along the path back from the free column to `start`.
    int col = free_column;
    while (true) {
      const int r = reached_from[static_cast<size_t>(col)];
      row_of[static_cast<size_t>(col)] = r;
      std::swap(column_of[static_cast<size_t>(r)], col);
      if (r == static_cast<int>(start)) break;
    }
  }
  return column_of;
}

}  // namespace

Result<std::vector<int>> SolveLinearAssignment(const std::vector<double>& cost, size_t rows, size_t columns) {
  if (cost.size() != rows * columns) {
    return Status::InvalidArgument("linear assignment: " + std::to_string(cost.size()) + " costs for a " +
                                   std::to_string(rows) + " x " + std::to_string(columns) + " matrix");
  }
  for (double x : cost) {
    if (std::isnan(x) || x == -kInf) return Status::InvalidArgument("linear assignment: a cost is NaN or -infinity");
  }
  if (rows == 0 || columns == 0) return std::vector<int>(rows, -1);
  if (rows <= columns) return AssignRowsToColumns(cost, rows, columns);
  // More rows than columns: assign each column a row, on the transposed matrix.
  std::vector<double> transposed(cost.size());
  for (size_t r = 0; r < rows; ++r) {
    for (size_t k = 0; k < columns; ++k) transposed[k * rows + r] = cost[r * columns + k];
  }
  HETSCHED_ASSIGN_OR_RETURN(const std::vector<int> row_of_column, AssignRowsToColumns(transposed, columns, rows));
  std::vector<int> column_of(rows, -1);
  for (size_t k = 0; k < columns; ++k) column_of[static_cast<size_t>(row_of_column[k])] = static_cast<int>(k);
  return column_of;
}

}  // namespace hetsched::lp
