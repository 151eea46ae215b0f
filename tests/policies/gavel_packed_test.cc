// Gavel's space-sharing ("packed") allocation solvers (packed.h): cases worked by hand, the base
// constraints on random problems (mixed GPU counts included, which break Gavel's own LPs), the
// packed solvers without pairs against the non-packed ones, and Gavel's own packed policies on
// small random problems (GavelPackedReference*: figures made by
// tests/data/gavel_packed/gavel_packed_reference.py, command below).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/packed.h"
#include "hetsched/policies/gavel/water_filling.h"
#include "../common/allocation_pair.h"

namespace hetsched::gavel {
namespace {

using testing_util::KeptRates;
using testing_util::TestPair;

AllocationJob PackedJob(JobId id, std::vector<double> t, int gpus = 1, double remaining = 0, double elapsed = 0) {
  AllocationJob j;
  j.id = id;
  j.num_gpus = gpus;
  j.throughput = std::move(t);
  j.remaining_iterations = remaining;
  j.total_iterations = remaining;
  j.elapsed_s = elapsed;
  return j;
}

// One type of one GPU; two single-GPU jobs at 1 step/s alone, `paired` step/s each together.
// A second phase on (priced, with every column posed: the LP over every column) or off.
PackedSecondPhase PhaseOf(bool on) { return on ? PackedSecondPhase::kPriced : PackedSecondPhase::kOff; }

AllocationProblem PackedTwoOnOne(double paired, double remaining = 900) {
  AllocationProblem p;
  p.capacity = {1};
  p.type_names = {"v100"};
  p.jobs = {PackedJob(0, {1.0}, 1, remaining), PackedJob(1, {1.0}, 1, remaining)};
  p.pairs = {TestPair(0, 1, {paired}, {paired})};
  return p;
}

// The base constraints: shares in [0, 1], per job (its row and its pairs') <= 1, per type <= W_k;
// no time where a combination cannot run.
void ExpectPackedFeasible(const AllocationProblem& p, const Allocation& a) {
  const size_t types = p.capacity.size();
  ASSERT_EQ(a.share.size(), p.jobs.size());
  ASSERT_EQ(a.pair_share.size(), p.pairs.size());
  std::vector<double> used(types, 0.0);
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    EXPECT_LE(PackedTimeShare(p, a, j), 1.0 + 1e-7) << "job " << j;
    for (size_t k = 0; k < types; ++k) {
      EXPECT_GE(a.share[j][k], 0.0);
      if (a.share[j][k] > 0) {
        EXPECT_GT(p.jobs[j].throughput[k], 0.0);
      }
      used[k] += p.jobs[j].num_gpus * a.share[j][k];
    }
  }
  for (size_t q = 0; q < p.pairs.size(); ++q) {
    const AllocationPair& pair = p.pairs[q];
    for (size_t k = 0; k < types; ++k) {
      const double x = a.pair_share[q][k];
      EXPECT_GE(x, 0.0);
      if (x > 0) {
        EXPECT_GT(pair.throughput_a[k], 0.0) << "pair " << q;
        EXPECT_GT(pair.throughput_b[k], 0.0) << "pair " << q;
        EXPECT_EQ(p.jobs[pair.a].num_gpus, p.jobs[pair.b].num_gpus) << "pair " << q;
      }
      used[k] += p.jobs[pair.a].num_gpus * x;
    }
  }
  for (size_t k = 0; k < types; ++k) EXPECT_LE(used[k], p.capacity[k] + 1e-6) << "type " << k;
}

// ---- By hand ----

// Two jobs on one GPU, paired at 0.9 each: apart they share the GPU (0.5 each, normalised 0.5 with
// P = 1), paired full time they both run at 0.9. Max-min pairs them full time: X[pair] = 1.
TEST(GavelPackedTest, MaxMinPairsFullTimeWhereItDoublesThroughput) {
  for (const bool second : {true, false}) {
    lp::WarmStartLpSolver solver;
    auto a =
        SolveMaxMinFairnessPacked(PackedTwoOnOne(0.9), MaxMinPackedOptions{.second_phase = PhaseOf(second)}, solver);
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_NEAR(a->objective, 0.9, 1e-9);
    EXPECT_NEAR(a->pair_share[0][0], 1.0, 1e-9);
    EXPECT_NEAR(a->share[0][0], 0.0, 1e-9);
    EXPECT_NEAR(a->share[1][0], 0.0, 1e-9);
  }
  // Paired at 0.4 each (less than the 0.5 of sharing by turns): no pairing.
  lp::WarmStartLpSolver solver;
  auto a = SolveMaxMinFairnessPacked(PackedTwoOnOne(0.4), {}, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->objective, 0.5, 1e-9);
  EXPECT_NEAR(a->pair_share[0][0], 0.0, 1e-9);
  EXPECT_NEAR(a->share[0][0], 0.5, 1e-9);
}

// Paired at 0.8 for job 0 and 0.3 for job 1 (sum 1.1): the max-min mixes. With s = single time
// of job 1 and y = pair time (job 0 alone never helps it): job 0 gets 0.8 y + x0, job 1 gets
// 0.3 y + x1, x0 + x1 + y <= 1. Job 1 is best served alone, job 0 paired: x0 = 0 and
// 0.8 y = 0.3 y + (1 - y): y = 1 / 1.5 = 2/3, level 0.5333.
TEST(GavelPackedTest, MaxMinMixesPairAndSingle) {
  AllocationProblem p = PackedTwoOnOne(0.0);
  p.pairs[0].throughput_a = KeptRates({0.8});
  p.pairs[0].throughput_b = KeptRates({0.3});
  lp::WarmStartLpSolver solver;
  auto a = SolveMaxMinFairnessPacked(p, {}, solver);
  ASSERT_TRUE(a.ok());
  // (The second phase may trade 1e-7 of the min, SolveEpigraphTwoPhase.)
  EXPECT_NEAR(a->objective, 0.8 * 2 / 3, 1e-6);
  EXPECT_NEAR(a->pair_share[0][0], 2.0 / 3, 1e-6);
  EXPECT_NEAR(a->share[1][0], 1.0 / 3, 1e-6);
  EXPECT_NEAR(PackedEffectiveThroughput(p, *a, 0), 0.8 * 2 / 3, 1e-6);
}

// Water filling on the same two jobs: one level, both at 0.9 (normalised, P = 1).
TEST(GavelPackedTest, WaterFillingPairsFullTime) {
  for (const bool extra : {false, true}) {
    lp::WarmStartLpSolver solver;
    WaterFillingTrace tr;
    WaterFillingPackedOptions o;
    o.gavel_extra_level = extra;
    auto a = SolveWaterFillingPacked(PackedTwoOnOne(0.9), {}, o, solver, &tr);
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_NEAR(tr.level[0], 0.9, 1e-6);
    EXPECT_NEAR(tr.level[1], 0.9, 1e-6);
    EXPECT_NEAR(a->pair_share[0][0], 1.0, 1e-6);
    EXPECT_EQ(tr.levels, extra ? 2 : 1);  // Gavel's packed loop solves one more level
  }
}

// Min total duration: 900 steps each. Paired (0.9 each) they finish in 1000 s; by turns in 1800 s.
// Gavel's bisection from [100, 1e6] stops within 5%: T in [1000, 1050].
TEST(GavelPackedTest, MinTotalDurationPairs) {
  lp::WarmStartLpSolver solver;
  auto a = SolveMinTotalDurationPacked(PackedTwoOnOne(0.9), solver);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_GE(a->objective, 1000.0);
  EXPECT_LE(a->objective, 1050.0);
  for (size_t j = 0; j < 2; ++j) {
    EXPECT_GE(PackedEffectiveThroughput(PackedTwoOnOne(0.9), *a, j), 900.0 / a->objective - 1e-9);
  }
  EXPECT_GT(a->pair_share[0][0], 0.9);  // by turns no horizon below 1800 s is feasible
  // Without a pair that can run: 1800 s.
  lp::WarmStartLpSolver solver2;
  auto b = SolveMinTotalDurationPacked(PackedTwoOnOne(0.0), solver2);
  ASSERT_TRUE(b.ok());
  EXPECT_GE(b->objective, 1800.0);
  EXPECT_LE(b->objective, 1800.0 * 1.05);
  EXPECT_EQ(b->pair_share[0][0], 0.0);
}

// Finish-time fairness: new jobs, D_i = remaining / I_i with I_i = 1 x (1 GPU / 2 jobs) = 0.5:
// D = 1800 s. Paired full time: rho = (900 / 0.9) / 1800 = 0.5556 (by turns it would be 1).
TEST(GavelPackedTest, FinishTimeFairnessPairs) {
  const AllocationProblem p = PackedTwoOnOne(0.9);
  GavelFtfState state;
  const std::vector<double> d = state.IsolatedTimes(p);
  EXPECT_NEAR(d[0], 1800.0, 1e-9);
  lp::WarmStartLpSolver solver;
  auto a = SolveFinishTimeFairnessPacked(p, solver, d);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_NEAR(a->objective, 1000.0 / 1800.0, 1e-5);
  EXPECT_NEAR(a->pair_share[0][0], 1.0, 1e-5);
  // A weight of 2 halves job 0's rate in rho (Gavel divides the throughputs by w): its rho is
  // (900 / (0.9 y / 2)) / 1800 with y <= 1: at least 1.111.
  AllocationProblem w = p;
  w.jobs[0].weight = 2;
  auto b = SolveFinishTimeFairnessPacked(w, solver, d);
  ASSERT_TRUE(b.ok());
  EXPECT_GT(b->objective, 1.0);
}

// Finish-time fairness worked by hand where the answer is neither all paired nor by turns: two jobs
// of 50 iterations left, 1 iteration/s alone, 0.6 each paired, on one GPU, D = 100 s each, job 0
// 20 s in (rho_0 = 0.2 + 0.5 / r_0, rho_1 = 0.5 / r_1). Paired full time rho_0 = 1.033; the
// optimum gives job 0 alone the time the pair leaves, y paired: r_0 = 1 - 0.4 y, r_1 = 0.6 y,
// equal rhos at 0.048 y^2 - 0.62 y + 0.5 = 0: y = (0.62 - sqrt(0.2884)) / 0.096 = 0.864281,
// rho = 0.5 / (0.6 y) = 0.964196. The bisection over every column and the tangent steps over
// priced ones (both second phases) reach it.
TEST(GavelPackedTest, FinishTimeFairnessByHand) {
  AllocationProblem p = PackedTwoOnOne(0.6, 50);
  p.jobs[0].elapsed_s = 20;
  const std::vector<double> d = {100, 100};
  const double y = (0.62 - std::sqrt(0.2884)) / 0.096;
  for (const PairColumns columns : {PairColumns::kAll, PairColumns::kPriced}) {
    for (const bool held : {false, true}) {
      SCOPED_TRACE(std::string(columns == PairColumns::kAll ? "all" : "priced") + (held ? " held" : ""));
      FtfPackedOptions options;
      options.columns = columns;
      options.second_phase = held ? PackedSecondPhase::kHeld : PackedSecondPhase::kOff;
      lp::WarmStartLpSolver solver;
      double last_rho = 0;
      auto a = SolveFinishTimeFairnessPacked(p, solver, d, options, nullptr, &last_rho);
      ASSERT_TRUE(a.ok()) << a.status().message();
      EXPECT_NEAR(a->objective, 0.5 / (0.6 * y), 2e-6);
      EXPECT_NEAR(a->pair_share[0][0], y, 1e-5);
      EXPECT_NEAR(a->share[0][0], 1 - y, 1e-5);
      EXPECT_NEAR(a->share[1][0], 0.0, 1e-5);
      ExpectPackedFeasible(p, *a);
      if (columns == PairColumns::kPriced) {
        EXPECT_NEAR(last_rho, a->objective, 2e-6);
      }
    }
  }
}

// fifo_packed: job 0 takes the GPU; job 1 waits, then packs with job 0 if 0.9/1 + 0.9/1 = 1.8 >
// 1.5 (the pair takes job 0's place); at 0.7 each (1.4) it does not.
TEST(GavelPackedTest, FifoPacksAboveThreshold) {
  Allocation a = SolveFifoPacked(PackedTwoOnOne(0.9));
  EXPECT_EQ(a.share[0][0], 0.0);
  EXPECT_EQ(a.share[1][0], 0.0);
  EXPECT_EQ(a.pair_share[0][0], 1.0);
  Allocation b = SolveFifoPacked(PackedTwoOnOne(0.7));
  EXPECT_EQ(b.share[0][0], 1.0);
  EXPECT_EQ(b.pair_share[0][0], 0.0);
  Allocation c = SolveFifoPacked(PackedTwoOnOne(0.7), FifoPackedOptions{.threshold = 1.3});
  EXPECT_EQ(c.pair_share[0][0], 1.0);
}

// fifo_packed's queue: three jobs on one GPU. Job 0 runs; job 1 cannot pack with it (pair at 0),
// so the pass stops there and job 2, which could pack with job 0, may not jump the queue.
TEST(GavelPackedTest, FifoHeadWithoutPartnerBlocks) {
  AllocationProblem p;
  p.capacity = {1};
  p.type_names = {"v100"};
  p.jobs = {PackedJob(0, {1.0}), PackedJob(1, {1.0}), PackedJob(2, {1.0})};
  p.pairs = {TestPair(0, 1, {0.0}, {0.0}), TestPair(0, 2, {0.9}, {0.9}),
             TestPair(1, 2, {0.9}, {0.9})};
  Allocation a = SolveFifoPacked(p);
  EXPECT_EQ(a.share[0][0], 1.0);
  for (size_t q = 0; q < a.pair_share.size(); ++q) EXPECT_EQ(a.pair_share[q][0], 0.0);
  // Jobs in id order, whatever their order in the problem: job 0 (index 2 here) runs first.
  AllocationProblem q = p;
  std::swap(q.jobs[0], q.jobs[2]);  // index 0: id 2, index 2: id 0
  q.pairs = {TestPair(0, 2, {0.9}, {0.9}), TestPair(1, 2, {0.9}, {0.9})};  // ids {2, 0}, {1, 0}
  Allocation b = SolveFifoPacked(q);
  EXPECT_EQ(b.share[2][0], 0.0);
  EXPECT_EQ(b.pair_share[0][0], 0.0);
  EXPECT_EQ(b.pair_share[1][0], 1.0);  // id 1, next in the queue, packs with id 0
}

// Types by name for the greedy (fastest with room, ties to the first name): the catalog order
// here is v100, k80; both at 2 steps/s: k80 wins the tie.
TEST(GavelPackedTest, FifoTiesGoToTheFirstTypeByName) {
  AllocationProblem p;
  p.capacity = {1, 1};
  p.type_names = {"v100", "k80"};
  p.jobs = {PackedJob(0, {2.0, 2.0}), PackedJob(1, {3.0, 1.0})};
  Allocation a = SolveFifoPacked(p);
  EXPECT_EQ(a.share[0][1], 1.0);
  EXPECT_EQ(a.share[1][0], 1.0);
}

// Pairs that cannot run get no time: a zero pair throughput on a type, a pair of different GPU
// counts, a pair with a job that cannot run anywhere. Unplaceable jobs are reported.
TEST(GavelPackedTest, ImpossiblePairsGetNoTime) {
  AllocationProblem p;
  p.capacity = {2, 2};
  p.type_names = {"a", "b"};
  p.jobs = {PackedJob(0, {1, 1}, 1, 1000), PackedJob(1, {1, 1}, 1, 1000), PackedJob(2, {1, 1}, 2, 1000),
            PackedJob(3, {0, 0}, 1, 1000)};
  p.pairs = {TestPair(0, 1, {0.95, 0}, {0.95, 0.99}),   // type b: job 0 at 0
             TestPair(0, 2, {0.99, 0.99}, {0.99, 0.99}),  // 1 GPU with 2 GPUs
             TestPair(1, 3, {0.99, 0.99}, {0.99, 0.99})};  // job 3 cannot run
  lp::WarmStartLpSolver solver;
  std::vector<Result<Allocation>> results;
  results.push_back(SolveMaxMinFairnessPacked(p, {}, solver));
  results.push_back(SolveMaxMinFairnessPacked(p, MaxMinPackedOptions{.second_phase = PackedSecondPhase::kOff}, solver));
  results.push_back(SolveMinTotalDurationPacked(p, solver));
  results.push_back(SolveWaterFillingPacked(p, {}, {}, solver));
  GavelFtfState state;
  results.push_back(SolveFinishTimeFairnessPacked(p, solver, state.IsolatedTimes(p)));
  results.push_back(SolveMaxThroughputPerCostPacked(p, solver));
  results.push_back(SolveFifoPacked(p));
  for (size_t i = 0; i < results.size(); ++i) {
    SCOPED_TRACE("solver " + std::to_string(i));
    ASSERT_TRUE(results[i].ok()) << results[i].status().message();
    const Allocation& a = *results[i];
    ExpectPackedFeasible(p, a);
    EXPECT_EQ(a.pair_share[0][1], 0.0);
    for (const size_t q : {1, 2}) {
      EXPECT_EQ(a.pair_share[q][0], 0.0);
      EXPECT_EQ(a.pair_share[q][1], 0.0);
    }
    EXPECT_EQ(a.share[3], std::vector<double>(2, 0.0));
    EXPECT_EQ(a.unplaceable, std::vector<JobId>{3});
  }
}

// Max throughput per cost: the pair's two rates count (1.8 / 2 per hour > 1 / 2 alone); with an
// SLO for job 0 of 900 steps in 600 s (1.5 steps/s) that no combination meets, Gavel drops the SLOs.
TEST(GavelPackedTest, MaxThroughputPerCostCountsBothMembers) {
  AllocationProblem p = PackedTwoOnOne(0.9);
  p.price_per_hour = {2.0};
  lp::WarmStartLpSolver solver;
  auto a = SolveMaxThroughputPerCostPacked(p, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->objective, 0.9, 1e-9);
  EXPECT_NEAR(a->pair_share[0][0], 1.0, 1e-9);
  EXPECT_TRUE(a->note.empty());
  // An SLO of 900 steps in 1800 s (0.5 steps/s): still met by the pair.
  p.jobs[0].deadline_in_s = 1800;
  auto b = SolveMaxThroughputPerCostPacked(p, solver);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->note.empty());
  EXPECT_NEAR(b->objective, 0.9, 1e-9);
  p.jobs[0].deadline_in_s = 600;
  auto d = SolveMaxThroughputPerCostPacked(p, solver);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->note.empty());
  EXPECT_NEAR(d->objective, 0.9, 1e-9);
}

