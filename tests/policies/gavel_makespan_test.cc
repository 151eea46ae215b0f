// gavel-makespan: the LP on cases solved by hand.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {
namespace {

AllocationJob MakespanJob(JobId id, std::vector<double> t, double remaining) {
  AllocationJob j;
  j.id = id;
  j.throughput = std::move(t);
  j.remaining_iterations = remaining;
  j.total_iterations = remaining;
  return j;
}

// One GPU, T = 1 it/s, 100 and 300 iterations left: x0 >= 100 theta, x1 >= 300 theta,
// x0 + x1 <= 1 -> theta = 1/400: makespan 400 s with x = (1/4, 3/4).
TEST(GavelMakespanLpTest, OneGpuSharesInProportionToWork) {
  AllocationProblem p;
  p.capacity = {1};
  p.jobs = {MakespanJob(0, {1}, 100), MakespanJob(1, {1}, 300)};
  lp::WarmStartLpSolver solver;
  auto a = SolveMinMakespan(p, solver);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_NEAR(a->objective, 400, 1e-3);
  EXPECT_NEAR(a->share[0][0], 0.25, 1e-6);
  EXPECT_NEAR(a->share[1][0], 0.75, 1e-6);
}

// Two types, one GPU each; 100 iterations each; job 0 runs at 2 it/s on type 0 and 1 on type 1,
// job 1 at 1 on both. Job 1 can never exceed 1 it/s (its time fraction is at most 1), so the
// makespan is at least 100 s; it is reached with job 0 on type 0 (2 it/s: 50 s) and job 1 on
// type 1 (100 s).
TEST(GavelMakespanLpTest, HeterogeneousTypes) {
  AllocationProblem p;
  p.capacity = {1, 1};
  p.jobs = {MakespanJob(0, {2, 1}, 100), MakespanJob(1, {1, 1}, 100)};
  lp::WarmStartLpSolver solver;
  auto a = SolveMinMakespan(p, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->objective, 100, 1e-3);
  EXPECT_NEAR(EffectiveThroughput(p.jobs[1], a->share[1]), 1.0, 1e-6);
  EXPECT_GE(EffectiveThroughput(p.jobs[0], a->share[0]), 1.0 - 1e-6);
}

TEST(GavelMakespanLpTest, NoJobs) {
  AllocationProblem p;
  p.capacity = {1};
  lp::WarmStartLpSolver solver;
  auto a = SolveMinMakespan(p, solver);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, lp::SolveStatus::kOptimal);
  EXPECT_TRUE(a->share.empty());
}

// Option warm_start=by-job (lp::WarmStartMatch::kName): after a job left and another arrived (and
// every job progressed) both phases start warm, and the makespan is the fresh solver's.
TEST(GavelMakespanLpTest, ByJobWarmStartAfterArrivalAndDeparture) {
  AllocationProblem p;
  p.capacity = {4, 4, 4};
  for (JobId id = 0; id < 12; ++id) {
    p.jobs.push_back(MakespanJob(id, {3.0 + static_cast<double>(id % 3), 2.0, 1.0 + 0.1 * static_cast<double>(id)},
                         1000.0 + 100.0 * static_cast<double>(id)));
  }
  lp::WarmStartLpSolver solver(lp::WarmStartMatch::kName);
  ASSERT_TRUE(SolveMinMakespan(p, solver).ok());
  EXPECT_EQ(solver.warm_starts(), 2);  // phase 2 from phase 1, the tie-break from phase 2
  p.jobs.erase(p.jobs.begin() + 4);
  p.jobs.push_back(MakespanJob(12, {2, 2, 2}, 500));
  for (AllocationJob& j : p.jobs) j.remaining_iterations *= 0.9;
  auto warm = SolveMinMakespan(p, solver);
  lp::WarmStartLpSolver fresh;
  auto cold = SolveMinMakespan(p, fresh);
  ASSERT_TRUE(warm.ok() && cold.ok());
  ASSERT_EQ(warm->status, lp::SolveStatus::kOptimal);
  EXPECT_EQ(warm->lp_solves, 3);
  EXPECT_EQ(solver.warm_starts(), 5);
  EXPECT_NEAR(warm->objective, cold->objective, 1e-6 * cold->objective);
}

