// tiresias-gandiva's steps in the simulator (run_sim.py gandiva_sim_jobs, time_slicing_execute),
// with trace run times as the truth as --compat tiresias runs it: one 4-GPU V100 server and 4-GPU
// jobs, so one job runs at a time and the others are time-sliced behind it. Each expected second
// is the peer's step arithmetic written out. The node sets themselves:
// tests/policies/tiresias_gandiva_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "hetsched/sim/runner.h"
#include "hetsched/sim/simulator.h"

namespace hetsched {
namespace {

Job FourGpuJob(JobId id, double submit_s, double runtime_s) {
  Job j;
  j.spec.id = id;
  j.spec.name = "job" + std::to_string(id);
  j.spec.model = "resnet50";
  j.spec.num_gpus = 4;
  j.spec.parallelism = Parallelism::kDataRing;
  j.spec.iterations = 1000;
  j.spec.submit_time_s = submit_s;
  j.truth.total_iterations = 1000;
  j.truth.runtime_s = runtime_s;
  return j;
}

RunRecord RunGandiva(std::vector<Job> jobs, int gpus = 4) {
  Workload w;
  w.jobs = std::move(jobs);
  w.runtime_device = "v100";
  auto cluster = MakeShorthandCluster({{"v100", gpus}}, 4, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn());
  EXPECT_TRUE(cluster.ok());
  MethodChoice choice;
  choice.policy = "tiresias-gandiva";
  choice.placer = "yarn";
  SimOptions options;  // --compat tiresias
  options.restart_cost_s = 0;
  options.contention = false;
  options.whole_second_completions = true;
  options.full_audit_every = 1;
  auto run = RunSimulation(*cluster, ModelZoo::BuiltIn(), w, choice, options);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  return run.ok() ? std::move(run).value() : RunRecord{};
}

// Jobs 0 (100 s) and 1 (45 s) at 0 share the node set (job 1 time-sliced behind job 0). Steps at
// 0, 10, 20, ...: at 60 (60 % 60 == 0) job 0, run 60 s, moves behind job 1. Job 1 is credited 10 s
// a step from 70: 40 at 100, 50 >= 45 at 110, so it ends at 110 (its work was done at 105; the
// peer sees ends only at steps). Job 0 then runs again: 60 + 40 = 100 at 150. Each switch is a
// preemption here (free: --restart-cost 0).
TEST(TiresiasGandivaTest, TimeSlicesEverySixtySecondsAndEndsOnTheStepGrid) {
  const RunRecord run = RunGandiva({FourGpuJob(0, 0, 100), FourGpuJob(1, 0, 45)});
  ASSERT_EQ(run.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(run.jobs[0].finish_s, 150);
  EXPECT_DOUBLE_EQ(run.jobs[1].first_start_s, 60);
  EXPECT_DOUBLE_EQ(run.jobs[1].finish_s, 110);
  EXPECT_EQ(run.jobs[0].preemptions, 1);
  EXPECT_EQ(run.jobs[1].preemptions, 0);
}

// An arrival off the 10 s grid moves the grid: job 2 comes at 25, so the steps are 0, 10, 20, 25,
// 35, ... and no step falls on a multiple of 60 again: no switch ever. Job 0 (100 s) runs to the
// step 105, job 1 (50 s) then to 155, job 2 (30 s) to 185.
TEST(TiresiasGandivaTest, AnArrivalOffTheGridStopsTheSwitches) {
  const RunRecord run = RunGandiva({FourGpuJob(0, 0, 100), FourGpuJob(1, 0, 50), FourGpuJob(2, 25, 30)});
  ASSERT_EQ(run.jobs.size(), 3u);
  EXPECT_DOUBLE_EQ(run.jobs[0].finish_s, 105);
  EXPECT_DOUBLE_EQ(run.jobs[1].finish_s, 155);
  EXPECT_DOUBLE_EQ(run.jobs[2].finish_s, 185);
  for (const JobRecord& job : run.jobs) EXPECT_EQ(job.preemptions, 0);
}

// Job 0 (22 s) is done at 22, held to the step at 30; job 1 arrives at 25, a step: job 0 ends
// there (JCT 25), its node set frees the node, and job 1 makes a new one on it and starts at 25,
// once job 0's finish has given the devices back; it ends at the step 35.
TEST(TiresiasGandivaTest, AnArrivalsStepEndsAJobWhoseWorkIsDone) {
  const RunRecord run = RunGandiva({FourGpuJob(0, 0, 22), FourGpuJob(1, 25, 10)});
  ASSERT_EQ(run.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(run.jobs[0].finish_s, 25);
  EXPECT_DOUBLE_EQ(run.jobs[1].first_start_s, 25);
  EXPECT_DOUBLE_EQ(run.jobs[1].finish_s, 35);
}

// A job no node set can hold (8 GPUs on a 4-GPU cluster) is never placeable: the run stops with an
// input error, rather than stepping for ever as the peer does (the simulator refuses it first;
// the policy would report it never placeable too).
TEST(TiresiasGandivaTest, AJobLargerThanTheClusterIsAnError) {
  Workload w;
  w.jobs = {FourGpuJob(0, 0, 10)};
  w.jobs[0].spec.num_gpus = 8;
  w.runtime_device = "v100";
  auto cluster = MakeShorthandCluster({{"v100", 4}}, 4, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn());
  ASSERT_TRUE(cluster.ok());
  MethodChoice choice;
  choice.policy = "tiresias-gandiva";
  choice.placer = "yarn";
  auto run = RunSimulation(*cluster, ModelZoo::BuiltIn(), w, choice, SimOptions{});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().ToString(), ::testing::HasSubstr("can never fit"));
}

}  // namespace
}  // namespace hetsched