TEST(GavelPackedTest, EmptyProblems) {
  AllocationProblem none;
  none.capacity = {4};
  none.type_names = {"v100"};
  lp::WarmStartLpSolver solver;
  for (const AllocationProblem& p : {none, AllocationProblem{}}) {
    auto a = SolveMaxMinFairnessPacked(p, {}, solver);
    ASSERT_TRUE(a.ok());
    EXPECT_TRUE(a->share.empty());
    EXPECT_TRUE(a->pair_share.empty());
    EXPECT_TRUE(SolveMinTotalDurationPacked(p, solver).ok());
    EXPECT_TRUE(SolveWaterFillingPacked(p, {}, {}, solver).ok());
    EXPECT_TRUE(SolveFinishTimeFairnessPacked(p, solver, {}).ok());
    EXPECT_TRUE(SolveMaxThroughputPerCostPacked(p, solver).ok());
    EXPECT_TRUE(SolveFifoPacked(p).share.empty());
  }
  // Only an unplaceable job.
  AllocationProblem one = none;
  one.jobs = {PackedJob(7, {0.0}, 1, 10)};
  auto a = SolveMaxMinFairnessPacked(one, {}, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->unplaceable, std::vector<JobId>{7});
  EXPECT_EQ(SolveFifoPacked(one).share[0][0], 0.0);
}

