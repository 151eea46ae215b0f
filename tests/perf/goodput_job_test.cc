// What a goodput job knows of itself (perf/goodput_job.h), as a real job reports it (Measure, the
// Slurm agent's path; the simulator's steps are tested in tests/sim/goodput_jobs_test.cc): reports
// of one configuration averaged, a new configuration kept, a refit due only when the samples change,
// the gradient statistics kept when a report has none, a pooled job's samples kept once.
#include "hetsched/perf/goodput_job.h"

#include <gtest/gtest.h>

namespace hetsched {
namespace {

TEST(GoodputJobTest, MeasureAveragesReportsOfAConfigurationAndKeepsNewOnes) {
  GoodputJob job;
  job.types.resize(2);  // two GPU types, nothing learned on either
  GoodputSteps::Measure(job, 1, {1, 2, 32, 0.25, 0.5}, GradientStats{0.5, 2});
  ASSERT_EQ(job.types[1].samples.size(), 1u);
  EXPECT_TRUE(job.types[1].refit_due);
  EXPECT_TRUE(job.types[0].samples.empty());
  ASSERT_TRUE(job.grad.has_value());
  EXPECT_EQ(job.grad->var, 2);

  // The same configuration (1 node, 2 GPUs, 32 per GPU) again: averaged, (0.25 + 0.75) / 2 and
  // (0.5 + 1.5) / 2; no gradient statistics in this report: the last ones stay.
  job.types[1].refit_due = false;
  GoodputSteps::Measure(job, 1, {1, 2, 32, 0.75, 1.5}, std::nullopt);
  ASSERT_EQ(job.types[1].samples.size(), 1u);
  EXPECT_EQ(job.types[1].samples[0].accum_step_s, 0.5);
  EXPECT_EQ(job.types[1].samples[0].optim_step_s, 1.0);
  EXPECT_TRUE(job.types[1].refit_due);
  EXPECT_EQ(job.grad->var, 2);

  // A third report equal to the mean changes nothing: no refit.
  job.types[1].refit_due = false;
  GoodputSteps::Measure(job, 1, {1, 2, 32, 0.5, 1.0}, std::nullopt);
  EXPECT_FALSE(job.types[1].refit_due);
  EXPECT_EQ(job.types[1].reports, (std::vector<int>{3}));

  // Another local batch is another sample.
  GoodputSteps::Measure(job, 1, {1, 2, 64, 0.5, 1.25}, std::nullopt);
  EXPECT_EQ(job.types[1].samples.size(), 2u);
  EXPECT_TRUE(job.types[1].refit_due);

  // One model over every type (pooled): measured on type 1, kept in types[0].
  GoodputJob pooled;
  pooled.types.resize(2);
  pooled.pooled = true;
  GoodputSteps::Measure(pooled, 1, {1, 1, 32, 0.25, 0.25}, std::nullopt);
  EXPECT_EQ(pooled.types[0].samples.size(), 1u);
  EXPECT_TRUE(pooled.types[1].samples.empty());
  EXPECT_FALSE(pooled.grad.has_value());
}

}  // namespace
}  // namespace hetsched
