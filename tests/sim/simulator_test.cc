// Golden scenarios for the simulator: a few jobs on a tiny cluster, with every expected time
// worked out by hand (see sim_world.h for why one iteration takes exactly 3 ms).
#include "hetsched/sim/simulator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "hetsched/sim/runner.h"
#include "sim_world.h"

namespace hetsched {
namespace {

using testing_util::MakeSimWorld;
using testing_util::MakeWorkload;
using testing_util::UnitJob;

RunRecord MustRun(const testing_util::SimWorld& w, const Workload& workload, const std::string& policy,
                  const std::vector<std::string>& policy_opts = {}, double restart_cost_s = 0,
                  const std::string& placer = "first-fit") {
  MethodChoice choice;
  choice.policy = policy;
  choice.policy_options = *Options::Parse(policy_opts);
  choice.placer = placer;
  SimOptions options;
  options.restart_cost_s = restart_cost_s;
  options.full_audit_every = 1;  // audit after every scheduling call in golden runs
  auto run = RunSimulation(*w.cluster, w.zoo, workload, choice, options);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  return run.ok() ? std::move(run).value() : RunRecord{};
}

// A: 3 GPUs at t=0 for 30 s.  B: 4 GPUs at t=1 for 30 s.  C: 1 GPU at t=2 for 3 s.
Workload BackfillScenario() {
  return MakeWorkload({UnitJob(0, 0, 3, 30), UnitJob(1, 1, 4, 30), UnitJob(2, 2, 1, 3)});
}

// The run's wall time comes from the injected clock (SimOptions::wall_clock), read once before
// and once after the run: a test can make that figure repeat.
TEST(SimulatorGoldenTest, WallTimeComesFromTheInjectedClock) {
  auto w = MakeSimWorld();
  MethodChoice choice;
  choice.placer = "first-fit";
  SimOptions options;
  double clock_s = 100;
  options.wall_clock = [&clock_s] { return clock_s += 2.5; };
  auto run = RunSimulation(*w->cluster, w->zoo, BackfillScenario(), choice, options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->wall_seconds, 2.5);
  EXPECT_EQ(clock_s, 105);
}

TEST(SimulatorGoldenTest, FifoWithoutBackfillBlocksBehindTheHead) {
  auto w = MakeSimWorld();
  RunRecord run = MustRun(*w, BackfillScenario(), "fifo", {"backfill=none"});
  ASSERT_EQ(run.jobs.size(), 3u);
  // A runs 0-30. B (4 GPUs) waits for A: 30-60. C is behind B in strict FIFO: 60-63.
  EXPECT_NEAR(run.jobs[0].finish_s, 30, 1e-6);
  EXPECT_NEAR(run.jobs[1].first_start_s, 30, 1e-6);
  EXPECT_NEAR(run.jobs[1].finish_s, 60, 1e-6);
  EXPECT_NEAR(run.jobs[2].first_start_s, 60, 1e-6);
  EXPECT_NEAR(run.jobs[2].jct_s(), 61, 1e-6);  // 63 - 2
}

TEST(SimulatorGoldenTest, EasyBackfillRunsTheShortJobInTheHole) {
  auto w = MakeSimWorld();
  RunRecord run = MustRun(*w, BackfillScenario(), "fifo", {"backfill=easy"});
  // At t=2 one GPU is free; B's reservation is at t=30 (A's end); C ends at 5 <= 30: backfilled.
  EXPECT_NEAR(run.jobs[2].first_start_s, 2, 1e-6);
  EXPECT_NEAR(run.jobs[2].finish_s, 5, 1e-6);
  // B is not delayed by the backfill.
  EXPECT_NEAR(run.jobs[1].first_start_s, 30, 1e-6);
  EXPECT_NEAR(run.jobs[1].finish_s, 60, 1e-6);
  // Accounting: A held 3 GPUs x 30 s = 90 GPU-s -> $0.09 at $3.6/h; busy energy 90 x 200 W.
  EXPECT_NEAR(run.jobs[0].gpu_seconds, 90, 1e-6);
  EXPECT_NEAR(run.jobs[0].cost_usd, 0.09, 1e-9);
  EXPECT_NEAR(run.jobs[0].busy_energy_joules, 90 * 200.0, 1e-6);
  EXPECT_NEAR(run.jobs[0].ideal_runtime_s, 30, 1e-6);
}

TEST(SimulatorGoldenTest, SrtfPreemptsTheLongJobAndChargesTheRestart) {
  auto w = MakeSimWorld();
  // L: 4 GPUs at t=0 for 30 s. S: 4 GPUs at t=10 for 3 s. Restart cost 5 s.
  Workload workload = MakeWorkload({UnitJob(0, 0, 4, 30), UnitJob(1, 10, 4, 3)});
  RunRecord run = MustRun(*w, workload, "srtf", {}, /*restart_cost_s=*/5);
  // At t=10 L has 20 s left > S's 3 s: L is preempted, S runs 10-13. L restarts at 13, loads its
  // checkpoint for 5 s (progress resumes at 18) and needs its remaining 20 s: done at 38.
  EXPECT_NEAR(run.jobs[1].first_start_s, 10, 1e-6);
  EXPECT_NEAR(run.jobs[1].finish_s, 13, 1e-6);
  EXPECT_NEAR(run.jobs[0].finish_s, 38, 1e-6);
  EXPECT_EQ(run.jobs[0].preemptions, 1);
  // L held 4 GPUs for 10 s + 25 s = 140 GPU-s.
  EXPECT_NEAR(run.jobs[0].gpu_seconds, 140, 1e-6);
}

TEST(SimulatorGoldenTest, JobThatCanNeverFitIsAnErrorOrSkipped) {
  auto w = MakeSimWorld();
  Workload workload = MakeWorkload({UnitJob(0, 0, 1, 3), UnitJob(1, 1, 8, 3)});
  MethodChoice choice;
  SimOptions options;
  auto run = RunSimulation(*w->cluster, w->zoo, workload, choice, options);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("job 1 ('job1', model unit"), std::string::npos) << run.status().message();
  EXPECT_NE(run.status().message().find("needs 8 devices"), std::string::npos);
  options.skip_unfit_jobs = true;
  auto skipped = RunSimulation(*w->cluster, w->zoo, workload, choice, options);
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ(skipped->jobs_rejected, 1);
  ASSERT_EQ(skipped->jobs.size(), 1u);
  EXPECT_NEAR(skipped->jobs[0].finish_s, 3, 1e-6);
}

TEST(SimulatorGoldenTest, MaxTimeCutsTheRunAndReportsUnfinishedJobs) {
  auto w = MakeSimWorld();
  Workload workload = MakeWorkload({UnitJob(0, 0, 4, 30), UnitJob(1, 1, 4, 30)});
  MethodChoice choice;
  SimOptions options;
  options.max_time_s = 40;
  auto run = RunSimulation(*w->cluster, w->zoo, workload, choice, options);
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->jobs[0].finished());
  EXPECT_FALSE(run->jobs[1].finished());
  EXPECT_NEAR(run->jobs[1].gpu_seconds, 4 * 10.0, 1e-6);  // held 30-40 before the cut
}