// ---- Random problems ----

// n jobs of 1 or 2 GPUs (`mixed`) on up to 3 types, every pair of jobs present (pairs of different
// GPU counts too, which must get nothing), a fifth of the pair rates 0.
AllocationProblem PackedRandomProblem(std::mt19937& rng, bool mixed) {
  std::uniform_int_distribution<int> njobs(2, 9), ntypes(1, 3), cap(1, 4), coin(0, 4);
  std::uniform_real_distribution<double> rate(1, 10), rem(1e3, 1e5), el(0, 5e3);
  AllocationProblem p;
  const int nt = ntypes(rng);
  for (int k = 0; k < nt; ++k) {
    p.capacity.push_back(cap(rng) * 2);
    p.type_names.push_back(std::string(1, static_cast<char>('a' + k)));
  }
  const int n = njobs(rng);
  for (int j = 0; j < n; ++j) {
    std::vector<double> t(static_cast<size_t>(nt));
    for (double& v : t) v = coin(rng) == 0 ? 0.0 : rate(rng);
    p.jobs.push_back(PackedJob(static_cast<JobId>(j), t, mixed && coin(rng) < 2 ? 2 : 1, std::floor(rem(rng)),
                               std::floor(el(rng))));
  }
  testing_util::AddEveryPair(p, rng, 0.3, 1.05);
  return p;
}

TEST(GavelPackedTest, RandomProblemsKeepTheBaseConstraints) {
  std::mt19937 rng(20240611);
  for (int trial = 0; trial < 40; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const AllocationProblem p = PackedRandomProblem(rng, trial % 2 == 1);
    lp::WarmStartLpSolver solver;
    auto mm = SolveMaxMinFairnessPacked(p, {}, solver);
    ASSERT_TRUE(mm.ok()) << mm.status().message();
    ExpectPackedFeasible(p, *mm);
    // Every placeable job reaches the objective (normalised, g / P).
    for (size_t j = 0; j < p.jobs.size(); ++j) {
      if (!Placeable(p, j)) continue;
      const double u = PackedEffectiveThroughput(p, *mm, j) * p.jobs[j].num_gpus / ProportionalThroughput(p, j);
      EXPECT_GE(u, mm->objective * (1 - 1e-6) - 1e-9);
    }
    auto mtd = SolveMinTotalDurationPacked(p, solver);
    ASSERT_TRUE(mtd.ok()) << mtd.status().message();
    ExpectPackedFeasible(p, *mtd);
    for (size_t j = 0; j < p.jobs.size(); ++j) {
      if (!Placeable(p, j)) continue;
      EXPECT_GE(PackedEffectiveThroughput(p, *mtd, j), p.jobs[j].remaining_iterations / mtd->objective * (1 - 1e-6));
    }
    WaterFillingTrace tr;
    auto wf = SolveWaterFillingPacked(p, {}, {}, solver, &tr);
    ASSERT_TRUE(wf.ok()) << wf.status().message();
    ExpectPackedFeasible(p, *wf);
    for (size_t j = 0; j < p.jobs.size(); ++j) {
      if (!Placeable(p, j)) continue;
      EXPECT_GE(PackedEffectiveThroughput(p, *wf, j) / ProportionalThroughput(p, j), tr.level[j] * (1 - 1e-6) - 1e-9);
    }
    GavelFtfState state;
    auto ftf = SolveFinishTimeFairnessPacked(p, solver, state.IsolatedTimes(p));
    ASSERT_TRUE(ftf.ok()) << ftf.status().message();
    ExpectPackedFeasible(p, *ftf);
    ExpectPackedFeasible(p, SolveFifoPacked(p));
    auto cost = SolveMaxThroughputPerCostPacked(p, solver);
    ASSERT_TRUE(cost.ok()) << cost.status().message();
    ExpectPackedFeasible(p, *cost);
  }
}

// Without pairs the packed problems are the non-packed ones: max-min against gavel-las with Gavel's
// proportional normaliser (one row per job), water filling against SolveWaterFilling.
// The jobs [from, to) of `p` and the pairs among them (indices renumbered; ids kept): a round
// after jobs left and arrived.
AllocationProblem PackedSubProblem(const AllocationProblem& p, size_t from, size_t to) {
  AllocationProblem q;
  q.capacity = p.capacity;
  q.type_names = p.type_names;
  q.jobs.assign(p.jobs.begin() + static_cast<std::ptrdiff_t>(from), p.jobs.begin() + static_cast<std::ptrdiff_t>(to));
  for (const AllocationPair& pair : p.pairs) {
    if (pair.a < from || pair.b < from || pair.a >= to || pair.b >= to) continue;
    q.pairs.push_back(AllocationPair{pair.a - from, pair.b - from, pair.throughput_a, pair.throughput_b});
  }
  return q;
}

// warm_start=by-job (lp::WarmStartMatch::kName) needs every variable and row of a packed program
// keyed, else it silently starts each round's first program cold (as by shape): across rounds
// whose jobs change, every solve after the first starts warm, and the optimum is a cold solve's.
TEST(GavelPackedTest, ProgramsAreKeyedForWarmStartsByJob) {
  std::mt19937 rng(20261204);
  using Solve = std::function<Result<Allocation>(const AllocationProblem&, lp::WarmStartLpSolver&)>;
  const std::vector<std::pair<std::string, Solve>> solvers = {
      {"max-min", [](const AllocationProblem& q, lp::WarmStartLpSolver& s) { return SolveMaxMinFairnessPacked(q, {}, s); }},
      {"makespan", [](const AllocationProblem& q, lp::WarmStartLpSolver& s) { return SolveMinTotalDurationPacked(q, s); }},
      {"cost", [](const AllocationProblem& q, lp::WarmStartLpSolver& s) { return SolveMaxThroughputPerCostPacked(q, s); }},
      {"finish-time", [](const AllocationProblem& q, lp::WarmStartLpSolver& s) {
         std::vector<double> d(q.jobs.size());
         for (size_t j = 0; j < d.size(); ++j) d[j] = 2 * q.jobs[j].remaining_iterations + 1e4;
         return SolveFinishTimeFairnessPacked(q, s, d);
       }}};
  for (int trial = 0; trial < 6; ++trial) {
    AllocationProblem p;
    do {
      p = PackedRandomProblem(rng, /*mixed=*/false);
    } while (p.jobs.size() < 6);
    const size_t n = p.jobs.size();
    // Rounds: all but the last job, then the first leaves, then the last arrives.
    const std::vector<AllocationProblem> rounds = {PackedSubProblem(p, 0, n - 1), PackedSubProblem(p, 1, n - 1),
                                                   PackedSubProblem(p, 1, n)};
    // Water filling packed: every level LP starts warm after the first round, each round's first
    // level from the last round's first level (by key), its later ones from the last level.
    {
      SCOPED_TRACE("trial " + std::to_string(trial) + ", water filling");
      lp::WarmStartLpSolver by_job(lp::WarmStartMatch::kName);
      for (size_t round = 0; round < rounds.size(); ++round) {
        const long long warm_before = by_job.warm_starts();
        WaterFillingTrace tr;
        auto warm = SolveWaterFillingPacked(rounds[round], {}, {}, by_job, &tr);
        ASSERT_TRUE(warm.ok()) << warm.status().message();
        EXPECT_GE(tr.level_solves, tr.levels);
        EXPECT_EQ(by_job.warm_starts() - warm_before, round > 0 ? tr.level_solves : tr.level_solves - 1)
            << "round " << round;
        ExpectPackedFeasible(rounds[round], *warm);
      }
    }
    for (const auto& [name, solve] : solvers) {
      SCOPED_TRACE("trial " + std::to_string(trial) + ", " + name);
      lp::WarmStartLpSolver by_job(lp::WarmStartMatch::kName);
      for (size_t round = 0; round < rounds.size(); ++round) {
        const AllocationProblem& q = rounds[round];
        const long long warm_before = by_job.warm_starts();
        auto warm = solve(q, by_job);
        ASSERT_TRUE(warm.ok()) << warm.status().message();
        // The first round starts cold (and, in a bisection, so does each program until one has an
        // optimum); every later one from the last optimum, the jobs that left and came included.
        if (round > 0) {
          EXPECT_GE(warm->lp_solves, 1);
          EXPECT_EQ(by_job.warm_starts() - warm_before, warm->lp_solves) << "round " << round;
        }
        lp::WarmStartLpSolver cold;
        auto fresh = solve(q, cold);
        ASSERT_TRUE(fresh.ok());
        ExpectPackedFeasible(q, *warm);
        EXPECT_NEAR(warm->objective, fresh->objective, 1e-4 * std::max(1.0, std::abs(fresh->objective)));
      }
    }
  }
}

