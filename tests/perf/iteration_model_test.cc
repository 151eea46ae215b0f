#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "hetsched/perf/iteration_model.h"
#include "perf_fixtures.h"

namespace hetsched {
namespace {

using perf_test::MakeWorld;

TEST(EstimateIterationTest, EmptyPlanOrZeroBatchIsImpossible) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 1);
  const ModelProfile model = perf_test::OneLayerModel();
  Plan plan;
  plan.batch_per_device = 10;
  auto est = EstimateIteration(model, plan, w->cluster);
  EXPECT_EQ(est.iteration_s, std::numeric_limits<double>::infinity());
  EXPECT_EQ(est.samples_per_s, 0.0);
  EXPECT_FALSE(est.fits_in_memory);
  plan.devices = w->DevicesOf(n, 1);
  plan.batch_per_device = 0;
  est = EstimateIteration(model, plan, w->cluster);
  EXPECT_EQ(est.iteration_s, std::numeric_limits<double>::infinity());
}

TEST(EstimateIterationTest, MissingNicMakesCrossNodeTrafficImpossible) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  Node node;
  node.rack = r;
  node.device_type = w->gpu_a;
  node.num_devices = 1;
  const NodeId n0 = w->cluster.AddNode(node);  // no NIC, no intra-node link
  const NodeId n1 = w->AddNode(r, w->gpu_a, 1);
  Plan plan;
  plan.batch_per_device = 10;
  plan.devices = {w->cluster.node(n0).first_device, w->cluster.node(n1).first_device};
  const auto est = EstimateIteration(perf_test::OneLayerModel(), plan, w->cluster);
  EXPECT_EQ(est.communication_s, std::numeric_limits<double>::infinity());
  EXPECT_EQ(est.samples_per_s, 0.0);
}

TEST(NicsUsedTest, OneNodeUsesNoNic) {
  auto w = MakeWorld();
  const NodeId n = w->AddNode(w->AddRack(), w->gpu_a, 4);
  Plan plan;
  plan.devices = w->DevicesOf(n, 4);
  EXPECT_TRUE(NicsUsed(w->cluster, plan).empty());
  plan.parallelism = Parallelism::kDataPS;
  EXPECT_TRUE(NicsUsed(w->cluster, plan).empty());
}

TEST(NicsUsedTest, DataParallelUsesEveryNodeSortedOnce) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 2);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 2);
  const NodeId n2 = w->AddNode(r, w->gpu_a, 2);
  Plan plan;
  plan.devices = {w->cluster.node(n2).first_device, w->cluster.node(n0).first_device,
                  w->cluster.node(n2).first_device + 1};
  EXPECT_EQ(NicsUsed(w->cluster, plan), (std::vector<NodeId>{n0, n2}));
  (void)n1;
}

TEST(NicsUsedTest, PipelineCountsCrossNodeBoundariesAndStages) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 2);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 2);
  const NodeId n2 = w->AddNode(r, w->gpu_a, 2);
  const auto a = w->DevicesOf(n0, 2);
  const auto b = w->DevicesOf(n1, 2);
  const auto c = w->DevicesOf(n2, 2);
  Plan plan;
  plan.parallelism = Parallelism::kPipeline;
  // Stages: {n0}, {n0}, {n1}: only the boundary n0 -> n1 leaves a node.
  plan.stages = {PipelineStage{0, 0, {a[0]}}, PipelineStage{1, 1, {a[1]}}, PipelineStage{2, 2, {b[0]}}};
  plan.devices = {a[0], a[1], b[0]};
  EXPECT_EQ(NicsUsed(w->cluster, plan), (std::vector<NodeId>{n0, n1}));
  // Stages: {n2}, {n2}: all on one node.
  plan.stages = {PipelineStage{0, 0, {c[0]}}, PipelineStage{1, 1, {c[1]}}};
  plan.devices = c;
  EXPECT_TRUE(NicsUsed(w->cluster, plan).empty());
  // One stage whose data-parallel group spans n1 and n2.
  plan.stages = {PipelineStage{0, 2, {b[1], c[0]}}};
  plan.devices = {b[1], c[0]};
  EXPECT_EQ(NicsUsed(w->cluster, plan), (std::vector<NodeId>{n1, n2}));
}

}  // namespace
}  // namespace hetsched
