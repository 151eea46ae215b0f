// NodeBook (slurm/node_book.h), by hand on two nodes of 4 V100s: a node that goes down has its
// free GPUs held and given back when it returns; GPUs Slurm counts busy beyond the agent's running
// jobs are kept out at the second look on an idle node and after kSlurmBusyPersistS on a busy one;
// a node whose busy GPUs the agent's released job holds is short; the held counts per type.
#include "hetsched/slurm/node_book.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hetsched::slurm {
namespace {

SlurmNode NodeOf(const std::string& name, const std::string& state, int gpus_used) {
  SlurmNode n;
  n.name = name;
  n.state = state;
  n.gres = "gpu:v100:4";
  n.gpus_used = gpus_used;
  return n;
}

class NodeBookTest : public ::testing::Test {
 protected:
  NodeBookTest()
      : cluster_(*TranslateCluster({NodeOf("a", "idle", 0), NodeOf("b", "idle", 0)}, DeviceCatalog::BuiltIn(),
                                   LinkCatalog::BuiltIn(), {}, "t")),
        state_(cluster_.cluster),
        book_(cluster_, state_, clock_, [this](const std::string& m) { reports_.push_back(m); }) {}
  bool Refresh(const SlurmNode& sn) {
    bool changed = false;
    EXPECT_TRUE(book_.Refresh(sn, [this](JobId id) { return id == running_; }, &changed).ok());
    return changed;
  }
  FakeClock clock_{1000};
  SlurmCluster cluster_;
  ClusterState state_;
  std::vector<std::string> reports_;
  JobId running_ = -1;
  NodeBook book_;
};

TEST_F(NodeBookTest, ADownNodeIsHeldAndGivenBack) {
  const NodeId a = cluster_.Find("a");
  EXPECT_FALSE(Refresh(NodeOf("a", "idle", 0)));
  EXPECT_TRUE(Refresh(NodeOf("a", "down", 0)));
  EXPECT_EQ(state_.free_on_node(a), 0);
  EXPECT_EQ(book_.held_devices(), 4);
  EXPECT_EQ(book_.held_of_type(cluster_.cluster.node(a).device_type), 4);
  EXPECT_TRUE(book_.AnyDown({"b", "a"}));
  EXPECT_FALSE(book_.AnyDown({"b"}));
  EXPECT_FALSE(Refresh(NodeOf("a", "down", 0)));  // no change
  EXPECT_TRUE(Refresh(NodeOf("a", "idle", 0)));
  EXPECT_EQ(state_.free_on_node(a), 4);
  EXPECT_EQ(book_.held_devices(), 0);
  EXPECT_EQ(reports_, (std::vector<std::string>{"node a is down: no new job goes there", "node a is back (idle)"}));
}

TEST_F(NodeBookTest, GpusSlurmCountsBusyAreKeptOutAtOnceOnAnIdleNodeLaterOnABusyOne) {
  const NodeId a = cluster_.Find("a"), b = cluster_.Find("b");
  EXPECT_FALSE(Refresh(NodeOf("a", "idle", 1)));  // first seen: not yet
  clock_.SleepS(1);
  EXPECT_TRUE(Refresh(NodeOf("a", "idle", 1)));   // still there a refresh later: Slurm's miscount
  EXPECT_EQ(state_.free_on_node(a), 3);
  // Node b runs job 7 of the agent on 2 GPUs, and Slurm counts 3 in use: one beyond.
  running_ = 7;
  const Node& nb = cluster_.cluster.node(b);
  ASSERT_TRUE(state_.Allocate(7, std::vector<DeviceId>{nb.first_device, nb.first_device + 1}).ok());
  EXPECT_FALSE(Refresh(NodeOf("b", "mixed", 3)));
  clock_.SleepS(kSlurmBusyPersistS - 1);
  EXPECT_FALSE(Refresh(NodeOf("b", "mixed", 3)));
  clock_.SleepS(1);
  EXPECT_TRUE(Refresh(NodeOf("b", "mixed", 3)));
  EXPECT_EQ(state_.free_on_node(b), 1);
  EXPECT_EQ(book_.held_devices(), 2);
  // Slurm counts no more: given back.
  EXPECT_TRUE(Refresh(NodeOf("b", "mixed", 2)));
  EXPECT_EQ(state_.free_on_node(b), 2);
  EXPECT_FALSE(book_.AnyShort({"a", "b"}));
}

TEST_F(NodeBookTest, ANodeWhoseBusyGpusAReleasedJobHoldsIsShort) {
  const NodeId a = cluster_.Find("a");
  const Node& na = cluster_.cluster.node(a);
  // Job 3 was released on all of node a (not running yet); Slurm counts one GPU in use there.
  ASSERT_TRUE(state_.Allocate(3, std::vector<DeviceId>{na.first_device, na.first_device + 1, na.first_device + 2, na.first_device + 3}).ok());
  Refresh(NodeOf("a", "idle", 1));
  clock_.SleepS(1);
  EXPECT_FALSE(Refresh(NodeOf("a", "idle", 1)));  // nothing free to keep out
  EXPECT_TRUE(book_.AnyShort({"a"}));
}

}  // namespace
}  // namespace hetsched::slurm