// Water filling packed's level LPs and relaxations hold the pair columns priced in
// (WaterFillingOptions::generate_pair_columns, policies/gavel/packed_columns.h): every job's level
// is the one over every column (up to Gavel's slack 1.0001, the bottleneck test's own resolution),
// with fewer pair columns. Fails where pricing misses a column that raises a level (levels lower)
// or where the generation is off (every column held).
TEST(GavelPackedTest, WaterFillingGeneratedPairColumnsKeepTheLevels) {
  std::mt19937 rng(20261205);
  size_t held = 0, total = 0;
  int with_pairs_held = 0;
  for (int trial = 0; trial < 30; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const AllocationProblem p = PackedRandomProblem(rng, trial % 3 == 2);
    WaterFillingTrace generated, every;
    WaterFillingPackedOptions all;
    all.base.generate_pair_columns = false;
    lp::WarmStartLpSolver s1(lp::WarmStartMatch::kName), s2(lp::WarmStartMatch::kName);
    auto a = SolveWaterFillingPacked(p, {}, {}, s1, &generated);
    auto b = SolveWaterFillingPacked(p, {}, all, s2, &every);
    ASSERT_TRUE(a.ok() && b.ok());
    ExpectPackedFeasible(p, *a);
    EXPECT_EQ(every.pair_columns_held, every.pair_columns);
    EXPECT_EQ(generated.pair_columns, every.pair_columns);
    for (size_t j = 0; j < p.jobs.size(); ++j) {
      EXPECT_NEAR(generated.level[j], every.level[j], 2e-4 * every.level[j]) << "job " << j;
      if (!Placeable(p, j)) continue;
      EXPECT_GE(PackedEffectiveThroughput(p, *a, j) / ProportionalThroughput(p, j),
                generated.level[j] * (1 - 1e-6) - 1e-9);
    }
    held += generated.pair_columns_held;
    total += generated.pair_columns;
    with_pairs_held += generated.pair_columns_held > 0 ? 1 : 0;
  }
  // Measured: 185 of the 337 pair columns held, pairs held in 28 of the 30 problems.
  EXPECT_LT(held, total);          // columns that cannot raise a level stay out
  EXPECT_GE(with_pairs_held, 10);  // pairs that raise a level are priced in
}

// A crowded problem: `min_jobs`..`max_jobs` one-GPU jobs (rates 1-10, a fifth 0, each placeable)
// on one to three types of one GPU; with `weighted`, a third of them weigh 4 (the others 1).
AllocationProblem CrowdedProblem(std::mt19937& rng, int min_jobs, int max_jobs, bool weighted) {
  std::uniform_int_distribution<int> njobs(min_jobs, max_jobs), ntypes(1, 3), coin(0, 4), heavy(0, 2);
  std::uniform_real_distribution<double> rate(1, 10);
  AllocationProblem p;
  const int nt = ntypes(rng);
  for (int k = 0; k < nt; ++k) {
    p.capacity.push_back(1);
    p.type_names.push_back(std::string(1, static_cast<char>('a' + k)));
  }
  const int n = njobs(rng);
  for (int j = 0; j < n; ++j) {
    std::vector<double> t(static_cast<size_t>(nt));
    for (double& v : t) v = coin(rng) == 0 ? 0.0 : rate(rng);
    t[static_cast<size_t>(j % nt)] = rate(rng);  // every job placeable
    p.jobs.push_back(PackedJob(static_cast<JobId>(j), t, 1, 1e4));
    if (weighted) p.jobs.back().weight = heavy(rng) == 0 ? 4 : 1;
  }
  return p;
}

// Crowded problems (20-40 one-GPU jobs on one to three types of one GPU: levels about 0.02-0.15,
// around Gavel's threshold of 0.1, below which the bottleneck MILP has no point): answering the
// MILP without a solve where its rows and the level say so (water_filling_internal.h
// BottleneckWithoutSolve) freezes the jobs and gives the levels that solving it does, with and
// without pairs, and it is taken (measured: 19 of the 20 MILPs).
TEST(GavelPackedTest, WaterFillingLowLevelsDecidedWithoutASolve) {
  std::mt19937 rng(20261206);
  int decided = 0, milps = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const AllocationProblem p = CrowdedProblem(rng, 20, 40, /*weighted=*/false);
    AllocationProblem packed = p;
    testing_util::AddEveryPair(packed, rng, 0.3, 1.05);
    for (const bool with_pairs : {false, true}) {
      SCOPED_TRACE("trial " + std::to_string(trial) + (with_pairs ? ", pairs" : ", no pairs"));
      const AllocationProblem& q = with_pairs ? packed : p;
      WaterFillingPackedOptions solved;
      solved.base.decide_without_solve = false;
      WaterFillingTrace fast, slow;
      lp::WarmStartLpSolver s1(lp::WarmStartMatch::kName), s2(lp::WarmStartMatch::kName);
      auto a = SolveWaterFillingPacked(q, {}, {}, s1, &fast);
      auto b = SolveWaterFillingPacked(q, {}, solved, s2, &slow);
      ASSERT_TRUE(a.ok() && b.ok());
      ExpectPackedFeasible(q, *a);
      EXPECT_EQ(slow.milps_decided, 0);
      EXPECT_EQ(fast.levels, slow.levels);
      EXPECT_EQ(fast.infeasible_milps, slow.infeasible_milps);
      for (size_t j = 0; j < q.jobs.size(); ++j) {
        EXPECT_NEAR(fast.level[j], slow.level[j], 1e-9 + 1e-7 * slow.level[j]) << "job " << j;
      }
      decided += fast.milps_decided;
      milps += fast.milps;
    }
  }
  EXPECT_GT(decided, 0) << "of " << milps;
}

// Crowded problems whose jobs weigh 1 or 4, so that their levels lie on both sides of Gavel's
// threshold of 0.1 (a job below it cannot stay at z = 0 in the bottleneck MILP): the MILP without
// its big M, those jobs' z fixed at 1 (water_filling_bottleneck.cc, SolveBottleneckTight), gives
// the levels the big-M MILP gives, with and without pairs; both solved at every level.
TEST(GavelPackedTest, WaterFillingTightMilpWhereSomeJobsMustGrow) {
  std::mt19937 rng(20261205);
  int straddled = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const AllocationProblem p = CrowdedProblem(rng, 12, 24, /*weighted=*/true);
    AllocationProblem packed = p;
    testing_util::AddEveryPair(packed, rng, 0.3, 1.05);
    for (const bool with_pairs : {false, true}) {
      SCOPED_TRACE("trial " + std::to_string(trial) + (with_pairs ? ", pairs" : ", no pairs"));
      const AllocationProblem& q = with_pairs ? packed : p;
      WaterFillingPackedOptions tight, big_m;
      tight.base.decide_without_solve = false;
      big_m.base.decide_without_solve = false;
      big_m.base.tight_milp = false;
      WaterFillingTrace a_tr, b_tr;
      lp::WarmStartLpSolver s1(lp::WarmStartMatch::kName), s2(lp::WarmStartMatch::kName);
      auto a = SolveWaterFillingPacked(q, {}, tight, s1, &a_tr);
      auto b = SolveWaterFillingPacked(q, {}, big_m, s2, &b_tr);
      ASSERT_TRUE(a.ok() && b.ok());
      ExpectPackedFeasible(q, *a);
      EXPECT_EQ(a_tr.levels, b_tr.levels);
      EXPECT_EQ(a_tr.infeasible_milps, b_tr.infeasible_milps);
      double low = 1, high = 0;
      for (size_t j = 0; j < q.jobs.size(); ++j) {
        EXPECT_NEAR(a_tr.level[j], b_tr.level[j], 1e-9 + 1e-6 * b_tr.level[j]) << "job " << j;
        low = std::min(low, b_tr.level[j]);
        high = std::max(high, b_tr.level[j]);
      }
      straddled += low < 0.09 && high > 0.11 ? 1 : 0;
    }
  }
  EXPECT_GE(straddled, 5) << "problems with levels on both sides of 0.1, of 20 (measured: 7)";
}

TEST(GavelPackedTest, WithoutPairsAsTheNonPackedSolvers) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    AllocationProblem p = PackedRandomProblem(rng, trial % 2 == 1);
    p.pairs.clear();
    lp::WarmStartLpSolver s1, s2;
    for (const bool second : {false, true}) {
      auto packed = SolveMaxMinFairnessPacked(p, MaxMinPackedOptions{.second_phase = PhaseOf(second)}, s1);
      auto plain = SolveMaxMinFairness(
          p, MaxMinOptions{.proportional = true, .aggregate = false, .second_phase = second}, s2);
      ASSERT_TRUE(packed.ok() && plain.ok());
      EXPECT_EQ(packed->objective, plain->objective);
      EXPECT_EQ(packed->share, plain->share);  // the same programs, so the same vertices
    }
    WaterFillingTrace t1, t2;
    auto wp = SolveWaterFillingPacked(p, {}, {}, s1, &t1);
    auto wn = SolveWaterFilling(p, {}, {}, s2, &t2);
    ASSERT_TRUE(wp.ok() && wn.ok());
    EXPECT_EQ(t1.level, t2.level);
    EXPECT_EQ(wp->share, wn->share);
    auto mp = SolveMinTotalDurationPacked(p, s1);
    auto mn = SolveMinTotalDurationBisection(p, s2);
    ASSERT_TRUE(mp.ok() && mn.ok());
    EXPECT_NEAR(mp->objective, mn->objective, 1e-9 * mn->objective);
  }
}

