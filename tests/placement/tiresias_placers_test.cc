// tiresias-random and tiresias-crandom against Tiresias' own placement code, draw for draw, and
// tiresias-count. The expected nodes were printed by the peer's cluster.py (SymbioticLab/Tiresias
// @ 959f9b0, simulator/, converted to Python 3; node.py:155 reading node_dict.get('mem', 0), see
// docs/validation.md) on its n4g4 cluster (1 switch, 4 nodes of 4 GPUs and 40 cores) after
// random.seed(7), for this script of starts and ends (a start that fails is FAIL, its end a no-op):
//   s0:8 s1:1 s2:4 s3:2 s4:2 e0 s5:3 s6:6 s7:1 e2 s8:5 e1 e3 s9:8 s10:1 s11:2 e5 s12:7 s13:4
// with each job a dict of num_gpu, placements [], ps_network [] for 1 GPU else [10.0] x n, and the
// placement called as CLUSTER.random_placement(job) or CLUSTER.consolidate_random_placement(job).
// Each worker's node is its placement's switch x 4 + node id.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "placer_test_util.h"

namespace hetsched::test {
namespace {

constexpr int kFailed = -1;

struct ScriptStep {
  bool start;
  JobId job;
  int gpus;  // starts only
};

const std::vector<ScriptStep> kScript = {
    {true, 0, 8},  {true, 1, 1},  {true, 2, 4},  {true, 3, 2},  {true, 4, 2},  {false, 0, 0}, {true, 5, 3},
    {true, 6, 6},  {true, 7, 1},  {false, 2, 0}, {true, 8, 5},  {false, 1, 0}, {false, 3, 0}, {true, 9, 8},
    {true, 10, 1}, {true, 11, 2}, {false, 5, 0}, {true, 12, 7}, {true, 13, 4}};

// Runs the script; for each start, the node of each worker (device / 4), or {kFailed}.
std::map<JobId, std::vector<int>> RunScript(Placer& placer) {
  TestCluster cluster({{kFast, 4}, {kFast, 4}, {kFast, 4}, {kFast, 4}});
  ClusterState state(cluster.cluster());
  std::map<JobId, std::vector<DeviceId>> held;
  std::map<JobId, std::vector<int>> nodes;
  for (const ScriptStep& step : kScript) {
    if (!step.start) {
      if (held.count(step.job) > 0) {
        EXPECT_TRUE(state.Release(step.job, held[step.job]).ok());
        held.erase(step.job);
      }
      continue;
    }
    JobSpec spec;
    spec.id = step.job;
    spec.num_gpus = step.gpus;
    std::vector<DeviceId> out;
    if (!placer.Place({&spec, step.gpus, kNoDeviceType}, state, &out)) {
      nodes[step.job] = {kFailed};
      continue;
    }
    EXPECT_TRUE(state.Allocate(step.job, out).ok()) << "job " << step.job;
    held[step.job] = out;
    for (DeviceId d : out) nodes[step.job].push_back(d / 4);
  }
  return nodes;
}

TEST(TiresiasPlacersTest, RandomDrawsAsThePeer) {
  auto placer = MakePlacer("tiresias-random", {"seed=7"});
  ASSERT_TRUE(placer->asked_when_short());
  const std::map<JobId, std::vector<int>> peer = {{0, {2, 1, 3, 0, 0, 0, 2, 0}},
                                                  {1, {3}},
                                                  {2, {1, 1, 1, 2}},
                                                  {3, {2, 3}},
                                                  {4, {kFailed}},
                                                  {5, {1, 0, 2}},
                                                  {6, {0, 2, 3, 3, 0, 0}},
                                                  {7, {kFailed}},
                                                  {8, {kFailed}},
                                                  {9, {kFailed}},
                                                  {10, {1}},
                                                  {11, {1, 2}},
                                                  {12, {3, 3, 0, 1, 2, 1, 2}},
                                                  {13, {kFailed}}};
  EXPECT_EQ(RunScript(*placer), peer);
}

TEST(TiresiasPlacersTest, CrandomDrawsAsThePeer) {
  auto placer = MakePlacer("tiresias-crandom", {"seed=7"});
  const std::map<JobId, std::vector<int>> peer = {{0, {1, 1, 1, 1, 0, 0, 0, 0}},
                                                  {1, {2}},
                                                  {2, {3, 3, 3, 3}},
                                                  {3, {2, 2}},
                                                  {4, {kFailed}},
                                                  {5, {1, 1, 1}},
                                                  {6, {0, 0, 0, 0, 1, 2}},
                                                  {7, {kFailed}},
                                                  {8, {kFailed}},
                                                  {9, {kFailed}},
                                                  {10, {2}},
                                                  {11, {3, 3}},
                                                  {12, {1, 1, 1, 2, 2, 3, 3}},
                                                  {13, {kFailed}}};
  EXPECT_EQ(RunScript(*placer), peer);
}

// Cores bind. crandom asks 6 cores a GPU of a multi-GPU job: with 6 a node a 2-GPU job fits on
// no node whole and is spread, one worker a node. random: a worker takes 2 cores, a server 4.
TEST(TiresiasPlacersTest, CoresPerNodeBind) {
  TestCluster cluster({{kFast, 4}, {kFast, 4}});
  ClusterState state(cluster.cluster());
  JobSpec two;
  two.id = 1;
  two.num_gpus = 2;
  auto crandom = MakePlacer("tiresias-crandom", {"seed=1", "cores=6"});
  std::vector<DeviceId> out;
  ASSERT_TRUE(crandom->Place({&two, 2, kNoDeviceType}, state, &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NE(out[0] / 4, out[1] / 4);
  // With 8 cores a node, 2 workers and 2 servers (12 cores) fit however the draws fall; then a
  // 4-GPU job's 24 cores do not (4 are left), though 6 GPUs are free.
  auto random = MakePlacer("tiresias-random", {"seed=1", "cores=8"});
  out.clear();
  ASSERT_TRUE(random->Place({&two, 2, kNoDeviceType}, state, &out));
  ASSERT_TRUE(state.Allocate(two.id, out).ok());
  JobSpec four;
  four.id = 2;
  four.num_gpus = 4;
  out.clear();
  EXPECT_FALSE(random->Place({&four, 4, kNoDeviceType}, state, &out));
  EXPECT_TRUE(out.empty());
}

TEST(TiresiasPlacersTest, RefusesBadOptions) {
  const std::pair<const char*, const char*> bad[] = {
      {"seed=-1", "seed"}, {"cores=0", "cores"}, {"cores=x", "cores"}};
  for (const char* name : {"tiresias-random", "tiresias-crandom"}) {
    for (const auto& [option, key] : bad) {
      auto parsed = Options::Parse({option});
      ASSERT_TRUE(parsed.ok());
      auto made = Registry<Placer>::Instance().Create(name, *parsed);
      ASSERT_FALSE(made.ok()) << name << " " << option;
      EXPECT_NE(made.status().message().find(key), std::string::npos) << made.status().ToString();
    }
  }
}

// Free: node0 {3}, node1 {6,7}, node2 {8..11}: count takes the lowest-id free devices, across
// nodes, whenever enough are free.
TEST_F(ThreeNodeFixture, CountTakesTheLowestFreeDevices) {
  auto placer = MakePlacer("tiresias-count");
  EXPECT_THAT(PlaceN(*placer, 1), ::testing::ElementsAre(3));
  EXPECT_THAT(PlaceN(*placer, 4), ::testing::ElementsAre(3, 6, 7, 8));
  EXPECT_THAT(PlaceN(*placer, 7), ::testing::ElementsAre(3, 6, 7, 8, 9, 10, 11));
  EXPECT_THAT(PlaceN(*placer, 8), ::testing::ElementsAre(-1));
  EXPECT_FALSE(placer->asked_when_short());
}

}  // namespace
}  // namespace hetsched::test
