// Container placers (dltap, k8s-spread, k8s-binpack, k8s-random, ps-optimal): hand-worked
// layouts, the properties every one of them keeps (no node over-committed in any resource;
// every container placed, or none and a reason), and DLTAP's gap to the exact optimum.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "../sched/test_cluster.h"
#include "hetsched/sched/cluster_state.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/rng.h"

namespace hetsched {
namespace {

using testing_util::MakeTinyWorld;

constexpr int64_t kGiB = 1073741824;

std::unique_ptr<Placer> Make(const std::string& name) {
  auto made = Registry<Placer>::Instance().Create(name, Options{});
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return made.ok() ? std::move(made).value() : nullptr;
}

JobSpec PsJob(JobId id, int ps, int workers, ContainerRequest ps_req = {2000, 8 * kGiB, 0},
              ContainerRequest worker_req = {4000, 16 * kGiB, 1}) {
  JobSpec s;
  s.id = id;
  s.model = "m";
  s.num_ps = ps;
  s.num_workers = workers;
  s.ps_request = ps_req;
  s.worker_request = worker_req;
  s.num_gpus = workers * worker_req.gpus + ps * ps_req.gpus;
  s.parallelism = Parallelism::kDataPS;
  return s;
}

struct Placed {
  bool ok = false;
  std::string reason;
  std::vector<ContainerPlacement> containers;
  std::map<NodeId, std::pair<int, int>> per_node;  // node -> (servers, workers)
  int colocated_pairs = 0;                        // (worker, server) pairs on one node
};

Placed PlaceJob(Placer& placer, const JobSpec& job, const ClusterState& state, DeviceTypeId type = kNoDeviceType) {
  Placed p;
  p.ok = placer.PlaceContainers(PlacementRequest{&job, job.num_gpus, type}, state, &p.containers, &p.reason);
  for (const ContainerPlacement& c : p.containers) {
    auto& [s, w] = p.per_node[c.node];
    (c.role == ContainerRole::kParameterServer ? s : w)++;
  }
  for (const auto& [node, sw] : p.per_node) p.colocated_pairs += sw.first * sw.second;
  return p;
}

TEST(ContainerPlacersTest, DltapAggregatesAWholeJobOnOneNode) {
  auto w = MakeTinyWorld(4, 0);  // 4 nodes x 4 GPUs, 32 cores, 256e9 B
  ClusterState state(*w->cluster);
  auto dltap = Make("dltap");
  // 1 server (2 cores) + 3 workers (4 cores, 1 GPU): 14 cores, 3 GPUs: one node holds it all.
  const Placed p = PlaceJob(*dltap, PsJob(1, 1, 3), state);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.per_node.size(), 1u);
  EXPECT_EQ(p.colocated_pairs, 3);  // every pair local: no cross-node traffic
  // k8s-spread puts every container on the emptiest node: four nodes, no pair local.
  const Placed spread = PlaceJob(*Make("k8s-spread"), PsJob(1, 1, 3), state);
  ASSERT_TRUE(spread.ok);
  EXPECT_EQ(spread.per_node.size(), 4u);
  EXPECT_EQ(spread.colocated_pairs, 0);
  // k8s-binpack fills the most allocated node: all on node 0.
  const Placed binpack = PlaceJob(*Make("k8s-binpack"), PsJob(1, 1, 3), state);
  ASSERT_TRUE(binpack.ok);
  EXPECT_EQ(binpack.per_node.size(), 1u);
  EXPECT_EQ(binpack.per_node.begin()->first, 0);
}

TEST(ContainerPlacersTest, DltapSpreadsServersAndGathersWorkersWhenTheJobDoesNotFitOneNode) {
  auto w = MakeTinyWorld(4, 0);
  ClusterState state(*w->cluster);
  // 2 servers + 8 workers need 8 GPUs: no node has more than 4. Servers go to two nodes (one
  // each); each node then has room for 4 workers (4 GPUs; 2 + 16 = 18 of 32 cores), and the
  // workers follow the servers (G = 1/2 there, 0 elsewhere): 4 + 4.
  const Placed p = PlaceJob(*Make("dltap"), PsJob(1, 2, 8), state);
  ASSERT_TRUE(p.ok) << p.reason;
  ASSERT_EQ(p.per_node.size(), 2u);
  for (const auto& [node, sw] : p.per_node) {
    EXPECT_EQ(sw.first, 1);
    EXPECT_EQ(sw.second, 4);
  }
  EXPECT_EQ(p.colocated_pairs, 8);  // of 2 x 8 = 16 pairs
  // The exact optimum co-locates no more: a node holds at most 4 workers, and a worker shares a
  // node with at most both servers: 4 workers x 2 servers = 8 on one node.
  const Placed best = PlaceJob(*Make("ps-optimal"), PsJob(1, 2, 8), state);
  ASSERT_TRUE(best.ok) << best.reason;
  EXPECT_EQ(best.colocated_pairs, 8);
}

// ps-optimal's limits: CBC's nodes (so that its placement repeats on any machine) and an optional
// time limit; a non-positive one is refused by name.
TEST(ContainerPlacersTest, PsOptimalTakesANodeLimitAndRefusesBadLimits) {
  auto with = [](const std::string& key, const std::string& value) {
    Options o;
    o.Set(key, value);
    return Registry<Placer>::Instance().Create("ps-optimal", o);
  };
  ASSERT_TRUE(with("max_nodes", "1").ok());
  ASSERT_TRUE(with("time_limit_s", "5").ok());
  for (const auto& [key, value] : {std::pair{"max_nodes", "0"}, std::pair{"time_limit_s", "0"}, std::pair{"time_limit_s", "-1"}}) {
    auto made = with(key, value);
    ASSERT_FALSE(made.ok()) << key << "=" << value;
    EXPECT_NE(made.status().message().find(key), std::string::npos) << made.status().ToString();
  }
  // Stopped after one node or not, the placement is the same on every run, and at least as good
  // as the optimum's co-location count allows (8: the case above).
  auto w = MakeTinyWorld(4, 0);
  ClusterState state(*w->cluster);
  auto one = with("max_nodes", "1");
  ASSERT_TRUE(one.ok());
  const Placed a = PlaceJob(**one, PsJob(1, 2, 8), state), b = PlaceJob(**one, PsJob(1, 2, 8), state);
  ASSERT_EQ(a.ok, b.ok);
  EXPECT_EQ(a.per_node, b.per_node);
  if (a.ok) {
    EXPECT_LE(a.colocated_pairs, 8);
  }
}

TEST(ContainerPlacersTest, NothingPlacedAndAReasonWhenTheJobCannotFit) {
  auto w = MakeTinyWorld(2, 0);
  ClusterState state(*w->cluster);
  for (const char* name : {"dltap", "k8s-spread", "k8s-binpack", "k8s-random", "ps-optimal"}) {
    auto placer = Make(name);
    // 9 one-GPU workers on 8 GPUs.
    const Placed p = PlaceJob(*placer, PsJob(1, 1, 9), state);
    EXPECT_FALSE(p.ok) << name;
    EXPECT_TRUE(p.containers.empty()) << name;
    EXPECT_FALSE(p.reason.empty()) << name;
    // A server asking for more memory than any node has.
    const Placed big = PlaceJob(*placer, PsJob(2, 1, 1, {1000, 300 * kGiB, 0}), state);
    EXPECT_FALSE(big.ok) << name;
    EXPECT_NE(big.reason.find("server"), std::string::npos) << name << ": " << big.reason;
  }
  // Device placers do not place containers, and say so.
  auto pack = Make("pack");
  const Placed p = PlaceJob(*pack, PsJob(1, 1, 1), state);
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.reason, "placer 'pack' does not place parameter-server containers");
  EXPECT_FALSE(pack->places_containers());
}