// ---- Gavel's own packed policies ----
//
// Made by tests/data/gavel_packed/gavel_packed_reference.py (Gavel @ c4fa400, the peers' cvxpy
// stand-in with scipy's HiGHS):
//   cd GAVEL/scheduler && GAVEL_SHIM_SOLVER=highs PYTHONPATH=SHIM:.:runtime/rpc_stubs
//       /usr/bin/python3 HETSCHED/tests/data/gavel_packed/gavel_packed_reference.py
// Per case: the problem (seed, GPUs per job, W_k, type names, isolated rates [job][type], every
// pair {a, b, rates of a, rates of b}, remaining steps, time since start), then Gavel's figures:
// max_min_fairness_packed's min normalised throughput and per-job rates (steps/s);
// finish_time_fairness_packed's max rho and rates at a first call, the remaining steps of a second
// call 1000 s later (the first call's rates run for 1000 s) with its max rho and rates;
// min_total_duration_packed's last feasible T (s) and rates; the water filling's normalised
// effective throughputs (rate / P_i); fifo_packed's combinations given a type {a, b or -1, type};
// for max_sum_throughput_normalized_by_cost_packed_SLOs the prices, the SLOs, whether Gavel kept
// them, its objective and rates.
struct PackedGavelPair {
  size_t a, b;
  std::vector<double> ta, tb;
};
struct PackedGavelFifo {
  int a, b, k;
};
struct PackedGavelCase {
  int seed;
  int gpus;
  std::vector<int> capacity;
  std::vector<std::string> types;
  std::vector<std::vector<double>> isolated;
  std::vector<PackedGavelPair> pairs;
  std::vector<double> remaining, elapsed;
  double mmf_min;
  std::vector<double> mmf_rate;
  double ftf_rho;
  std::vector<double> ftf_rate;
  std::vector<double> remaining2;
  double ftf_rho2;
  std::vector<double> ftf_rate2;
  double mtd_t;
  std::vector<double> mtd_rate;
  std::vector<double> wf_level;
  std::vector<PackedGavelFifo> fifo;
  std::vector<double> prices;
  std::vector<double> slo;  // time left to the SLO (s), -1: none
  int slos_met;             // 0: Gavel solved without the SLOs (they cannot all be met)
  double cost_objective;
  std::vector<double> cost_rate;
};

