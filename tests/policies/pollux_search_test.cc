// Pollux's genetic search: pymoo's NSGA-II ranking worked by hand, the search on a problem whose
// front is known, and one round of Pollux's problem (objectives by hand, the operators' rules).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "hetsched/policies/pollux/nsga2.h"
#include "hetsched/policies/pollux/pollux_problem.h"

namespace hetsched::pollux_internal {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

TEST(Nsga2Test, FrontsByDominance) {
  // (3,3) is dominated by (2,2) only; (5,5) by every other point.
  const std::vector<std::vector<double>> f{{1, 4}, {5, 5}, {2, 2}, {4, 1}, {3, 3}};
  const auto fronts = NonDominatedFronts(f);
  ASSERT_EQ(fronts.size(), 3u);
  EXPECT_EQ(fronts[0], (std::vector<size_t>{0, 2, 3}));
  EXPECT_EQ(fronts[1], (std::vector<size_t>{4}));
  EXPECT_EQ(fronts[2], (std::vector<size_t>{1}));
  EXPECT_EQ(NonDominatedFronts({{7, 7}}), (std::vector<std::vector<size_t>>{{0}}));
}

// The two-objective sweep gives the pairwise sort's fronts (pagmo's rule; it runs for three
// objectives, and a constant third changes no dominance), ties and repeated points included.
TEST(Nsga2Test, TheSweepGivesPagmosFronts) {
  Rng rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 2 + rng.Below(60);
    std::vector<std::vector<double>> two, three;
    for (size_t i = 0; i < n; ++i) {
      const double a = static_cast<double>(rng.Below(8)), b = static_cast<double>(rng.Below(8));
      two.push_back({a, b});
      three.push_back({a, b, 1.0});
    }
    ASSERT_EQ(NonDominatedFronts(two), NonDominatedFronts(three)) << "trial " << trial;
  }
}

TEST(Nsga2Test, CrowdingDistanceAsPymooComputesIt) {
  // Objective 0 sorted 1, 2, 4 (range 3): the middle point's gaps 1/3 + 2/3; objective 1 the same
  // (4, 2, 1): the mean over the two objectives is 1. The ends are infinite.
  auto cd = CrowdingDistance({{1, 4}, {2, 2}, {4, 1}});
  EXPECT_EQ(cd[0], kInfinity);
  EXPECT_DOUBLE_EQ(cd[1], 1.0);
  EXPECT_EQ(cd[2], kInfinity);
  // A repeated point counts once; its copy gets 0.
  cd = CrowdingDistance({{1, 4}, {2, 2}, {2, 2}, {4, 1}});
  EXPECT_DOUBLE_EQ(cd[1], 1.0);
  EXPECT_EQ(cd[2], 0.0);
  // An objective without spread adds nothing: (1/2 + 1/2 + 0) / 2.
  cd = CrowdingDistance({{1, 1}, {2, 1}, {3, 1}});
  EXPECT_DOUBLE_EQ(cd[1], 0.5);
  // Two points or fewer: all infinite.
  cd = CrowdingDistance({{1, 1}, {2, 0}});
  EXPECT_EQ(cd[0], kInfinity);
  EXPECT_EQ(cd[1], kInfinity);
}

// x in {0..10}^2, minimise (x0, 10 - x0 + x1): the front is x1 = 0, every x0.
Nsga2Operators LineProblem() {
  Nsga2Operators ops;
  ops.evaluate = [](const Genome& x) { return std::vector<double>{double(x[0]), 10.0 - x[0] + x[1]}; };
  ops.crossover = [](Genome& a, Genome& b, Rng&) { std::swap(a[1], b[1]); };
  ops.mutate = [](Genome& x, Rng& rng) {
    const size_t i = rng.Below(2);
    x[i] = static_cast<int>(rng.Below(11));
  };
  ops.repair = [](Genome& x, Rng&) {
    for (int& v : x) v = std::clamp(v, 0, 10);
  };
  return ops;
}

