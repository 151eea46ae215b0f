// tiresias-gandiva: Tiresias' simulator's `--schedule=gandiva --scheme=gandiva` (run_sim.py
// gandiva_sim_jobs; cluster.py gandiva_placement, gandiva_node_set_adjust/_expand/_shrink,
// time_slicing_execute): GandivaNodeSets worked by the peer's rules (quoted in
// policies/tiresias/gandiva_node_sets.h). The policy's steps in the simulator:
// tests/scenarios/tiresias_gandiva_steps_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "fake_backend.h"
#include "hetsched/policies/tiresias/gandiva_node_sets.h"

namespace hetsched {
namespace {

using test::kFast;
using test::kSlow;
using test::TestCluster;
using ::testing::ElementsAre;

constexpr auto AnyType = [](JobId /*id*/, DeviceTypeId /*type*/) { return true; };
constexpr auto AnyNode = [](NodeId /*node*/) { return true; };

std::vector<JobId> JobsOf(const GandivaNodeSets& sets, int g, size_t k) {
  return sets.lists().at(g).at(k)->jobs;
}

// Two 4-GPU nodes, 1-GPU jobs 0-3. Job 0 makes node set A on node 0 (util 1); jobs 1 and 2 join it
// (1 + 1 < 4, 2 + 1 < 4); job 3 does not (3 + 1 < 4 fails: the test is strict), so it makes B on
// node 1, listed first (util 1 < 3). Adjust: demand 4 of 4, plan floor(4 / 4 x 8) = 8, target
// min(8, 4) = 4, occupied 8: shrink ceil(4 / 1) = 4 node sets, cut to 2 - 1 = 1: B, the first,
// goes; job 3 joins A; node 1 is free again.
TEST(GandivaNodeSetsTest, StrictRoomTestThenShrinkToDemand) {
  TestCluster tc({{kFast, 4}, {kFast, 4}});
  GandivaNodeSets sets(tc.cluster());
  for (JobId id = 0; id < 4; ++id) ASSERT_TRUE(sets.Place(id, 1, AnyType, AnyNode));
  ASSERT_EQ(sets.lists().at(1).size(), 2u);
  EXPECT_THAT(JobsOf(sets, 1, 0), ElementsAre(3));
  EXPECT_THAT(sets.lists().at(1)[0]->nodes, ElementsAre(1));
  EXPECT_THAT(JobsOf(sets, 1, 1), ElementsAre(0, 1, 2));
  EXPECT_EQ(sets.lists().at(1)[1]->capacity, 4);
  EXPECT_TRUE(sets.free_nodes().empty());
  std::vector<JobId> orphans;
  sets.Adjust(AnyType, AnyNode, &orphans);
  ASSERT_EQ(sets.lists().at(1).size(), 1u);
  EXPECT_THAT(JobsOf(sets, 1, 0), ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(sets.lists().at(1)[0]->util, 4);
  EXPECT_THAT(sets.free_nodes(), ElementsAre(1));
  EXPECT_TRUE(orphans.empty());
}

// One 4-GPU node: two 4-GPU jobs (capacity 1). Job 0 makes A; job 1 cannot join (1 + 1 < 1 fails)
// nor make a node set (no free node): it is time-sliced on A, behind job 0. A third job of
// 2 GPUs finds no node set of its count and no free node: pending (Place false).
TEST(GandivaNodeSetsTest, TimeSlicesWhenNoNodeIsFree) {
  TestCluster tc({{kFast, 4}});
  GandivaNodeSets sets(tc.cluster());
  EXPECT_TRUE(sets.Place(0, 4, AnyType, AnyNode));
  EXPECT_TRUE(sets.Place(1, 4, AnyType, AnyNode));
  EXPECT_THAT(JobsOf(sets, 4, 0), ElementsAre(0, 1));
  EXPECT_EQ(sets.lists().at(4)[0]->capacity, 1);
  EXPECT_FALSE(sets.Place(2, 2, AnyType, AnyNode));
  EXPECT_EQ(sets.jobs(), 2);
}

// The switch: with three 4-GPU jobs on one capacity-1 node set, a step with switch_slices moves
// the running one (the first) to the end; jobs that ended leave after the switch; a node set left
// empty frees its node and EndStep says so.
TEST(GandivaNodeSetsTest, SwitchMovesRunningJobsBehindThenEndsLeave) {
  TestCluster tc({{kFast, 4}});
  GandivaNodeSets sets(tc.cluster());
  for (JobId id = 0; id < 3; ++id) ASSERT_TRUE(sets.Place(id, 4, AnyType, AnyNode));
  std::vector<JobId> ended;
  EXPECT_FALSE(sets.EndStep(
      false, [](JobId) { return false; }, &ended));
  EXPECT_THAT(JobsOf(sets, 4, 0), ElementsAre(0, 1, 2));
  EXPECT_FALSE(sets.EndStep(
      true, [](JobId) { return false; }, &ended));
  EXPECT_THAT(JobsOf(sets, 4, 0), ElementsAre(1, 2, 0));
  EXPECT_FALSE(sets.EndStep(
      true, [](JobId id) { return id == 1; }, &ended));
  EXPECT_THAT(JobsOf(sets, 4, 0), ElementsAre(2, 0));  // 1 ran: [2, 0, 1], then 1 ends
  EXPECT_THAT(ended, ElementsAre(1));
  ended.clear();
  EXPECT_TRUE(sets.EndStep(
      false, [](JobId) { return true; }, &ended));
  EXPECT_THAT(ended, ElementsAre(2, 0));
  EXPECT_TRUE(sets.lists().at(4).empty());
  EXPECT_THAT(sets.free_nodes(), ElementsAre(0));
}

// Two 4-GPU nodes: a 4-GPU job (0) on node 0, 1-GPU jobs 1-5 on node 1 (1-3 join, 4 and 5 are
// time-sliced there: no free node). Adjust: demands 5 (g=1) and 4 (g=4) of 9; g=1: plan
// floor(5/9 x 8) = 4 = occupied; g=4: plan floor(4/9 x 8) = 3, occupied 4, shrink 1 of a list of
// 1: none. Job 0 ends: node 0 is free. Adjust: g=1 demand 5 of 5, plan 8, target 5, occupied 4:
// expand ceil(1 / 1) = 1 node set. It is made on node 0, but the peer's loop variable ends at 0
// (a one-node set), so the jobs are not re-arranged: the new node set stays empty, and the next
// EndStep frees it (node_release) while five jobs share node 1.
TEST(GandivaNodeSetsTest, ExpandByOneNodeSetLeavesItEmpty) {
  TestCluster tc({{kFast, 4}, {kFast, 4}});
  GandivaNodeSets sets(tc.cluster());
  ASSERT_TRUE(sets.Place(0, 4, AnyType, AnyNode));
  for (JobId id = 1; id <= 5; ++id) ASSERT_TRUE(sets.Place(id, 1, AnyType, AnyNode));
  EXPECT_THAT(JobsOf(sets, 1, 0), ElementsAre(1, 2, 3, 4, 5));
  std::vector<JobId> orphans, ended;
  sets.Adjust(AnyType, AnyNode, &orphans);
  EXPECT_EQ(sets.lists().at(4).size(), 1u);
  EXPECT_TRUE(sets.EndStep(
      false, [](JobId id) { return id == 0; }, &ended));
  EXPECT_THAT(sets.free_nodes(), ElementsAre(0));
  sets.Adjust(AnyType, AnyNode, &orphans);
  ASSERT_EQ(sets.lists().at(1).size(), 2u);
  EXPECT_THAT(JobsOf(sets, 1, 0), ElementsAre(1, 2, 3, 4, 5));
  EXPECT_TRUE(JobsOf(sets, 1, 1).empty());
  EXPECT_THAT(sets.lists().at(1)[1]->nodes, ElementsAre(0));
  EXPECT_TRUE(sets.free_nodes().empty());
  EXPECT_TRUE(sets.EndStep(
      false, [](JobId) { return false; }, &ended));
  EXPECT_EQ(sets.lists().at(1).size(), 1u);
  EXPECT_THAT(sets.free_nodes(), ElementsAre(0));
  EXPECT_TRUE(orphans.empty());
}

// Two 4-GPU nodes, 1-GPU jobs 0-6. 0-2 on A (node 0, util 3); 3 makes B (node 1); 4 and 5 join B
// (the first listed, util 1, then 2); 6 fits neither (A: 3 + 1 < 4 fails, A to the end; no free
// node), so it is time-sliced on the first listed, B (util 4): A [0, 1, 2], B [3, 4, 5, 6].
// Adjust 1: demand 7, plan 8, target 7, occupied 8: shrink 1: A (first, util 3) goes, its jobs
// join B one by one: B [3, 4, 5, 6, 0, 1, 2] on node 1, node 0 free.
// Adjust 2: occupied 4, diff 3: expand 3. The first makes C on node 0; the second and third find
// no free node, so the peer's `i` ends at 3 and every job is re-arranged, in list order, each to
// the first of the list sorted by util (B, C both reset to 0): 3 -> B [C0 B1], 4 -> C [C1 B1],
// 5 -> C [B1 C2], 6 -> B [B2 C2], 0 -> B [C2 B3], 1 -> C [C3 B3], 2 -> C [B3 C4].
TEST(GandivaNodeSetsTest, ShrinkThenExpandReArrangesWhenNodesRunOut) {
  TestCluster tc({{kFast, 4}, {kFast, 4}});
  GandivaNodeSets sets(tc.cluster());
  for (JobId id = 0; id < 7; ++id) ASSERT_TRUE(sets.Place(id, 1, AnyType, AnyNode));
  EXPECT_THAT(JobsOf(sets, 1, 0), ElementsAre(0, 1, 2));
  EXPECT_THAT(JobsOf(sets, 1, 1), ElementsAre(3, 4, 5, 6));
  std::vector<JobId> orphans;
  sets.Adjust(AnyType, AnyNode, &orphans);
  ASSERT_EQ(sets.lists().at(1).size(), 1u);
  EXPECT_THAT(JobsOf(sets, 1, 0), ElementsAre(3, 4, 5, 6, 0, 1, 2));
  EXPECT_THAT(sets.free_nodes(), ElementsAre(0));
  sets.Adjust(AnyType, AnyNode, &orphans);
  ASSERT_EQ(sets.lists().at(1).size(), 2u);
  EXPECT_THAT(sets.lists().at(1)[0]->nodes, ElementsAre(1));
  EXPECT_THAT(JobsOf(sets, 1, 0), ElementsAre(3, 6, 0));
  EXPECT_THAT(sets.lists().at(1)[1]->nodes, ElementsAre(0));
  EXPECT_THAT(JobsOf(sets, 1, 1), ElementsAre(4, 5, 1, 2));
  EXPECT_TRUE(orphans.empty());
}

// Three 4-GPU nodes, 1-GPU jobs 0-8 (a node set that takes a job goes to the list's end, then the
// list is sorted by util, stably). 0-2 on A (node 0); 3 makes B (node 1): [B1 A3]; 4, 5 join B:
// [B2 A3], then [A3 B3]; 6 finds no room in A (sent to the end: [B3 A3]) and makes C on node 2:
// [C1 B3 A3]; 7, 8 join C: [C2 B3 A3], then [B3 A3 C3]. Adjust 1: demand 9, plan
// floor(9/9 x 12) = 12, target 9, occupied 12: shrink ceil(3 / 1) = 3, cut to 3 - 1 = 2: B then
// A go, their jobs join C: C [6, 7, 8, 3, 4, 5, 0, 1, 2], free nodes 1, 0. Adjust 2: occupied 4,
// diff 5: expand 5: D on node 1, E on node 0, then no free node: the peer's `i` ends at 5 and
// every job is re-arranged, each to the first of the list sorted by util (C reset to 0):
// 6 -> C [D0 E0 C1], 7 -> D [E0 D1 C1], 8 -> E [E1 D1 C1], 3 -> E [D1 C1 E2], 4 -> D [C1 D2 E2],
// 5 -> C [C2 D2 E2], 0 -> C [D2 E2 C3], 1 -> D [E2 D3 C3], 2 -> E [E3 D3 C3]: a node set whose
// util rises moves past every one after it with the lower util (two at once: 3, 0).
TEST(GandivaNodeSetsTest, ReArrangementKeepsTheStableOrderOfThreeNodeSets) {
  TestCluster tc({{kFast, 4}, {kFast, 4}, {kFast, 4}});
  GandivaNodeSets sets(tc.cluster());
  for (JobId id = 0; id < 9; ++id) ASSERT_TRUE(sets.Place(id, 1, AnyType, AnyNode));
  ASSERT_EQ(sets.lists().at(1).size(), 3u);
  EXPECT_THAT(JobsOf(sets, 1, 0), ElementsAre(3, 4, 5));
  EXPECT_THAT(JobsOf(sets, 1, 1), ElementsAre(0, 1, 2));
  EXPECT_THAT(JobsOf(sets, 1, 2), ElementsAre(6, 7, 8));
  std::vector<JobId> orphans;
  sets.Adjust(AnyType, AnyNode, &orphans);
  ASSERT_EQ(sets.lists().at(1).size(), 1u);
  EXPECT_THAT(JobsOf(sets, 1, 0), ElementsAre(6, 7, 8, 3, 4, 5, 0, 1, 2));
  EXPECT_THAT(sets.free_nodes(), ElementsAre(1, 0));
  sets.Adjust(AnyType, AnyNode, &orphans);
  ASSERT_EQ(sets.lists().at(1).size(), 3u);
  EXPECT_THAT(sets.lists().at(1)[0]->nodes, ElementsAre(0));  // E
  EXPECT_THAT(JobsOf(sets, 1, 0), ElementsAre(8, 3, 2));
  EXPECT_THAT(sets.lists().at(1)[1]->nodes, ElementsAre(1));  // D
  EXPECT_THAT(JobsOf(sets, 1, 1), ElementsAre(7, 4, 1));
  EXPECT_THAT(sets.lists().at(1)[2]->nodes, ElementsAre(2));  // C
  EXPECT_THAT(JobsOf(sets, 1, 2), ElementsAre(6, 5, 0));
  for (const auto& set : sets.lists().at(1)) EXPECT_EQ(set->util, 3);
  EXPECT_TRUE(sets.free_nodes().empty());
  EXPECT_TRUE(orphans.empty());
}

// [REC] types: a job restricted to the slow type makes its node set on the slow node, though the
// fast one comes first in the free list; a job that may use both, finding no room in it (1 + 1 < 1
// fails), makes its own on the fast node.
TEST(GandivaNodeSetsTest, NodeSetsKeepToTypesAJobMayUse) {
  TestCluster tc({{kFast, 4}, {kSlow, 4}});
  GandivaNodeSets sets(tc.cluster());
  const auto slow_only = [](JobId id, DeviceTypeId type) { return id != 0 || type == kSlow; };
  ASSERT_TRUE(sets.Place(0, 4, slow_only, AnyNode));
  EXPECT_THAT(sets.lists().at(4)[0]->nodes, ElementsAre(1));
  EXPECT_THAT(sets.free_nodes(), ElementsAre(0));
  EXPECT_EQ(sets.MostDevicesFor(0, slow_only), 4);
  ASSERT_TRUE(sets.Place(1, 4, slow_only, AnyNode));
  EXPECT_THAT(sets.lists().at(4)[1]->nodes, ElementsAre(0));
}

// [REC] service: a free node the back end holds (a node down) never goes into a node set; the
// second 4-GPU job, finding no other node, is time-sliced behind the first.
TEST(GandivaNodeSetsTest, NodesOutOfServiceAreSkipped) {
  TestCluster tc({{kFast, 4}, {kFast, 4}});
  GandivaNodeSets sets(tc.cluster());
  const auto node0_down = [](NodeId n) { return n != 0; };
  ASSERT_TRUE(sets.Place(0, 4, AnyType, node0_down));
  EXPECT_THAT(sets.lists().at(4)[0]->nodes, ElementsAre(1));
  ASSERT_TRUE(sets.Place(1, 4, AnyType, node0_down));
  EXPECT_THAT(JobsOf(sets, 4, 0), ElementsAre(0, 1));
  EXPECT_THAT(sets.free_nodes(), ElementsAre(0));
}

// An expansion's re-arrangement (every node set at util 0, one type) is done in closed form
// (GandivaNodeSets::RejoinEvenly): checked against the peer's rule applied job by job, each to the
// first node set of the list stably sorted by util, over n 4-GPU nodes and m 1-GPU jobs. Adjust 1
// shrinks the list; Adjust 2 expands it by count = min(4n, m) - occupied node sets, and
// re-arranges when that outruns the free nodes (the peer's `i` then ends at count).
TEST(GandivaNodeSetsTest, ReArrangementInClosedFormIsTheJoinsOneByOne) {
  int rearranged = 0;
  for (int n = 2; n <= 6; ++n) {
    for (int m = n + 1; m <= 4 * n + 3; ++m) {
      TestCluster tc(std::vector<std::pair<DeviceTypeId, int>>(static_cast<size_t>(n), {kFast, 4}));
      GandivaNodeSets sets(tc.cluster());
      for (JobId id = 0; id < m; ++id) ASSERT_TRUE(sets.Place(id, 1, AnyType, AnyNode));
      std::vector<JobId> orphans;
      sets.Adjust(AnyType, AnyNode, &orphans);
      // The list the re-arrangement would see: the node sets in order, then one per free node.
      const auto& before = sets.lists().at(1);
      const int count = std::min(4 * n, m) - 4 * static_cast<int>(before.size());
      if (count <= static_cast<int>(sets.free_nodes().size())) continue;
      ++rearranged;
      struct Ref {
        NodeId node;
        int util = 0;
        std::vector<JobId> jobs;
      };
      std::vector<Ref> ref;
      std::vector<JobId> moved;
      for (const auto* set : before) {
        ref.push_back({set->nodes.front(), 0, {}});
        moved.insert(moved.end(), set->jobs.begin(), set->jobs.end());
      }
      for (NodeId node : sets.free_nodes()) ref.push_back({node, 0, {}});
      for (JobId id : moved) {
        ref.front().util += 1;
        ref.front().jobs.push_back(id);
        std::stable_sort(ref.begin(), ref.end(), [](const Ref& a, const Ref& b) { return a.util < b.util; });
      }
      sets.Adjust(AnyType, AnyNode, &orphans);
      const auto& after = sets.lists().at(1);
      ASSERT_EQ(after.size(), ref.size()) << n << " " << m;
      for (size_t k = 0; k < ref.size(); ++k) {
        EXPECT_EQ(after[k]->nodes.front(), ref[k].node) << n << " " << m << " " << k;
        EXPECT_EQ(after[k]->util, ref[k].util) << n << " " << m << " " << k;
        EXPECT_EQ(after[k]->jobs, ref[k].jobs) << n << " " << m << " " << k;
      }
      EXPECT_TRUE(orphans.empty());
    }
  }
  EXPECT_GT(rearranged, 10);
}

TEST(TiresiasGandivaTest, RejectsBadOptions) {
  auto& registry = Registry<JobScheduler>::Instance();
  EXPECT_TRUE(registry.Create("tiresias-gandiva", *Options::Parse({"step=5", "slice=30"})).ok());
  EXPECT_FALSE(registry.Create("tiresias-gandiva", *Options::Parse({"step=0"})).ok());
  EXPECT_FALSE(registry.Create("tiresias-gandiva", *Options::Parse({"slice=-60"})).ok());
}

}  // namespace
}  // namespace hetsched