const std::vector<PackedGavelCase>& PackedGavelCases() {
  static const std::vector<PackedGavelCase> cases = {
    // BEGIN generated by gavel_packed_reference.py
    {0, 1, {1, 4}, {"k80", "p100"},
     {{8.72, 8.63}, {6.61, 4.46}, {3.68, 1.51}, {3.45, 5.3}, {8.31, 5.32}, {4.54, 8.52}, {4.04, 6.83}},
     {{0, 1, {0, 3.897}, {0, 1.76}}, {0, 2, {3.53, 8.042}, {1.677, 0.929}}, {0, 3, {8.124, 6.535}, {1.275, 2.224}}, {0, 4, {7.198, 2.821}, {6.029, 3.958}}, {0, 5, {6.601, 6.104}, {3.38, 5.027}}, {0, 6, {6.422, 4.505}, {2.168, 5.77}}, {1, 2, {5.049, 3.441}, {1.139, 1.48}}, {1, 3, {4.341, 1.4}, {1.17, 3.229}}, {1, 4, {3.646, 4.087}, {5.29, 5.016}}, {1, 5, {4.598, 4.2}, {4.111, 8.05}}, {1, 6, {0, 1.367}, {0, 6.076}}, {2, 3, {3.271, 1.037}, {1.674, 2.202}}, {2, 4, {1.481, 0.758}, {5.806, 3.21}}, {2, 5, {2.124, 1.395}, {4.21, 6.612}}, {2, 6, {3.625, 0.888}, {1.541, 5.278}}, {3, 4, {1.791, 4.037}, {8.109, 3.582}}, {3, 5, {1.989, 3.334}, {3.329, 6.827}}, {3, 6, {1.961, 1.972}, {3.331, 2.491}}, {4, 5, {5.703, 2.791}, {1.469, 3.876}}, {4, 6, {0, 0}, {0, 0}}, {5, 6, {2.189, 3.15}, {2.731, 3.733}}},
     {47455, 84272, 90560, 4718, 51323, 17517, 78126}, {4324, 2056, 699, 166, 4912, 1866, 2100},
     0.9775265187, {8.45364963, 4.780104964, 1.900311623, 4.819205737, 5.785001993, 7.550415002, 6.131046628},
     1.271236277, {8.72, 2.945024982, 1.101588402, 3.06922115, 4.877474111, 8.071637409, 3.892894504},
     {38735, 81326, 89458, 1648, 46445, 9445, 74233}, 1.27123626, {8.72, 2.94498794, 1.101582647, 3.067766017, 4.877417512, 8.07132791, 3.892886743},
     25488.08594, {1.861850253, 3.306329171, 3.553032603, 0.3710142107, 3.576351149, 0.6872622847, 3.065196755},
     {0.977526553, 0.9775265775, 0.9775265549, 0.9775265187, 0.9775265281, 0.977526541, 0.9775265669},
     {{0, -1, 0}, {2, -1, 1}, {3, -1, 1}, {4, -1, 1}, {1, 5, 1}},
     {2.13, 0.79}, {-1, -1, 82414, 1709, 13106, 10757, -1}, 1, 46.42463477, {8.588462846, 4.2, 3.485665456, 4.126220112, 3.91599263, 8.05, 6.83}},
    {1, 1, {1}, {"k80"},
     {{1}, {3.72}, {2.32}, {1.83}, {5}, {4.11}, {4.57}, {5.85}},
     {{0, 1, {0}, {0}}, {0, 2, {0}, {0}}, {0, 3, {0.978}, {0.95}}, {0, 4, {0.913}, {4.631}}, {0, 5, {0}, {0}}, {0, 6, {0}, {0}}, {0, 7, {0}, {0}}, {1, 2, {1.372}, {1.38}}, {1, 3, {2.504}, {1.435}}, {1, 4, {2.904}, {4.421}}, {1, 5, {0}, {0}}, {1, 6, {3.691}, {3.764}}, {1, 7, {3.171}, {2.178}}, {2, 3, {2.172}, {0.925}}, {2, 4, {0.907}, {1.568}}, {2, 5, {1.04}, {1.997}}, {2, 6, {0.783}, {3.208}}, {2, 7, {0}, {0}}, {3, 4, {1.445}, {1.858}}, {3, 5, {1.439}, {2.425}}, {3, 6, {0}, {0}}, {3, 7, {1.399}, {3.863}}, {4, 5, {3.553}, {3.832}}, {4, 6, {0}, {0}}, {4, 7, {0}, {0}}, {5, 6, {2.377}, {1.9}}, {5, 7, {2.234}, {4.83}}, {6, 7, {4.197}, {4.309}}},
     {75343, 35540, 27722, 89692, 43381, 96519, 66680, 62547}, {573, 4747, 2249, 2891, 2040, 1185, 4516, 2868},
     0.1987011426, {0.1987011478, 0.7391682623, 0.4609866709, 0.3636230909, 0.9935057228, 0.8166617089, 0.9080642437, 1.162401715},
     0.6534419164, {0.1915734517, 0.7863591096, 0.4603795099, 0.3540644996, 1.001520442, 0.7938845432, 0.9292347389, 1.179603828},
     {75151, 34753, 27261, 89337, 42379, 95725, 65750, 61367}, 0.6534352129, {0.1915743437, 0.7863537237, 0.4603740213, 0.3540644908, 1.001520134, 0.7938918998, 0.9292342114, 1.179609228},
     136805.0781, {0.5507324885, 0.2597856793, 0.2026386831, 0.6556189429, 0.3171008044, 0.705522053, 0.4874088125, 0.4571979456},
     {0.1987011478, 0.1987011458, 0.1987011512, 0.1987011426, 0.1987011446, 0.1987011457, 0.1987011474, 0.1987011478},
     {{0, -1, 0}},
     {1.27}, {380462, 85640, 43230, 120493, -1, 68249, -1, 31909}, 0, 6.697637795, {0, 0, 0, 0, 0, 0, 4.197, 4.309}},
    {2, 1, {1, 3}, {"k80", "p100"},
     {{9.53, 5.36}, {3.88, 2.39}, {7.29, 2.08}},
     {{0, 1, {4.583, 2.272}, {2.647, 2.339}}, {0, 2, {4.779, 0}, {2.78, 0}}, {1, 2, {2.701, 1.683}, {3.319, 0.868}}},
     {37379, 47398, 65772}, {3965, 3315, 3065},
     1.061902143, {6.798828726, 2.93350467, 3.591884196},
     1.390611374, {8.999071105, 2.307077376, 2.743342815},
     {28379, 45090, 63028}, 1.390594226, {8.999062233, 2.30706481, 2.7433539},
     15235.20508, {2.453462154, 3.11108371, 4.317106352},
     {1.061902183, 1.061902143, 1.061902201},
     {{0, -1, 0}, {1, -1, 1}, {2, -1, 1}},
     {0.82, 1.65}, {9772, 39539, 21064}, 1, 14.18220733, {8.695612672, 2.39, 3.122483927}},
    {3, 1, {2}, {"k80"},
     {{5}, {2.09}, {5}, {4.93}, {1.17}},
     {{0, 1, {2.255}, {1.145}}, {0, 2, {4.697}, {4.18}}, {0, 3, {2.908}, {3.387}}, {0, 4, {3.553}, {0.576}}, {1, 2, {1.735}, {4.361}}, {1, 3, {1.934}, {3.958}}, {1, 4, {0}, {0}}, {2, 3, {0}, {0}}, {2, 4, {4.331}, {0.678}}, {3, 4, {2.907}, {0.996}}},
     {71643, 3288, 32260, 56714, 75067}, {3048, 1016, 3268, 3313, 4355},
     0.6266847791, {3.133423919, 1.309771188, 3.133423971, 3.089555972, 0.7332212103},
     0.7805113021, {2.87594876, 1.600964353, 3.460761864, 2.964009179, 0.621216726},
     {68767, 1687, 28799, 53749, 74445}, 0.7805058054, {2.875970257, 1.60096337, 3.460770174, 2.963980356, 0.6212147449},
     64546.67969, {1.109940904, 0.05093988027, 0.4997933303, 0.8786509585, 1.162987827},
     {0.6266847838, 0.6266847791, 0.6266847942, 0.6266847814, 0.6266847951},
     {{0, 2, 0}, {1, 3, 0}},
     {1.99}, {132139, -1, -1, -1, 137973}, 1, 6.875627298, {4.697, 0.8775423619, 4.18, 3.383885741, 0.5440702211}},
    {4, 2, {8, 4, 4}, {"k80", "p100", "v100"},
     {{8.7, 6.48, 6.38}, {0, 0, 7.29}, {9.13, 6.7, 0}, {6.15, 4.25, 6.44}, {4.53, 8.31, 6.51}},
     {{0, 1, {0, 0, 2.857}, {0, 0, 3.109}}, {0, 2, {4.078, 2.956, 0}, {5.138, 2.661, 0}}, {0, 3, {5.459, 0, 2.126}, {3.389, 0, 6.122}}, {0, 4, {7.548, 0, 6.144}, {1.759, 0, 3.392}}, {1, 2, {0, 0, 0}, {0, 0, 0}}, {1, 3, {0, 0, 5.93}, {0, 0, 5.083}}, {1, 4, {0, 0, 0}, {0, 0, 0}}, {2, 3, {0, 5.795, 0}, {0, 1.574, 0}}, {2, 4, {3.78, 3.73, 0}, {3.236, 2.619, 0}}, {3, 4, {5.432, 0, 5.479}, {4.306, 0, 5.096}}},
     {65393, 93791, 24379, 48664, 92813}, {887, 765, 4838, 1603, 4428},
     2.240974253, {8.476485685, 2.042087893, 6.991840147, 6.44, 6.689308145},
     1.921785905, {5.773540925, 1.341338161, 9.13, 4.55272753, 4.935016817},
     {59619, 92449, 15249, 44111, 87877}, 1.921785905, {4.131070308, 0.9717439161, 9.13, 3.291505964, 3.665256366},
     13282.27539, {4.923328041, 7.06136547, 1.835453617, 3.673784481, 6.987733132},
     {1.150033047, 4, 1.463141026, 1.120487168, 1.391959799},
     {{0, -1, 0}, {1, -1, 2}, {2, -1, 0}, {3, -1, 2}, {4, -1, 1}},
     {0.6, 2.64, 2.37}, {-1, 59613, 6548, -1, 26128}, 1, 50.59261603, {8.7, 7.29, 9.13, 6.15, 4.53}},
    {5, 1, {4, 2, 3}, {"k80", "p100", "v100"},
     {{4.27, 0, 0}, {4.57, 4.19, 5.38}, {9.92, 8.27, 0}, {8.38, 3.18, 7.88}, {2, 2.84, 2.07}, {8.9, 5.71, 5.43}},
     {{0, 1, {1.298, 0, 0}, {3.676, 0, 0}}, {0, 2, {3.001, 0, 0}, {7.002, 0, 0}}, {0, 3, {3.1, 0, 0}, {3.661, 0, 0}}, {0, 4, {2.699, 0, 0}, {0.687, 0, 0}}, {0, 5, {2.409, 0, 0}, {5.062, 0, 0}}, {1, 2, {4.337, 2.918, 0}, {7.727, 3.726, 0}}, {1, 3, {4.074, 0, 0}, {6.29, 0, 0}}, {1, 4, {4.429, 3.992, 5.359}, {0.917, 1.021, 1.132}}, {1, 5, {3.745, 0, 0}, {4.992, 0, 0}}, {2, 3, {3.792, 7.067, 0}, {4.624, 1.947, 0}}, {2, 4, {6.351, 6.857, 0}, {0.675, 2.099, 0}}, {2, 5, {7.073, 5.804, 0}, {5.825, 4.838, 0}}, {3, 4, {7.529, 3.032, 0}, {0.8, 2.275, 0}}, {3, 5, {0, 3.143, 5.656}, {0, 5.328, 2.899}}, {4, 5, {1.503, 2.101, 1.38}, {4.799, 2.513, 4.196}}},
     {28844, 75590, 70454, 10506, 11096, 35053}, {4100, 4623, 3790, 4395, 4270, 852},
     1.131308411, {2.146972064, 5.38, 7.066906819, 7.984523425, 2.500191699, 7.958126675},
     3.794713904, {1.18058903, 2.969496312, 3.932236791, 8.38, 1.532768683, 4.300674209},
     {27663, 72620, 66521, 2126, 9563, 30752}, 3.794713904, {0.6786956348, 1.712521972, 2.256594125, 8.38, 0.8915121333, 2.32515643},
     14258.74023, {2.022899615, 5.301309734, 4.941109727, 1.037129694, 0.7781893318, 2.4583519},
     {2.25, 1.131308411, 1.588046958, 1.187342569, 1.285067873, 1.26520297},
     {{0, -1, 0}, {1, -1, 2}, {2, -1, 0}, {3, -1, 0}, {4, -1, 1}, {5, -1, 0}},
     {2.15, 0.68, 1.68}, {-1, 67244, 15434, 4639, -1, 7810}, 1, 31.66987004, {4.27, 5.38, 8.27, 7.88, 2.07, 5.71}},
    {6, 1, {4, 1}, {"k80", "p100"},
     {{8.39, 1.38}, {1.97, 6.36}, {5.77, 4.77}, {4.02, 6.6}, {0, 7.62}},
     {{0, 1, {6.842, 0.535}, {1.569, 6.171}}, {0, 2, {3.791, 0.661}, {4.628, 3.673}}, {0, 3, {6.73, 0.659}, {3.844, 3.839}}, {0, 4, {0, 0.806}, {0, 7.563}}, {1, 2, {1.106, 0}, {4.597, 0}}, {1, 3, {1.654, 2.752}, {3.358, 4.157}}, {1, 4, {0, 2.75}, {0, 4.052}}, {2, 3, {4.215, 4.225}, {3.697, 2.815}}, {2, 4, {0, 2.78}, {0, 6.243}}, {3, 4, {0, 2.623}, {0, 6.035}}},
     {6824, 20073, 92554, 41105, 15680}, {3411, 817, 3241, 1258, 206},
     1.035906622, {7.238915477, 2.950262084, 5.77, 4.698872476, 2.297034013},
     4.325872272, {8.39, 1.73854429, 3.439792192, 2.7782362, 0.9175094353},
     {1, 18334, 89114, 38326, 14762}, 4.517130846, {8.39, 1.017954594, 1.694572652, 1.334472589, 0.4391347078},
     16211.66992, {0.4209313262, 1.678553926, 5.709097258, 2.535519139, 0.9672045083},
     {1.200629651, 1.153439709, 1.035906643, 1.153439742, 1.153439747},
     {{0, -1, 0}, {1, -1, 1}, {2, -1, 0}, {3, -1, 0}},
     {2.36, 1.07}, {-1, -1, 44218, 12308, -1}, 1, 15.65963092, {8.39, 1.97, 5.77, 4.02, 7.62}},
    {7, 1, {3, 4}, {"k80", "p100"},
     {{9.8, 5.1}, {3.77, 3.37}, {1.78, 4.77}, {1.14, 5.75}, {8.82, 3.98}, {4.54, 7.07}, {7.05, 7.25}},
     {{0, 1, {7.15, 2.517}, {3.641, 2.064}}, {0, 2, {4.172, 0}, {0.712, 0}}, {0, 3, {5.068, 3.077}, {0.568, 3.41}}, {0, 4, {8.384, 3.329}, {4.766, 2.93}}, {0, 5, {4.718, 3.099}, {2.65, 5.99}}, {0, 6, {7.994, 2.079}, {4.53, 5.469}}, {1, 2, {3.423, 2.566}, {0.713, 3.64}}, {1, 3, {2.536, 0}, {0.374, 0}}, {1, 4, {2.193, 1.948}, {6.859, 3.383}}, {1, 5, {1.812, 2.095}, {3.014, 2.665}}, {1, 6, {2.445, 1.644}, {3.088, 3.377}}, {2, 3, {1.015, 0}, {0.528, 0}}, {2, 4, {1.583, 3.087}, {7.503, 2.512}}, {2, 5, {1.71, 0}, {3.707, 0}}, {2, 6, {1.174, 4.568}, {2.996, 3.256}}, {3, 4, {0.664, 0}, {6.268, 0}}, {3, 5, {0.806, 3.916}, {2.782, 4.192}}, {3, 6, {0, 3.69}, {0, 3.294}}, {4, 5, {5.872, 2.663}, {2.911, 6.993}}, {4, 6, {6.533, 2.824}, {6.606, 3.012}}, {5, 6, {4.364, 4.412}, {3.81, 4.138}}},
     {53314, 82347, 64209, 86425, 64026, 99930, 52260}, {1638, 493, 2833, 1076, 58, 1496, 194},
     1.011964094, {7.199401697, 3.583798572, 3.530309106, 3.819441713, 6.126719966, 6.057327983, 7.25},
     1.014772708, {8.935344994, 3.564345101, 4.052465828, 3.899932093, 5.998569987, 6.469897698, 7.25},
     {44378, 78782, 60156, 82525, 58027, 93460, 45010}, 1.01477274, {8.935212683, 3.564315604, 4.052429876, 3.89992901, 5.998525649, 6.469890743, 7.25},
     22558.69141, {2.3633463, 3.650344694, 2.846308725, 3.831117712, 2.838196618, 4.429778304, 2.316623743},
     {1.37751004, 1.064542154, 1.367321867, 1.52346707, 1.456819254, 1.181145585, 1.011964108},
     {{0, -1, 0}, {1, -1, 0}, {2, -1, 1}, {3, -1, 1}, {4, -1, 0}, {5, -1, 1}, {6, -1, 1}},
     {1.87, 2.49}, {11882, -1, -1, -1, -1, 39507, 12461}, 1, 22.14494341, {9.8, 3.37, 4.77, 5.75, 8.82, 7.07, 7.05}},
    {8, 1, {2}, {"k80"},
     {{3.15}, {4.4}, {8.35}, {4.8}, {6.51}, {7.89}},
     {{0, 1, {0.992}, {2.407}}, {0, 2, {2.874}, {2.82}}, {0, 3, {1.589}, {3.713}}, {0, 4, {1.348}, {3.959}}, {0, 5, {3.029}, {5.204}}, {1, 2, {1.695}, {4.449}}, {1, 3, {3.077}, {3.658}}, {1, 4, {1.771}, {2.472}}, {1, 5, {1.516}, {5.014}}, {2, 3, {3.312}, {3.748}}, {2, 4, {0}, {0}}, {2, 5, {3.828}, {5.515}}, {3, 4, {2.048}, {3.658}}, {3, 5, {2.282}, {7.024}}, {4, 5, {5.246}, {4.808}}},
     {55300, 63036, 50473, 74022, 46208, 62058}, {3326, 2201, 67, 129, 1355, 3916},
     0.4471268424, {1.408449564, 1.967358217, 3.733509134, 2.146208911, 2.910795933, 3.527830841},
     0.8010486573, {1.422963371, 1.955979012, 3.490712693, 2.00435895, 2.942709427, 4.141147203},
     {53877, 61080, 46982, 72017, 43265, 57916}, 0.8010448659, {1.422969851, 1.955988456, 3.490708937, 2.004350769, 2.942705674, 4.141112717},
     25488.08594, {2.169641105, 2.47315558, 1.980258474, 2.904180421, 1.812925399, 2.434784636},
     {0.4471268459, 0.4471268676, 0.4471268424, 0.4471268564, 0.4471268714, 0.4471268493},
     {{0, -1, 0}, {1, -1, 0}},
     {2.04}, {-1, -1, 11962, -1, 12400, 21444}, 1, 9.021568627, {0, 0, 8.35, 0, 5.246, 4.808}},
    {9, 2, {4, 6, 2}, {"k80", "p100", "v100"},
     {{2.2, 2.28, 2.97}, {4.77, 3.23, 1.76}, {4.11, 2.5, 8.91}, {9.56, 1.35, 7.29}, {6.15, 9.08, 7}, {5.93, 7.32, 4.48}, {7.25, 8.42, 5.19}},
     {{0, 1, {0, 1.807, 0}, {0, 3.061, 0}}, {0, 2, {1.643, 0, 0}, {2.561, 0, 0}}, {0, 3, {0, 0.944, 1.898}, {0, 0.536, 5.748}}, {0, 4, {1.071, 0, 1.306}, {5.76, 0, 3.78}}, {0, 5, {1.427, 1.03, 1.756}, {3.499, 3.386, 3.175}}, {0, 6, {1.322, 1.167, 1.18}, {5.904, 8.248, 3.791}}, {1, 2, {2.043, 1.623, 1.307}, {1.547, 0.93, 2.91}}, {1, 3, {1.71, 1.562, 1.166}, {8.164, 0.5, 2.868}}, {1, 4, {0, 2.204, 0.915}, {0, 4.383, 5.979}}, {1, 5, {4.654, 1.534, 1.53}, {3.939, 4.868, 1.574}}, {1, 6, {4.116, 0, 1.364}, {4.237, 0, 4.895}}, {2, 3, {4.017, 2.029, 8.249}, {4.932, 1.068, 5.844}}, {2, 4, {3.659, 2.2, 6.015}, {4.622, 4.279, 3.966}}, {2, 5, {0, 0.89, 5.555}, {0, 6.314, 3.426}}, {2, 6, {3.712, 1.561, 8.614}, {3.081, 6.494, 4.657}}, {3, 4, {3.039, 1.099, 2.419}, {2.518, 4.989, 5.238}}, {3, 5, {5.516, 1.103, 5.14}, {2.346, 5.19, 1.902}}, {3, 6, {3.229, 1.26, 2.881}, {5.948, 5.317, 4.491}}, {4, 5, {4.835, 7.458, 0}, {4.55, 5.858, 0}}, {4, 6, {5.764, 0, 2.305}, {2.34, 0, 2.571}}, {5, 6, {3.311, 4.145, 4.271}, {6.737, 3.171, 2.222}}},
     {31808, 67795, 8831, 4239, 33330, 39274, 55347}, {2764, 1650, 2128, 1259, 1013, 3887, 697},
     2.247830901, {2.661806448, 3.931830947, 4.613672948, 5.705744201, 8.717837708, 7.17432696, 8.42},
     1.747562089, {1.309689788, 1.815728143, 3.947866299, 9.56, 4.360285524, 4.590899454, 3.906678609},
     {30498, 65979, 4883, 1, 28969, 34683, 51440}, 2.319021541, {0.9560152443, 1.35328426, 1.851839445, 9.56, 3.077115328, 3.011576864, 2.871525336},
     14258.74023, {2.230772087, 4.754627624, 0.6193394372, 0.2972913331, 2.337513675, 2.754380712, 3.881619176},
     {1.180239653, 1.180239669, 1.180239657, 1.180239672, 1.17060593, 1.146736292, 1.123915462},
     {{0, -1, 2}, {1, -1, 0}, {2, -1, 0}, {4, -1, 1}, {5, -1, 1}, {3, 6, 1}},
     {2.04, 0.91, 1.25}, {21524, -1, -1, -1, -1, 33062, -1}, 1, 42.35370754, {1.477792179, 4.77, 8.711129109, 8.441990574, 9.08, 7.32, 8.299748553}},
    {10, 1, {1, 4}, {"k80", "p100"},
     {{6.7, 7.74}, {0, 3.02}, {2.78, 7.84}, {2.52, 1.8}},
     {{0, 1, {0, 5.262}, {0, 1.207}}, {0, 2, {5.172, 5.669}, {1.694, 5.168}}, {0, 3, {4.829, 7.245}, {2.176, 0.942}}, {1, 2, {0, 1.147}, {0, 6.9}}, {1, 3, {0, 2.064}, {0, 1.572}}, {2, 3, {0, 4.282}, {0, 1.491}}},
     {30300, 88509, 33225, 17336}, {1962, 467, 4105, 755},
     1.027615458, {7.74, 2.482719044, 7.016558347, 1.997684476},
     1.7145283, {6.37833093, 1.515178509, 7.84, 1.269013125},
     {23921, 86993, 25385, 16066}, 1.7145283, {6.883732209, 1.819041902, 7.84, 1.493853709},
     29393.94531, {4.926569741, 3.011130341, 1.13033479, 2.096434199},
     {1.027615507, 1.25, 1.14821324, 1.296296296},
     {{0, -1, 1}, {1, -1, 1}, {2, -1, 1}, {3, -1, 0}},
     {1.49, 0.94}, {19979, 94827, -1, 18657}, 1, 21.70212766, {7.74, 3.02, 7.84, 1.8}},
    {11, 1, {4}, {"k80"},
     {{5}, {7.52}, {4.78}, {5.37}},
     {{0, 1, {1.881}, {6.962}}, {0, 2, {2.078}, {3.55}}, {0, 3, {0}, {0}}, {1, 2, {0}, {0}}, {1, 3, {3.087}, {4.464}}, {2, 3, {2.587}, {2.809}}},
     {12054, 9311, 71559, 60354}, {278, 2398, 2008, 4239},
     0.9999999855, {5, 7.52, 4.779999931, 5.37},
     2.936737193, {2.576709352, 7.52, 2.475729503, 2.974645032},
     {9477, 1791, 69083, 57379}, 2.936737193, {2.145560281, 7.52, 2.222868333, 2.716218706},
     15235.20508, {0.7911938132, 0.6111502914, 4.696950024, 3.961482696},
     {1, 1, 0.9999999594, 1},
     {{0, -1, 0}, {1, -1, 0}, {2, -1, 0}, {3, -1, 0}},
     {2.14}, {5833, 2456, 36224, -1}, 1, 10.59345794, {5, 7.52, 4.78, 5.37}},
    // END generated
  };
  return cases;
}

