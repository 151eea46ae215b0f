// Goodput jobs in the simulator (perf/goodput_job.h, sim/goodput_run.cc) on a hand-made application
// whose every figure is chosen for a schedule worked out on paper:
//  - step 0.1 s at local batch 32 on one GPU, 0.2 s at 64, no synchronisation time;
//  - validated batch sizes 32 (the initial) and 64, two epochs each; epochs end at progress 100
//    and 200 (the smaller of the two files' progress: 32's);
//  - gradient statistics at 64: (sqr, var) = (1, 3) in epoch 0 and (1, 1) in epoch 1.
// Every placement costs the re-allocation delay (30 s) before the job progresses.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/perf/goodput_application.h"
#include "hetsched/perf/goodput_job.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/methods.h"
#include "hetsched/sim/simulator.h"
#include "sim_world.h"

namespace hetsched {
namespace {

using testing_util::MakeSimWorld;
using testing_util::MakeWorkload;
using testing_util::UnitJob;

std::shared_ptr<const GoodputApplication> Toy(const ApplicationSettings& settings = {}) {
  PolluxModelProfile p;
  p.model = "toy";
  auto placement = [](const char* where, int bsz, double step) {
    PolluxPlacementRow r;
    r.placement = where;
    r.local_bsz = bsz;
    r.step_time_s = step;
    r.sync_time_s = 0;
    return r;
  };
  p.placements = {placement("1", 32, 0.1), placement("1", 64, 0.2), placement("2", 32, 0.15),
                  placement("2", 64, 0.25)};
  p.scalability = {PolluxScalabilityRow{2, 4, 32, 0.3, 0.1}, PolluxScalabilityRow{2, 4, 64, 0.4, 0.1}};
  p.validation[32] = {PolluxValidationRow{100, 100, 0.5, 1, 1}, PolluxValidationRow{200, 200, 0.6, 1, 1}};
  p.validation[64] = {PolluxValidationRow{150, 75, 0.5, 1, 3}, PolluxValidationRow{300, 150, 0.6, 1, 1}};
  auto app = GoodputApplication::Create(std::move(p), settings);
  EXPECT_TRUE(app.ok()) << app.status().ToString();
  return *app;
}

// One GPU each on a 2-GPU node; `batch` the total batch its user tuned.
Job ToyJob(JobId id, double submit_s, int batch) {
  Job j = UnitJob(id, submit_s, 1, 0.003);
  j.spec.application = "toy";
  j.spec.adaptive_batch = true;  // fifo does not adapt batches: the tuned batch stands
  j.spec.total_batch_size = batch;
  return j;
}

Result<RunRecord> RunToy(const Workload& workload, bool round_epochs, double delay_s = -1) {
  auto w = MakeSimWorld(1, 2);
  MethodChoice choice;
  choice.policy = "fifo";
  choice.placer = "first-fit";
  auto methods = CreateMethods(choice);
  EXPECT_TRUE(methods.ok()) << methods.status().ToString();
  SimOptions options;
  options.full_audit_every = 1;
  options.goodput_round_epochs = round_epochs;
  options.goodput_restart_delay_s = delay_s;
  return Simulate(*w->cluster, w->zoo, workload, std::move(methods).value(), options);
}

TEST(GoodputJobsTest, ProgressIsEfficiencyWeightedAndEndsWithTheLastEpoch) {
  Workload workload = MakeWorkload({ToyJob(0, 0, 32), ToyJob(1, 0, 64)});
  workload.applications["toy"] = GoodputTruth::Untyped(Toy());
  auto run = RunToy(workload, /*round_epochs=*/false);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  // Job 0, batch 32 on one GPU: one pass of 0.1 s at the initial batch (gain 1): 10 progress/s.
  // After the 30 s delay, epoch 0 ends at 40 and epoch 1 (the last) at 50.
  EXPECT_NEAR(run->jobs[0].finish_s, 50, 1e-9);
  // Job 1, batch 64 on one GPU: 32 twice, accumulated (one GPU above the initial batch always
  // accumulates): 0.1 + 0.1 = 0.2 s a step. Epoch 0: gain (3 + 1) / (3 / 2 + 1) = 1.6, 8/s, 100
  // progress in 12.5 s; epoch 1: gain 2 / 1.5, 6.67/s, 100 more in 15 s. 30 + 27.5 = 57.5.
  EXPECT_NEAR(run->jobs[1].finish_s, 57.5, 1e-9);
  // Both held their GPU from 0: the delay is paid holding it.
  EXPECT_NEAR(run->jobs[0].gpu_seconds, 50, 1e-9);
  // Alone, each would have run exactly so: its ideal run time, a slowdown of 1.
  EXPECT_NEAR(run->jobs[0].ideal_runtime_s, 50, 1e-9);
  EXPECT_NEAR(run->jobs[1].ideal_runtime_s, 57.5, 1e-9);
}

TEST(GoodputJobsTest, PolluxRoundsEachEpochToWholeSeconds) {
  Workload workload = MakeWorkload({ToyJob(1, 0, 64)});
  workload.jobs[0].spec.id = 0;
  workload.applications["toy"] = GoodputTruth::Untyped(Toy());
  auto run = RunToy(workload, /*round_epochs=*/true);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  // Epoch 0 takes 12.5 s, which Python's round() makes 12 (half to even): it ends at 42 with its
  // progress at 100 all the same; epoch 1 takes 15 s: done at 57.
  EXPECT_NEAR(run->jobs[0].finish_s, 57, 1e-9);
}

// Sia's job model (ApplicationSettings): the application's own delay, 10 s, and its progress at
// half the rate its step times give (its calibration); the simulator's delay, when given, wins.
TEST(GoodputJobsTest, AnApplicationsOwnDelayAndCalibration) {
  ApplicationSettings sia;
  sia.restart_delay_s = 10;
  sia.progress_scale = 0.5;
  Workload workload = MakeWorkload({ToyJob(0, 0, 32), ToyJob(1, 0, 64)});
  workload.applications["toy"] = GoodputTruth::Untyped(Toy(sia));
  auto run = RunToy(workload, /*round_epochs=*/false);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  // Job 0: 5 progress/s, 20 s an epoch after 10 s: 50. Job 1: epoch 0 at 4/s (25 s), epoch 1 at
  // 3.33/s (30 s): 65.
  EXPECT_NEAR(run->jobs[0].finish_s, 50, 1e-9);
  EXPECT_NEAR(run->jobs[1].finish_s, 65, 1e-9);
  EXPECT_NEAR(run->jobs[1].ideal_runtime_s, 65, 1e-9);
  auto no_delay = RunToy(workload, false, /*delay_s=*/0);
  ASSERT_TRUE(no_delay.ok()) << no_delay.status().ToString();
  EXPECT_NEAR(no_delay->jobs[0].finish_s, 40, 1e-9);
  EXPECT_NEAR(no_delay->jobs[1].finish_s, 55, 1e-9);
}

// The batch split on two GPUs of an application whose one-node pair was measured up to local
// batch 48 only, its pairs across nodes (scalability) up to 64: Pollux takes the application's
// largest local batch (64) everywhere; Sia the placement's, then no more than measured on as many
// GPUs (48).
TEST(GoodputJobsTest, SiasLocalBatchPerPlacement) {
  auto make = [](bool per_placement) {
    PolluxModelProfile p;
    p.model = "pairs";
    auto row = [](const char* where, int bsz, double step) { return PolluxPlacementRow{where, bsz, step, 0}; };
    p.placements = {row("1", 32, 0.1), row("1", 64, 0.2), row("2", 32, 0.15), row("2", 48, 0.2)};
    p.scalability = {PolluxScalabilityRow{2, 2, 32, 0.3, 0.1}, PolluxScalabilityRow{2, 2, 64, 0.4, 0.1}};
    p.validation[32] = {PolluxValidationRow{100, 100, 0.5, 1, 1}};
    p.validation[128] = {PolluxValidationRow{150, 75, 0.5, 1, 3}};
    ApplicationSettings s;
    s.local_batch_per_placement = per_placement;
    auto app = GoodputApplication::Create(std::move(p), s);
    EXPECT_TRUE(app.ok()) << app.status().ToString();
    return *app;
  };
  auto split = [](const std::shared_ptr<const GoodputApplication>& app, std::vector<int> placement) {
    GoodputJob job;
    job.types.resize(1);
    job.types[0].app = app.get();
    job.app = app.get();
    job.target_batch = 128;
    const Status placed = GoodputSteps::Place(job, std::move(placement));
    EXPECT_TRUE(placed.ok()) << placed.ToString();
    return std::make_pair(job.atomic_bsz, job.accum_steps);
  };
  const auto pollux = make(false), sia = make(true);
  // One node, two GPUs, local batch 64: in one pass (Pollux), in two of 32 (Sia: "2" reaches 48).
  EXPECT_EQ(split(pollux, {2}), std::make_pair(64, 0));
  EXPECT_EQ(split(sia, {2}), std::make_pair(32, 1));
  // Two nodes, one GPU each: "11" is unmeasured; its scalability rows reach 64, one pass, but no
  // two GPUs were measured above 48.
  EXPECT_EQ(split(pollux, {1, 1}), std::make_pair(64, 0));
  EXPECT_EQ(split(sia, {1, 1}), std::make_pair(48, 0));
}

// A job of two GPU types ("t4" and "a100": the toy application on each) measures one GPU at its
// tuned batch on t4, then the same configuration on a100. Per type (Sia's jobs) each type keeps
// its sample and its model; pooled (a heterogeneity-unaware job, Sia's baseline Pollux) the
// a100 measurement of a configuration already measured on t4 is not taken, and both types read
// the one model fitted to the t4 sample.
TEST(GoodputJobsTest, APooledJobKeepsOneModelOverItsTypes) {
  const auto app = Toy();
  const DeviceCatalog& catalog = DeviceCatalog::BuiltIn();
  const DeviceTypeId t4 = catalog.Find("t4"), a100 = catalog.Find("a100-40gb");
  for (bool pooled : {false, true}) {
    GoodputJob job;
    job.types.resize(2);
    job.types[0].type = t4;
    job.types[1].type = a100;
    for (auto& t : job.types) t.app = app.get();
    job.app = app.get();
    job.pooled = pooled;
    job.target_batch = 32;
    ASSERT_TRUE(GoodputSteps::Place(job, {1}, t4).ok());
    ASSERT_TRUE(GoodputSteps::Observe(job).ok());
    ASSERT_TRUE(GoodputSteps::Place(job, {1}, a100).ok());
    EXPECT_EQ(job.on, 1);
    ASSERT_TRUE(GoodputSteps::Observe(job).ok());
    EXPECT_EQ(job.types[0].samples.size(), 1u) << pooled;
    EXPECT_EQ(job.types[1].samples.size(), pooled ? 0u : 1u);
    EXPECT_EQ(job.learned(1).samples.size(), 1u);
    EXPECT_EQ(&job.learned(1) == &job.types[0], pooled);
    auto on_a100 = GoodputSteps::Params(job, 1);
    ASSERT_TRUE(on_a100.ok());
    EXPECT_TRUE(on_a100->has_value());
  }
}

// Starts job 0 on `from` at 0, then at `move_s` (when it still runs) stops it and starts it on
// `to`; rounds of `round_s` seconds (0: none).
class MoveScheduler final : public JobScheduler {
 public:
  // `resize`: the move is an elastic resize (ResizeOn), its announced price kept in `*announced`.
  MoveScheduler(double move_s, std::vector<DeviceId> from, std::vector<DeviceId> to, double round_s = 0,
                bool resize = false, double* announced = nullptr)
      : move_s_(move_s), from_(std::move(from)), to_(std::move(to)), round_s_(round_s), resize_(resize),
        announced_(announced) {}
  std::string_view name() const override { return "move"; }
  double round_period_s() const override { return round_s_; }
  void OnJobSubmitted(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobFinished(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRunning(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void Schedule(SchedContext& ctx) override {
    if (ctx.now() == 0) {
      EXPECT_TRUE(ctx.StartOn(0, from_));
      if (move_s_ > 0) ctx.WakeUpAt(move_s_);
    } else if (ctx.now() == move_s_ && ctx.job(0).state == JobState::kRunning) {
      if (resize_) {
        if (announced_ != nullptr) *announced_ = ctx.ResizePauseS(0, to_);
        EXPECT_TRUE(ctx.ResizeOn(0, to_));
        return;
      }
      ctx.Preempt(0);
      EXPECT_TRUE(ctx.StartOn(0, to_));
    }
  }

 private:
  double move_s_;
  std::vector<DeviceId> from_, to_;
  double round_s_;
  bool resize_ = false;
  double* announced_ = nullptr;
};

// The toy workload `workload` on `nodes` nodes of `gpus` GPUs under `scheduler`.
Result<RunRecord> RunScripted(const Workload& workload, int nodes, int gpus, std::unique_ptr<JobScheduler> scheduler,
                              SimOptions options) {
  auto w = MakeSimWorld(nodes, gpus);
  MethodChoice choice;
  choice.policy = "fifo";
  choice.placer = "first-fit";
  HETSCHED_ASSIGN_OR_RETURN(Methods methods, CreateMethods(choice));
  methods.scheduler = std::move(scheduler);
  options.full_audit_every = 1;
  return Simulate(*w->cluster, w->zoo, workload, std::move(methods), options);
}

// Job 0 (batch 32 on one GPU: 10 progress/s, epochs of 10 s after the 30 s delay) moved to the
// other node's GPU. As a cluster moves it, it restarts and pays the delay again: moved at 35 (50
// progress done), it resumes at 65 and ends at 80, one preemption. With free moves (Sia's
// simulator) it runs on: done at 50, no preemption; moved at 10, inside its delay, the 20 s left
// of it run on: done at 50 too.
TEST(GoodputJobsTest, FreeMovesInTheSameShape) {
  Workload workload = MakeWorkload({ToyJob(0, 0, 32)});
  workload.applications["toy"] = GoodputTruth::Untyped(Toy());
  auto run = [&](double move_s, bool free) {
    SimOptions options;
    options.goodput_free_moves = free;
    return RunScripted(workload, 2, 1, std::make_unique<MoveScheduler>(move_s, std::vector<DeviceId>{0}, std::vector<DeviceId>{1}),
                       options);
  };
  auto moved = run(35, false);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_NEAR(moved->jobs[0].finish_s, 80, 1e-9);
  EXPECT_EQ(moved->jobs[0].preemptions, 1);
  auto free = run(35, true);
  ASSERT_TRUE(free.ok()) << free.status().ToString();
  EXPECT_NEAR(free->jobs[0].finish_s, 50, 1e-9);
  EXPECT_EQ(free->jobs[0].preemptions, 0);
  auto early = run(10, true);
  ASSERT_TRUE(early.ok()) << early.status().ToString();
  EXPECT_NEAR(early->jobs[0].finish_s, 50, 1e-9);
}

// Pollux's and Sia's steps see an epoch's end only when its exact time falls within the step,
// though they round it. Job 0 (batch 64) on two GPUs: 32 each, 0.15 s a step; after the 30 s
// delay epoch 0 (gain 1.6: 10.67/s) takes 9.375 s, rounded 9: it ends at 39; epoch 1 (gain 4/3:
// 8.89/s) takes 11.25 s, rounded 11: the job would end at 50, but exactly at 50.25, after the
// round at 50. Left alone it ends at 50 all the same. Shrunk at 50 to one GPU (two passes of 32,
// 0.2 s: 6.67/s), it is not done: 2.22 of its progress are left, 0.33 s rounded to 0 after the
// new delay: done at 80. Without rounding (exact epochs: 39.375, then 50.625) it is shrunk at 50
// with 5.56 of its progress left: 0.83 s at 6.67/s after the delay, done at 80.83.
TEST(GoodputJobsTest, AnEpochThatEndsJustAfterARoundEndsInTheNextStep) {
  Workload workload = MakeWorkload({ToyJob(0, 0, 64)});
  workload.applications["toy"] = GoodputTruth::Untyped(Toy());
  auto run = [&](double move_s, bool round_epochs) {
    SimOptions options;
    options.goodput_round_epochs = round_epochs;
    // Both GPUs of node 0 from 0; rounds of 25 s; at move_s, one GPU.
    return RunScripted(workload, 1, 2,
                       std::make_unique<MoveScheduler>(move_s, std::vector<DeviceId>{0, 1}, std::vector<DeviceId>{0}, 25),
                       options);
  };
  auto alone = run(-1, true);
  ASSERT_TRUE(alone.ok()) << alone.status().ToString();
  EXPECT_NEAR(alone->jobs[0].finish_s, 50, 1e-9);
  auto shrunk = run(50, true);
  ASSERT_TRUE(shrunk.ok()) << shrunk.status().ToString();
  EXPECT_NEAR(shrunk->jobs[0].finish_s, 80, 1e-9);
  EXPECT_EQ(shrunk->jobs[0].preemptions, 1);
  auto exact = run(50, false);
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  EXPECT_NEAR(exact->jobs[0].finish_s, 80 + 5.0 / 6, 1e-9);
}

// A goodput job resized by its scheduler (SchedContext::ResizeOn) pays the back end's price:
// elastic (docs/elastic.md) where it declares itself elastic and keeps a GPU of its type, its
// application's re-allocation delay otherwise. Job 0 (batch 64) on both GPUs of node 0 from 0:
// after the 30 s delay, epoch 0 (gain 1.6, 0.15 s a step) at 10.67/s. Shrunk at 35 to GPU 0
// (53.33 progress done): elastically, the unit model's rendezvous only (5 s, no parameters to
// broadcast), it resumes at 40 on one GPU (two passes of 32, 0.2 s: 8/s): epoch 0 ends at
// 40 + 46.67 / 8 = 45.83, epoch 1 (gain 4/3: 6.67/s) takes 15 s: done at 60.83, no preemption.
// Not elastic: a restart, resumed at 65, done at 85.83, one preemption. Shrunk at 10, inside its
// delay, the 20 s left of it are not forgiven: progress from 10 + 20 + 5 = 35 at 8/s, epoch 0 ends
// at 47.5, done at 62.5.
TEST(GoodputJobsTest, AResizeIsElasticAtTheBackEndsPrice) {
  auto run = [&](double move_s, bool elastic, double* announced) {
    Job job = ToyJob(0, 0, 64);
    job.spec.elastic = elastic;
    Workload workload = MakeWorkload({job});
    workload.applications["toy"] = GoodputTruth::Untyped(Toy());
    SimOptions options;
    options.resize_rendezvous_s = 5;
    return RunScripted(workload, 1, 2,
                       std::make_unique<MoveScheduler>(move_s, std::vector<DeviceId>{0, 1}, std::vector<DeviceId>{0}, 0,
                                                       /*resize=*/true, announced),
                       options);
  };
  double announced = -1;
  auto elastic = run(35, true, &announced);
  ASSERT_TRUE(elastic.ok()) << elastic.status().ToString();
  EXPECT_DOUBLE_EQ(announced, 5);
  EXPECT_NEAR(elastic->jobs[0].finish_s, 60 + 5.0 / 6, 1e-9);
  EXPECT_EQ(elastic->jobs[0].preemptions, 0);
  auto restarted = run(35, false, &announced);
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  EXPECT_DOUBLE_EQ(announced, 30);
  EXPECT_NEAR(restarted->jobs[0].finish_s, 85 + 5.0 / 6, 1e-9);
  EXPECT_EQ(restarted->jobs[0].preemptions, 1);
  auto early = run(10, true, nullptr);
  ASSERT_TRUE(early.ok()) << early.status().ToString();
  EXPECT_NEAR(early->jobs[0].finish_s, 62.5, 1e-9);
}

TEST(GoodputJobsTest, AJobWhoseApplicationIsNotInTheWorkloadIsRefused) {
  Workload workload = MakeWorkload({ToyJob(0, 0, 32)});
  auto run = RunToy(workload, false);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("application 'toy'"), std::string::npos) << run.status().message();
}

}  // namespace
}  // namespace hetsched
