#include <gtest/gtest.h>

#include <cmath>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/planners/step_time_model.h"
#include "planning_fixtures.h"

namespace hetsched::test {
namespace {

// Two 1 TFLOP/s devices on two nodes joined by a 10 GB/s NIC; two layers of 3e9 FLOP/sample
// (fwd 1e9 + bwd 2e9); layer 0 outputs 1e6 B/sample, layer 1 holds 1e8 B of parameters.
// Global batch 8 in m = 4 micro-batches of 2 samples:
//   one layer, one micro-batch: 2 x 3e9 / 1e12 = 0.006 s
//   one stage (both layers on one device): (4 + 1 - 1) x 0.012 = 0.048 s
//   two stages: slot = max(0.006 + 2 x 1e6 x 2 / 1e10, 0.006) = 0.0064 -> (4 + 2 - 1) x 0.0064 = 0.032 s,
//               communication 5 x 0.0004 = 0.002 s = 6.25 % of the step
//   BSP: 4 samples per device, 4 x 6e9 / 1e12 = 0.024 s + ring all-reduce of 1e8 B over 2:
//        2 (2 - 1) / 2 x 1e8 / 1e10 = 0.01 s -> 0.034 s, communication share 0.01 / 0.034
class ToyStepTime : public ::testing::Test {
 protected:
  ToyStepTime() {
    world_ = ToyPipelineDevices();
    model_ = ToyPipelineModel();
    problem_.model = &model_;
    problem_.objective = PlanObjective::kStepTime;
    problem_.cluster = world_->cluster.get();
    problem_.global_batch = 8;
    problem_.micro_batches = 4;
  }
  std::unique_ptr<ToyDevices> world_;
  ModelProfile model_;
  PlanningProblem problem_;
};

TEST_F(ToyStepTime, DpFindsTheTwoStagePipeline) {
  auto plan = SolveWith("dp", problem_);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->stages.size(), 2u);
  EXPECT_NEAR(plan->step_time_s, 0.032, 1e-12);
  EXPECT_NEAR(plan->communication_s, 0.002, 1e-12);
  EXPECT_NEAR(plan->communication_share, 0.0625, 1e-9);
  EXPECT_NEAR(plan->throughput, 8 / 0.032, 1e-6);
  EXPECT_NE(plan->stages[0].devices, plan->stages[1].devices);
  auto brute = SolveWith("brute-force", problem_);
  ASSERT_TRUE(brute.ok());
  EXPECT_NEAR(brute->step_time_s, 0.032, 1e-12);
  // Plans: one stage on either device (2) + two stages in either order (2) = 4.
  EXPECT_EQ(brute->evaluations, 4);
}

TEST_F(ToyStepTime, SlowLinkKeepsOneStage) {
  // A 1 GB/s NIC: the transfer is 0.004 s, two stages take 5 x 0.010 = 0.05 > 0.048.
  world_ = ToyPipelineDevices(1e9);
  problem_.cluster = world_->cluster.get();
  auto plan = SolveWith("dp", problem_);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->stages.size(), 1u);
  EXPECT_NEAR(plan->step_time_s, 0.048, 1e-12);
  EXPECT_DOUBLE_EQ(plan->communication_share, 0.0);
}

TEST_F(ToyStepTime, BspHandWorked) {
  auto plan = SolveWith("bsp", problem_);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_NEAR(plan->step_time_s, 0.034, 1e-9);
  EXPECT_NEAR(plan->communication_s, 0.01, 1e-9);
  EXPECT_NEAR(plan->communication_share, 0.01 / 0.034, 1e-9);
}

TEST_F(ToyStepTime, BadInputs) {
  problem_.micro_batches = 3;  // 8 samples do not split into 3
  EXPECT_NE(SolveWith("dp", problem_).status().message().find("does not divide"), std::string::npos);
  problem_.micro_batches = 4;
  EXPECT_NE(SolveWith("greedy-fastest", problem_).status().message().find("does not solve the step-time"),
            std::string::npos);
  auto many = MakeToyDevices({{ToyType("a", 1e12, 1), 9}}, 1e11, 1e10);
  problem_.cluster = many->cluster.get();
  EXPECT_NE(SolveWith("dp", problem_).status().message().find("1 to 8 devices"), std::string::npos);
}