AllocationProblem PackedGavelProblem(const PackedGavelCase& c, const std::vector<double>& remaining,
                                     double since_offset_s) {
  AllocationProblem p;
  p.capacity = c.capacity;
  p.type_names = c.types;
  for (size_t j = 0; j < c.isolated.size(); ++j) {
    p.jobs.push_back(
        PackedJob(static_cast<JobId>(j), c.isolated[j], c.gpus, remaining[j], c.elapsed[j] + since_offset_s));
  }
  for (const PackedGavelPair& q : c.pairs) p.pairs.push_back(TestPair(q.a, q.b, q.ta, q.tb));
  p.price_per_hour = c.prices;
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    if (c.slo[j] > 0) p.jobs[j].deadline_in_s = c.slo[j];
  }
  return p;
}

double PackedMaxRho(const AllocationProblem& p, const Allocation& a, const std::vector<double>& d) {
  double rho = 0;
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    const double rate = PackedEffectiveThroughput(p, a, j);
    rho = std::max(rho, (p.jobs[j].elapsed_s + p.jobs[j].remaining_iterations / rate) / d[j]);
  }
  return rho;
}

// Where the per-job rates differ from Gavel's (its optimum is not unique there): the largest
// relative difference, printed with HETSCHED_PACKED_REPORT=1 (the table in docs/space_sharing.md).
double PackedMaxRelDiff(const AllocationProblem& p, const Allocation& a, const std::vector<double>& gavel) {
  double worst = 0;
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    const double ours = PackedEffectiveThroughput(p, a, j);
    worst = std::max(worst, std::abs(ours - gavel[j]) / std::max(1e-9, std::abs(gavel[j])));
  }
  return worst;
}

