// PackedColumnSet (policies/gavel/packed_columns.h): the restricted layout, and the pricing of a
// left-out pair column from a program's row duals, worked by hand; the LP packed solvers with
// their pair columns priced in against every column on random problems.
#include "hetsched/policies/gavel/packed_columns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/lp/linear_program.h"
#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/packed.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/options.h"
#include "hetsched/sched/registry.h"
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
  PackedColumnSet set(p, nullptr, PairColumns::kPriced);
  EXPECT_FALSE(set.holds_every_column());
  ASSERT_EQ(set.layout().columns.size(), 2u);
  EXPECT_EQ(set.layout().terms[0], (std::vector<std::pair<int, double>>{{0, 1.0}}));
  set.HoldEveryColumn();
  EXPECT_TRUE(set.holds_every_column());
  EXPECT_EQ(set.layout().terms, full.terms);
  EXPECT_EQ(PackedColumnSet(p, nullptr, PairColumns::kAll).layout().terms, full.terms);
  // A problem without pairs: every column from the start.
  AllocationProblem alone = p;
  alone.pairs.clear();
  EXPECT_TRUE(PackedColumnSet(alone, nullptr, PairColumns::kPriced).holds_every_column());
  // From a memory of the pair (its share > 0 at a last allocation, by its jobs' ids), a fresh set
  // over the same problem holds it from the start; a memory of nothing, or of a pair with a share
  // of 0, adds nothing.
  PairColumnMemory memory;
  memory.Remember(p, std::vector<PairShare>{{0, 0, 0.0}});
  PackedColumnSet none(p, nullptr, PairColumns::kPriced);
  none.HoldRemembered(memory);
  EXPECT_EQ(none.layout().columns.size(), 2u);
  memory.Remember(p, std::vector<PairShare>{{0, 0, 0.25}});
  ASSERT_EQ(memory.columns().size(), 1u);
  PackedColumnSet again(p, nullptr, PairColumns::kPriced);
  again.HoldRemembered(memory);
  EXPECT_EQ(again.layout().terms, full.terms);
}