// Property: DP == brute force on random small instances (1-7 layers, 1-4 devices of random
// speeds over 1-3 nodes, random links, some too small in memory).
TEST(StepTimeDp, EqualsBruteForceOnRandomInstances) {
  Rng rng(77);
  int feasible = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::pair<DeviceType, int>> nodes;
    const int n_nodes = 1 + static_cast<int>(rng.Below(3));
    int devices = 0;
    for (int i = 0; i < n_nodes && devices < 4; ++i) {
      DeviceType t = ToyType("t" + std::to_string(i), std::pow(10.0, rng.Uniform(11.5, 13.5)), 1);
      t.memory_bytes = std::pow(10.0, rng.Uniform(8.5, 10.5));
      const int c = 1 + static_cast<int>(rng.Below(static_cast<uint64_t>(4 - devices)));
      nodes.push_back({t, c});
      devices += c;
    }
    auto world = MakeToyDevices(nodes, std::pow(10.0, rng.Uniform(10, 11)), std::pow(10.0, rng.Uniform(8.5, 10.5)));
    ModelProfile model = RandomModel(rng, 1 + static_cast<int>(rng.Below(7)));
    PlanningProblem p;
    p.model = &model;
    p.objective = PlanObjective::kStepTime;
    p.cluster = world->cluster.get();
    p.global_batch = 32;
    p.micro_batches = 1 << rng.Below(4);
    auto dp = SolveWith("dp", p);
    auto bf = SolveWith("brute-force", p);
    ASSERT_EQ(dp.ok(), bf.ok()) << "trial " << trial << ": " << dp.status().ToString() << " / " << bf.status().ToString();
    if (!dp.ok()) continue;
    ++feasible;
    EXPECT_NEAR(dp->step_time_s, bf->step_time_s, 1e-9 * bf->step_time_s) << "trial " << trial;
  }
  EXPECT_GT(feasible, 100);
}

// The step-time model is perf/'s pipeline estimate (GPipe, one device per stage): the DP's
// plan, handed to EstimateIteration as a kPipeline plan, has the same iteration time.
TEST(StepTimeDp, AgreesWithPerfPipelineEstimate) {
  auto cluster = MakeShorthandCluster({{"v100", 2}, {"t4", 2}}, 2, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn());
  ASSERT_TRUE(cluster.ok());
  for (const char* name : {"vgg16", "resnet50", "bert-base"}) {
    const ModelProfile* model = ModelZoo::BuiltIn().Find(name);
    ASSERT_NE(model, nullptr);
    PlanningProblem p;
    p.model = model;
    p.objective = PlanObjective::kStepTime;
    p.cluster = &*cluster;
    p.global_batch = 64;
    p.micro_batches = 8;
    auto plan = SolveWith("dp", p);
    ASSERT_TRUE(plan.ok()) << name << ": " << plan.status().ToString();
    Plan perf_plan;
    perf_plan.parallelism = Parallelism::kPipeline;
    perf_plan.batch_per_device = 64;
    perf_plan.micro_batches = 8;
    for (const PlannedStage& s : plan->stages) {
      perf_plan.stages.push_back({s.first_layer, s.last_layer, s.devices});
      perf_plan.devices.insert(perf_plan.devices.end(), s.devices.begin(), s.devices.end());
    }
    const IterationEstimate est = EstimateIteration(*model, perf_plan, *cluster);
    EXPECT_NEAR(plan->step_time_s, est.iteration_s, 1e-9 * est.iteration_s) << name;
    EXPECT_TRUE(est.fits_in_memory) << name;
  }
}

}  // namespace
}  // namespace hetsched::test
