// Parameter-server container plans: golden cases worked out by hand (co-located vs spread,
// uneven shards, contention), the shard split, and the per-link traffic.
#include <gtest/gtest.h>

#include <vector>

#include "hetsched/perf/iteration_model.h"
#include "perf_fixtures.h"

namespace hetsched {
namespace {

using perf_test::MakeWorld;
using perf_test::World;

// OneLayerModel: S = 1e8 B of parameters; batch 10 on gpu-a computes in 8 ms.
// NICs are "e25": B = 2.1875e9 B/s effective, alpha = 20 us; one rack without an uplink.
constexpr double kS = 1e8;
constexpr double kB = 2.1875e9;
constexpr double kAlpha = 20e-6;
constexpr double kPsCompute = 0.008;

struct Fixture {
  std::unique_ptr<World> w = MakeWorld();
  std::vector<NodeId> nodes;
  ModelProfile model = perf_test::OneLayerModel();
  Fixture() {
    const RackId r = w->AddRack();
    for (int i = 0; i < 3; ++i) nodes.push_back(w->AddNode(r, w->gpu_a, 2));
  }
  int next_device[3] = {0, 0, 0};
  Plan plan;
  void Ps(int index, int node) {
    ContainerPlacement c;
    c.role = ContainerRole::kParameterServer;
    c.index = index;
    c.node = nodes[static_cast<size_t>(node)];
    plan.containers.push_back(c);
  }
  void Worker(int index, int node) {
    ContainerPlacement c;
    c.role = ContainerRole::kWorker;
    c.index = index;
    c.node = nodes[static_cast<size_t>(node)];
    c.request.gpus = 1;
    c.devices = {w->cluster.node(c.node).first_device + next_device[node]++};
    plan.devices.push_back(c.devices.front());
    plan.containers.push_back(c);
  }
  IterationEstimate Estimate(const LinkLoad& load = {}) {
    plan.parallelism = Parallelism::kDataPS;
    plan.batch_per_device = 10;
    return EstimateIteration(model, plan, w->cluster, load);
  }
};

TEST(PsContainersTest, OnePsTwoWorkersColocatedSendNothingAcrossNodes) {
  Fixture f;
  f.plan.shards = {ParameterShard{1.0, 0.0}};
  f.Ps(0, 0);
  f.Worker(0, 0);
  f.Worker(1, 0);
  const IterationEstimate est = f.Estimate();
  EXPECT_EQ(est.cross_node_bytes, 0.0);
  EXPECT_EQ(est.communication_s, 0.0);  // loopback is free
  EXPECT_NEAR(est.iteration_s, kPsCompute, 1e-12);
  EXPECT_NEAR(est.samples_per_s, 20 / kPsCompute, 1e-6);  // 2 workers x 10 samples
  EXPECT_EQ(est.span_nodes, 1);
  EXPECT_TRUE(NicsUsed(f.w->cluster, f.plan).empty());
}

TEST(PsContainersTest, OnePsTwoWorkersOneRemote) {
  Fixture f;
  f.plan.shards = {ParameterShard{1.0, 0.0}};
  f.Ps(0, 0);
  f.Worker(0, 0);
  f.Worker(1, 1);
  const IterationEstimate est = f.Estimate();
  // Worker 1 pushes S out of node 1 into node 0, then pulls S back: each NIC moves S per phase.
  // Phase = 1e8 / 2.1875e9 = 45.714 ms; comm = 2 (45.714 ms + 20 us) = 91.469 ms.
  EXPECT_NEAR(est.communication_s, 2 * (kS / kB + kAlpha), 1e-12);
  EXPECT_NEAR(est.communication_s, 0.0914685714, 1e-9);
  EXPECT_NEAR(est.cross_node_bytes, 2 * kS, 1e-3);  // push S + pull S
  EXPECT_EQ(NicsUsed(f.w->cluster, f.plan), (std::vector<NodeId>{f.nodes[0], f.nodes[1]}));
  const PlanTraffic t = TrafficOf(f.model, f.plan, f.w->cluster, est);
  ASSERT_EQ(t.nics.size(), 2u);
  EXPECT_NEAR(t.nics[0].out_bytes, kS, 1e-3);  // node 0 sends the pull, receives the push
  EXPECT_NEAR(t.nics[0].in_bytes, kS, 1e-3);
  EXPECT_NEAR(t.nics[1].out_bytes, kS, 1e-3);
  EXPECT_TRUE(t.uplinks.empty());  // one rack
}

TEST(PsContainersTest, OnePsTwoWorkersAllSpread) {
  Fixture f;
  f.plan.shards = {ParameterShard{1.0, 0.0}};
  f.Ps(0, 2);
  f.Worker(0, 0);
  f.Worker(1, 1);
  const IterationEstimate est = f.Estimate();
  // The server's NIC receives 2 S per push phase: 2e8 / 2.1875e9 = 91.429 ms per phase.
  EXPECT_NEAR(est.communication_s, 2 * (2 * kS / kB + kAlpha), 1e-12);
  EXPECT_NEAR(est.cross_node_bytes, 4 * kS, 1e-3);  // 2 workers x (push S + pull S)
  EXPECT_EQ(est.span_nodes, 3);
  // Another job's flow on every NIC halves each share: the phase doubles.
  std::vector<int> flows = {2, 2, 2};
  const IterationEstimate shared = f.Estimate(LinkLoad{&flows, nullptr});
  EXPECT_NEAR(shared.communication_s, 2 * (2 * kS / (kB / 2) + kAlpha), 1e-12);
}

TEST(PsContainersTest, TwoPsWithUnevenShards) {
  Fixture f;
  // Shard 0 holds 3/4 of the parameters, shard 1 a quarter; one worker per node.
  f.plan.shards = {ParameterShard{0.75, 0.0}, ParameterShard{0.25, 0.0}};
  f.Ps(0, 0);
  f.Ps(1, 1);
  f.Worker(0, 0);
  f.Worker(1, 1);
  f.Worker(2, 2);
  const IterationEstimate est = f.Estimate();
  // Push phase, per node (out = its workers to remote shards, in = remote workers to its shards):
  //   node 0: out = 0.25 S,            in = 2 x 0.75 S = 1.5 S
  //   node 1: out = 0.75 S,            in = 2 x 0.25 S = 0.5 S
  //   node 2: out = 1.0 S,             in = 0
  // Busiest direction: node 0's 1.5 S = 1.5e8 / 2.1875e9 = 68.571 ms per phase.
  EXPECT_NEAR(est.communication_s, 2 * (1.5 * kS / kB + kAlpha), 1e-12);
  // Cross-node bytes by pairs, 2 S f_p per remote (worker, shard) pair:
  //   W0-PS1 0.5 S, W1-PS0 1.5 S, W2-PS0 1.5 S, W2-PS1 0.5 S = 4 S.
  EXPECT_NEAR(est.cross_node_bytes, 4 * kS, 1e-3);
  const PlanTraffic t = TrafficOf(f.model, f.plan, f.w->cluster, est);
  ASSERT_EQ(t.nics.size(), 3u);
  EXPECT_NEAR(t.nics[0].out_bytes, 1.75 * kS, 1e-3);  // push out 0.25 S + pull out 1.5 S
  EXPECT_NEAR(t.nics[1].out_bytes, 1.25 * kS, 1e-3);
  EXPECT_NEAR(t.nics[2].out_bytes, 1.0 * kS, 1e-3);
}

TEST(PsContainersTest, SparseRowsGoToEveryShardOfThePartitionedTable) {
  Fixture f;
  // An embedding layer: no dense parameters, 1e6 B of rows touched per sample.
  LayerProfile emb;
  emb.name = "emb";
  emb.kind = LayerKind::kEmbedding;
  emb.embedding_table_bytes = 1e10;
  emb.sparse_bytes_per_sample = 1e6;
  f.model.layers.insert(f.model.layers.begin(), emb);
  f.plan.shards = ShardParameters(f.model, 2);
  ASSERT_EQ(f.plan.shards.size(), 2u);
  EXPECT_DOUBLE_EQ(f.plan.shards[0].dense_fraction, 1.0);  // the one dense layer
  EXPECT_DOUBLE_EQ(f.plan.shards[1].dense_fraction, 0.0);
  EXPECT_DOUBLE_EQ(f.plan.shards[0].sparse_fraction, 0.5);
  f.Ps(0, 0);
  f.Ps(1, 1);
  f.Worker(0, 0);
  const IterationEstimate est = f.Estimate();
  // The worker (batch 10) touches 1e7 B of rows: half to the remote shard 1, pushed and pulled.
  // Its dense S goes to the local shard 0. Cross = 2 x 0.5 x 1e7 = 1e7 B.
  EXPECT_NEAR(est.cross_node_bytes, 1e7, 1e-6);
}

TEST(PsContainersTest, ShardParametersRoundRobinsLayers) {
  ModelProfile m;
  m.layers.push_back(perf_test::Layer("a", 1, 1e8, 1));
  m.layers.push_back(perf_test::Layer("b", 1, 2e8, 1));
  m.layers.push_back(perf_test::Layer("c", 1, 3e8, 1));
  const auto shards = ShardParameters(m, 2);
  // Shard 0: layers a and c = 4e8 of 6e8; shard 1: layer b = 2e8.
  EXPECT_NEAR(shards[0].dense_fraction, 4.0 / 6.0, 1e-15);
  EXPECT_NEAR(shards[1].dense_fraction, 2.0 / 6.0, 1e-15);
  EXPECT_EQ(shards[0].sparse_fraction, 0.0);
  const auto three = ShardParameters(m, 4);  // more servers than layers: one stays empty
  EXPECT_EQ(three[3].dense_fraction, 0.0);
}

TEST(PsContainersTest, UplinkTrafficAcrossRacks) {
  auto w = MakeWorld();
  const auto [r0, r1, a, b, c] = w->AddTwoRacks(2);
  Plan plan;
  plan.parallelism = Parallelism::kDataPS;
  plan.batch_per_device = 10;
  plan.shards = {ParameterShard{1.0, 0.0}};
  auto add = [&](ContainerRole role, NodeId node, int index) {
    ContainerPlacement ct;
    ct.role = role;
    ct.index = index;
    ct.node = node;
    if (role == ContainerRole::kWorker) {
      ct.request.gpus = 1;
      ct.devices = {w->cluster.node(node).first_device};
      plan.devices.push_back(ct.devices.front());
    }
    plan.containers.push_back(ct);
  };
  add(ContainerRole::kParameterServer, a, 0);
  add(ContainerRole::kWorker, b, 0);
  add(ContainerRole::kWorker, c, 1);
  const ModelProfile model = perf_test::OneLayerModel();
  const IterationEstimate est = EstimateIteration(model, plan, w->cluster);
  const PlanTraffic t = TrafficOf(model, plan, w->cluster, est);
  // Only worker c's exchange leaves rack 0: S out + S in on each uplink.
  ASSERT_EQ(t.uplinks.size(), 2u);
  EXPECT_NEAR(t.uplinks[0].out_bytes, kS, 1e-3);
  EXPECT_NEAR(t.uplinks[1].in_bytes, kS, 1e-3);
  EXPECT_NEAR(est.cross_node_bytes, 4 * kS, 1e-3);
}

}  // namespace
}  // namespace hetsched