// Singles only: X_0 + X_1 <= 1 (one GPU), t = 1/2. Duals (max sense): the capacity row 1/2, each
// epigraph row -1/2 (t's column: 1 + y_0 + y_1 = 0; X_0's: -(y_cap + y_0) = 0), the time rows 0.
// The pair at rate r each: reduced cost -(y_cap + r y_0 + r y_1) = r - 1/2: priced in at r = 0.8
// (and then t = 0.8), left out at r = 0.4 (two halves alone beat the pair).
TEST(PackedColumnSetTest, PricesInOnlyAPairThatRaisesTheOptimum) {
  for (const double rate : {0.8, 0.4}) {
    SCOPED_TRACE(rate);
    const AllocationProblem p = TwoJobsOneGpu(rate);
    PackedColumnSet set(p, nullptr, PairColumns::kPriced);
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


// ---- The LP packed solvers with their pair columns priced in (PairColumns::kPriced) ----

// n single-GPU jobs (a few of 2 GPUs where `mixed`) on 1-3 types of 1-4 GPUs, more jobs than GPUs,
// every pair present, pair rates 45-100% of the isolated ones (a fifth 0): problems in which
// pairs raise the optimum, so that an LP without them is seen to fall short.
AllocationProblem PairHeavyProblem(std::mt19937& rng, bool mixed) {
  std::uniform_int_distribution<int> njobs(4, 12), ntypes(1, 3), cap(1, 4), coin(0, 4);
  std::uniform_real_distribution<double> rate(1, 10), rem(1e3, 1e5), el(0, 5e3), slo(50, 5e4);
  AllocationProblem p;
  const int nt = ntypes(rng);
  for (int k = 0; k < nt; ++k) {
    p.capacity.push_back(cap(rng));
    p.type_names.push_back(std::string(1, static_cast<char>('a' + k)));
    p.price_per_hour.push_back(0.5 + k);
  }
  const int n = njobs(rng);
  for (int j = 0; j < n; ++j) {
    AllocationJob job;
    job.id = static_cast<JobId>(100 + j);
    job.throughput.resize(static_cast<size_t>(nt));
    for (double& v : job.throughput) v = coin(rng) == 0 ? 0.0 : rate(rng);
    job.num_gpus = mixed && coin(rng) == 0 ? 2 : 1;
    job.remaining_iterations = std::floor(rem(rng));
    job.total_iterations = job.remaining_iterations;
    job.elapsed_s = std::floor(el(rng));
    if (coin(rng) == 0) job.deadline_in_s = slo(rng);  // an SLO for the cost policy
    p.jobs.push_back(job);
  }
  testing_util::AddEveryPair(p, rng, 0.45, 1.0);
  return p;
}

// The problem's jobs from `from` on and the pairs among them (a round after the first jobs left).
AllocationProblem Without(const AllocationProblem& p, size_t from) {
  AllocationProblem q = p;
  q.jobs.erase(q.jobs.begin(), q.jobs.begin() + static_cast<std::ptrdiff_t>(from));
  q.pairs.clear();
  for (const AllocationPair& pair : p.pairs) {
    if (pair.a >= from && pair.b >= from) {
      q.pairs.push_back({pair.a - from, pair.b - from, pair.throughput_a, pair.throughput_b});
    }
  }
  return q;
}

void ExpectWithinTheBaseConstraints(const AllocationProblem& p, const Allocation& a) {
  std::vector<double> used(p.capacity.size(), 0.0);
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    EXPECT_LE(PackedTimeShare(p, a, j), 1.0 + 1e-7) << "job " << j;
    for (size_t k = 0; k < p.capacity.size(); ++k) used[k] += p.jobs[j].num_gpus * a.share[j][k];
  }
  for (size_t q = 0; q < p.pairs.size(); ++q) {
    for (size_t k = 0; k < p.capacity.size(); ++k) {
      const double x = a.pair_share[q][k];
      if (x > 0) {
        EXPECT_TRUE(p.pairs[q].throughput_a[k] > 0 && p.pairs[q].throughput_b[k] > 0) << "pair " << q;
      }
      used[k] += p.jobs[p.pairs[q].a].num_gpus * x;
    }
  }
  for (size_t k = 0; k < p.capacity.size(); ++k) EXPECT_LE(used[k], p.capacity[k] + 1e-6) << "type " << k;
}

// Column generation ends at an optimum of the LP over every column (to its pricing tolerance: a
// column left out whose reduced cost is below 1e-7 could still move the objective by as much a unit
// of it; measured to 1.6e-7 relative here, held to 1e-6): on random problems each LP
// packed solver's objective with its pair columns priced in is the one with every column (max-min's
// min, the cost policy's sum, makespan's T, finish-time's max rho to its bisection's tolerance),
// from a cold solver and, over a sequence of rounds, warm by job with the last round's columns
// remembered. Where pairs raise the optimum (most problems here) an LP that priced nothing in (the
// singles alone) or stopped after one pricing would fall short: counted, so that the comparison is
// known to have bitten.
TEST(PackedColumnSetTest, PricedSolversReachTheOptimumOverEveryColumn) {
  std::mt19937 rng(20261205);
  int pairs_raise = 0, priced_rounds = 0, wf_remembered = 0, held_gains = 0, ftf_held_gains = 0, mtd_held_gains = 0;
  for (int trial = 0; trial < 40; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const AllocationProblem full = PairHeavyProblem(rng, trial % 4 == 3);
    const std::vector<AllocationProblem> rounds = {full, Without(full, 1), Without(full, 2)};
    PairColumnMemory mm_memory, ftf_memory, mtd_memory, cost_memory, wf_memory;
    double ftf_last_rho = 0;
    lp::WarmStartLpSolver mm_warm(lp::WarmStartMatch::kName), ftf_warm(lp::WarmStartMatch::kName),
        mtd_warm(lp::WarmStartMatch::kName), cost_warm(lp::WarmStartMatch::kName), wf_warm(lp::WarmStartMatch::kName);
    for (size_t round = 0; round < rounds.size(); ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      const AllocationProblem& p = rounds[round];
      AllocationProblem singles = p;
      singles.pairs.clear();
      auto near = [](double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(1.0, std::abs(b)); };
      for (const bool second_phase : {false, true}) {
        MaxMinPackedOptions all, priced;
        all.second_phase = priced.second_phase = second_phase ? PackedSecondPhase::kPriced : PackedSecondPhase::kOff;
        priced.columns = PairColumns::kPriced;
        lp::WarmStartLpSolver s1, s2, s3;
        auto a = SolveMaxMinFairnessPacked(p, all, s1);
        auto b = SolveMaxMinFairnessPacked(p, priced, s2);
        auto c = SolveMaxMinFairnessPacked(p, priced, mm_warm, second_phase ? nullptr : &mm_memory);
        auto alone = SolveMaxMinFairnessPacked(singles, all, s3);
        ASSERT_TRUE(a.ok() && b.ok() && c.ok() && alone.ok());
        EXPECT_NEAR(b->objective, a->objective, 1e-6 * std::max(1.0, a->objective));
        EXPECT_NEAR(c->objective, a->objective, 1e-6 * std::max(1.0, a->objective));
        ExpectWithinTheBaseConstraints(p, *b);
        ExpectWithinTheBaseConstraints(p, *c);
        if (second_phase) {
          // The second phase's sum of normalised rates, over every column and priced.
          auto sum = [&](const Allocation& x) {
            double s = 0;
            for (size_t j = 0; j < p.jobs.size(); ++j) {
              if (Placeable(p, j)) s += PackedEffectiveThroughput(p, x, j) * p.jobs[j].num_gpus /
                                        (p.jobs[j].weight * ProportionalThroughput(p, j));
            }
            return s;
          };
          EXPECT_NEAR(sum(*b), sum(*a), 1e-6 * std::max(1.0, sum(*a)));
          // Held (the policy's default): the second LP over the first's columns only keeps the
          // first's min and reaches at most the priced second phase's sum, at least the first
          // phase's point's (its start).
          MaxMinPackedOptions held = priced, first_only = priced;
          held.second_phase = PackedSecondPhase::kHeld;
          first_only.second_phase = PackedSecondPhase::kOff;
          lp::WarmStartLpSolver s8, s9;
          auto h = SolveMaxMinFairnessPacked(p, held, s8);
          auto f = SolveMaxMinFairnessPacked(p, first_only, s9);
          ASSERT_TRUE(h.ok() && f.ok());
          EXPECT_NEAR(h->objective, a->objective, 1e-6 * std::max(1.0, a->objective));
          ExpectWithinTheBaseConstraints(p, *h);
          EXPECT_LE(sum(*h), sum(*a) * (1 + 1e-6) + 1e-9);
          EXPECT_GE(sum(*h), sum(*f) * (1 - 1e-6) - 1e-9);
          if (sum(*h) > sum(*f) * (1 + 1e-6)) ++held_gains;
        } else {
          if (!near(alone->objective, a->objective, 1e-6)) ++pairs_raise;
          if (b->lp_solves > 1) ++priced_rounds;
        }
      }
      lp::WarmStartLpSolver s4, s5;
      auto cost_all = SolveMaxThroughputPerCostPacked(p, s4);
      auto cost_priced = SolveMaxThroughputPerCostPacked(p, s5, PairColumns::kPriced);
      auto cost_warm_priced = SolveMaxThroughputPerCostPacked(p, cost_warm, PairColumns::kPriced, &cost_memory);
      ASSERT_TRUE(cost_all.ok() && cost_priced.ok() && cost_warm_priced.ok());
      EXPECT_EQ(cost_priced->note, cost_all->note);
      EXPECT_NEAR(cost_priced->objective, cost_all->objective, 1e-6 * std::max(1.0, cost_all->objective));
      EXPECT_NEAR(cost_warm_priced->objective, cost_all->objective, 1e-6 * std::max(1.0, cost_all->objective));
      ExpectWithinTheBaseConstraints(p, *cost_priced);

      lp::WarmStartLpSolver s6, s7;
      auto mtd_all = SolveMinTotalDurationPacked(p, s6);
      auto mtd_priced = SolveMinTotalDurationPacked(p, s7, SharePoint::kVertex, PairColumns::kPriced);
      auto mtd_warm_priced =
          SolveMinTotalDurationPacked(p, mtd_warm, SharePoint::kVertex, PairColumns::kPriced, &mtd_memory);
      ASSERT_TRUE(mtd_all.ok() && mtd_priced.ok() && mtd_warm_priced.ok());
      EXPECT_EQ(mtd_priced->objective, mtd_all->objective);  // the same horizon of the same search
      EXPECT_EQ(mtd_warm_priced->objective, mtd_all->objective);
      ExpectWithinTheBaseConstraints(p, *mtd_priced);
      // Every job finishes within the horizon returned.
      auto expect_within_horizon = [&](const Allocation& x) {
        for (size_t j = 0; j < p.jobs.size(); ++j) {
          if (Placeable(p, j)) {
            EXPECT_GE(PackedEffectiveThroughput(p, x, j), p.jobs[j].remaining_iterations / x.objective * (1 - 1e-6));
          }
        }
      };
      expect_within_horizon(*mtd_priced);
      // The second phases' objective (makespan and finish-time packed): the sum of the rates as
      // fractions of each job's best.
      const PackedLayout every_column = MakePackedLayout(p, nullptr);
      auto rate_sum = [&](const Allocation& x) {
        double sum = 0;
        for (size_t r = 0; r < every_column.rows(); ++r) {
          double best = 0;
          for (const auto& [c, t] : every_column.terms[r]) best = std::max(best, t);
          const size_t j = every_column.job_of[r];
          if (best > 0 && p.jobs[j].remaining_iterations > 0) sum += PackedEffectiveThroughput(p, x, j) / best;
        }
        return sum;
      };
      // Makespan packed's second phase, held and priced: the same horizon, each job still finishing
      // within it, the sum at least the first point's.
      for (const PackedSecondPhase phase : {PackedSecondPhase::kHeld, PackedSecondPhase::kPriced}) {
        lp::WarmStartLpSolver s12;
        auto more = SolveMinTotalDurationPacked(p, s12, SharePoint::kVertex, PairColumns::kPriced, nullptr, phase);
        ASSERT_TRUE(more.ok());
        EXPECT_EQ(more->objective, mtd_priced->objective);
        ExpectWithinTheBaseConstraints(p, *more);
        expect_within_horizon(*more);
        EXPECT_GE(rate_sum(*more), rate_sum(*mtd_priced) * (1 - 1e-6) - 1e-9);
        if (phase == PackedSecondPhase::kHeld && rate_sum(*more) > rate_sum(*mtd_priced) * (1 + 1e-6)) {
          ++mtd_held_gains;
        }
      }

      std::vector<double> isolated(p.jobs.size());
      for (size_t j = 0; j < p.jobs.size(); ++j) isolated[j] = 2 * p.jobs[j].remaining_iterations + 1e4;
      for (const bool second_phase : {false, true}) {
        FtfPackedOptions all, priced;
        all.second_phase = priced.second_phase = second_phase ? PackedSecondPhase::kPriced : PackedSecondPhase::kOff;
        priced.columns = PairColumns::kPriced;
        lp::WarmStartLpSolver s8, s9;
        auto ftf_all = SolveFinishTimeFairnessPacked(p, s8, isolated, all);
        auto ftf_priced = SolveFinishTimeFairnessPacked(p, s9, isolated, priced);
        // From the last round's columns and rho (its first tangents there).
        auto ftf_warm_priced = SolveFinishTimeFairnessPacked(p, ftf_warm, isolated, priced,
                                                             second_phase ? nullptr : &ftf_memory,
                                                             second_phase ? nullptr : &ftf_last_rho);
        ASSERT_TRUE(ftf_all.ok() && ftf_priced.ok() && ftf_warm_priced.ok());
        // Both are within the search's tolerance (1e-6) of the least feasible rho.
        EXPECT_NEAR(ftf_priced->objective, ftf_all->objective, 3e-6 * ftf_all->objective);
        EXPECT_NEAR(ftf_warm_priced->objective, ftf_all->objective, 3e-6 * ftf_all->objective);
        ExpectWithinTheBaseConstraints(p, *ftf_priced);
        if (second_phase) continue;
        // Held (the policy's default): one LP at the least rho over the columns the tangent steps
        // priced in keeps that rho and raises the sum of the rates over the steps' point at most
        // to the priced second phase's.
        FtfPackedOptions held = priced, true_phase = priced;
        held.second_phase = PackedSecondPhase::kHeld;
        true_phase.second_phase = PackedSecondPhase::kPriced;
        lp::WarmStartLpSolver s10, s11;
        auto ftf_held = SolveFinishTimeFairnessPacked(p, s10, isolated, held);
        auto ftf_true = SolveFinishTimeFairnessPacked(p, s11, isolated, true_phase);
        ASSERT_TRUE(ftf_held.ok() && ftf_true.ok());
        EXPECT_NEAR(ftf_held->objective, ftf_all->objective, 3e-6 * ftf_all->objective);
        ExpectWithinTheBaseConstraints(p, *ftf_held);
        EXPECT_GE(rate_sum(*ftf_held), rate_sum(*ftf_priced) * (1 - 1e-6) - 1e-9);
        EXPECT_LE(rate_sum(*ftf_held), rate_sum(*ftf_true) * (1 + 1e-6) + 1e-9);
        if (rate_sum(*ftf_held) > rate_sum(*ftf_priced) * (1 + 1e-6)) ++ftf_held_gains;
      }

      // Water filling packed from the last round's pair columns (its PairColumnMemory): the levels
      // of a solve over every column.
      WaterFillingPackedOptions wf_all;
      wf_all.base.generate_pair_columns = false;
      lp::WarmStartLpSolver s10(lp::WarmStartMatch::kName);
      WaterFillingTrace every, remembered;
      if (!wf_memory.columns().empty()) ++wf_remembered;
      auto wf_every = SolveWaterFillingPacked(p, {}, wf_all, s10, &every);
      auto wf_priced = SolveWaterFillingPacked(p, {}, {}, wf_warm, &remembered, &wf_memory);
      ASSERT_TRUE(wf_every.ok() && wf_priced.ok());
      ExpectWithinTheBaseConstraints(p, *wf_priced);
      for (size_t j = 0; j < p.jobs.size(); ++j) {
        EXPECT_NEAR(remembered.level[j], every.level[j], 2e-4 * every.level[j]) << "job " << j;
      }
    }
  }
  // Measured: pairs raise max-min's optimum in 69 of the 120 rounds, 92 of its priced solves (cold)
  // took more than one LP. Where the pricing stops after its first round, max-min, its second
  // phase, the cost policy, makespan and finish-time all fall short here (checked by hand).
  EXPECT_GE(pairs_raise, 60);
  EXPECT_GE(priced_rounds, 60);
  // Water filling's rounds that started from remembered pair columns (measured: 76 of the 120).
  EXPECT_GE(wf_remembered, 60);
  // Rounds in which the held second phase raised the first phase's sum, so that its bounds bit
  // (measured: 59 of the 120).
  EXPECT_GE(held_gains, 40);
  // Rounds in which finish-time's held second phase raised the tangent steps' sum (measured: 88 of
  // the 120).
  EXPECT_GE(ftf_held_gains, 60);
  // And makespan's held second phase over the max-theta point (measured: 93 of the 120).
  EXPECT_GE(mtd_held_gains, 60);
}

// The option `columns` of the LP packed policies (all | priced; priced by default, all under
// --compat gavel: compat/gavel_profile.cc).
TEST(PackedColumnSetTest, TheLpPackedPoliciesTakeTheOptionColumns) {
  for (const std::string name : {"gavel-las-packed", "gavel-ftf-packed", "gavel-makespan-packed", "gavel-cost-packed",
                                 "gavel-water-filling-packed"}) {
    SCOPED_TRACE(name);
    auto make = [&](std::vector<std::string> args) {
      auto options = Options::Parse(args);
      EXPECT_TRUE(options.ok());
      return Registry<JobScheduler>::Instance().Create(name, *options);
    };
    EXPECT_TRUE(make({}).ok());
    EXPECT_TRUE(make({"columns=all"}).ok());
    EXPECT_TRUE(make({"columns=priced"}).ok());
    auto bad = make({"columns=some"});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.status().ToString().find("'columns' must be 'all' or 'priced'"), std::string::npos);
  }
  // Max-min, finish-time and makespan packed's second phase: false, held, true; anything else
  // refused by name.
  for (const std::string name : {"gavel-las-packed", "gavel-ftf-packed", "gavel-makespan-packed"}) {
    SCOPED_TRACE(name);
    for (const char* value : {"false", "held", "true", "HELD", "0", "yes"}) {
      auto options = Options::Parse({std::string("second_phase=") + value});
      ASSERT_TRUE(options.ok());
      EXPECT_TRUE(Registry<JobScheduler>::Instance().Create(name, *options).ok()) << value;
    }
    auto options = Options::Parse({"second_phase=sometimes"});
    ASSERT_TRUE(options.ok());
    auto bad = Registry<JobScheduler>::Instance().Create(name, *options);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.status().ToString().find(name + ": option 'second_phase': expected false, held or true, got 'sometimes'"),
              std::string::npos)
        << bad.status().ToString();
  }
}

