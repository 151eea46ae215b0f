// Shared allocation pieces: the equal-share normaliser and the base constraints.
#include "hetsched/policies/gavel/allocation.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace hetsched::gavel {
namespace {

AllocationJob AllocJob(JobId id, int gpus, std::vector<double> t) {
  AllocationJob j;
  j.id = id;
  j.num_gpus = gpus;
  j.throughput = std::move(t);
  return j;
}

TEST(GavelAllocationTest, EqualShareThroughput) {
  AllocationProblem p;
  p.capacity = {4, 2};
  // n = 3 jobs, 6 devices. Job 0 (1 GPU): 6/(3 x 1) = 2 > 1 -> time fraction 1, split 4/6 and
  // 2/6: 3 x 4/6 + 1 x 2/6 = 2 + 1/3. Job 1 (4 GPUs, type 0 only: 4 devices): 4/(3 x 4) = 1/3 on
  // type 0: 2 x 1/3. Job 2 (8 GPUs) fits no type: 0.
  p.jobs = {AllocJob(0, 1, {3, 1}), AllocJob(1, 4, {2, 5}), AllocJob(2, 8, {1, 1})};
  EXPECT_NEAR(EqualShareThroughput(p, 0), 2.0 + 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(EqualShareThroughput(p, 1), 2.0 / 3.0, 1e-12);
  EXPECT_EQ(EqualShareThroughput(p, 2), 0.0);
  EXPECT_TRUE(Placeable(p, 1));
  EXPECT_FALSE(Placeable(p, 2));
  EXPECT_EQ(BestThroughput(p, 1), 2.0);  // type 1 has only 2 devices
  EXPECT_NEAR(EffectiveThroughput(p.jobs[0], {0.5, 0.5}), 2.0, 1e-12);
}

// LeastFeasibleConvex (allocation.h) on a violation convex and nonincreasing in x, as an elastic
// LP's least slack is in finish-time's rho: S(x) = max(0, 3 / x - 1.5) + max(0, 1 / (x - 0.2) - 1),
// feasible from x = 2 on. Its answer is LeastFeasible's contract (hi feasible, hi (1 - tolerance)
// below the least feasible x), in half the tests the bisection takes; from a known feasible
// point; with no slope (bisection); and false where nothing is feasible.
TEST(GavelAllocationTest, LeastFeasibleConvexTakesNewtonStepsFromBelow) {
  int tests = 0;
  bool with_slope = true;
  auto violation = [](double x) { return std::max(0.0, 3 / x - 1.5) + std::max(0.0, 1 / (x - 0.2) - 1); };
  ElasticFeasibleAt at = [&](double x, lp::Solution* s) -> Result<ElasticAnswer> {
    ++tests;
    s->objective = x;
    ElasticAnswer answer;
    answer.violation = violation(x);
    answer.feasible = answer.violation <= 0;
    if (!answer.feasible && with_slope) {
      if (3 / x > 1.5) answer.slope -= 3 / (x * x);
      if (1 / (x - 0.2) > 1) answer.slope -= 1 / ((x - 0.2) * (x - 0.2));
    }
    return answer;
  };
  const double tolerance = 1e-6;
  auto expect_answer = [&](double hi, const lp::Solution& at_hi) {
    EXPECT_LE(violation(hi), 0.0);
    EXPECT_EQ(at_hi.objective, hi);
    EXPECT_LE(hi * (1 - tolerance), 2.0 * (1 + 1e-12));
  };
  double hi = 0;
  lp::Solution at_hi;
  auto found = LeastFeasibleConvex(at, 0.5, tolerance, 0.0, &hi, &at_hi);
  ASSERT_TRUE(found.ok() && *found);
  expect_answer(hi, at_hi);
  EXPECT_LE(tests, 10);  // measured: 9 (Newton steps from below, the root, the test just below it)
  const int newton_tests = tests;

  // The bisection reaches the same least x, in more tests.
  tests = 0;
  FeasibleAt plain = [&](double x, lp::Solution* s) -> Result<bool> {
    HETSCHED_ASSIGN_OR_RETURN(const ElasticAnswer answer, at(x, s));
    return answer.feasible;
  };
  double bisected = 0;
  ASSERT_TRUE(LeastFeasible(plain, 0.5, tolerance, &bisected, &at_hi).ok());
  EXPECT_NEAR(bisected, hi, 2 * tolerance * hi);
  EXPECT_GT(tests, 2 * newton_tests);

  // From a known feasible point: probes below it, then Newton.
  tests = 0;
  at_hi.objective = 5.0;
  found = LeastFeasibleConvex(at, 0.5, tolerance, 5.0, &hi, &at_hi);
  ASSERT_TRUE(found.ok() && *found);
  expect_answer(hi, at_hi);
  EXPECT_LE(tests, 14);  // measured: 13
  // Already closed: a known feasible point within the tolerance of lo is the answer, untested.
  tests = 0;
  at_hi.objective = 2.0;
  found = LeastFeasibleConvex(at, 2.0, tolerance, 2.0, &hi, &at_hi);
  ASSERT_TRUE(found.ok() && *found);
  EXPECT_EQ(hi, 2.0);
  EXPECT_EQ(tests, 0);

  // No slope: bisection (doubling up from lo first).
  with_slope = false;
  found = LeastFeasibleConvex(at, 0.5, tolerance, 0.0, &hi, &at_hi);
  ASSERT_TRUE(found.ok() && *found);
  expect_answer(hi, at_hi);

  // Nothing feasible: false.
  ElasticFeasibleAt never = [](double, lp::Solution*) -> Result<ElasticAnswer> {
    return ElasticAnswer{false, 1.0, 0.0};
  };
  found = LeastFeasibleConvex(never, 0.5, tolerance, 0.0, &hi, &at_hi);
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(*found);
}

}  // namespace
}  // namespace hetsched::gavel
