#include <gtest/gtest.h>

#include "../policies/fake_backend.h"
#include "hetsched/perf/iteration_model.h"
#include "hetsched/sched/planner.h"
#include "hetsched/sched/registry.h"

namespace hetsched::test {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Two nodes of 2 fast GPUs (16 GiB each): devices 0,1 on node0 and 2,3 on node1.
class DataParallelPlannerTest : public ::testing::Test {
 protected:
  DataParallelPlannerTest() : cluster_({{kFast, 2}, {kFast, 2}}) {
    auto made = Registry<Planner>::Instance().Create("data-parallel", Options{});
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    if (made.ok()) planner_ = std::move(made).value();
    model_.name = "toy";
    model_.default_batch_size = 16;
    LayerProfile layer;
    layer.name = "dense";
    layer.kind = LayerKind::kDense;
    layer.fwd_flops_per_sample = 1e9;
    layer.bwd_flops_per_sample = 2e9;
    layer.param_bytes = 100e6;
    layer.activation_bytes_per_sample = 1e6;
    model_.layers.push_back(layer);
    job_.id = 12;
    job_.model = "toy";
  }

  Result<PlannedJob> Plan(std::vector<DeviceId> devices) {
    return planner_->PlanJob(job_, model_, devices, cluster_.cluster());
  }

  TestCluster cluster_;
  std::unique_ptr<Planner> planner_;
  ModelProfile model_;
  JobSpec job_;
};

TEST_F(DataParallelPlannerTest, OneDeviceIsSingleWithModelDefaultBatch) {
  auto planned = Plan({3});
  ASSERT_TRUE(planned.ok()) << planned.status().ToString();
  EXPECT_EQ(planned->plan.parallelism, Parallelism::kSingle);
  EXPECT_EQ(planned->plan.batch_per_device, 16);  // job batch 0: model default
  EXPECT_EQ(planned->plan.devices, (std::vector<DeviceId>{3}));
  // The estimate is the visible model's, unchanged.
  const IterationEstimate direct = EstimateIteration(model_, planned->plan, cluster_.cluster());
  EXPECT_DOUBLE_EQ(planned->estimate.iteration_s, direct.iteration_s);
  EXPECT_GT(planned->estimate.iteration_s, 0);
}

TEST_F(DataParallelPlannerTest, ParallelismFollowsTheJob) {
  job_.batch_size = 8;
  auto ring = Plan({0, 1, 2});
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ(ring->plan.parallelism, Parallelism::kDataRing);
  EXPECT_EQ(ring->plan.batch_per_device, 8);
  EXPECT_EQ(ring->plan.devices, (std::vector<DeviceId>{0, 1, 2}));
  EXPECT_EQ(ring->estimate.span_nodes, 2);

  job_.parallelism = Parallelism::kDataPS;
  auto ps = Plan({0, 2});
  ASSERT_TRUE(ps.ok());
  EXPECT_EQ(ps->plan.parallelism, Parallelism::kDataPS);

  job_.parallelism = Parallelism::kPipeline;  // planned as data parallel for now
  auto pipe = Plan({0, 1});
  ASSERT_TRUE(pipe.ok());
  EXPECT_EQ(pipe->plan.parallelism, Parallelism::kDataRing);
  EXPECT_TRUE(pipe->plan.stages.empty());

  job_.parallelism = Parallelism::kDataPS;  // one device is single whatever the job says
  auto one = Plan({1});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->plan.parallelism, Parallelism::kSingle);
}

// PlanJobInto over a PlannedJob left from another plan (stale stages, containers, a larger
// device list, a prepared node list) gives exactly PlanJob's plan: nothing of the old one stays.
TEST_F(DataParallelPlannerTest, PlanJobIntoReusedStorageEqualsPlanJob) {
  job_.batch_size = 8;
  PlannedJob reused;
  ASSERT_TRUE(planner_->PlanJobInto(job_, model_, std::vector<DeviceId>{0, 1, 2, 3}, cluster_.cluster(), &reused).ok());
  EXPECT_EQ(reused.prepared.nodes.size(), 2u);
  reused.plan.stages.push_back(PipelineStage{0, 0, {0}});
  reused.plan.containers.emplace_back();
  reused.plan.micro_batches = 4;
  reused.plan.num_parameter_servers = 3;
  for (const std::vector<DeviceId>& devices : {std::vector<DeviceId>{2}, std::vector<DeviceId>{1, 2}}) {
    ASSERT_TRUE(planner_->PlanJobInto(job_, model_, devices, cluster_.cluster(), &reused).ok());
    auto fresh = Plan(devices);
    ASSERT_TRUE(fresh.ok());
    EXPECT_EQ(reused.plan.parallelism, fresh->plan.parallelism);
    EXPECT_EQ(reused.plan.devices, fresh->plan.devices);
    EXPECT_TRUE(reused.plan.stages.empty());
    EXPECT_TRUE(reused.plan.containers.empty());
    EXPECT_EQ(reused.plan.micro_batches, 1);
    EXPECT_EQ(reused.plan.num_parameter_servers, 0);
    EXPECT_EQ(reused.prepared.nodes, fresh->prepared.nodes);
    EXPECT_EQ(reused.prepared.crosses_racks, fresh->prepared.crosses_racks);
    EXPECT_EQ(reused.estimate.iteration_s, fresh->estimate.iteration_s);
    EXPECT_EQ(reused.estimate.span_nodes, fresh->estimate.span_nodes);
  }
}