// Sixteen jobs of one model on three types: they are interchangeable in the LP, so its optimal
// face is wide (every makespan and work-conserving optimum can hand a share from one job to its
// twin), and the simplex's vertex depends on its start. Solved as a re-solve warm-started by job
// from an earlier program's basis and cold, the ranked tie-break gives both the same allocation
// (without it, here, they differ). Of two twins with the same work left (ranked by it, then by id)
// the older gets at least the newer one's throughput.
AllocationProblem Twins(JobId first, int count, double progress) {
  AllocationProblem p;
  p.capacity = {4, 4, 4};
  for (JobId id = first; id < first + count; ++id) {
    p.jobs.push_back(MakespanJob(id, {3, 2, 1}, (1000.0 + 25.0 * static_cast<double>(id % 5)) * progress));
  }
  return p;
}

std::vector<std::vector<double>> WarmThenCold(TieBreak tie_break, lp::WarmStartLpSolver* fresh) {
  lp::WarmStartLpSolver solver(lp::WarmStartMatch::kName);
  EXPECT_TRUE(SolveMinMakespan(Twins(0, 16, 1.0), solver, tie_break).ok());
  const AllocationProblem later = Twins(3, 16, 0.8);  // three left, three arrived, the rest progressed
  auto warm = SolveMinMakespan(later, solver, tie_break);
  auto cold = SolveMinMakespan(later, *fresh, tie_break);
  EXPECT_TRUE(warm.ok() && cold.ok());
  EXPECT_GT(solver.warm_starts(), 2);
  std::vector<std::vector<double>> difference;
  for (size_t j = 0; j < later.jobs.size(); ++j) {
    difference.emplace_back();
    for (size_t k = 0; k < later.capacity.size(); ++k) difference.back().push_back(warm->share[j][k] - cold->share[j][k]);
  }
  return difference;
}

double Largest(const std::vector<std::vector<double>>& d) {
  double out = 0;
  for (const auto& row : d) {
    for (double x : row) out = std::max(out, std::abs(x));
  }
  return out;
}

TEST(GavelMakespanLpTest, TieBreakGivesWarmAndColdSolvesOneAllocation) {
  lp::WarmStartLpSolver fresh_none;
  EXPECT_GT(Largest(WarmThenCold(TieBreak::kNone, &fresh_none)), 0.01);  // the face is wide
  lp::WarmStartLpSolver fresh;
  EXPECT_LT(Largest(WarmThenCold(TieBreak::kRanked, &fresh)), 1e-7);

  const AllocationProblem p = Twins(3, 16, 0.8);
  auto a = SolveMinMakespan(p, fresh);
  ASSERT_TRUE(a.ok());
  for (size_t j = 0; j + 5 < p.jobs.size(); ++j) {  // job j + 5 is j's twin (same work left), newer
    EXPECT_GE(EffectiveThroughput(p.jobs[j], a->share[j]), EffectiveThroughput(p.jobs[j + 5], a->share[j + 5]) - 1e-7)
        << "job " << p.jobs[j].id;
  }
}

// Re-solves as a run makes them (jobs leave and arrive, the others progress), each solved by a
// solver that puts a phase into its loaded model in place (the default) and by one that loads
// every phase afresh: the allocations are equal bit for bit, and some phases were solved in place.
TEST(GavelMakespanLpTest, PhasesSolvedInPlaceGiveTheFreshLoadsAllocation) {
  AllocationProblem p;
  p.capacity = {8, 8, 8};
  for (JobId id = 0; id < 40; ++id) {
    const double d = static_cast<double>(id);
    p.jobs.push_back(MakespanJob(id, {4.0 + (id % 5), 2.0 + 0.5 * (id % 3), 1.0 + 0.05 * d}, 2000.0 + 150.0 * (id % 11)));
    p.jobs.back().num_gpus = 1 + static_cast<int>(id % 3);
  }
  lp::WarmStartLpSolver in_place(lp::WarmStartMatch::kName), fresh(lp::WarmStartMatch::kName, false);
  for (int round = 0; round < 8; ++round) {
    SCOPED_TRACE(round);
    auto a = SolveMinMakespan(p, in_place);
    auto b = SolveMinMakespan(p, fresh);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->status, lp::SolveStatus::kOptimal);
    EXPECT_EQ(a->objective, b->objective);
    EXPECT_EQ(a->share, b->share);
    EXPECT_EQ(a->simplex_iterations, b->simplex_iterations);
    p.jobs.erase(p.jobs.begin() + round % 5);
    const JobId id = 40 + round;
    p.jobs.push_back(MakespanJob(id, {3.0 + round % 4, 2.5, 1.5}, 1500.0 + 300.0 * round));
    for (size_t j = 0; j < p.jobs.size(); ++j) {
      p.jobs[j].remaining_iterations *= 0.7 + 0.03 * static_cast<double>(j % 7);
    }
  }
  EXPECT_GT(in_place.in_place_solves(), 8);
  EXPECT_EQ(fresh.in_place_solves(), 0);
}

