// The dlas-gpu variants of Tiresias' simulator: dlas-gpu-N and dlas-gpu-gittins-N (starvation
// promotion, run_sim.py:1061-1074 and 1230-1235) and dlas-gpu-pack (dlas-gpu as published).
// Each expected value is worked out from the peer's rules, quoted in policies/tiresias/dlas.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_backend.h"

namespace hetsched {
namespace {

using test::kFast;
using test::PolicyHarness;
using ::testing::ElementsAre;

// dlas-gpu-1 (promotion after waiting 1 x executed time), one GPU, limits 10 and 1000 GPU-s.
//  0: job 1 starts; its jump is at 0 + ceil(10 / 1) = 10.
// 10: job 1 reaches 10 GPU-s and moves to queue 1; alone, it runs on (jump 10 + 990 = 1000).
// 12: job 2 arrives in queue 0 and takes the GPU; job 1 (executed 12) waits. Its promotion is
//     due after waiting int(12 x 1) = 12 s, at 24; job 2's jump is at 22: the next event.
// 22: job 2 moves to queue 1 *behind* job 1, which has waited 10 < 12 s and is first there: it
//     resumes, job 2 waits (executed 10: promotion due at 32).
// 32: job 2 has waited 10 >= int(10 x 1): back to queue 0 with its executed time restarted, it
//     preempts job 1. Job 1 keeps the 10 s it waited before (the waiting time is reset only by a
//     promotion): due at 32 + int(22 - 10) = 44; job 2's jump is at 32 + 10 = 42, first.
// 42: job 2 has run 10 s since its promotion and moves to queue 1, behind job 1 (waited 20 <
//     22), which resumes. Job 2's next promotion: at 42 + 10 = 52.
TEST(TiresiasDlasVariantsTest, StarvedJobReturnsToQueueZero) {
  PolicyHarness h({{kFast, 1}}, "dlas-gpu-1", {"thresholds=10;1000", "placement=count"});
  h.Submit(1, 1, 0, 100000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
  h.Submit(2, 1, 12, 100000);
  h.ScheduleAt(12);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 2 on [0]"));
  h.ScheduleAt(22);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 2", "start 1 on [0]"));
  h.ScheduleAt(32);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 2 on [0]"));
  h.ScheduleAt(42);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 2", "start 1 on [0]"));
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(10.0, 1000.0, 22.0, 32.0, 42.0, 52.0));
}

// Without starvation (dlas-gpu) the same events leave job 1 waiting at 32: job 2 is never promoted.
TEST(TiresiasDlasVariantsTest, NoPromotionWithoutStarvation) {
  PolicyHarness h({{kFast, 1}}, "dlas-gpu", {"thresholds=10;1000", "placement=count"});
  h.Submit(1, 1, 0, 100000);
  h.ScheduleAt(0);
  h.ScheduleAt(10);
  h.Submit(2, 1, 12, 100000);
  h.ScheduleAt(12);
  h.ScheduleAt(22);
  EXPECT_THAT(h.TakeLog(),
              ElementsAre("start 1 on [0]", "preempt 1", "start 2 on [0]", "preempt 2", "start 1 on [0]"));
  h.ScheduleAt(32);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
}

// dlas-gpu-pack is dlas-gpu as published (every model's GPU share is 1): the same jump as
// TiresiasDlasTest.GpuTimeJumpsFollowThePeersFormula, ceil(3250 / 4) = 813.
TEST(TiresiasDlasVariantsTest, PackIsDlasGpu) {
  PolicyHarness h({{kFast, 4}}, "dlas-gpu-pack");
  h.Submit(1, 4, 0, 100000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1,2,3]"));
  EXPECT_THAT(h.backend().wake_ups, ElementsAre(813.0));
  EXPECT_EQ(h.scheduler().name(), "dlas-gpu-pack");
}

TEST(TiresiasDlasVariantsTest, EveryPeerNameIsRegistered) {
  auto& registry = Registry<JobScheduler>::Instance();
  for (const std::string& name : std::vector<std::string>{
           "dlas-gpu-05", "dlas-gpu-1", "dlas-gpu-2", "dlas-gpu-4", "dlas-gpu-8", "dlas-gpu-10",
           "dlas-gpu-100", "dlas-gpu-1000", "dlas-gpu-gittins-1", "dlas-gpu-gittins-2", "dlas-gpu-gittins-4",
           "dlas-gpu-gittins-8", "dlas-gpu-pack"}) {
    auto made = registry.Create(name, Options());
    ASSERT_TRUE(made.ok()) << name << ": " << made.status().ToString();
    EXPECT_EQ((*made)->name(), name);
  }
  EXPECT_FALSE(registry.Create("dlas-gpu", *Options::Parse({"starvation=-1"})).ok());
  EXPECT_FALSE(registry.Create("dlas-gpu-2", *Options::Parse({"starvation=x"})).ok());
}

}  // namespace
}  // namespace hetsched
