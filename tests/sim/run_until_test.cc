// SchedContext::RunUntil (the simulator's hook for Gavel's whole-step micro-tasks): a job runs
// to its progress mark, then holds its devices idle (no progress, not busy, not a preemption, no
// scheduler call) until a later mark resumes it, with no restart cost. And the simulator's stall
// checks: a run with nothing progressing and nothing left to arrive stops with an error naming a
// job. Every expected time is worked out by hand (one iteration = 3 ms, sim_world.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
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

// What the scheduler saw (kept by the test: the simulator owns and destroys the scheduler).
struct Seen {
  std::vector<double> calls;
  std::vector<double> idle_done;
  std::vector<double> idle_executed;
  std::vector<ArrivalsLeft> arrivals;  // ctx.arrivals_left() at each call
};

// Rounds of 10 s; at each round every job runs `steps` more iterations (started if pending).
// With `resume` false a held job is never given a new mark.
class StepScheduler final : public JobScheduler {
 public:
  StepScheduler(double steps, bool resume, bool start, Seen* seen)
      : steps_(steps), resume_(resume), start_(start), seen_(seen) {}
  std::string_view name() const override { return "step"; }
  double round_period_s() const override { return 10; }
  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override { jobs_.push_back(job.spec->id); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    jobs_.erase(std::find(jobs_.begin(), jobs_.end(), job.spec->id));
  }
  void OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRunning(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}  // simulator: never called
  void Schedule(SchedContext& ctx) override {
    seen_->calls.push_back(ctx.now());
    seen_->arrivals.push_back(ctx.arrivals_left());
    if (ctx.now() < next_round_s_) return;
    next_round_s_ = ctx.now() + 10;
    for (JobId id : jobs_) {
      const JobStatus& st = ctx.job(id);
      if (st.state == JobState::kRunning && st.idle) {
        seen_->idle_done.push_back(st.iterations_done);
        seen_->idle_executed.push_back(st.ExecutedS(ctx.now()));
        if (!resume_) continue;
      }
      if (st.state == JobState::kPending && (!start_ || !ctx.TryStart(id, st.spec->num_gpus))) continue;
      ctx.RunUntil(id, ctx.job(id).iterations_done + steps_);
    }
  }

 private:
  double steps_;
  bool resume_;
  bool start_;
  Seen* seen_;
  double next_round_s_ = 0;
  std::vector<JobId> jobs_;
};

struct Outcome {
  Result<RunRecord> run;
  std::unique_ptr<Seen> seen;
};

// `workload` under the scheduler `make` builds (it records what it sees in the Seen it is given),
// with first-fit placement, audited after every call.
template <typename Make>
Outcome RunWith(const testing_util::SimWorld& w, const Workload& workload, Make make, SimOptions options) {
  MethodChoice choice;
  choice.policy = "fifo";
  choice.placer = "first-fit";
  auto methods = CreateMethods(choice);
  EXPECT_TRUE(methods.ok()) << methods.status().ToString();
  auto seen = std::make_unique<Seen>();
  methods->scheduler = make(seen.get());
  options.full_audit_every = 1;
  return {Simulate(*w.cluster, w.zoo, workload, std::move(methods).value(), options), std::move(seen)};
}

Outcome RunStep(const testing_util::SimWorld& w, const Workload& workload, double steps, bool resume = true,
                bool start = true) {
  SimOptions options;
  options.restart_cost_s = 5;  // never charged: a hold is not a preemption
  return RunWith(
      w, workload, [&](Seen* seen) { return std::make_unique<StepScheduler>(steps, resume, start, seen); }, options);
}