// Re-solves at a trace's scale (150 jobs with 1e4 to 1e7 iterations left on 3 x 36 GPUs: theta,
// 3600 / makespan, is small), solved by one solver warm-started by job across the run and by a
// fresh solver each time: the tie-broken allocations agree within 1e-6 at every step. With Clp's
// default primal tolerance (1e-7, as wide as the later phases' room on theta) 16 of the 60 steps
// were further apart, one by 0.05: warm solves ended beyond the true optimum, off theta's bound by
// less than the tolerance (lp/coin/coin_solver.cc, kPrimalTolerance).
TEST(GavelMakespanLpTest, WarmAndFreshSolvesAgreeAtATracesScale) {
  const std::vector<std::vector<double>> models = {
      {10.2, 6.1, 2.3}, {4.9, 2.8, 0.9}, {22.5, 14.0, 5.2}, {1.8, 1.1, 0.35}, {7.7, 5.9, 3.1}, {15.0, 6.0, 1.2}};
  uint64_t state = 12345;
  auto next = [&state] {  // a fixed linear congruential sequence: the same jobs on every platform
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  JobId next_id = 0;
  auto job = [&] {
    const std::vector<double>& t = models[static_cast<size_t>(next() * 6) % 6];
    AllocationJob j = MakespanJob(next_id++, t, std::pow(10.0, 4.0 + 3.0 * next()));
    j.num_gpus = 1 << static_cast<int>(next() * 3);
    return j;
  };
  AllocationProblem p;
  p.capacity = {36, 36, 36};
  for (int i = 0; i < 150; ++i) p.jobs.push_back(job());
  lp::WarmStartLpSolver warm(lp::WarmStartMatch::kName);
  int apart = 0;
  for (int step = 0; step < 60; ++step) {
    SCOPED_TRACE(step);
    auto a = SolveMinMakespan(p, warm);
    lp::WarmStartLpSolver fresh(lp::WarmStartMatch::kName);
    auto b = SolveMinMakespan(p, fresh);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->status, lp::SolveStatus::kOptimal);
    ASSERT_EQ(b->status, lp::SolveStatus::kOptimal);
    double largest = 0;
    for (size_t j = 0; j < p.jobs.size(); ++j) {
      for (size_t k = 0; k < p.capacity.size(); ++k) largest = std::max(largest, std::abs(a->share[j][k] - b->share[j][k]));
    }
    if (largest > 1e-6) ++apart;
    // Every job progresses by its share's worth of a 360 s round; two leave, two arrive.
    for (size_t j = 0; j < p.jobs.size(); ++j) {
      const double done = 360 * EffectiveThroughput(p.jobs[j], a->share[j]);
      p.jobs[j].remaining_iterations = std::max(1.0, p.jobs[j].remaining_iterations - done);
    }
    for (int i = 0; i < 2; ++i) p.jobs.erase(p.jobs.begin() + static_cast<long>(next() * static_cast<double>(p.jobs.size())));
    for (int i = 0; i < 2; ++i) p.jobs.push_back(job());
  }
  EXPECT_EQ(apart, 0);
  EXPECT_GT(warm.warm_starts(), 100);
}

TEST(GavelMakespanLpTest, WarmStartOptionIsChecked) {
  for (const char* policy : {"gavel-makespan", "gavel-ftf"}) {
    for (const char* value : {"same-shape", "by-job"}) {
      Options options;
      options.Set("warm_start", value);
      EXPECT_TRUE(Registry<JobScheduler>::Instance().Create(policy, options).ok()) << policy << " " << value;
    }
    for (const char* value : {"ranked", "none"}) {
      Options options;
      options.Set("tie_break", value);
      EXPECT_TRUE(Registry<JobScheduler>::Instance().Create(policy, options).ok()) << policy << " " << value;
    }
    Options bad_tie;
    bad_tie.Set("tie_break", "random");
    EXPECT_FALSE(Registry<JobScheduler>::Instance().Create(policy, bad_tie).ok()) << policy;
    Options bad;
    bad.Set("warm_start", "always");
    auto made = Registry<JobScheduler>::Instance().Create(policy, bad);
    ASSERT_FALSE(made.ok()) << policy;
    EXPECT_NE(made.status().message().find("warm_start"), std::string::npos);
  }
}

}  // namespace
}  // namespace hetsched::gavel