// PlanKey (SchedContext's memo of starts) names what the plan reads of the job: equal keys for
// jobs that differ elsewhere (id, name, priority) and then equal plans on the same devices; other
// keys for another batch, parallelism (on two devices or more) or a goodput job; none for a
// pipeline job on 2-8 devices (PlanJobAsPipeline's).
TEST_F(DataParallelPlannerTest, PlanKeyNamesWhatThePlanReadsOfTheJob) {
  job_.batch_size = 8;
  JobSpec other = job_;
  other.id = 99;
  other.name = "other";
  other.priority = 3;
  ASSERT_TRUE(planner_->PlanKey(job_, model_, 3).has_value());
  EXPECT_EQ(planner_->PlanKey(job_, model_, 3), planner_->PlanKey(other, model_, 3));
  const std::vector<DeviceId> devices{0, 1, 2};
  auto a = planner_->PlanJob(job_, model_, devices, cluster_.cluster());
  auto b = planner_->PlanJob(other, model_, devices, cluster_.cluster());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->plan.parallelism, b->plan.parallelism);
  EXPECT_EQ(a->plan.batch_per_device, b->plan.batch_per_device);
  EXPECT_EQ(a->plan.devices, b->plan.devices);
  EXPECT_EQ(a->estimate.iteration_s, b->estimate.iteration_s);
  EXPECT_EQ(a->prepared.nodes, b->prepared.nodes);
  other.batch_size = 16;
  EXPECT_NE(planner_->PlanKey(job_, model_, 3), planner_->PlanKey(other, model_, 3));
  other = job_;
  other.parallelism = Parallelism::kDataPS;
  EXPECT_NE(planner_->PlanKey(job_, model_, 3), planner_->PlanKey(other, model_, 3));
  EXPECT_EQ(planner_->PlanKey(job_, model_, 1), planner_->PlanKey(other, model_, 1));  // both single
  other = job_;
  other.application = "app";
  EXPECT_NE(planner_->PlanKey(job_, model_, 3), planner_->PlanKey(other, model_, 3));
  other = job_;
  other.intra_job_planner = "dp";
  EXPECT_FALSE(planner_->PlanKey(other, model_, 2).has_value());
  EXPECT_TRUE(planner_->PlanKey(other, model_, 1).has_value());
}

// Ring memory per device = params x (1 + 2 for Adam state) + batch x activations
// = 5 GiB x 3 + 64 x 0.1 GiB = 15 + 6.4 = 21.4 GiB > 16 GiB.
TEST_F(DataParallelPlannerTest, ErrorsWhenTheJobDoesNotFitInMemory) {
  model_.name = "big";
  model_.layers[0].param_bytes = 5 * kGiB;
  model_.layers[0].activation_bytes_per_sample = 0.1 * kGiB;
  job_.batch_size = 64;
  auto planned = Plan({0, 1});
  ASSERT_FALSE(planned.ok());
  EXPECT_EQ(planned.status().code(), StatusCode::kInfeasible);
  EXPECT_EQ(planned.status().message(), "job 12 (big, batch 64) does not fit in 16 GiB of fast-gpu: needs 21.4 GiB");
}

TEST_F(DataParallelPlannerTest, RejectsEmptyDevicesAndUnknownOptions) {
  EXPECT_FALSE(Plan({}).ok());
  Options typo;
  typo.Set("overlap", "0.5");
  EXPECT_FALSE(Registry<Planner>::Instance().Create("data-parallel", typo).ok());
  auto unknown = Registry<Planner>::Instance().Create("model-parallel", Options{});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("data-parallel"), std::string::npos);
}

}  // namespace
}  // namespace hetsched::test
