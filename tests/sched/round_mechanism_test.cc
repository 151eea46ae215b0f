// The round-based mechanism: hand-checked single rounds, and convergence of the realised time
// fractions to the allocation X over many rounds.
#include "hetsched/sched/round_mechanism.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace hetsched {
namespace {

// Runs `rounds` rounds of `round_s` seconds, keeping every job active throughout, and returns
// the realised fraction of time each job spent on each type.
std::vector<std::vector<double>> Simulate(RoundMechanism& m, const std::vector<std::vector<double>>& x,
                                          const std::vector<int>& gpus, int rounds, double round_s = 360) {
  std::vector<int> current(x.size(), -1);
  for (int r = 0; r < rounds; ++r) {
    std::vector<RoundJob> jobs;
    for (size_t j = 0; j < x.size(); ++j) {
      jobs.push_back(RoundJob{static_cast<JobId>(j), gpus[j], x[j], current[j]});
    }
    const std::vector<int> plan = m.PlanRound(jobs);
    // Capacity is never exceeded in any round.
    std::vector<int> used(static_cast<size_t>(m.num_types()), 0);
    for (size_t j = 0; j < x.size(); ++j) {
      if (plan[j] >= 0) used[static_cast<size_t>(plan[j])] += gpus[j];
      m.Account(static_cast<JobId>(j), plan[j], round_s);
      current[j] = plan[j];
    }
    for (int k = 0; k < m.num_types(); ++k) EXPECT_LE(used[static_cast<size_t>(k)], m.capacity()[static_cast<size_t>(k)]);
  }
  std::vector<std::vector<double>> realised(x.size());
  for (size_t j = 0; j < x.size(); ++j) {
    for (int k = 0; k < m.num_types(); ++k) realised[j].push_back(m.ReceivedFraction(static_cast<JobId>(j), k));
  }
  return realised;
}

TEST(RoundMechanismTest, FirstRoundTakesLargestSharesAndRespectsCapacity) {
  // One GPU of each of two types. Nobody has received anything: all priorities are infinite, so
  // larger shares go first: job 1 (0.6 on type 0), then job 0 (0.5 on type 1); job 2 gets none.
  RoundMechanism m({1, 1});
  const std::vector<double> x0{0.2, 0.5}, x1{0.6, 0.1}, x2{0.2, 0.4};
  std::vector<RoundJob> jobs{{0, 1, x0, -1}, {1, 1, x1, -1}, {2, 1, x2, -1}};
  EXPECT_EQ(m.PlanRound(jobs), (std::vector<int>{1, 0, -1}));
}

TEST(RoundMechanismTest, PriorityIsShareOverReceivedFraction) {
  RoundMechanism m({1});
  // Job 0 has had 50% of its time on the type (share 0.5: priority 1); job 1 has had 10%
  // (share 0.5: priority 5). Job 1 goes first.
  m.Account(0, 0, 50);
  m.Account(0, -1, 50);
  m.Account(1, 0, 10);
  m.Account(1, -1, 90);
  EXPECT_DOUBLE_EQ(m.ReceivedFraction(0, 0), 0.5);
  EXPECT_DOUBLE_EQ(m.ReceivedFraction(1, 0), 0.1);
  const std::vector<double> x{0.5};
  std::vector<RoundJob> jobs{{0, 1, x, 0}, {1, 1, x, -1}};
  EXPECT_EQ(m.PlanRound(jobs), (std::vector<int>{-1, 0}));
}

TEST(RoundMechanismTest, JobTooLargeForTypeIsNeverPlaced) {
  RoundMechanism m({2});
  const std::vector<double> x{1.0};
  std::vector<RoundJob> jobs{{0, 4, x, -1}};
  EXPECT_EQ(m.PlanRound(jobs), (std::vector<int>{-1}));
}

TEST(RoundMechanismTest, RealisedFractionsConvergeToAllocation) {
  // Two types with one GPU each; column sums 1 and 1, row sums <= 1.
  const std::vector<std::vector<double>> x{{0.5, 0.25}, {0.25, 0.5}, {0.25, 0.25}};
  RoundMechanism m({1, 1});
  const auto realised = Simulate(m, x, {1, 1, 1}, 2000);
  for (size_t j = 0; j < x.size(); ++j) {
    for (size_t k = 0; k < 2; ++k) {
      EXPECT_NEAR(realised[j][k], x[j][k], 0.01) << "job " << j << " type " << k;
    }
  }
}

TEST(RoundMechanismTest, MultiGpuJobsConverge) {
  // Four GPUs of one type: a 4-GPU job and two 2-GPU jobs, each with share 0.5
  // (4 x 0.5 + 2 x 0.5 + 2 x 0.5 = 4 GPUs). Rounds alternate between the big job alone and the
  // two small ones together.
  const std::vector<std::vector<double>> x{{0.5}, {0.5}, {0.5}};
  RoundMechanism m({4});
  const auto realised = Simulate(m, x, {4, 2, 2}, 1000);
  for (size_t j = 0; j < x.size(); ++j) EXPECT_NEAR(realised[j][0], 0.5, 0.01) << "job " << j;
}

TEST(RoundMechanismTest, FullShareJobKeepsItsType) {
  // A job with share 1 on its type runs every round: it is never moved.
  const std::vector<std::vector<double>> x{{1.0, 0.0}, {0.0, 1.0}};
  RoundMechanism m({1, 1});
  const auto realised = Simulate(m, x, {1, 1}, 10);
  EXPECT_DOUBLE_EQ(realised[0][0], 1.0);
  EXPECT_DOUBLE_EQ(realised[1][1], 1.0);
}

}  // namespace
}  // namespace hetsched
