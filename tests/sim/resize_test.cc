// Golden scenarios for resizing a running job (SchedContext::ResizeOn, Simulator::ResizeJob):
// the elastic re-rendezvous against the checkpoint restart, with every time worked out by hand
// (sim_world.h: one iteration takes 3 ms on any number of devices; the "unit" model has no
// parameters, so an elastic resize costs exactly the rendezvous time, no broadcast).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sim/runner.h"
#include "hetsched/sim/simulator.h"
#include "sim_world.h"

namespace hetsched {
namespace {

using testing_util::MakeSimWorld;
using testing_util::MakeWorkload;
using testing_util::UnitJob;

// What the scripted scheduler saw; owned by the test, since Simulate destroys the scheduler.
struct ResizeSeen {
  bool accepted = false;
  double announced_pause_s = -1;
};

// Starts job 0 on `start` at t = 0, and at t = 10 moves it onto `to` (records in `seen` whether
// the context accepted it and the pause it announced): a resize (SchedContext::ResizeOn), or a
// hand-over (SchedContext::HandOver), after which job 1, where `second_job`, is started on the
// devices job 0 left.
class ScriptedChange : public JobScheduler {
 public:
  enum class Kind { kResize, kHandOver };
  ScriptedChange(Kind kind, std::vector<DeviceId> start, std::vector<DeviceId> to, bool second_job, ResizeSeen* seen)
      : kind_(kind), start_(std::move(start)), to_(std::move(to)), second_job_(second_job), seen_(seen) {}
  std::string_view name() const override { return "scripted-change"; }
  void OnJobSubmitted(const JobStatus&, SchedContext&) override {}
  void OnJobFinished(const JobStatus&, SchedContext&) override {}
  void OnJobRequeued(const JobStatus&, SchedContext&) override {}
  void OnJobRunning(const JobStatus&, SchedContext&) override {}  // the simulator never calls it
  void Schedule(SchedContext& ctx) override {
    if (ctx.now() == 0 && ctx.job(0).state == JobState::kPending) {
      ASSERT_TRUE(ctx.StartOn(0, start_));
      ctx.WakeUpAt(10);
    } else if (ctx.now() == 10 && !done_) {
      done_ = true;
      const bool hand_over = kind_ == Kind::kHandOver;
      seen_->announced_pause_s = hand_over ? ctx.HandOverPauseS(0, to_) : ctx.ResizePauseS(0, to_);
      seen_->accepted = hand_over ? ctx.HandOver(0, to_) : ctx.ResizeOn(0, to_);
      if (second_job_) {
        ASSERT_TRUE(ctx.StartOn(1, start_));
      }
    }
  }

