// A job whose spec names an intra_job_planner is laid out as a pipeline by the default
// (data-parallel) planner, and runs at the pipeline's throughput.
#include <gtest/gtest.h>

#include "hetsched/planners/job_pipeline.h"
#include "hetsched/sched/planner.h"
#include "hetsched/sched/registry.h"
#include "planning_fixtures.h"

namespace hetsched::test {
namespace {

// The toy world of step_time_planners_test.cc (two 1 TFLOP/s devices, 10 GB/s between them,
// two 3e9-FLOP layers, 1e6 B activations after layer 0, 1e8 B of parameters in layer 1), a job of
// batch 4 per device on both: global batch 8, m = 8 micro-batches of 1 sample.
//   pipeline, two stages: slot = 1 x 3e9 / 1e12 + 2 x 1e6 / 1e10 = 0.0032 s; (8 + 2 - 1) x 0.0032 = 0.0288 s
//                         (one stage would take 8 x 0.006 = 0.048 s) -> 8 / 0.0288 = 277.8 samples/s
//   data parallel:        4 x 6e9 / 1e12 = 0.024 s + ring of 1e8 B over 2: 0.01 s = 0.034 s -> 235.3 samples/s
TEST(JobPipeline, SpecAskingForPlanningRunsAtThePlansThroughput) {
  auto world = ToyPipelineDevices();
  const ModelProfile model = ToyPipelineModel();
  auto planner = Registry<Planner>::Instance().Create("data-parallel", Options{});
  ASSERT_TRUE(planner.ok());
  JobSpec job;
  job.id = 3;
  job.model = "toy";
  job.num_gpus = 2;
  const std::vector<DeviceId> devices = {0, 1};

  auto plain = (*planner)->PlanJob(job, model, devices, *world->cluster);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->plan.parallelism, Parallelism::kDataRing);
  EXPECT_NEAR(plain->estimate.iteration_s, 0.034, 1e-9);

  job.intra_job_planner = "dp";
  auto piped = (*planner)->PlanJob(job, model, devices, *world->cluster);
  ASSERT_TRUE(piped.ok()) << piped.status().ToString();
  EXPECT_EQ(piped->plan.parallelism, Parallelism::kPipeline);
  ASSERT_EQ(piped->plan.stages.size(), 2u);
  EXPECT_EQ(piped->plan.micro_batches, 8);
  EXPECT_NEAR(piped->estimate.iteration_s, 0.0288, 1e-12);
  EXPECT_NEAR(piped->estimate.samples_per_s, 8 / 0.0288, 1e-6);

  job.intra_job_planner = "greedy-fastest";  // a cost-objective planner: a clear error
  auto wrong = (*planner)->PlanJob(job, model, devices, *world->cluster);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("job 3"), std::string::npos) << wrong.status().message();
}

// A learned planner trains once per (planner, model, batch, device shape): a second job of the
// same model on devices of the same shape reuses the plan on its own devices (a cache hit, no
// training); another batch is another key.
TEST(JobPipeline, PlansAreCachedPerModelAndDeviceShape) {
  auto world = MakeToyDevices({{ToyType("a", 1e12, 1), 1}, {ToyType("a", 1e12, 1), 1}, {ToyType("a", 1e12, 1), 1},
                               {ToyType("a", 1e12, 1), 1}},
                              1e11, 1e10);
  const ModelProfile model = ToyPipelineModel();
  JobSpec job;
  job.id = 1;
  job.model = "toy";
  job.intra_job_planner = "tapp";
  PipelinePlanCache cache;
  const std::vector<DeviceId> first = {0, 1}, second = {2, 3};
  auto a = PlanJobAsPipeline(job, model, first, *world->cluster, &cache);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(cache.misses(), 1);
  EXPECT_EQ(cache.hits(), 0);
  job.id = 2;
  auto b = PlanJobAsPipeline(job, model, second, *world->cluster, &cache);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(cache.hits(), 1);  // same shape: every pair of devices on two nodes over the 10 GB/s NIC
  ASSERT_EQ(b->plan.stages.size(), a->plan.stages.size());
  for (size_t s = 0; s < a->plan.stages.size(); ++s) {
    EXPECT_EQ(b->plan.stages[s].first_layer, a->plan.stages[s].first_layer);
    EXPECT_EQ(b->plan.stages[s].last_layer, a->plan.stages[s].last_layer);
    // Device i of the first job's list maps to device i of the second's.
    EXPECT_EQ(b->plan.stages[s].devices.at(0), a->plan.stages[s].devices.at(0) + 2);
  }
  EXPECT_DOUBLE_EQ(b->estimate.iteration_s, a->estimate.iteration_s);
  job.batch_size = 8;  // another global batch: another key
  auto c = PlanJobAsPipeline(job, model, second, *world->cluster, &cache);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(cache.misses(), 2);
  EXPECT_EQ(cache.size(), 2u);
  job.intra_job_planner = "no-such-planner";  // failures are not cached, and name the job
  auto bad = PlanJobAsPipeline(job, model, second, *world->cluster, &cache);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("job 2"), std::string::npos) << bad.status().message();
  EXPECT_EQ(cache.size(), 2u);
}

}  // namespace
}  // namespace hetsched::test
