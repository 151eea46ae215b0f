// tiresias-shortest-expected: Tiresias' simulator's shortest-expected (run_sim.py
// shortest_first_sim_jobs keyed by cal_shortest_expected_remaining). Each expected value is
// worked out from the peer's rules, quoted in policies/tiresias/shortest_expected.cc; the
// expected durations themselves in tiresias_gittins_test.cc.
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

// Samples 10, 20, 30, 40: expected duration 20 at 0 s run, 25 from 10 s, 30 from 20 s, 40 from
// 30 s, -0.0 from 40 s. One GPU.
//  0: job 1 (key 20) starts.
// 12: job 2 arrives, key 20; then the running job 1 (12 s: 25) writes its value into the newest
//     job's key: job 2 has 25, job 1 keeps 20 and runs on (read as meant, job 1 would have 25 and
//     job 2 would take the GPU).
// 20: job 1 ends; job 3 arrived at 14 with key 25 the same way; jobs 2 and 3 tie at 25: the list
//     order, job 2 first.
// 70: job 4 arrived at 45 (job 2 had run 25 s: key 30); job 5 arrives, and job 2, 50 s run, past
//     every sample, writes -0.0 into it: job 5 sorts first and preempts job 2.
TEST(TiresiasShortestExpectedTest, OnlyTheNewestJobsKeyMoves) {
  const std::string dist = ::testing::TempDir() + "/expected_10_40.csv";
  std::ofstream(dist) << "duration\n10\n20\n30\n40\n";
  PolicyHarness h({{kFast, 1}}, "tiresias-shortest-expected", {"distribution=" + dist});
  h.Submit(1, 1, 0, 100000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
  h.Submit(2, 1, 12, 100000);
  h.ScheduleAt(12);
  h.Submit(3, 1, 14, 100000);
  h.ScheduleAt(14);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
  h.Finish(1, 20);
  h.ScheduleAt(20);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 2 on [0]"));
  h.Submit(4, 1, 45, 100000);
  h.ScheduleAt(45);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
  h.Submit(5, 1, 70, 100000);
  h.ScheduleAt(70);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 2", "start 5 on [0]"));
}

TEST(TiresiasShortestExpectedTest, RejectsBadOptions) {
  auto& registry = Registry<JobScheduler>::Instance();
  EXPECT_TRUE(registry.Create("tiresias-shortest-expected", Options()).ok());  // the shipped distribution
  EXPECT_FALSE(
      registry.Create("tiresias-shortest-expected", *Options::Parse({"distribution=/no/such/file.csv"}))
          .ok());
  const std::string bad = ::testing::TempDir() + "/expected_bad.csv";
  std::ofstream(bad) << "duration\n10\nten\n";
  auto made = registry.Create("tiresias-shortest-expected", *Options::Parse({"distribution=" + bad}));
  ASSERT_FALSE(made.ok());
  EXPECT_THAT(made.status().message(), ::testing::HasSubstr("expected_bad.csv:3: field 'duration'"));
}

}  // namespace
}  // namespace hetsched