// 30 one-GPU jobs of three classes on two types of 3 GPUs, every pair, the pair rates by the two
// classes only: at duals by class, many pair columns price exactly alike.
AllocationProblem ThreeClasses(std::vector<int>* class_of) {
  AllocationProblem p;
  p.capacity = {3, 3};
  p.type_names = {"a", "b"};
  class_of->clear();
  for (int j = 0; j < 30; ++j) {
    AllocationJob job;
    job.id = static_cast<JobId>(10 + j);
    const int c = (j * 7) % 3;
    class_of->push_back(c);
    job.throughput = {1.0 + c, 2.0 - 0.5 * c};
    p.jobs.push_back(job);
  }
  for (size_t a = 0; a < p.jobs.size(); ++a) {
    for (size_t b = a + 1; b < p.jobs.size(); ++b) {
      const int ca = (*class_of)[a], cb = (*class_of)[b];
      std::vector<double> ta = {0.25 * (1 + ca) + 0.125 * cb, ca == 2 && cb == 2 ? 0.0 : 0.5},
                          tb = {0.25 * (1 + cb) + 0.125 * ca, ca == 2 && cb == 2 ? 0.0 : 0.5};
      p.pairs.push_back(testing_util::TestPair(a, b, std::move(ta), std::move(tb)));
    }
  }
  return p;
}