TEST(SimulatorGoldenTest, TimelineIsAStepFunctionOfBusyDevices) {
  auto w = MakeSimWorld();
  RunRecord run = MustRun(*w, BackfillScenario(), "fifo", {"backfill=easy"});
  // 0: 3 busy (A); 1: B pending; 2: C starts -> 4 busy; 5: C ends -> 3; 30: A ends, B starts -> 4;
  // 60: all done -> 0.
  std::vector<std::pair<double, int>> got;
  for (const auto& s : run.timeline) got.emplace_back(s.time_s, s.busy_devices);
  const std::vector<std::pair<double, int>> want{{0, 3}, {1, 3}, {2, 4}, {5, 3}, {30, 4}, {60, 0}};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i].first, want[i].first, 1e-6) << i;
    EXPECT_EQ(got[i].second, want[i].second) << i;
  }
}

// A run that uses no learned component and solves no program never loads LibTorch or COIN-OR
// (learn/backend.h, lp/solver_backend.h): after a FIFO simulation in a fresh process, neither they
// nor their back-end modules are mapped. (tests/learn's and tests/lp's back-end tests show the
// same check seeing them once a back end is loaded.) The check runs in a process of its own (a
// "threadsafe" death test re-executes this binary for this test alone): in the whole binary's
// process an earlier test (Pollux's, Gavel's) has mapped Clp already, so the order of tests would
// decide the outcome.
void RunFifoAndExitWithWhatIsMapped() {
  auto w = MakeSimWorld();
  RunRecord run = MustRun(*w, BackfillScenario(), "fifo");
  if (run.jobs.size() != 3u) {
    std::fprintf(stderr, "the FIFO run recorded %zu jobs, not 3\n", run.jobs.size());
    std::_Exit(3);
  }
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  if (text.str().find("libc.so") == std::string::npos) {
    std::fprintf(stderr, "/proc/self/maps could not be read\n");
    std::_Exit(4);
  }
  int mapped = 0;
  for (const char* lib : {"libtorch", "libc10", "libhetsched_learn_torch", "libClp", "libCbc", "libhetsched_lp_coin"}) {
    if (text.str().find(lib) != std::string::npos) {
      std::fprintf(stderr, "mapped after a FIFO run: %s\n", lib);
      ++mapped;
    }
  }
  std::_Exit(mapped == 0 ? 0 : 1);
}

TEST(SimulatorGoldenTest, FifoRunMapsNoLibTorchAndNoCoinOr) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(RunFifoAndExitWithWhatIsMapped(), testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace hetsched
