// tiresias-sjf, tiresias-shortest(-gpu) and tiresias-lpjf: Tiresias' simulator's
// smallest_first_sim_jobs, shortest_first_sim_jobs and longest_pending_first_sim_jobs. Each
// expected value is worked out from the peer's rules, quoted in policies/tiresias/*.cc and
// yarn_replan.h; tests/scenarios/tiresias_reproduction_test.cc holds the peer's own figures.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "fake_backend.h"

namespace hetsched {
namespace {

using test::kFast;
using test::PolicyHarness;
using ::testing::ElementsAre;

// Two nodes of 4. Job 1 (4 GPUs) runs on node 0. At 10 jobs 2 (4) and 3 (1) arrive; by GPU count
// the plan is 3, 1, 2 from an empty cluster: 3 on node 0 (3 left), 1 on node 1 (4 fit there),
// 2 nowhere (skipped). Job 1 keeps its devices (the plan only counts), 3 starts on the lowest
// free one. At 20 job 4 (1) arrives: 3, 4 on node 0, 1 on node 1. At 30 job 5 (2): 3, 4, 5 fill
// node 0, 1 still on node 1. At 40 job 6 (1): 3, 4, 6 on node 0 (1 left), 5 on node 1 (2 left),
// and job 1 no longer fits anywhere: it is preempted, 6 takes its first device.
TEST(TiresiasSjfTest, ReplansBySizeAndPreemptsTheLargest) {
  PolicyHarness h({{kFast, 4}, {kFast, 4}}, "tiresias-sjf");
  h.Submit(1, 4, 0, 1000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1,2,3]"));
  h.Submit(2, 4, 10, 1000);
  h.Submit(3, 1, 10, 1000);
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 3 on [4]"));
  h.Submit(4, 1, 20, 1000);
  h.ScheduleAt(20);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 4 on [5]"));
  h.Submit(5, 2, 30, 1000);
  h.ScheduleAt(30);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 5 on [6,7]"));
  h.Submit(6, 1, 40, 1000);
  h.ScheduleAt(40);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 6 on [0]"));
}

// One node of 4, four 1-GPU jobs at 0: the walk starts 1, skips 2 (it moved into 1's place in
// the peer's list while the iterator stepped on), starts 3, skips 4. At the next event it starts
// 2 and skips 4 again. Then a 4-GPU job at the head blocks the 1-GPU job behind it.
TEST(TiresiasLpjfTest, SkipsTheJobAfterEachStart) {
  PolicyHarness h({{kFast, 4}}, "tiresias-lpjf");
  for (JobId id = 1; id <= 4; ++id) h.Submit(id, 1, 0, 1000);
  h.ScheduleAt(0);
  EXPECT_EQ(h.state(1), JobState::kRunning);
  EXPECT_EQ(h.state(2), JobState::kPending);
  EXPECT_EQ(h.state(3), JobState::kRunning);
  EXPECT_EQ(h.state(4), JobState::kPending);
  h.ScheduleAt(5);
  EXPECT_EQ(h.state(2), JobState::kRunning);
  EXPECT_EQ(h.state(4), JobState::kPending);
  h.ScheduleAt(6);
  EXPECT_EQ(h.state(4), JobState::kRunning);
  h.Finish(1, 10);
  h.Submit(5, 4, 10, 1000);
  h.Submit(6, 1, 10, 1000);
  h.ScheduleAt(10);
  EXPECT_EQ(h.state(5), JobState::kPending);
  EXPECT_EQ(h.state(6), JobState::kPending);  // blocked behind 5, though a GPU is free
}

std::string WriteDurations(const std::string& name, const std::string& rows) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n" << rows;
  return path;
}

// One GPU. a (100 s) starts at 0. At 60 b (50 s) and c (40 s) arrive: keys a = int(100 - 60) =
// 40, b = 50, c = 40; the stable sort keeps a before c (a was earlier in the list), so nothing
// changes. At 70 d (20 s) arrives: a = 30 > d = 20, so a is preempted and d runs.
TEST(TiresiasShortestTest, ShortestRemainingFirstWithStableTies) {
  const std::string path = WriteDurations("shortest.csv",
                                          "a,1,0,1,toy,100,0\nb,1,60,1,toy,50,0\n"
                                          "c,1,60,1,toy,40,0\nd,1,70,1,toy,20,0\n");
  PolicyHarness h({{kFast, 1}}, "tiresias-shortest", {"durations=" + path});
  h.SubmitNamed(1, "a", 1, 1000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
  h.backend().set_now(60);
  h.SubmitNamed(2, "b", 1, 1000);
  h.SubmitNamed(3, "c", 1, 1000);
  h.ScheduleAt(60);
  EXPECT_TRUE(h.TakeLog().empty());
  h.backend().set_now(70);
  h.SubmitNamed(4, "d", 1, 1000);
  h.ScheduleAt(70);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 4 on [0]"));
}

// Two GPUs; a (2 GPUs, 30 s = 60 GPU-s) and b (1 GPU, 50 s = 50 GPU-s) at 0. shortest puts a
// first (30 < 50): it takes both GPUs and b waits. shortest-gpu puts b first (50 < 60): b takes
// one GPU and a, needing two, waits.
TEST(TiresiasShortestTest, GpuTimeWeighsTheGpuCount) {
  const std::string path = WriteDurations("shortest_gpu.csv", "a,2,0,1,toy,30,0\nb,1,0,1,toy,50,0\n");
  for (const char* policy : {"tiresias-shortest-gpu", "tiresias-shortest"}) {
    PolicyHarness h({{kFast, 2}}, policy, {"durations=" + path});
    h.SubmitNamed(1, "a", 2, 1000);
    h.SubmitNamed(2, "b", 1, 1000);
    h.ScheduleAt(0);
    const bool gpu = std::string(policy) == "tiresias-shortest-gpu";
    EXPECT_EQ(h.state(1), gpu ? JobState::kPending : JobState::kRunning) << policy;
    EXPECT_EQ(h.state(2), gpu ? JobState::kRunning : JobState::kPending) << policy;
  }
}

TEST(TiresiasShortestTest, RejectsBadDurations) {
  Registry<JobScheduler>& registry = Registry<JobScheduler>::Instance();
  EXPECT_FALSE(registry.Create("tiresias-shortest", *Options::Parse({"durations=/no/such/file.csv"})).ok());
  const std::string bad = ::testing::TempDir() + "/no_duration.csv";
  std::ofstream(bad) << "job_id,num_gpu\na,1\n";
  EXPECT_FALSE(registry.Create("tiresias-shortest-gpu", *Options::Parse({"durations=" + bad})).ok());
  const std::string nan = WriteDurations("bad_duration.csv", "a,1,0,1,toy,soon,0\n");
  EXPECT_FALSE(registry.Create("tiresias-shortest", *Options::Parse({"durations=" + nan})).ok());
  EXPECT_FALSE(registry.Create("tiresias-sjf", *Options::Parse({"durations=x"})).ok());  // takes no option
}

// Without durations= a job's duration is its estimated length as a scheduler sees it: 100
// iterations of 1 s on the fast type (fake_backend.h) = 100 s, against a 1 s job.
TEST(TiresiasShortestTest, WithoutTheOracleUsesTheEstimatedLength) {
  PolicyHarness h({{kFast, 1}}, "tiresias-shortest");
  h.Submit(1, 1, 0, 100);
  h.Submit(2, 1, 0, 1);
  h.ScheduleAt(0);
  EXPECT_EQ(h.state(1), JobState::kPending);
  EXPECT_EQ(h.state(2), JobState::kRunning);
}

// A job the durations file does not list ends the run with its name.
TEST(TiresiasShortestTest, AJobMissingFromTheDurationsEndsTheRun) {
  const std::string path = WriteDurations("shortest_missing.csv", "a,1,0,1,toy,100,0\n");
  PolicyHarness h({{kFast, 1}}, "tiresias-shortest", {"durations=" + path});
  h.SubmitNamed(1, "zz", 1, 1000);
  EXPECT_TRUE(h.ctx().failed());
  EXPECT_THAT(h.ctx().TakeError().ToString(), ::testing::HasSubstr("'zz'"));
}

}  // namespace
}  // namespace hetsched
