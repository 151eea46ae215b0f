// PackedColumnSet (policies/gavel/packed_columns.h): the restricted layout, and the pricing of a
// left-out pair column from a program's row duals, worked by hand.
#include "hetsched/policies/gavel/packed_columns.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "hetsched/lp/linear_program.h"
#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/packed.h"
#include "../common/allocation_pair.h"

namespace hetsched::gavel {
namespace {

// Two one-GPU jobs with rate 1 alone on the one type (one GPU), and their pair at `pair_rate` each.
AllocationProblem TwoJobsOneGpu(double pair_rate) {
  AllocationProblem p;
  p.capacity = {1};
  p.type_names = {"a"};
  for (JobId id : {JobId{0}, JobId{1}}) {
    AllocationJob job;
    job.id = id;
    job.throughput = {1.0};
    job.num_gpus = 1;
    job.remaining_iterations = 1000;
    p.jobs.push_back(job);
  }
  p.pairs.push_back(testing_util::TestPair(0, 1, {pair_rate}, {pair_rate}));
  return p;
}

// max t s.t. each job's effective throughput >= t, over the columns of `set`. Returns the
// solution; `epigraph` gets the two epigraph rows' indices.
lp::Solution MaxMin(const AllocationProblem& p, const PackedColumnSet& set, std::vector<int>* epigraph) {
  lp::LinearProgram program;
  program.SetSense(lp::Sense::kMaximize);
  AddPackedShares(program, p, set.layout());
  const int t = program.AddVariable(0, lp::kInfinity, 1.0);
  epigraph->clear();
  std::vector<std::pair<int, double>> row;
  for (size_t r = 0; r < set.layout().rows(); ++r) {
    row = set.layout().terms[r];
    row.emplace_back(t, -1.0);
    epigraph->push_back(program.AddConstraint(row, 0.0, lp::kInfinity));
  }
  auto s = lp::SolveLp(program);
  EXPECT_TRUE(s.ok());
  return *s;
}

TEST(PackedColumnSetTest, HoldsTheSinglesThenEveryColumn) {
  const AllocationProblem p = TwoJobsOneGpu(0.8);
  const PackedLayout full = MakePackedLayout(p, nullptr);
  ASSERT_EQ(full.columns.size(), 3u);  // two singles, one pair
  PackedColumnSet set(full, /*all_pairs=*/false);
  EXPECT_FALSE(set.holds_every_column());
  ASSERT_EQ(set.layout().columns.size(), 2u);
  EXPECT_EQ(set.column_of(2), -1);
  EXPECT_EQ(set.layout().pair[0][0], -1);
  std::vector<std::pair<int, double>> restricted;
  set.Restrict(full.terms[0], &restricted);
  EXPECT_EQ(restricted, (std::vector<std::pair<int, double>>{{0, 1.0}}));
  set.HoldEveryColumn();
  EXPECT_TRUE(set.holds_every_column());
  EXPECT_EQ(set.layout().terms, full.terms);
  EXPECT_EQ(set.full_column(2), 2);
}

// Singles only: X_0 + X_1 <= 1 (one GPU), t = 1/2. Duals (max sense): the capacity row 1/2, each
// epigraph row -1/2 (t's column: 1 + y_0 + y_1 = 0; X_0's: -(y_cap + y_0) = 0), the time rows 0.
// The pair at rate r each: reduced cost -(y_cap + r y_0 + r y_1) = r - 1/2: priced in at r = 0.8
// (and then t = 0.8), left out at r = 0.4 (two halves alone beat the pair).
TEST(PackedColumnSetTest, PricesInOnlyAPairThatRaisesTheOptimum) {
  for (const double rate : {0.8, 0.4}) {
    SCOPED_TRACE(rate);
    const AllocationProblem p = TwoJobsOneGpu(rate);
    const PackedLayout full = MakePackedLayout(p, nullptr);
    PackedColumnSet set(full, /*all_pairs=*/false);
    std::vector<int> epigraph;
    const lp::Solution singles = MaxMin(p, set, &epigraph);
    ASSERT_EQ(singles.status, lp::SolveStatus::kOptimal);
    EXPECT_NEAR(singles.objective, 0.5, 1e-9);
    // Per unit of job r's rate, the objective moves by its epigraph row's dual.
    std::vector<double> per_rate = {singles.duals[static_cast<size_t>(epigraph[0])],
                                    singles.duals[static_cast<size_t>(epigraph[1])]};
    const size_t added = set.PriceIn(singles.duals, 0, per_rate, 1e-7);
    const lp::Solution after = MaxMin(p, set, &epigraph);
    if (rate > 0.5) {
      EXPECT_EQ(added, 1u);
      EXPECT_TRUE(set.holds_every_column());
      EXPECT_NEAR(after.objective, 0.8, 1e-9);
    } else {
      EXPECT_EQ(added, 0u);
      EXPECT_FALSE(set.holds_every_column());
      EXPECT_NEAR(after.objective, 0.5, 1e-9);
    }
  }
}

}  // namespace
}  // namespace hetsched::gavel
