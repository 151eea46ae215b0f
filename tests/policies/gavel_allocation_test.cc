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

}  // namespace
}  // namespace hetsched::gavel
