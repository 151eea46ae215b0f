#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <tuple>
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

TEST(NicsUsedTest, IntoReusedVectorReplacesItsContent) {
  auto w = MakeWorld();
  const RackId r = w->AddRack();
  const NodeId n0 = w->AddNode(r, w->gpu_a, 2);
  const NodeId n1 = w->AddNode(r, w->gpu_a, 2);
  Plan plan;
  plan.devices = {w->cluster.node(n1).first_device, w->cluster.node(n0).first_device};
  std::vector<NodeId> out{9, 9, 9};  // stale
  NicsUsed(w->cluster, plan, &out);
  EXPECT_EQ(out, (std::vector<NodeId>{n0, n1}));
  plan.devices = w->DevicesOf(n1, 2);  // one node: no NIC
  NicsUsed(w->cluster, plan, &out);
  EXPECT_TRUE(out.empty());
}

// 300 bytes over NICs {2, 5}: 150 out and 150 in on each; the uplinks of racks {0, 1} carry the
// same per-NIC figure, and a single rack none.
TEST(EvenTrafficOfTest, SplitsBytesEvenlyIntoReusedStorage) {
  PlanTraffic t;
  t.nics = {LinkBytes{8, 1, 1}, LinkBytes{9, 1, 1}, LinkBytes{10, 1, 1}};  // stale
  t.uplinks = {LinkBytes{3, 1, 1}};
  const std::vector<NodeId> nics{2, 5};
  EvenTrafficOf(nics, std::vector<RackId>{0, 1}, 300, &t);
  ASSERT_EQ(t.nics.size(), 2u);
  EXPECT_EQ(t.nics[0].link, 2);
  EXPECT_EQ(t.nics[1].link, 5);
  EXPECT_EQ(t.nics[1].out_bytes, 150);
  EXPECT_EQ(t.nics[1].in_bytes, 150);
  ASSERT_EQ(t.uplinks.size(), 2u);
  EXPECT_EQ(t.uplinks[1].link, 1);
  EXPECT_EQ(t.uplinks[0].out_bytes, 150);
  EvenTrafficOf(nics, std::vector<RackId>{0}, 300, &t);
  EXPECT_EQ(t.nics.size(), 2u);
  EXPECT_TRUE(t.uplinks.empty());
  EvenTrafficOf(nics, std::vector<RackId>{0, 1}, 0, &t);  // nothing leaves a node
  EXPECT_TRUE(t.nics.empty());
  EXPECT_TRUE(t.uplinks.empty());
}

// A ring over three nodes in two racks: TrafficOf splits the estimate's cross-node bytes evenly
// over the three NICs and, as the ring crosses racks, over both uplinks: as EvenTrafficOf does.
TEST(EvenTrafficOfTest, RingTrafficOfIsEven) {
  auto w = MakeWorld();
  const auto [r0, r1, a, b, c] = w->AddTwoRacks(1);
  Plan plan;
  plan.batch_per_device = 10;
  plan.devices = {w->cluster.node(c).first_device, w->cluster.node(a).first_device, w->cluster.node(b).first_device};
  const ModelProfile model = perf_test::OneLayerModel();
  const IterationEstimate est = EstimateIteration(model, plan, w->cluster);
  ASSERT_GT(est.cross_node_bytes, 0);
  const PlanTraffic t = TrafficOf(model, plan, w->cluster, est);
  ASSERT_EQ(t.nics.size(), 3u);
  EXPECT_EQ(t.nics[0].link, a);
  EXPECT_EQ(t.nics[2].link, c);
  EXPECT_DOUBLE_EQ(t.nics[2].out_bytes, est.cross_node_bytes / 3);
  ASSERT_EQ(t.uplinks.size(), 2u);
  EXPECT_EQ(t.uplinks[0].link, r0);
  EXPECT_EQ(t.uplinks[1].link, r1);
  EXPECT_DOUBLE_EQ(t.uplinks[1].in_bytes, est.cross_node_bytes / 3);
  PlanTraffic even;
  EvenTrafficOf(NicsUsed(w->cluster, plan), std::vector<RackId>{r0, r1}, est.cross_node_bytes, &even);
  ASSERT_EQ(even.nics.size(), t.nics.size());
  for (size_t i = 0; i < t.nics.size(); ++i) EXPECT_EQ(even.nics[i].out_bytes, t.nics[i].out_bytes);
  ASSERT_EQ(even.uplinks.size(), t.uplinks.size());
}