TEST(ContainerPlacersTest, WorkersTakeTheRequestedGpuType) {
  auto w = MakeTinyWorld(1, 2);  // node 0: 4 gpu-a; nodes 1, 2: 2 gpu-b
  ClusterState state(*w->cluster);
  const Placed p = PlaceJob(*Make("dltap"), PsJob(1, 1, 4), state, w->gpu_b);
  ASSERT_TRUE(p.ok) << p.reason;
  for (const ContainerPlacement& c : p.containers) {
    for (DeviceId d : c.devices) EXPECT_EQ(w->cluster->device(d).type, w->gpu_b);
  }
}

// Properties, over random clusters already holding other jobs' containers and random jobs:
// a success places exactly P + M containers with the job's requests that ClusterState accepts
// (no node over-committed in CPU, memory or GPUs); a failure places nothing and gives a reason.
TEST(ContainerPlacersTest, PropertiesOverRandomStates) {
  Rng rng(11);
  for (const char* name : {"dltap", "k8s-spread", "k8s-binpack", "k8s-random"}) {
    auto placer = Make(name);
    int placed = 0, refused = 0;
    for (int trial = 0; trial < 40; ++trial) {
      auto w = MakeTinyWorld(3 + static_cast<int>(rng.Below(6)), static_cast<int>(rng.Below(3)));
      ClusterState state(*w->cluster);
      for (JobId job = 100; job < 100 + 30; ++job) {
        const JobSpec spec = PsJob(job, 1 + static_cast<int>(rng.Below(3)), 1 + static_cast<int>(rng.Below(6)),
                                   {static_cast<int64_t>(500 + rng.Below(6000)), static_cast<int64_t>(1 + rng.Below(40)) * kGiB, 0},
                                   {static_cast<int64_t>(500 + rng.Below(8000)), static_cast<int64_t>(1 + rng.Below(60)) * kGiB,
                                    1 + static_cast<int>(rng.Below(2))});
        Placed p = PlaceJob(*placer, spec, state);
        if (!p.ok) {
          EXPECT_TRUE(p.containers.empty()) << name;
          EXPECT_FALSE(p.reason.empty()) << name;
          ++refused;
          continue;
        }
        ++placed;
        ASSERT_EQ(p.containers.size(), static_cast<size_t>(spec.num_ps + spec.num_workers)) << name;
        const Status st = state.AllocateContainers(job, p.containers);
        ASSERT_TRUE(st.ok()) << name << ": " << st.message();
        ASSERT_TRUE(state.CheckConsistency().ok()) << name;
      }
    }
    EXPECT_GT(placed, 50) << name;
    EXPECT_GT(refused, 10) << name;
  }
}

