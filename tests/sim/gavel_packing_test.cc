// Gavel's round mechanism with pairs (RoundPolicy's packing; docs/space_sharing.md) on the
// simulator, every time worked out by hand on sim_world.h's world, with a stand-in allocation
// (the packed policies' solvers are tested in tests/policies).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/perf/validation.h"
#include "hetsched/policies/gavel/policy.h"
#include "hetsched/sim/runner.h"
#include "hetsched/sim/simulator.h"
#include "sim_world.h"

namespace hetsched {
namespace {

using testing_util::MakeSimWorld;
using testing_util::MakeWorkload;
using testing_util::UnitJob;

// An allocation that gives every pair all the time on type 0 and the singles none.
Result<gavel::Allocation> PairsOnly(const gavel::AllocationProblem& problem, lp::WarmStartLpSolver&) {
  gavel::Allocation out = gavel::ZeroAllocation(problem);
  for (size_t p = 0; p < out.pair_share.size(); ++p) out.pair_share[p][0] = 1.0;
  return out;
}

std::unique_ptr<gavel::RoundPolicy> PackingPolicy(bool finish_with_pair = false) {
  auto policy = std::make_unique<gavel::LpRoundPolicy>("test-pairs", 360, false, PairsOnly);
  gavel::GavelMechanismOptions mechanism;
  mechanism.enabled = true;
  mechanism.finish_with_pair = finish_with_pair;
  policy->SetGavelMechanism(mechanism);
  policy->SetPacking(true);
  return policy;
}

// Job 0: unit, 3,000 steps of 3 ms; job 1: half, 600 steps of 6 ms, both at 0 s on one device.
// The policy sees them paired at 2/3 of their speeds (the co-location model): 222.2 and 111.1
// steps/s; both fit their first micro-task (13.5 s and 5.4 s), which ends at 13.5 s.
Result<RunRecord> RunPairOnOneDevice(bool finish_with_pair) {
  auto w = MakeSimWorld(/*nodes=*/1, /*per_node=*/1);
  ModelProfile half = *w->zoo.Find("unit");
  half.name = "half";
  half.host_seconds_per_iteration = 0.003;  // a 6 ms step, half of it waiting on its input
  w->zoo.Add(half);
  Job second = UnitJob(1, 0, 1, 3.6);
  second.spec.model = "half";
  second.spec.iterations = 600;
  second.truth.total_iterations = 600;
  const Workload workload = MakeWorkload({UnitJob(0, 0, 1, 9), second});
  MethodChoice choice;
  choice.placer = "first-fit";
  Result<Methods> methods = CreateMethods(choice);
  if (!methods.ok()) return methods.status();
  methods->scheduler = PackingPolicy(finish_with_pair);
  SimOptions options;
  options.restart_cost_s = 0;
  options.full_audit_every = 1;
  return Simulate(*w->cluster, w->zoo, workload, std::move(methods).value(), options);
}

TEST(GavelPackingTest, APairRunsAsOneMicroTaskOnSharedDevices) {
  // On the one device together from 0 s: job 1 ends at 5.4 s, job 0 has done 1,200 steps by then
  // and runs its last 1,800 alone in 5.4 s: it ends at 10.8 s.
  Result<RunRecord> run = RunPairOnOneDevice(/*finish_with_pair=*/false);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_NEAR(run->jobs[0].first_start_s, 0, 1e-9);
  EXPECT_NEAR(run->jobs[1].first_start_s, 0, 1e-9);
  EXPECT_NEAR(run->jobs[1].finish_s, 5.4, 1e-6);
  EXPECT_NEAR(run->jobs[0].finish_s, 10.8, 1e-6);
  EXPECT_EQ(run->jobs[0].preemptions + run->jobs[1].preemptions, 0);
}

TEST(GavelPackingTest, WithPairFinishBothJobsOfAPairFinishAtItsMicroTasksEnd) {
  // Gavel's record (pair_finish=micro_task, scheduler.py:1305-1313): the pair's micro-task ends with
  // its later member, job 0's 3,000 steps at 222.2 steps/s: 13.5 s, and both jobs finish then.
  // Their work ends as above (job 1 at 5.4 s, job 0, alone after it, at 10.8 s): each holds the
  // device idle from then, not charged (device time 5.4 s and 10.8 s, as without the option).
  Result<RunRecord> run = RunPairOnOneDevice(/*finish_with_pair=*/true);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_NEAR(run->jobs[1].finish_s, 13.5, 1e-6);
  EXPECT_NEAR(run->jobs[0].finish_s, 13.5, 1e-6);
  EXPECT_NEAR(run->jobs[1].gpu_seconds, 5.4, 1e-6);
  EXPECT_NEAR(run->jobs[0].gpu_seconds, 10.8, 1e-6);
  EXPECT_NEAR(run->jobs[0].iterations_run, 3000, 1e-6);
  EXPECT_NEAR(run->jobs[1].iterations_run, 600, 1e-6);
  EXPECT_EQ(run->jobs[0].preemptions + run->jobs[1].preemptions, 0);
  // The device is busy while either job works (0-10.8 s), then idle to the finishes.
  ASSERT_FALSE(run->timeline.empty());
  EXPECT_EQ(run->timeline.front().busy_devices, 1);
  EXPECT_NEAR(run->timeline.back().time_s, 13.5, 1e-6);
  EXPECT_EQ(run->timeline.back().busy_devices, 0);
  bool idle_at_work_end = false;
  for (const auto& s : run->timeline) {
    if (std::abs(s.time_s - 10.8) < 1e-6) idle_at_work_end = s.busy_devices == 0;
  }
  EXPECT_TRUE(idle_at_work_end);
}

// A pair the back end declines while the policy's rates say it can run: the simulator's truth is
// Gavel's measured table, which has A3C beside ResNet-50 (batch 128) at 0 on a V100, and the
// policy, without Gavel's pair table, sees the co-location model's factor (> 0). Planned once (the
// stand-in allocation gives the pair all the time), its host runs alone and idle for that round,
// and the pair is dropped on the type (rates 0), so that the singles run (drawn at priority 0: the
// allocation gives them nothing) and both jobs finish. Before the drop the pair was planned at every
// round, its jobs taken and idle, and the run stopped as making no progress (the demo's
// gavel-las-packed with its pair columns priced in, 2026-12-05).
TEST(GavelPackingTest, APairTheBackEndDeclinesIsDroppedOnThatType) {
  const DeviceCatalog devices = DeviceCatalog::BuiltIn();
  const LinkCatalog links = LinkCatalog::BuiltIn();
  auto cluster = MakeShorthandCluster({{"v100", 1}}, 1, devices, links);
  ASSERT_TRUE(cluster.ok());
  auto table = MeasuredThroughputs::Load("data/real/gavel/throughputs.csv", devices);
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE(table->LoadPairs("data/real/gavel/pair_throughputs.csv", devices).ok());
  auto job = [](JobId id, const char* type, const char* model, int batch) {
    Job j = UnitJob(id, 0, 1, 3);
    j.spec.model = model;
    j.spec.batch_size = batch;
    j.spec.iterations = 2000;
    j.truth.total_iterations = 2000;
    j.truth.measured_job_type = type;
    return j;
  };
  MethodChoice choice;
  choice.placer = "first-fit";
  Result<Methods> methods = CreateMethods(choice);
  ASSERT_TRUE(methods.ok());
  methods->scheduler = PackingPolicy();
  SimOptions options;
  options.measured_throughputs = &*table;
  options.contention = false;
  options.restart_cost_s = 0;
  const Workload workload =
      MakeWorkload({job(0, "A3C", "a3c", 4), job(1, "ResNet-50 (batch size 128)", "resnet50", 128)});
  Result<RunRecord> run = Simulate(*cluster, ModelZoo::BuiltIn(), workload, std::move(methods).value(), options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->jobs.size(), 2u);
  for (const auto& j : run->jobs) EXPECT_TRUE(std::isfinite(j.finish_s) && j.finish_s > 0);
  // Never together: the device-seconds are the two runs' own, one after the other.
  EXPECT_GE(std::max(run->jobs[0].finish_s, run->jobs[1].finish_s),
            run->jobs[0].gpu_seconds + run->jobs[1].gpu_seconds - 1e-6);
}

// An allocation that gives every single job all the time on type 0.
Result<gavel::Allocation> SinglesOnType0(const gavel::AllocationProblem& problem, lp::WarmStartLpSolver&) {
  gavel::Allocation out = gavel::ZeroAllocation(problem);
  for (auto& row : out.share) row[0] = 1.0;
  return out;
}

TEST(GavelMechanismTest, AJobWhoseTrueWorkOutlastsItsStepsRunsWholeRoundsToItsEnd) {
  auto w = MakeSimWorld(/*nodes=*/1, /*per_node=*/1);
  // The job reports 3,000 steps of 3 ms (9 s) but its true work is 6,000 (18 s). 5 s rounds: its
  // first micro-task runs floor(333.3 x 5) = 1,666 steps (to 4.998 s), its second the 1,334 it
  // reports left, to its end (9 s). From then on every reported step is done: each micro-task is
  // a whole round run towards its end ([REC] ReportedProgress::overrun; before, each failed with 0
  // steps and the fifth dropped the job), and it ends at 18 s with no pause between.
  Job job = UnitJob(0, 0, 1, 9);
  job.truth.total_iterations = 6000;
  MethodChoice choice;
  choice.placer = "first-fit";
  Result<Methods> methods = CreateMethods(choice);
  ASSERT_TRUE(methods.ok());
  auto policy = std::make_unique<gavel::LpRoundPolicy>("test-singles", 5, false, SinglesOnType0);
  gavel::GavelMechanismOptions mechanism;
  mechanism.enabled = true;
  policy->SetGavelMechanism(mechanism);
  methods->scheduler = std::move(policy);
  SimOptions options;
  options.restart_cost_s = 0;
  options.full_audit_every = 1;
  Result<RunRecord> run = Simulate(*w->cluster, w->zoo, MakeWorkload({job}), std::move(methods).value(), options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_LT(run->jobs[0].dropped_s, 0) << "dropped at " << run->jobs[0].dropped_s;
  EXPECT_NEAR(run->jobs[0].finish_s, 18, 1e-6);
  EXPECT_NEAR(run->jobs[0].iterations_run, 6000, 1e-6);
}

}  // namespace
}  // namespace hetsched