TEST(SimulatorRunUntilTest, AJobRunsItsStepsPerRoundAndIdlesTheRest) {
  auto w = MakeSimWorld();
  // 1 GPU, 3,200 iterations (9.6 s alone); 1,000 iterations (3 s) per 10 s round.
  const Workload workload = MakeWorkload({UnitJob(0, 0, 1, 9.6)});
  Outcome out = RunStep(*w, workload, 1000);
  ASSERT_TRUE(out.run.ok()) << out.run.status().ToString();
  const RunRecord& run = *out.run;
  // Runs 0-3, 10-13, 20-23, and at 30 its last 200 iterations: done at 30.6.
  EXPECT_NEAR(run.jobs[0].finish_s, 30.6, 1e-9);
  EXPECT_EQ(run.jobs[0].preemptions, 0);
  EXPECT_NEAR(run.jobs[0].gpu_seconds, 9.6, 1e-9);  // only the time it progressed
  // Held at exactly 1,000, 2,000 and 3,000 iterations, having run 3, 6 and 9 s.
  EXPECT_EQ(out.seen->idle_done, (std::vector<double>{1000, 2000, 3000}));
  ASSERT_EQ(out.seen->idle_executed.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(out.seen->idle_executed[i], 3.0 * (i + 1), 1e-9) << i;
  // Reaching a mark is no scheduling event: calls at the rounds, the completion and the last tick.
  for (double t : {3.0, 13.0, 23.0}) {
    EXPECT_TRUE(std::none_of(out.seen->calls.begin(), out.seen->calls.end(),
                             [t](double c) { return std::abs(c - t) < 1e-6; }))
        << "called at " << t;
  }
  // A held device is not busy: 1 busy in 0-3, 10-13, 20-23, 30-30.6.
  std::vector<std::pair<double, int>> got;
  for (const auto& s : run.timeline) got.emplace_back(s.time_s, s.busy_devices);
  const std::vector<std::pair<double, int>> want{{0, 1},  {3, 0},  {10, 1}, {13, 0},
                                                 {20, 1}, {23, 0}, {30, 1}, {30.6, 0}};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i].first, want[i].first, 1e-9) << i;
    EXPECT_EQ(got[i].second, want[i].second) << i;
  }
}

TEST(SimulatorRunUntilTest, AHeldJobKeepsItsDevices) {
  auto w = MakeSimWorld();
  // Two 4-GPU jobs on the 4-GPU node: while job 0 is held between its steps, job 1 cannot start.
  const Workload workload = MakeWorkload({UnitJob(0, 0, 4, 6), UnitJob(1, 0, 4, 3)});
  Outcome out = RunStep(*w, workload, 1000);
  ASSERT_TRUE(out.run.ok()) << out.run.status().ToString();
  // Job 0: 2,000 iterations: 0-3 and 10-13. Job 1 starts after it, at the round of t=20: 20-23.
  EXPECT_NEAR(out.run->jobs[0].finish_s, 13, 1e-9);
  EXPECT_NEAR(out.run->jobs[1].first_start_s, 20, 1e-9);
  EXPECT_NEAR(out.run->jobs[1].finish_s, 23, 1e-9);
}

// The simulator knows its trace: a job is still to arrive until the call at its submit time.
TEST(SimulatorRunUntilTest, TheSchedulerSeesWhetherJobsAreLeftToArrive) {
  auto w = MakeSimWorld();
  const Workload workload = MakeWorkload({UnitJob(0, 0, 1, 3), UnitJob(1, 25, 1, 3)});
  Outcome out = RunStep(*w, workload, 1000);
  ASSERT_TRUE(out.run.ok()) << out.run.status().ToString();
  ASSERT_EQ(out.seen->calls.size(), out.seen->arrivals.size());
  int before = 0, after = 0;
  for (size_t i = 0; i < out.seen->calls.size(); ++i) {
    const bool left = out.seen->calls[i] < 25;
    EXPECT_EQ(out.seen->arrivals[i], left ? ArrivalsLeft::kSome : ArrivalsLeft::kNone) << "t=" << out.seen->calls[i];
    (left ? before : after)++;
  }
  EXPECT_GT(before, 0);
  EXPECT_GT(after, 0);
}