// PriceIn adds the `max_added` columns of the largest reduced costs above the tolerance, a tie to
// the first column (the lower id, pair x types + type): its list of the best so far is cut back
// as it goes, so the columns it adds are checked against every column priced one by one, at
// duals by class (hundreds of exact ties) and at limits below, at and above the ties' sizes.
TEST(PackedColumnSetTest, PricesInTheBestColumnsATieToTheFirst) {
  std::vector<int> class_of;
  const AllocationProblem p = ThreeClasses(&class_of);
  const size_t types = p.capacity.size();
  const PackedLayout singles = MakePackedLayout(p, nullptr, /*with_pairs=*/false);
  ASSERT_EQ(singles.rows(), p.jobs.size());
  // Duals: a time row per row, then a capacity row per type.
  std::vector<double> duals, per_rate;
  for (size_t r = 0; r < singles.rows(); ++r) {
    const int c = class_of[singles.job_of[r]];
    duals.push_back(c == 1 ? 0.0625 : 0.0);
    per_rate.push_back(c == 0 ? -0.5 : (c == 1 ? -0.25 : -0.375));
  }
  duals.push_back(0.3);  // type a: some class pairs do not improve
  duals.push_back(0.0625);
  const double tolerance = 1e-7;
  // Every column's reduced cost, as PriceIn computes it, best first, a tie to the first.
  std::vector<std::pair<double, size_t>> all;
  size_t usable = 0;
  ForEachPairColumn(p, singles.row_of, [&](const PairColumn& pc) {
    ++usable;
    const size_t a = static_cast<size_t>(pc.row_a), b = static_cast<size_t>(pc.row_b);
    const double reduced = -(duals[a] + duals[b] + pc.gpus * duals[singles.rows() + pc.type] +
                             pc.t_a * per_rate[a] + pc.t_b * per_rate[b]);
    if (reduced > tolerance) all.emplace_back(reduced, pc.pair * types + pc.type);
  });
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
    return x.first > y.first || (x.first == y.first && x.second < y.second);
  });
  // The ties are there to be broken: the best value is held by many columns.
  size_t at_best = 0;
  while (at_best < all.size() && all[at_best].first == all[0].first) ++at_best;
  ASSERT_GT(at_best, 20u);
  ASSERT_LT(all.size(), usable);  // and some column left out prices at or below the tolerance
  for (const size_t max_added : {size_t{1}, size_t{3}, size_t{7}, at_best - 1, at_best, at_best + 5, size_t{200},
                                 all.size(), static_cast<size_t>(-1)}) {
    SCOPED_TRACE("max_added " + std::to_string(max_added));
    PackedColumnSet set(p, nullptr, PairColumns::kPriced);
    const size_t added = set.PriceIn(duals, 0, per_rate, tolerance, max_added);
    const size_t expected = std::min(max_added, all.size());
    ASSERT_EQ(added, expected);
    std::vector<size_t> want;
    for (size_t i = 0; i < expected; ++i) want.push_back(all[i].second);
    std::sort(want.begin(), want.end());
    std::vector<size_t> held;
    for (const PackedLayout::Column& col : set.layout().columns) {
      if (col.pair >= 0) held.push_back(static_cast<size_t>(col.pair) * types + col.type);
    }
    EXPECT_EQ(held, want);
    EXPECT_FALSE(set.holds_every_column());  // the columns at or below the tolerance stay out
  }
}

