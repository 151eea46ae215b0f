// gavel-isolated (Gavel's isolated policy) by hand: the cluster split evenly over the jobs; and
// what the LP of a Gavel policy sees of a job, aware and blind (SeenThroughputs).
#include <gtest/gtest.h>

#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/policy.h"

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

// What a Gavel policy's LP sees of a job on types (v100, p100, k80) where it runs at (4, 2, 0)
// steps/s and the model gives it no speed on k80: the aware view its speeds; max_min_fairness's
// blind view 1 on each type it can use; min_total_duration's and finish_time_fairness's its V100
// speed on each (Gavel copies it to every type); without a V100 in the cluster, or none for the
// job there, its largest.
TEST(GavelSeenThroughputsTest, AwareBlindAndByReference) {
  const std::vector<double> runnable{4, 2, 0}, modelled{1, 1, 0};
  EXPECT_EQ(SeenThroughputs(runnable, modelled, false, -1, false), (std::vector<double>{4, 2, 0}));
  EXPECT_EQ(SeenThroughputs(runnable, modelled, true, -1, false), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(SeenThroughputs(runnable, modelled, true, 0, true), (std::vector<double>{4, 4, 0}));
  EXPECT_EQ(SeenThroughputs({1, 3, 0}, modelled, true, 0, true), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(SeenThroughputs({0, 3, 2}, {0, 1, 1}, true, 0, true), (std::vector<double>{0, 3, 3}));
  EXPECT_EQ(SeenThroughputs({1, 3, 2}, {1, 1, 1}, true, -1, true), (std::vector<double>{3, 3, 3}));
}

}  // namespace
}  // namespace hetsched::gavel