TEST(Nsga2Test, FindsTheWholeFrontAndRepeatsForASeed) {
  Nsga2Options options;
  options.pop_size = 20;
  options.generations = 30;
  Rng rng(7);
  const Nsga2Front front = RunNsga2({{5, 5}}, options, LineProblem(), rng);
  std::set<int> x0;
  for (const Genome& x : front.x) {
    EXPECT_EQ(x[1], 0);
    x0.insert(x[0]);
  }
  EXPECT_EQ(x0.size(), 11u);  // all of the front, each point once (duplicates are dropped)
  EXPECT_EQ(front.x.size(), 11u);
  Rng again(7);
  EXPECT_EQ(RunNsga2({{5, 5}}, options, LineProblem(), again).x, front.x);
}

TEST(Nsga2Test, OneGenerationIsTheRepairedSampling) {
  Nsga2Options options;
  options.generations = 1;
  Rng rng(1);
  const Nsga2Front front = RunNsga2({{12, 3}, {10, 3}, {4, 0}}, options, LineProblem(), rng);
  // {12,3} repairs to {10,3}, a duplicate; {4,0} dominates nothing of {10,3}: (4,6) vs (10,3).
  ASSERT_EQ(front.x.size(), 2u);
  EXPECT_EQ(front.x[0], (Genome{10, 3}));
  EXPECT_EQ(front.x[1], (Genome{4, 0}));
}

// Two jobs, two nodes of 4 GPUs.
std::vector<PolluxJobRow> TwoJobs() {
  PolluxJobRow a, b;
  a.speedup = [](int, int r) { return double(r); };
  b.speedup = [](int, int r) { return 2.0 * r; };
  a.current = {2, 0};
  b.current = {0, 0};
  a.node_limit = b.node_limit = {4, 4};
  a.max_replicas = b.max_replicas = 8;
  a.restart_factor = 0.25;
  b.restart_factor = 0.5;
  return {a, b};
}

TEST(PolluxProblemTest, ObjectivesWorkedByHand) {
  const PolluxProblem p(TwoJobs(), {4, 4}, 1.0 / 8);
  // Job a unchanged: 2 x (1/8) x 2 nodes = 0.5; job b moved (factor 0.5): 2 x 1 x 1/4 x 0.5 = 0.25.
  const auto f = p.Evaluate({2, 0, 0, 1});
  EXPECT_DOUBLE_EQ(f[0], -1.0 / ((1 / 0.501 + 1 / 0.251) / 2));
  EXPECT_DOUBLE_EQ(f[1], -(2.0 + 2.0) / 8);  // both nodes in use: 8 GPUs
  // Nothing runs: the power mean of 1e-3 each; utility 0.
  const auto none = p.Evaluate({0, 0, 0, 0});
  EXPECT_NEAR(none[0], -1e-3, 1e-15);
  EXPECT_EQ(none[1], -0.0);
}

