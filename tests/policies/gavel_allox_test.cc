// gavel-allox's allocation (Gavel's AlloXPolicy, allox.h) by hand, and against Gavel's own class
// called directly on the same calls (PYTHONPATH=<peers' cvxpy stand-in> python3 with allox.py @
// c4fa400 and SciPy 1.10: each test's expected allocation is what it returned).
#include "hetsched/policies/gavel/allox.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/options.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {
namespace {

struct AlloxJob {
  JobId id;
  std::vector<double> throughput;  // by the problem's types
  double remaining;
  double elapsed_s;
  int gpus = 1;
};

AllocationProblem AlloxProblem(std::vector<int> capacity, std::vector<std::string> names,
                               const std::vector<AlloxJob>& jobs) {
  AllocationProblem p;
  p.capacity = std::move(capacity);
  p.type_names = std::move(names);
  for (const AlloxJob& a : jobs) {
    AllocationJob j;
    j.id = a.id;
    j.num_gpus = a.gpus;
    j.throughput = a.throughput;
    j.remaining_iterations = a.remaining;
    j.total_iterations = a.remaining;
    j.elapsed_s = a.elapsed_s;
    p.jobs.push_back(j);
  }
  return p;
}

// The type each job is given (-1: none), checking that a given type is given whole.
std::vector<int> TypeOf(const Allocation& x) {
  std::vector<int> out;
  for (const auto& row : x.share) {
    int type = -1;
    for (size_t k = 0; k < row.size(); ++k) {
      if (row[k] == 0) continue;
      EXPECT_EQ(row[k], 1.0);
      EXPECT_EQ(type, -1);
      type = static_cast<int>(k);
    }
    out.push_back(type);
  }
  return out;
}

// Three jobs on one type of 2 GPUs at 1 step/s: processing times 10, 5, 20 s, waited 7, 3, 0 s
// (so the rows stay in id order). Matching: column p x 2 + w is worker w with p jobs after the
// job; the least total runs the shortest job (1) second from the end on some worker,
// (10 + 7) + (2 x 5 + 3) + (20 + 0) = 50. Where job 1 goes is a tie: SciPy's search matches job 0
// to worker 0's last slot, then job 1 to worker 0's second-to-last (column 2, not 3), then job 2
// to worker 1. So worker 0 runs job 1 (then 0), worker 1 job 2: the 20 s job runs before the 10 s
// one, as in Gavel.
TEST(GavelAlloxTest, ThreeJobsTwoWorkersByHand) {
  AlloxAllocation allox;
  const AllocationProblem p = AlloxProblem({2}, {"v100"}, {{0, {1}, 10, 7}, {1, {1}, 5, 3}, {2, {1}, 20, 0}});
  const Result<Allocation> x = allox.Compute(p);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_EQ(TypeOf(*x), (std::vector<int>{-1, 0, 0}));
}

// Types (catalog order) v100 (1 GPU) and k80 (2 GPUs); Gavel's workers come by type name: k80,
// k80, v100. Jobs (steps left; steps/s on v100, k80; waited): 0 (400; 4, 1; 100 s), 1 (100; 2, 1;
// 100 s), 2 (300; 3, 2; 50 s), 3 (50; 1, 0.5; 10 s). Gavel: 3 on the V100, 1 and 2 on K80s, 0
// waits. Second call, job 2 finished and job 4 (10 steps at 2/s anywhere) arrived: 1 and 3 keep
// their GPUs (AlloX never preempts), the free K80 goes to job 4 (5 s) before job 0 (400 s).
TEST(GavelAlloxTest, KeepsRunningJobsAndMatchesTheRest) {
  AlloxAllocation allox;
  AllocationProblem p = AlloxProblem({1, 2}, {"v100", "k80"},
                                     {{0, {4, 1}, 400, 100}, {1, {2, 1}, 100, 100}, {2, {3, 2}, 300, 50},
                                      {3, {1, 0.5}, 50, 10}});
  Result<Allocation> x = allox.Compute(p);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_EQ(TypeOf(*x), (std::vector<int>{-1, 1, 1, 0}));

  p = AlloxProblem({1, 2}, {"v100", "k80"},
                   {{0, {4, 1}, 400, 500}, {1, {2, 1}, 100, 500}, {3, {1, 0.5}, 50, 410}, {4, {2, 2}, 10, 0}});
  x = allox.Compute(p);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(TypeOf(*x), (std::vector<int>{-1, 1, 0, 1}));
}

// alpha: of 4 waiting jobs (waited 1, 2, 3, 4 s) on 1 GPU, alpha 0.5 matches only the
// max(int(0.5 x 4), 1) = 2 oldest (jobs 3 and 2, 100 steps each: a tie, job 2 first as in
// Gavel); alpha 1 all four, and the 1-step job 0 runs first.
TEST(GavelAlloxTest, AlphaMatchesTheOldestOnly) {
  const std::vector<AlloxJob> jobs{{0, {1}, 1, 1}, {1, {1}, 100, 2}, {2, {1}, 100, 3}, {3, {1}, 100, 4}};
  const AllocationProblem p = AlloxProblem({1}, {"v100"}, jobs);
  AlloxAllocation half(0.5), all(1.0);
  const Result<Allocation> x_half = half.Compute(p), x_all = all.Compute(p);
  ASSERT_TRUE(x_half.ok() && x_all.ok());
  EXPECT_EQ(TypeOf(*x_half), (std::vector<int>{-1, -1, 0, -1}));
  EXPECT_EQ(TypeOf(*x_all), (std::vector<int>{0, -1, -1, -1}));
}

// [REC] Jobs of more GPUs (Gavel asserts there are none) go before the matching, oldest first,
// each to the fastest type with room for it. 2 V100 + 4 K80: job 1 (2 GPUs; 4 and 2 steps/s)
// takes the V100s, job 2 (4 GPUs; K80 only) the K80s, and the older single-GPU job 0 finds no GPU
// left. Then job 3 (4 GPUs) arrives and waits: no type has 4 free.
TEST(GavelAlloxTest, WideJobsTakeAFastTypeBeforeTheMatching) {
  AlloxAllocation allox;
  AlloxJob one{1, {4, 2}, 100, 5}, two{2, {0, 3}, 100, 3}, three{3, {1, 1}, 100, 0};
  one.gpus = 2;
  two.gpus = 4;
  three.gpus = 4;
  Result<Allocation> x = allox.Compute(AlloxProblem({2, 4}, {"v100", "k80"}, {{0, {2, 1}, 100, 10}, one, two}));
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_EQ(TypeOf(*x), (std::vector<int>{-1, 0, 1}));
  x = allox.Compute(AlloxProblem({2, 4}, {"v100", "k80"}, {{0, {2, 1}, 100, 20}, one, two, three}));
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(TypeOf(*x), (std::vector<int>{-1, 0, 1, -1}));
}

TEST(GavelAlloxTest, EmptyProblemChangesNothing) {
  AlloxAllocation allox;
  AllocationProblem empty;
  empty.capacity = {1};
  empty.type_names = {"v100"};
  const Result<Allocation> none = allox.Compute(empty);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->share.empty());
}

// The options: alpha in (0, 1], Gavel's mechanism only.
TEST(GavelAlloxTest, OptionsAreChecked) {
  auto make = [](std::vector<std::string> args) {
    auto options = Options::Parse(args);
    EXPECT_TRUE(options.ok());
    return Registry<JobScheduler>::Instance().Create("gavel-allox", *options);
  };
  EXPECT_TRUE(make({}).ok());
  EXPECT_TRUE(make({"alpha=0.5"}).ok());
  for (const char* bad : {"alpha=0", "alpha=1.5", "alpha=-1"}) {
    auto made = make({bad});
    ASSERT_FALSE(made.ok()) << bad;
    EXPECT_THAT(made.status().ToString(), ::testing::HasSubstr("'alpha'")) << bad;
  }
  auto hetsched_mechanism = make({"mechanism=hetsched"});
  ASSERT_FALSE(hetsched_mechanism.ok());
  EXPECT_THAT(hetsched_mechanism.status().ToString(), ::testing::HasSubstr("mechanism=gavel"));
}

}  // namespace
}  // namespace hetsched::gavel