 private:
  Kind kind_;
  std::vector<DeviceId> start_, to_;
  bool second_job_;
  ResizeSeen* seen_;
  bool done_ = false;
};

struct ResizeOutcome {
  RunRecord run;
  bool accepted = false;
  double announced_pause_s = -1;
};

// Runs `jobs` under the scripted scheduler `make(&seen)` with restart cost 7 s and rendezvous 5 s.
template <typename MakeScheduler>
ResizeOutcome RunScripted(const testing_util::SimWorld& w, std::vector<Job> jobs, MakeScheduler make) {
  const Workload workload = MakeWorkload(std::move(jobs));
  MethodChoice choice;
  choice.placer = "first-fit";
  Result<Methods> methods = CreateMethods(choice);
  EXPECT_TRUE(methods.ok());
  ResizeSeen seen;
  methods->scheduler = make(&seen);
  SimOptions options;
  options.restart_cost_s = 7;
  options.resize_rendezvous_s = 5;
  options.full_audit_every = 1;
  Result<RunRecord> run = Simulate(*w.cluster, w.zoo, workload, std::move(methods).value(), options);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  ResizeOutcome out;
  if (run.ok()) out.run = std::move(run).value();
  out.accepted = seen.accepted;
  out.announced_pause_s = seen.announced_pause_s;
  return out;
}

ResizeOutcome RunScript(const testing_util::SimWorld& w, bool elastic, std::vector<DeviceId> start,
                        std::vector<DeviceId> resize) {
  // One job asking for 2 GPUs, 30 s of work on them (10,000 iterations of 3 ms).
  Job job = UnitJob(0, 0, 2, 30);
  job.spec.elastic = elastic;
  return RunScripted(w, {job}, [&](ResizeSeen* seen) {
    return std::make_unique<ScriptedChange>(ScriptedChange::Kind::kResize, std::move(start), std::move(resize),
                                            /*second_job=*/false, seen);
  });
}

TEST(ResizeGoldenTest, ElasticGrowPaysTheRendezvousOnly) {
  auto w = MakeSimWorld();
  const ResizeOutcome o = RunScript(*w, /*elastic=*/true, {0, 1}, {0, 1, 2, 3});
  ASSERT_TRUE(o.accepted);
  EXPECT_DOUBLE_EQ(o.announced_pause_s, 5);
  // 0-10 s on 2 GPUs: 10 of the 30 s of work. 10-15 s: rendezvous (no progress, 4 GPUs held).
  // From 15 s on 4 GPUs the job runs twice as fast: 20 s of 2-GPU work in 10 s -> ends at 25 s.
  const JobRecord& j = o.run.jobs[0];
  EXPECT_NEAR(j.finish_s, 25, 1e-6);
  EXPECT_EQ(j.resizes, 1);
  EXPECT_DOUBLE_EQ(j.resize_pause_s, 5);
  EXPECT_EQ(j.preemptions, 0);
  EXPECT_NEAR(j.gpu_seconds, 2 * 10 + 4 * 15, 1e-6);  // 80 GPU-s, the pause included
  EXPECT_NEAR(j.first_start_s, 0, 1e-12);
}

TEST(ResizeGoldenTest, ElasticShrinkSlowsTheJobAfterTheRendezvous) {
  auto w = MakeSimWorld();
  // Start on 4 GPUs (twice the request): 0-10 s does 20 s of 2-GPU work; 10-15 s pause;
  // the last 10 s of work on 2 GPUs: ends at 25 s. GPU-s: 4 x 10 + 2 x 15 = 70.
  const ResizeOutcome o = RunScript(*w, true, {0, 1, 2, 3}, {0, 1});
  ASSERT_TRUE(o.accepted);
  EXPECT_NEAR(o.run.jobs[0].finish_s, 25, 1e-6);
  EXPECT_NEAR(o.run.jobs[0].gpu_seconds, 70, 1e-6);
  EXPECT_EQ(o.run.jobs[0].preemptions, 0);
}

TEST(ResizeGoldenTest, ANonElasticJobPaysACheckpointRestart) {
  auto w = MakeSimWorld();
  // The same grow as above, but the job is not elastic: restart cost 7 s, counted as a
  // preemption. 0-10 s: 10 s of work; 10-17 s: restart; 20 s of work on 4 GPUs in 10 s: 27 s.
  const ResizeOutcome o = RunScript(*w, false, {0, 1}, {0, 1, 2, 3});
  ASSERT_TRUE(o.accepted);
  EXPECT_DOUBLE_EQ(o.announced_pause_s, 7);
  EXPECT_NEAR(o.run.jobs[0].finish_s, 27, 1e-6);
  EXPECT_EQ(o.run.jobs[0].preemptions, 1);
  EXPECT_EQ(o.run.jobs[0].resizes, 1);
  EXPECT_DOUBLE_EQ(o.run.jobs[0].resize_pause_s, 7);
}

TEST(ResizeGoldenTest, AMoveThatKeepsNoWorkerIsACheckpointRestartEvenWhenElastic) {
  auto w = MakeSimWorld(/*nodes=*/2, /*per_node=*/4);
  // From devices 0,1 (node 0) to 4,5 (node 1): no worker survives to hold the state in memory.
  // 0-10 s: 10 s of work; 10-17 s: restart; the last 20 s of work on 2 GPUs: ends at 37 s.
  const ResizeOutcome o = RunScript(*w, true, {0, 1}, {4, 5});
  ASSERT_TRUE(o.accepted);
  EXPECT_DOUBLE_EQ(o.announced_pause_s, 7);
  EXPECT_NEAR(o.run.jobs[0].finish_s, 37, 1e-6);
  EXPECT_EQ(o.run.jobs[0].preemptions, 1);
}

TEST(ResizeGoldenTest, TheSameDevicesCostNothing) {
  auto w = MakeSimWorld();
  const ResizeOutcome o = RunScript(*w, true, {0, 1}, {1, 0});
  ASSERT_TRUE(o.accepted);
  EXPECT_DOUBLE_EQ(o.announced_pause_s, 0);
  EXPECT_NEAR(o.run.jobs[0].finish_s, 30, 1e-6);
  EXPECT_EQ(o.run.jobs[0].resizes, 0);
}

// Hand-overs (SchedContext::HandOver, perf/elastic_resize.h HandOverCostOf).
ResizeOutcome RunHandOver(bool elastic, std::vector<DeviceId> start, std::vector<DeviceId> to, bool second_job) {
  auto w = MakeSimWorld(/*nodes=*/2, /*per_node=*/4);
  Job job = UnitJob(0, 0, 2, 30);
  job.spec.elastic = elastic;
  std::vector<Job> jobs{job};
  if (second_job) jobs.push_back(UnitJob(1, 0, 2, 30));
  return RunScripted(*w, std::move(jobs), [&](ResizeSeen* seen) {
    return std::make_unique<ScriptedChange>(ScriptedChange::Kind::kHandOver, std::move(start), std::move(to),
                                            second_job, seen);
  });
}

TEST(HandOverGoldenTest, AnElasticJobMovesOffItsNodeForTwoRendezvous) {
  // Node 0's devices 0,1 to node 1's 4,5: the unit model has no state to broadcast (and the links
  // no latency), so the pause is two rendezvous: 10 s. 0-10 s: 10 s of work; 10-20 s: paused on
  // 4,5; the last 20 s of work: ends at 40 s. No preemption: the job kept its state in memory.
  const ResizeOutcome o = RunHandOver(true, {0, 1}, {4, 5}, false);
  ASSERT_TRUE(o.accepted);
  EXPECT_DOUBLE_EQ(o.announced_pause_s, 10);
  const JobRecord& j = o.run.jobs[0];
  EXPECT_NEAR(j.finish_s, 40, 1e-6);
  EXPECT_EQ(j.resizes, 1);
  EXPECT_DOUBLE_EQ(j.resize_pause_s, 10);
  EXPECT_EQ(j.preemptions, 0);
  EXPECT_NEAR(j.gpu_seconds, 2 * 10 + 2 * 30, 1e-6);
}

TEST(HandOverGoldenTest, AJobStartedOnTheDevicesLeftWaitsForTheBroadcast) {
  // Job 1 starts on 0,1 at t = 10, as job 0 leaves them: their old workers hold them through the
  // first rendezvous and the broadcast (5 s), so job 1 runs from 15 s and ends at 45 s.
  const ResizeOutcome o = RunHandOver(true, {0, 1}, {4, 5}, true);
  ASSERT_TRUE(o.accepted);
  EXPECT_NEAR(o.run.jobs[0].finish_s, 40, 1e-6);
  EXPECT_NEAR(o.run.jobs[1].first_start_s, 10, 1e-12);
  EXPECT_NEAR(o.run.jobs[1].finish_s, 45, 1e-6);
}

TEST(HandOverGoldenTest, NoHandOverForARigidJobOrOntoItsOwnDevices) {
  // Not elastic: the back end cannot (infinite price, refused); the job runs on where it was.
  ResizeOutcome o = RunHandOver(false, {0, 1}, {4, 5}, false);
  EXPECT_FALSE(o.accepted);
  EXPECT_TRUE(std::isinf(o.announced_pause_s));
  EXPECT_NEAR(o.run.jobs[0].finish_s, 30, 1e-6);
  // Onto a device it holds: refused (a hand-over takes free devices only).
  o = RunHandOver(true, {0, 1}, {1, 4}, false);
  EXPECT_FALSE(o.accepted);
  EXPECT_TRUE(std::isinf(o.announced_pause_s));
  EXPECT_NEAR(o.run.jobs[0].finish_s, 30, 1e-6);
  EXPECT_EQ(o.run.jobs[0].resizes, 0);
}

}  // namespace
}  // namespace hetsched