bool PackedReport() { return std::getenv("HETSCHED_PACKED_REPORT") != nullptr; }

// Gavel's LPs hold float32 throughputs (policy.py flatten): objectives agree to ~1e-6 relative.
constexpr double kPackedGavelTol = 2e-5;

TEST(GavelPackedReferenceTest, MaxMinFairness) {
  for (const PackedGavelCase& c : PackedGavelCases()) {
    SCOPED_TRACE("seed " + std::to_string(c.seed));
    const AllocationProblem p = PackedGavelProblem(c, c.remaining, 0);
    for (const bool second : {true, false}) {
      lp::WarmStartLpSolver solver;
      auto a = SolveMaxMinFairnessPacked(p, MaxMinPackedOptions{.second_phase = PhaseOf(second)}, solver);
      ASSERT_TRUE(a.ok()) << a.status().message();
      EXPECT_NEAR(a->objective, c.mmf_min, kPackedGavelTol * c.mmf_min);
      if (PackedReport()) {
        // The sum of the normalised throughputs (what the second phase maximises), ours and Gavel's.
        double ours = 0, gavel = 0;
        for (size_t j = 0; j < p.jobs.size(); ++j) {
          const double u = p.jobs[j].num_gpus / ProportionalThroughput(p, j);
          ours += PackedEffectiveThroughput(p, *a, j) * u;
          gavel += c.mmf_rate[j] * u;
        }
        std::printf("mmf seed %d second_phase %d: min %.10g (gavel %.10g), max rel rate diff %.3g, sum %.5g (gavel %.5g)\n",
                    c.seed, second, a->objective, c.mmf_min, PackedMaxRelDiff(p, *a, c.mmf_rate), ours, gavel);
      }
    }
  }
}

TEST(GavelPackedReferenceTest, FinishTimeFairnessTwoCalls) {
  for (const PackedGavelCase& c : PackedGavelCases()) {
    SCOPED_TRACE("seed " + std::to_string(c.seed));
    GavelFtfState state;
    lp::WarmStartLpSolver solver;
    const AllocationProblem p1 = PackedGavelProblem(c, c.remaining, 0);
    const std::vector<double> d1 = state.IsolatedTimes(p1);
    auto a = SolveFinishTimeFairnessPacked(p1, solver, d1);
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_NEAR(a->objective, c.ftf_rho, kPackedGavelTol * c.ftf_rho);
    EXPECT_NEAR(PackedMaxRho(p1, *a, d1), a->objective, 1e-9 * a->objective);
    const AllocationProblem p2 = PackedGavelProblem(c, c.remaining2, 1000);
    const std::vector<double> d2 = state.IsolatedTimes(p2);  // Cum_i grown by the steps made
    auto b = SolveFinishTimeFairnessPacked(p2, solver, d2);
    ASSERT_TRUE(b.ok()) << b.status().message();
    EXPECT_NEAR(b->objective, c.ftf_rho2, kPackedGavelTol * c.ftf_rho2);
    if (PackedReport()) {
      lp::WarmStartLpSolver fresh;
      auto v = SolveFinishTimeFairnessPacked(p1, fresh, d1, FtfPackedOptions{.second_phase = PhaseOf(true)});
      std::printf("ftf seed %d with second phase: rho %.10g, rel rate diff %.3g\n", c.seed, v->objective,
                  PackedMaxRelDiff(p1, *v, c.ftf_rate));
      std::printf("ftf seed %d: rho %.10g (gavel %.10g) rel rate diff %.3g; second call rho %.10g (gavel %.10g) %.3g\n",
                  c.seed, a->objective, c.ftf_rho, PackedMaxRelDiff(p1, *a, c.ftf_rate), b->objective, c.ftf_rho2,
                  PackedMaxRelDiff(p2, *b, c.ftf_rate2));
    }
  }
}

TEST(GavelPackedReferenceTest, MinTotalDuration) {
  for (const PackedGavelCase& c : PackedGavelCases()) {
    SCOPED_TRACE("seed " + std::to_string(c.seed));
    const AllocationProblem p = PackedGavelProblem(c, c.remaining, 0);
    lp::WarmStartLpSolver solver;
    auto a = SolveMinTotalDurationPacked(p, solver);
    ASSERT_TRUE(a.ok()) << a.status().message();
    // The same bisection over the same feasibility tests: the same T.
    EXPECT_NEAR(a->objective, c.mtd_t, 1e-6 * c.mtd_t);
    for (size_t j = 0; j < p.jobs.size(); ++j) {
      EXPECT_GE(PackedEffectiveThroughput(p, *a, j), c.remaining[j] / a->objective * (1 - 1e-6));
      EXPECT_GE(c.mtd_rate[j], c.remaining[j] / c.mtd_t * (1 - 1e-5));  // Gavel's point is feasible too
    }
    if (PackedReport()) {
      std::printf("mtd seed %d: T %.10g (gavel %.10g), max rel rate diff %.3g\n", c.seed, a->objective, c.mtd_t,
                  PackedMaxRelDiff(p, *a, c.mtd_rate));
    }
  }
}

TEST(GavelPackedReferenceTest, WaterFillingLevels) {
  for (const PackedGavelCase& c : PackedGavelCases()) {
    SCOPED_TRACE("seed " + std::to_string(c.seed));
    const AllocationProblem p = PackedGavelProblem(c, c.remaining, 0);
    for (const bool extra : {false, true}) {
      for (const bool tight : {true, false}) {
        lp::WarmStartLpSolver solver;
        WaterFillingPackedOptions o;
        o.gavel_extra_level = extra;
        o.base.tight_milp = tight;
        WaterFillingTrace tr;
        auto a = SolveWaterFillingPacked(p, {}, o, solver, &tr);
        ASSERT_TRUE(a.ok()) << a.status().message();
        double worst_level = 0, worst_ne = 0;
        for (size_t j = 0; j < p.jobs.size(); ++j) {
          // The levels (each job's floor) are Gavel's up to its slack 1.0001.
          EXPECT_NEAR(tr.level[j], c.wf_level[j], 2e-4 * c.wf_level[j]) << "job " << j;
          const double ne = PackedEffectiveThroughput(p, *a, j) / ProportionalThroughput(p, j);
          worst_level = std::max(worst_level, std::abs(tr.level[j] - c.wf_level[j]) / c.wf_level[j]);
          worst_ne = std::max(worst_ne, std::abs(ne - c.wf_level[j]) / c.wf_level[j]);
        }
        if (PackedReport()) {
          std::printf("wf seed %d extra %d tight %d: levels %d, max rel level diff %.3g, max rel n_i diff %.3g\n",
                      c.seed, extra, tight, tr.levels, worst_level, worst_ne);
        }
      }
    }
  }
}

TEST(GavelPackedReferenceTest, FifoAllocation) {
  for (const PackedGavelCase& c : PackedGavelCases()) {
    SCOPED_TRACE("seed " + std::to_string(c.seed));
    const AllocationProblem p = PackedGavelProblem(c, c.remaining, 0);
    const Allocation a = SolveFifoPacked(p);
    std::set<std::tuple<int, int, int>> ours, gavel;
    for (size_t j = 0; j < p.jobs.size(); ++j) {
      for (size_t k = 0; k < p.capacity.size(); ++k) {
        if (a.share[j][k] > 0) ours.emplace(static_cast<int>(j), -1, static_cast<int>(k));
      }
    }
    for (size_t q = 0; q < p.pairs.size(); ++q) {
      for (size_t k = 0; k < p.capacity.size(); ++k) {
        if (a.pair_share[q][k] > 0) ours.emplace(static_cast<int>(p.pairs[q].a), static_cast<int>(p.pairs[q].b), static_cast<int>(k));
      }
    }
    for (const PackedGavelFifo& f : c.fifo) gavel.emplace(f.a, f.b, f.k);
    EXPECT_EQ(ours, gavel);
  }
}

TEST(GavelPackedReferenceTest, MaxThroughputPerCostWithSlos) {
  for (const PackedGavelCase& c : PackedGavelCases()) {
    SCOPED_TRACE("seed " + std::to_string(c.seed));
    const AllocationProblem p = PackedGavelProblem(c, c.remaining, 0);
    lp::WarmStartLpSolver solver;
    auto a = SolveMaxThroughputPerCostPacked(p, solver);
    ASSERT_TRUE(a.ok()) << a.status().message();
    ExpectPackedFeasible(p, *a);
    EXPECT_NEAR(a->objective, c.cost_objective, kPackedGavelTol * c.cost_objective);
    EXPECT_EQ(a->note.empty(), c.slos_met == 1);
    if (PackedReport()) {
      std::printf("cost seed %d: objective %.10g (gavel %.10g), slos %s, max rel rate diff %.3g\n", c.seed, a->objective,
                  c.cost_objective, c.slos_met ? "met" : "dropped", PackedMaxRelDiff(p, *a, c.cost_rate));
    }
  }
}

}  // namespace
}  // namespace hetsched::gavel
