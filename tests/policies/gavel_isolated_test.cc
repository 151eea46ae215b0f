// gavel-isolated (Gavel's isolated policy) by hand: the cluster split evenly over the jobs.
#include <gtest/gtest.h>

#include "hetsched/policies/gavel/allocation.h"

namespace hetsched::gavel {
namespace {

AllocationJob IsoJob(JobId id, std::vector<double> throughput, int gpus) {
  AllocationJob j;
  j.id = id;
  j.throughput = std::move(throughput);
  j.num_gpus = gpus;
  j.remaining_iterations = 1000;
  return j;
}

// Types of 4 and 2 GPUs, two jobs (n = 2). Job 0 (1 GPU): 4/2 + 2/2 = 3 > 1, scaled by 1/3:
// X = (2/3, 1/3). Job 1 (2 GPUs, cannot run on the second type): 4/4 + 2/4 = 1.5, scaled by 2/3:
// X = (2/3, 0) (Gavel would give it 1/3 of a type it cannot use). The first type holds
// 2/3 x 1 + 2/3 x 2 = 2 of its 4 GPUs: Gavel's isolated share does not fill the cluster.
TEST(GavelIsolatedTest, AnEqualShareOfEveryType) {
  AllocationProblem p;
  p.capacity = {4, 2};
  p.jobs = {IsoJob(0, {1, 2}, 1), IsoJob(1, {1, 0}, 2)};
  const Allocation a = SolveIsolated(p);
  EXPECT_NEAR(a.share[0][0], 2.0 / 3, 1e-12);
  EXPECT_NEAR(a.share[0][1], 1.0 / 3, 1e-12);
  EXPECT_NEAR(a.share[1][0], 2.0 / 3, 1e-12);
  EXPECT_EQ(a.share[1][1], 0);
  EXPECT_NEAR(a.objective, 2.0 / 3 + 2.0 / 3 + 2.0 / 3, 1e-12);  // effective throughputs 4/3 and 2/3
  // The same as finish-time fairness's reference on a job every type can run.
  EXPECT_NEAR(EffectiveThroughput(p.jobs[0], a.share[0]), GavelIsolatedThroughput(p, 0), 1e-12);
  // One job alone on a large cluster: its row is capped at a total share of 1.
  p.jobs = {IsoJob(0, {1, 2}, 1)};
  const Allocation alone = SolveIsolated(p);
  EXPECT_NEAR(alone.share[0][0] + alone.share[0][1], 1, 1e-12);
  EXPECT_NEAR(alone.share[0][0], 4.0 / 6, 1e-12);
}

}  // namespace
}  // namespace hetsched::gavel
