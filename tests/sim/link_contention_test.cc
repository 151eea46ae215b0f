// LinkContention (sim/link_contention.h), worked by hand on three nodes whose NICs all have one
// figure C: which jobs a start or a stop meets, whether each one's estimate stands, the two calls
// (at once, or deferred to one re-time each at Flush), the load it shows, and its audit.
#include "hetsched/sim/link_contention.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "sim_world.h"

namespace hetsched::sim_internal {
namespace {

using Calls = std::vector<std::pair<JobId, bool>>;

// A running data ring over `nics` (each node's NIC once) in run slot `slot`; `key`: its slowest
// per-flow bandwidth (0: not known).
ActiveRun Ring(JobId id, std::vector<NodeId> nics, double key) {
  ActiveRun run;
  run.job = id;
  run.nics = nics;
  run.prepared.split = true;
  run.prepared.nodes = std::move(nics);
  run.plan.parallelism = Parallelism::kDataRing;
  run.estimate.ring_path_Bps = key;
  return run;
}

class LinkContentionTest : public ::testing::Test {
 protected:
  LinkContentionTest() : world_(testing_util::MakeSimWorld(3, 4)) {
    capacity_ = LinkCapacities::Of(*world_->cluster).nic_Bps[0];
  }
  // Starts slots[slot] (its job's id is its slot) through both calls, re-timing it in between as
  // the simulator does.
  void Start(LinkContention& c, int32_t slot, Calls* calls) {
    c.Register(slots_[static_cast<size_t>(slot)], slot, slot, +1);
    c.Rekeyed(slots_[static_cast<size_t>(slot)], slot, slot, LinkContention::UplinkKey(slots_[static_cast<size_t>(slot)]));
    c.RetimeListed([&](JobId id, bool stands) { calls->emplace_back(id, stands); });
  }
  void Stop(LinkContention& c, int32_t slot, Calls* calls) {
    c.Register(slots_[static_cast<size_t>(slot)], slot, slot, -1);
    c.RetimeListed([&](JobId id, bool stands) { calls->emplace_back(id, stands); });
  }
  std::unique_ptr<testing_util::SimWorld> world_;
  double capacity_ = 0;
  std::vector<ActiveRun> slots_;
};

TEST_F(LinkContentionTest, AStartMeetsTheJobsOnItsNicsAndSaysWhoseEstimateStands) {
  ASSERT_GT(capacity_, 0);
  LinkContention c(*world_->cluster, /*modelled=*/true);
  c.Reset(3);
  // Job 0 over nodes 0 and 1, its slowest share C (alone on both NICs: two ties); job 1 over
  // nodes 1 and 2 with a key it does not know; job 2 over nodes 0 and 2 at C/2.
  slots_ = {Ring(0, {0, 1}, capacity_), Ring(1, {1, 2}, 0), Ring(2, {0, 2}, capacity_ / 2)};
  for (size_t i = 0; i < slots_.size(); ++i) c.AddSlot();
  Calls calls;
  Start(c, 0, &calls);
  EXPECT_TRUE(calls.empty());  // alone
  // Job 1 on NIC 1 halves job 0's share there (C -> C/2, below its key C): recompute.
  Start(c, 1, &calls);
  EXPECT_EQ(calls, (Calls{{0, false}}));
  EXPECT_EQ((*c.Load().nic_flows)[1], 2);
  // Job 0 recomputed: its key is now C/2 (one tie: NIC 1; NIC 0 is at C).
  slots_[0].estimate.ring_path_Bps = capacity_ / 2;
  c.Rekeyed(slots_[0], 0, 0, capacity_);
  // Job 2 on NIC 0 (C -> C/2, a new tie for job 0: its key stands) and NIC 2 (job 1's key is not
  // known: recompute). Each met once, in the order met.
  calls.clear();
  Start(c, 2, &calls);
  EXPECT_EQ(calls, (Calls{{0, true}, {1, false}}));
  EXPECT_TRUE(c.Audit(slots_, [](const std::string& what) { return Status::Internal(what); }).ok());
  // Job 1 stops: NIC 1 back to C, above job 0's key, but NIC 0 still ties it at C/2: stands.
  // Job 2 (key C/2, tied on NICs 0 and 2) loses the tie on NIC 2 and keeps NIC 0's: stands.
  calls.clear();
  Stop(c, 1, &calls);
  EXPECT_EQ(calls, (Calls{{0, true}, {2, true}}));
  slots_[1].job = -1;  // its slot is free
  EXPECT_TRUE(c.Audit(slots_, [](const std::string& what) { return Status::Internal(what); }).ok());
}

TEST_F(LinkContentionTest, DeferredReTimesRunOnceEachAtTheFlushAndSkipStoppedJobs) {
  LinkContention c(*world_->cluster, /*modelled=*/true);
  c.Reset(3);
  slots_ = {Ring(0, {0, 1}, 0), Ring(1, {1, 2}, 0), Ring(2, {0, 2}, 0)};
  for (size_t i = 0; i < slots_.size(); ++i) c.AddSlot();
  Calls calls;
  Start(c, 0, &calls);
  Start(c, 1, &calls);
  calls.clear();
  c.Defer();
  Start(c, 2, &calls);  // meets 0 (NIC 0) and 1 (NIC 2)
  Stop(c, 2, &calls);   // meets them again
  EXPECT_TRUE(calls.empty());
  EXPECT_TRUE(c.Deferred(0) && c.Deferred(1) && !c.Deferred(2));
  c.Undefer(1);  // job 1 was held meanwhile
  c.Flush([](JobId id) { return static_cast<int32_t>(id); },
          [&](JobId id, bool stands) { calls.emplace_back(id, stands); });
  EXPECT_EQ(calls, (Calls{{0, false}}));
  EXPECT_FALSE(c.Deferred(0));
  // Not deferring any more: the next change re-times at once.
  calls.clear();
  Start(c, 2, &calls);
  EXPECT_EQ(calls, (Calls{{0, false}, {1, false}}));
}

TEST_F(LinkContentionTest, UnmodelledLoadShowsNothingAndRecomputesWhoShareANic) {
  LinkContention c(*world_->cluster, /*modelled=*/false);
  c.Reset(2);
  slots_ = {Ring(0, {0, 1}, capacity_), Ring(1, {1, 2}, capacity_)};
  c.AddSlot();
  c.AddSlot();
  Calls calls;
  Start(c, 0, &calls);
  Start(c, 1, &calls);
  EXPECT_EQ(calls, (Calls{{0, false}}));
  EXPECT_EQ(c.Load().nic_flows, nullptr);
}

TEST_F(LinkContentionTest, TheAuditFindsAJobItDoesNotCount) {
  LinkContention c(*world_->cluster, /*modelled=*/true);
  c.Reset(2);
  slots_ = {Ring(0, {0, 1}, 0), Ring(1, {1, 2}, 0)};
  c.AddSlot();
  c.AddSlot();
  Calls calls;
  Start(c, 0, &calls);  // job 1 runs but was never registered
  const Status audit = c.Audit(slots_, [](const std::string& what) { return Status::Internal(what); });
  EXPECT_EQ(audit.message(), "NIC list");
}

}  // namespace
}  // namespace hetsched::sim_internal