TEST(PolluxProblemTest, RepairKeepsPolluxsRules) {
  Rng rng(3);
  {  // Two distributed jobs on node 0: the second (in job order) leaves it, keeps node 2.
    auto jobs = TwoJobs();
    for (PolluxJobRow& j : jobs) {
      j.current.push_back(0);
      j.node_limit.push_back(4);
    }
    const PolluxProblem p(jobs, {4, 4, 4}, 1.0 / 12);
    Genome x{2, 2, 0, 1, 0, 1};
    p.Repair(x, rng);
    EXPECT_EQ(x, (Genome{2, 2, 0, 0, 0, 1}));
  }
  {  // From the second distributed job on node 0, every job loses node 0, distributed or not; a
     // single-node job before it keeps it (pollux.py:376-379).
    auto jobs = TwoJobs();
    jobs.insert(jobs.begin() + 1, jobs[1]);
    jobs.push_back(jobs[1]);
    for (PolluxJobRow& j : jobs) {
      j.current = {0, 0, 0};
      j.node_limit = {8, 8, 8};
    }
    const PolluxProblem p(jobs, {8, 8, 8}, 1.0 / 24);
    Genome x{2, 2, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0};
    p.Repair(x, rng);
    EXPECT_EQ(x, (Genome{2, 2, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0}));
  }
  {  // Node capacity goes to jobs in job order.
    const PolluxProblem p(TwoJobs(), {4, 4}, 1.0 / 8);
    Genome x{3, 0, 3, 0};
    p.Repair(x, rng);
    EXPECT_EQ(x, (Genome{3, 0, 1, 0}));
  }
  {  // Below the least replicas: none; above the most: cut to it.
    auto jobs = TwoJobs();
    jobs[0].min_replicas = 2;
    jobs[1].max_replicas = 3;
    const PolluxProblem p(jobs, {4, 4}, 1.0 / 8);
    Genome x{1, 0, 0, 4};
    p.Repair(x, rng);
    EXPECT_EQ(x, (Genome{0, 0, 0, 3}));
  }
  {  // A node it may not use: none there [REC].
    auto jobs = TwoJobs();
    jobs[1].node_limit = {0, 4};
    const PolluxProblem p(jobs, {4, 4}, 1.0 / 8);
    Genome x{1, 0, 2, 3};
    p.Repair(x, rng);
    EXPECT_EQ(x, (Genome{1, 0, 0, 3}));
  }
}

TEST(PolluxProblemTest, OperatorsKeepTheLimitsOnRandomStates) {
  auto jobs = TwoJobs();
  PolluxJobRow c = jobs[0];
  c.current = {1, 1};
  c.node_limit = {4, 0};
  c.min_replicas = 2;
  c.max_replicas = 2;
  jobs.push_back(c);
  const PolluxProblem p(jobs, {4, 4}, 1.0 / 8);
  Rng rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    Genome a = p.BaseState(), b = p.BaseState();
    for (int& v : a) v = static_cast<int>(rng.Below(6));
    for (int& v : b) v = static_cast<int>(rng.Below(6));
    p.Crossover(a, b, rng);
    p.Mutate(a, rng);
    p.Repair(a, rng);
    int on_node[2] = {0, 0};
    for (int j = 0; j < 3; ++j) {
      int replicas = 0, nodes = 0;
      for (int n = 0; n < 2; ++n) {
        const int v = a[static_cast<size_t>(j * 2 + n)];
        ASSERT_GE(v, 0);
        ASSERT_LE(v, jobs[static_cast<size_t>(j)].node_limit[static_cast<size_t>(n)]);
        on_node[n] += v;
        replicas += v;
        nodes += v > 0;
      }
      ASSERT_LE(replicas, jobs[static_cast<size_t>(j)].max_replicas);
      ASSERT_TRUE(replicas == 0 || replicas >= jobs[static_cast<size_t>(j)].min_replicas);
    }
    ASSERT_LE(on_node[0], 4);
    ASSERT_LE(on_node[1], 4);
  }
}

TEST(PolluxProblemTest, CrossoverSwapsTheRowsAboveAPoint) {
  const PolluxProblem p(TwoJobs(), {4, 4}, 1.0 / 8);
  Rng rng(5);
  bool swapped = false, kept = false;
  for (int trial = 0; trial < 50; ++trial) {
    Genome a{1, 1, 2, 2}, b{3, 3, 4, 4};
    p.Crossover(a, b, rng);
    // The point is 0 (nothing) or 1 (job 0's row); job 1's row never moves.
    EXPECT_EQ(a[2], 2);
    EXPECT_EQ(b[2], 4);
    if (a[0] == 3) swapped = true;
    if (a[0] == 1) kept = true;
  }
  EXPECT_TRUE(swapped);
  EXPECT_TRUE(kept);
}

}  // namespace
}  // namespace hetsched::pollux_internal