// PrepareEstimate + EstimateUnderLoad must give EstimateIteration's figures exactly (the
// simulator re-times running jobs with them), for every kind of plan and under any load.
TEST(PreparedEstimateTest, EqualsEstimateIterationBitForBit) {
  auto w = MakeWorld();
  const RackId r0 = w->AddRack();
  const RackId r1 = w->AddRack();
  const NodeId n0 = w->AddNode(r0, w->gpu_a, 2);
  const NodeId n1 = w->AddNode(r0, w->gpu_a, 2);
  const NodeId n2 = w->AddNode(r1, w->gpu_a, 2);
  ModelProfile model;
  model.name = "three-layer";
  model.layers = {perf_test::Layer("a", 1e9, 1e8, 1e6), perf_test::Layer("b", 3e8, 2e7, 5e5),
                  perf_test::Layer("c", 7e8, 4e7, 2e5)};
  model.layers[1].sparse_bytes_per_sample = 3e3;
  const auto a = w->DevicesOf(n0, 2);
  const auto b = w->DevicesOf(n1, 2);
  const auto c = w->DevicesOf(n2, 2);
  std::vector<Plan> plans;
  Plan ring;
  ring.batch_per_device = 16;
  ring.devices = {a[0], a[1], b[0], c[0]};
  plans.push_back(ring);
  Plan one_node = ring;
  one_node.devices = a;
  plans.push_back(one_node);
  Plan ps = ring;
  ps.parallelism = Parallelism::kDataPS;
  ps.num_parameter_servers = 2;
  plans.push_back(ps);
  Plan pipeline;
  pipeline.parallelism = Parallelism::kPipeline;
  pipeline.batch_per_device = 8;
  pipeline.micro_batches = 4;
  pipeline.stages = {PipelineStage{0, 0, {a[0], a[1]}}, PipelineStage{1, 2, {c[0]}}};
  pipeline.devices = {a[0], a[1], c[0]};
  plans.push_back(pipeline);
  const std::vector<int> nic_flows = {3, 1, 2};
  const std::vector<int> uplink_flows = {2, 4};
  for (const LinkLoad& load : {LinkLoad{}, LinkLoad{&nic_flows, &uplink_flows}}) {
    for (size_t i = 0; i < plans.size(); ++i) {
      SCOPED_TRACE("plan " + std::to_string(i));
      const IterationEstimate want = EstimateIteration(model, plans[i], w->cluster, load);
      const PreparedEstimate prepared = PrepareEstimate(model, plans[i], w->cluster);
      EXPECT_EQ(prepared.split, i < 3);  // data-parallel plans are split, the pipeline is not
      const IterationEstimate got = EstimateUnderLoad(prepared, model, plans[i], w->cluster, load);
      // Every field, compared exactly (doubles by value: the same operations in the same order).
      const auto fields = [](const IterationEstimate& e) {
        return std::make_tuple(e.compute_s, e.communication_s, e.iteration_s, e.samples_per_s, e.cross_node_bytes,
                               e.span_nodes, e.memory_per_device_bytes, e.fits_in_memory);
      };
      EXPECT_EQ(fields(got), fields(want));
    }
  }
  // Under load the ring is slower than alone: the load reaches the split estimate.
  const PreparedEstimate prepared = PrepareEstimate(model, ring, w->cluster);
  EXPECT_GT(EstimateUnderLoad(prepared, model, ring, w->cluster, LinkLoad{&nic_flows, &uplink_flows}).communication_s,
            EstimateUnderLoad(prepared, model, ring, w->cluster).communication_s);
}

}  // namespace
}  // namespace hetsched
