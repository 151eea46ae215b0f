// The linear assignment problem on a rectangular cost matrix: give each row (or each column, of a
// matrix with more rows than columns) its own column (row) so that the summed cost is least.
// Solved by the shortest augmenting path method as Crouse states it (D. F. Crouse, "On
// implementing 2D rectangular assignment algorithms", IEEE Trans. Aerospace and Electronic
// Systems 52(4), 2016, Algorithm 1 with the dual updates of its section IV): one Dijkstra search
// per row over reduced costs, then an augmentation. O(rows^2 x columns).
//
// Where several assignments cost the least, which one comes back is fixed by the search's order,
// chosen so that it is the one SciPy's linear_sum_assignment returns (SciPy >= 1.5 implements the
// same method; Gavel's AlloX policy reads its answer): the columns are scanned from the last to
// the first, a scanned column leaves the list by taking the last one's place, among columns of
// equal path cost the search prefers a free one (the last such in scan order, else the first in
// scan order), and a matrix with more rows than columns is solved transposed. The reduced costs
// and duals are summed in that method's order, so that ties in floating point fall alike.
// Checked against SciPy 1.10 on random matrices with many ties (tests/lp/linear_assignment_test.cc).
#pragma once

#include <cstddef>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::lp {

// `cost` holds rows x columns entries, row-major. Entries may be +infinity (that cell is not
// allowed), not NaN or -infinity (InvalidArgument). Returns, per row, its column, or -1 for the
// rows left without one (only when rows > columns); Infeasible where no assignment of
// min(rows, columns) cells avoids the infinite ones. An empty matrix (no rows or no columns)
// assigns nothing.
Result<std::vector<int>> SolveLinearAssignment(const std::vector<double>& cost, size_t rows, size_t columns);

}  // namespace hetsched::lp