// Starts job 0 at once, drops it at 10 s (running) and job 1 at 20 s (never started); job 2 runs.
class DropScheduler final : public JobScheduler {
 public:
  std::string_view name() const override { return "drop"; }
  double round_period_s() const override { return 10; }
  void OnJobSubmitted(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobFinished(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRunning(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void Schedule(SchedContext& ctx) override {
    if (ctx.now() == 0) {
      EXPECT_TRUE(ctx.TryStart(0, 1));
      EXPECT_TRUE(ctx.TryStart(2, 1));
    }
    if (ctx.now() == 10) {
      EXPECT_TRUE(ctx.DropJob(0));
    }
    if (ctx.now() == 20) {
      EXPECT_TRUE(ctx.DropJob(1));
    }
  }
};

TEST(SimulatorRunUntilTest, ADroppedJobLeavesTheRunUnfinishedAndIsCounted) {
  auto w = MakeSimWorld();
  // Job 0: 1 GPU, 100 s alone; job 1 waits; job 2: 1 GPU, 30 s.
  const Workload workload = MakeWorkload({UnitJob(0, 0, 1, 100), UnitJob(1, 0, 1, 3), UnitJob(2, 0, 1, 30)});
  MethodChoice choice;
  choice.policy = "fifo";
  choice.placer = "first-fit";
  auto methods = CreateMethods(choice);
  ASSERT_TRUE(methods.ok());
  methods->scheduler = std::make_unique<DropScheduler>();
  SimOptions options;
  options.full_audit_every = 1;  // the job accounting, dropped jobs included, at every call
  const Result<RunRecord> run = Simulate(*w->cluster, w->zoo, workload, std::move(methods).value(), options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->jobs_dropped, 2);
  EXPECT_EQ(run->jobs[0].dropped_s, 10);
  EXPECT_EQ(run->jobs[0].finish_s, -1);
  EXPECT_NEAR(run->jobs[0].gpu_seconds, 10, 1e-9);  // held its GPU until dropped
  EXPECT_EQ(run->jobs[1].dropped_s, 20);
  EXPECT_EQ(run->jobs[1].first_start_s, -1);
  EXPECT_NEAR(run->jobs[2].finish_s, 30, 1e-9);
  EXPECT_EQ(run->jobs[2].dropped_s, -1);
}

TEST(SimulatorRunUntilTest, AJobHeldForeverEndsTheRunWithAnErrorNamingIt) {
  auto w = MakeSimWorld();
  const Workload workload = MakeWorkload({UnitJob(0, 0, 1, 9.6)});
  Outcome out = RunStep(*w, workload, 1000, /*resume=*/false);
  ASSERT_FALSE(out.run.ok());
  EXPECT_EQ(out.run.status().code(), StatusCode::kInternal);
  EXPECT_NE(out.run.status().message().find("makes no progress: job 0 ('job0', 1 GPU(s)"), std::string::npos)
      << out.run.status().message();
}

TEST(SimulatorRunUntilTest, APolicyThatNeverStartsAJobIsStoppedNotRunToMaxTime) {
  auto w = MakeSimWorld();
  const Workload workload = MakeWorkload({UnitJob(0, 0, 1, 3), UnitJob(1, 5, 2, 3)});
  Outcome out = RunStep(*w, workload, 1000, /*resume=*/true, /*start=*/false);
  ASSERT_FALSE(out.run.ok());
  const std::string message = out.run.status().message();
  EXPECT_NE(message.find("policy 'step' makes no progress: job 0 ('job0', 1 GPU(s), submitted at 0"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("and 1 other(s)"), std::string::npos) << message;
  // Stopped after 10,000 calls of 10 s rounds from the last arrival's call, not at max_time.
  EXPECT_LT(out.seen->calls.back(), 2e5);
}

// SchedContext::HoldFinishUntil (Gavel's record of a pair micro-task, docs/space_sharing.md): at
// its first call the scheduler starts job 0 and holds its finish to `hold_s`; at `act_s` (a
// wake-up) it preempts the job, or (`mark`) gives it a new RunUntil mark.
class HoldFinishScheduler final : public JobScheduler {
 public:
  HoldFinishScheduler(double hold_s, double act_s, bool preempt, Seen* seen, bool batch = false)
      : hold_s_(hold_s), act_s_(act_s), preempt_(preempt), batch_(batch), seen_(seen) {}
  std::string_view name() const override { return "hold-finish"; }
  void OnJobSubmitted(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobFinished(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRunning(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void Schedule(SchedContext& ctx) override {
    seen_->calls.push_back(ctx.now());
    const JobStatus& st = ctx.job(0);
    if (st.state == JobState::kPending) {
      ASSERT_TRUE(ctx.TryStart(0, 1));
      if (batch_) {
        // Job 1 is pending: left alone.
        const JobId ids[] = {0, 1};
        ctx.HoldFinishesUntil(ids, hold_s_);
      } else {
        ctx.HoldFinishUntil(0, hold_s_);
      }
      if (act_s_ > 0) ctx.WakeUpAt(act_s_);
      return;
    }
    if (batch_ && st.state == JobState::kFinished && ctx.job(1).state == JobState::kPending) {
      ASSERT_TRUE(ctx.TryStart(1, 1));  // never held: it finishes when its work ends
      return;
    }
    if (ctx.now() != act_s_ || st.state != JobState::kRunning) return;
    seen_->idle_done.push_back(st.idle ? st.iterations_done : -1);
    if (preempt_) {
      ctx.Preempt(0);
    } else {
      ctx.RunUntil(0, std::numeric_limits<double>::infinity());
    }
  }

 private:
  double hold_s_, act_s_;
  bool preempt_;
  bool batch_;  // SchedContext::HoldFinishesUntil, not HoldFinishUntil
  Seen* seen_;
};

Outcome RunHoldFinish(double hold_s, double act_s = -1, bool preempt = false, bool batch = false) {
  auto w = MakeSimWorld();
  // 1 GPU, 3,000 iterations: its work ends at 9 s. With `batch`, job 1 too, started once job 0 ends.
  std::vector<Job> jobs{UnitJob(0, 0, 1, 9)};
  if (batch) jobs.push_back(UnitJob(1, 0, 1, 9));
  return RunWith(
      *w, MakeWorkload(std::move(jobs)),
      [&](Seen* seen) { return std::make_unique<HoldFinishScheduler>(hold_s, act_s, preempt, seen, batch); },
      SimOptions{});
}

TEST(SimulatorHoldFinishTest, AJobWhoseWorkEndsBeforeItsHoldFinishesAtTheHoldIdleMeanwhile) {
  Outcome out = RunHoldFinish(/*hold_s=*/20);
  ASSERT_TRUE(out.run.ok()) << out.run.status().ToString();
  const RunRecord& run = *out.run;
  EXPECT_NEAR(run.jobs[0].finish_s, 20, 1e-9);
  EXPECT_NEAR(run.jobs[0].iterations_run, 3000, 1e-9);
  EXPECT_NEAR(run.jobs[0].gpu_seconds, 9, 1e-9);  // the idle hold is not charged
  EXPECT_EQ(run.jobs[0].preemptions, 0);
  // Reaching its work's end is no scheduling event; its finish at 20 s is.
  EXPECT_EQ(out.seen->calls, (std::vector<double>{0, 20}));
  // Busy 0-9 s, held idle 9-20 s.
  std::vector<std::pair<double, int>> got;
  for (const auto& s : run.timeline) got.emplace_back(s.time_s, s.busy_devices);
  const std::vector<std::pair<double, int>> want{{0, 1}, {9, 0}, {20, 0}};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i].first, want[i].first, 1e-9) << i;
    EXPECT_EQ(got[i].second, want[i].second) << i;
  }
}

// The simulator's HoldFinishesUntil (one call for many jobs) holds each running job as
// HoldFinishUntil would and leaves a job not running alone: the same run, call for call.
TEST(SimulatorHoldFinishTest, HoldFinishesUntilIsHoldFinishUntilForEachRunningJob) {
  for (double hold_s : {5.0, 9.0, 20.0}) {
    for (double act_s : {-1.0, 15.0}) {
      Outcome one = RunHoldFinish(hold_s, act_s, /*preempt=*/false, /*batch=*/false);
      Outcome many = RunHoldFinish(hold_s, act_s, /*preempt=*/false, /*batch=*/true);
      ASSERT_TRUE(one.run.ok()) << one.run.status().ToString();
      ASSERT_TRUE(many.run.ok()) << many.run.status().ToString();
      EXPECT_EQ(many.run->jobs[0].finish_s, one.run->jobs[0].finish_s) << hold_s << " " << act_s;
      EXPECT_EQ(many.run->jobs[0].gpu_seconds, one.run->jobs[0].gpu_seconds) << hold_s << " " << act_s;
      EXPECT_EQ(many.seen->idle_done, one.seen->idle_done) << hold_s << " " << act_s;
      EXPECT_NEAR(many.run->jobs[1].finish_s, one.run->jobs[0].finish_s + 9, 1e-9) << hold_s << " " << act_s;
    }
  }
  EXPECT_NEAR(RunHoldFinish(20, -1, false, true).run->jobs[0].finish_s, 20, 1e-9);
}

TEST(SimulatorHoldFinishTest, AHoldNotAfterTheWorksEndChangesNothing) {
  for (double hold_s : {5.0, 9.0}) {
    Outcome out = RunHoldFinish(hold_s);
    ASSERT_TRUE(out.run.ok()) << out.run.status().ToString();
    EXPECT_NEAR(out.run->jobs[0].finish_s, 9, 1e-9) << hold_s;
  }
}

TEST(SimulatorHoldFinishTest, ANewMarkLeavesAJobHeldToItsFinish) {
  Outcome out = RunHoldFinish(/*hold_s=*/20, /*act_s=*/15, /*preempt=*/false);
  ASSERT_TRUE(out.run.ok()) << out.run.status().ToString();
  EXPECT_EQ(out.seen->idle_done, (std::vector<double>{3000}));  // held, its work done, at 15 s
  EXPECT_NEAR(out.run->jobs[0].finish_s, 20, 1e-9);
}

TEST(SimulatorHoldFinishTest, PreemptingAJobHeldToItsFinishIsAFault) {
  Outcome out = RunHoldFinish(/*hold_s=*/20, /*act_s=*/15, /*preempt=*/true);
  ASSERT_FALSE(out.run.ok());
  EXPECT_EQ(out.run.status().code(), StatusCode::kInternal);
  EXPECT_NE(out.run.status().message().find("preemption of job 0, whose work is done and whose finish is held"),
            std::string::npos)
      << out.run.status().message();
}

}  // namespace
}  // namespace hetsched