// With the pairs in (b, a) order and said so, HoldRemembered finds each remembered pair by its
// jobs; the columns it holds are those of the pass over every pair column: on random problems,
// remembered columns drawn at random, some of jobs gone and some on types a pair cannot use.
TEST(PackedColumnSetTest, HoldRememberedFindsOrderedPairsByTheirJobs) {
  std::mt19937 rng(20261205);
  int found = 0;
  for (int trial = 0; trial < 30; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const AllocationProblem drawn = PairHeavyProblem(rng, trial % 3 == 2);
    AllocationProblem ordered = drawn;
    std::sort(ordered.pairs.begin(), ordered.pairs.end(),
              [](const AllocationPair& x, const AllocationPair& y) { return x.b != y.b ? x.b < y.b : x.a < y.a; });
    AllocationProblem unordered = ordered;
    ordered.pairs_ordered = true;
    std::vector<PairShare> shares;
    std::uniform_int_distribution<size_t> pick(0, ordered.pairs.size() - 1), type(0, ordered.capacity.size());
    for (int i = 0; i < 12; ++i) shares.push_back({pick(rng), type(rng) % ordered.capacity.size(), 0.5});
    PairColumnMemory memory;
    memory.Remember(ordered, shares);
    // A pair of jobs this problem lacks (ids never drawn), remembered too.
    AllocationProblem elsewhere = ordered;
    elsewhere.jobs[0].id = 7;
    elsewhere.jobs[1].id = 9;
    elsewhere.pairs = {testing_util::TestPair(0, 1, std::vector<double>(ordered.capacity.size(), 1.0),
                                              std::vector<double>(ordered.capacity.size(), 1.0))};
    PairColumnMemory gone;
    gone.Remember(elsewhere, std::vector<PairShare>{{0, 0, 1.0}});
    PackedColumnSet by_search(ordered, nullptr, PairColumns::kPriced), by_pass(unordered, nullptr, PairColumns::kPriced);
    by_search.HoldRemembered(memory);
    by_pass.HoldRemembered(memory);
    by_search.HoldRemembered(gone);
    by_pass.HoldRemembered(gone);
    EXPECT_EQ(by_search.layout().terms, by_pass.layout().terms);
    ASSERT_EQ(by_search.layout().columns.size(), by_pass.layout().columns.size());
    for (size_t c = 0; c < by_pass.layout().columns.size(); ++c) {
      EXPECT_EQ(by_search.layout().columns[c].pair, by_pass.layout().columns[c].pair);
      EXPECT_EQ(by_search.layout().columns[c].type, by_pass.layout().columns[c].type);
    }
    found += static_cast<int>(by_pass.layout().columns.size() - MakePackedLayout(ordered, nullptr, false).columns.size());
  }
  EXPECT_GT(found, 100);  // most remembered columns usable: the comparison bit
}

}  // namespace
}  // namespace hetsched::gavel
