// gavel-gandiva's allocation (Gavel's GandivaPolicy, gandiva.h) by hand, and against Gavel's own
// class called directly on the same calls.
#include "hetsched/policies/gavel/gandiva.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <string>
#include <vector>

#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/options.h"
#include "hetsched/sched/registry.h"
#include "../common/allocation_pair.h"

namespace hetsched::gavel {
namespace {

// Types (catalog order) v100 and k80; job j runs alone at 2 + j steps/s on a V100, 1 + j/2 on a
// K80. Pairs of jobs of one GPU count run at 0.6 of their rates alone, except (1, 2) at 0.2 and
// the pairs in `zero_on_k80` at 0 on the K80.
AllocationProblem GandivaProblem(const std::vector<JobId>& ids, const std::vector<int>& gpus,
                                 std::vector<int> capacity, const std::set<std::pair<JobId, JobId>>& zero_on_k80 = {}) {
  AllocationProblem p;
  p.capacity = std::move(capacity);
  p.type_names = {"v100", "k80"};
  for (size_t i = 0; i < ids.size(); ++i) {
    AllocationJob j;
    j.id = ids[i];
    j.num_gpus = gpus[i];
    j.throughput = {2.0 + static_cast<double>(ids[i]), 1.0 + static_cast<double>(ids[i]) / 2};
    j.remaining_iterations = 1000;
    p.jobs.push_back(j);
  }
  for (size_t a = 0; a < ids.size(); ++a) {
    for (size_t b = a + 1; b < ids.size(); ++b) {
      if (gpus[a] != gpus[b]) continue;
      const double f = ids[a] == 1 && ids[b] == 2 ? 0.2 : 0.6;
      std::vector<double> ta, tb;
      for (size_t k = 0; k < 2; ++k) {
        const bool zero = k == 1 && zero_on_k80.contains({ids[a], ids[b]});
        ta.push_back(zero ? 0.0 : f * p.jobs[a].throughput[k]);
        tb.push_back(zero ? 0.0 : f * p.jobs[b].throughput[k]);
      }
      p.pairs.push_back(testing_util::TestPair(a, b, std::move(ta), std::move(tb)));
    }
  }
  return p;
}

// The share (v100, k80) of job `id` alone, and of the pair (a, b); {0, 0} where none.
std::vector<double> Alone(const AllocationProblem& p, const Allocation& x, JobId id) {
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    if (p.jobs[j].id == id) return x.share[j];
  }
  return {};
}
std::vector<double> Paired(const AllocationProblem& p, const Allocation& x, JobId a, JobId b) {
  for (size_t i = 0; i < p.pairs.size(); ++i) {
    if (p.jobs[p.pairs[i].a].id == a && p.jobs[p.pairs[i].b].id == b) {
      return std::vector<double>(x.pair_share[i].begin(), x.pair_share[i].end());
    }
  }
  return {};
}

using Pairs = std::set<std::pair<JobId, JobId>>;

// Room for every job (3 single-GPU jobs, 2 + 2 GPUs): no pairs; each job 2/3 of each type, its
// row 4/3 scaled to 1: (1/2, 1/2). Gavel's class gives the same.
TEST(GavelGandivaTest, NoPackingWhileTheJobsFit) {
  GandivaAllocation gandiva(0);
  const AllocationProblem p = GandivaProblem({0, 1, 2}, {1, 1, 1}, {2, 2});
  const Result<Allocation> x = gandiva.Compute(p);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  for (JobId id : {0, 1, 2}) EXPECT_EQ(Alone(p, *x, id), (std::vector<double>{0.5, 0.5}));
  for (size_t q = 0; q < x->pair_share.size(); ++q) {
    EXPECT_EQ(std::vector<double>(x->pair_share[q].begin(), x->pair_share[q].end()), (std::vector<double>{0, 0}));
  }
  EXPECT_TRUE(gandiva.pairs().empty());
}

// Five jobs (job 4 of 2 GPUs) on 3 V100 + 1 K80: 6 GPUs asked of 4, so Gandiva packs. Gavel's
// GandivaPolicy(seed=0) on the same four calls (its class called directly, PYTHONPATH=<peers'
// cvxpy stand-in> python3 with gandiva.py @ c4fa400) gives exactly these shares and pairs:
//   1. jobs 0-4: five draws from Random(0).sample; (0, 2) pairs, the draws with job 4 (2 GPUs)
//      are thrown away, and the fifth ends the loop before 1 and 3 meet. m = 4 combinations:
//      V100 3/4, K80 1/4 (sum 1); job 4 half of that (its 2 GPUs): (0.375, 0.125).
//   2. the same jobs: (0, 2) is kept (0.6 x 4 = 2.4 >= 1), (1, 3) forms; m = 3: V100 1, K80 1/3,
//      sum 4/3, scaled to (0.75, 0.25); job 4: (1/2, 1/6), sum 2/3, not scaled.
//   3. job 1 gone: (1, 3) is dropped, 3 and 4 cannot pair; m = 3 again.
//   4. jobs 0, 2, 3: 3 GPUs for 4, no packing, each (0.75, 0.25); (0, 2) is kept but not used.
TEST(GavelGandivaTest, PacksAsGavelsClassOverFourCalls) {
  GandivaAllocation gandiva(0);
  const std::vector<double> quarter{0.75, 0.25};
  AllocationProblem p = GandivaProblem({0, 1, 2, 3, 4}, {1, 1, 1, 1, 2}, {3, 1});
  Result<Allocation> x = gandiva.Compute(p);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_EQ(gandiva.pairs(), (Pairs{{0, 2}}));
  EXPECT_EQ(Paired(p, *x, 0, 2), quarter);
  EXPECT_EQ(Alone(p, *x, 1), quarter);
  EXPECT_EQ(Alone(p, *x, 3), quarter);
  EXPECT_EQ(Alone(p, *x, 4), (std::vector<double>{0.375, 0.125}));
  EXPECT_EQ(Alone(p, *x, 0), (std::vector<double>{0, 0}));
  EXPECT_EQ(Paired(p, *x, 1, 3), (std::vector<double>{0, 0}));

  x = gandiva.Compute(p);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(gandiva.pairs(), (Pairs{{0, 2}, {1, 3}}));
  EXPECT_EQ(Paired(p, *x, 0, 2), quarter);
  EXPECT_EQ(Paired(p, *x, 1, 3), quarter);
  EXPECT_EQ(Alone(p, *x, 4), (std::vector<double>{0.5, 1.0 / 6}));
  EXPECT_EQ(Alone(p, *x, 1), (std::vector<double>{0, 0}));

  p = GandivaProblem({0, 2, 3, 4}, {1, 1, 1, 2}, {3, 1});
  x = gandiva.Compute(p);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(gandiva.pairs(), (Pairs{{0, 2}}));
  EXPECT_EQ(Paired(p, *x, 0, 2), quarter);
  EXPECT_EQ(Alone(p, *x, 3), quarter);
  EXPECT_EQ(Alone(p, *x, 4), (std::vector<double>{0.5, 1.0 / 6}));

  p = GandivaProblem({0, 2, 3}, {1, 1, 1}, {3, 1});
  x = gandiva.Compute(p);
  ASSERT_TRUE(x.ok());
  for (JobId id : {0, 2, 3}) EXPECT_EQ(Alone(p, *x, id), quarter);
  EXPECT_EQ(Paired(p, *x, 0, 2), (std::vector<double>{0, 0}));
  EXPECT_EQ(gandiva.pairs(), (Pairs{{0, 2}}));
}

// A pair is dropped at the next call when its normalised throughput is below 1 ((1, 2): 0.2 x 4
// = 0.8) or when one of its paired rates is 0 on some type ((0, 2) on the K80), and re-drawn;
// three single-GPU jobs on 1 V100 + 1 K80, Gavel's class with seed 0: (1, 2) first, then (0, 1)
// for good (2.4), job 2 alone; m = 2: (1/2, 1/2) each.
TEST(GavelGandivaTest, DropsPairsThatDoNotHelp) {
  GandivaAllocation gandiva(0);
  const AllocationProblem p = GandivaProblem({0, 1, 2}, {1, 1, 1}, {1, 1}, {{0, 2}});
  const std::vector<double> half{0.5, 0.5};
  Result<Allocation> x = gandiva.Compute(p);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(gandiva.pairs(), (Pairs{{1, 2}}));
  EXPECT_EQ(Paired(p, *x, 1, 2), half);
  EXPECT_EQ(Alone(p, *x, 0), half);
  for (int call = 0; call < 3; ++call) {
    x = gandiva.Compute(p);
    ASSERT_TRUE(x.ok());
    EXPECT_EQ(gandiva.pairs(), (Pairs{{0, 1}})) << "call " << call + 2;
    EXPECT_EQ(Paired(p, *x, 0, 1), half);
    EXPECT_EQ(Alone(p, *x, 2), half);
  }
}

// No jobs: nothing changes and nothing is drawn (Gavel returns before its state is touched); the
// next call draws as a fresh policy's first would.
TEST(GavelGandivaTest, EmptyCallDrawsNothing) {
  GandivaAllocation fresh(0), after_empty(0);
  AllocationProblem empty;
  empty.capacity = {1, 1};
  empty.type_names = {"v100", "k80"};
  ASSERT_TRUE(after_empty.Compute(empty).ok());
  const AllocationProblem p = GandivaProblem({0, 1, 2}, {1, 1, 1}, {1, 1});
  ASSERT_TRUE(fresh.Compute(p).ok());
  ASSERT_TRUE(after_empty.Compute(p).ok());
  EXPECT_EQ(fresh.pairs(), after_empty.pairs());
}

// The options: Gavel's mechanism only (the one that runs pairs), a seed >= 0, pair_finish work or
// micro_task (as every packed policy's).
TEST(GavelGandivaTest, OptionsAreChecked) {
  auto make = [](std::vector<std::string> args) {
    auto options = Options::Parse(args);
    EXPECT_TRUE(options.ok());
    return Registry<JobScheduler>::Instance().Create("gavel-gandiva", *options);
  };
  EXPECT_TRUE(make({"seed=3"}).ok());
  auto hetsched_mechanism = make({"mechanism=hetsched"});
  ASSERT_FALSE(hetsched_mechanism.ok());
  EXPECT_THAT(hetsched_mechanism.status().ToString(), ::testing::HasSubstr("mechanism=gavel"));
  auto negative = make({"seed=-1"});
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().ToString(), ::testing::HasSubstr("'seed'"));
  EXPECT_TRUE(make({"pair_finish=micro_task"}).ok());
  EXPECT_TRUE(make({"pair_finish=work"}).ok());
  auto bad_finish = make({"pair_finish=pair"});
  ASSERT_FALSE(bad_finish.ok());
  EXPECT_THAT(bad_finish.status().ToString(), ::testing::HasSubstr("'pair_finish' must be 'work' or 'micro_task'"));
}

}  // namespace
}  // namespace hetsched::gavel