// DLTAP against the exact optimum on small random instances (5 nodes partly used by other
// jobs; 1-3 servers, 2-10 workers): never better than the optimum (a check of both), and the
// cross-node traffic gap, 2 (S/P) (P M - pairs) relative to the optimum's, stays small.
TEST(ContainerPlacersTest, DltapGapToTheExactOptimum) {
  Rng rng(3);
  auto dltap = Make("dltap");
  auto exact = Make("ps-optimal");
  double gap_sum = 0;
  int cases = 0, optimal = 0;
  for (int trial = 0; trial < 30; ++trial) {
    auto w = MakeTinyWorld(5, 0);
    ClusterState state(*w->cluster);
    for (JobId other = 100; other < 104; ++other) {  // background load
      const JobSpec bg = PsJob(other, 1, 1 + static_cast<int>(rng.Below(3)));
      std::vector<ContainerPlacement> out;
      std::string why;
      if (Make("k8s-random")->PlaceContainers(PlacementRequest{&bg, bg.num_gpus, kNoDeviceType}, state, &out, &why)) {
        ASSERT_TRUE(state.AllocateContainers(other, out).ok());
      }
    }
    const int P = 1 + static_cast<int>(rng.Below(3)), M = 2 + static_cast<int>(rng.Below(9));
    const JobSpec job = PsJob(1, P, M);
    const Placed a = PlaceJob(*dltap, job, state);
    const Placed b = PlaceJob(*exact, job, state);
    if (!b.ok) {  // no placement exists: DLTAP cannot find one either
      EXPECT_FALSE(a.ok);
      continue;
    }
    if (!a.ok) continue;  // greedy packing may miss a tight fit the MIP finds
    ++cases;
    ASSERT_LE(a.colocated_pairs, b.colocated_pairs);
    const double cross_a = static_cast<double>(P * M - a.colocated_pairs) / P;  // in units of 2 S
    const double cross_b = static_cast<double>(P * M - b.colocated_pairs) / P;
    if (a.colocated_pairs == b.colocated_pairs) ++optimal;
    gap_sum += cross_b > 0 ? (cross_a - cross_b) / cross_b : (cross_a > 0 ? 1.0 : 0.0);
  }
  ASSERT_GT(cases, 15);
  const double mean_gap = gap_sum / cases;
  std::printf("dltap vs ps-optimal: %d cases, %d optimal, mean cross-node traffic gap %.1f%%\n", cases, optimal,
              100 * mean_gap);
  EXPECT_LT(mean_gap, 0.25);
}

}  // namespace
}  // namespace hetsched
