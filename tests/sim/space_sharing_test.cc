// Golden scenarios for space sharing (SchedContext::StartSharing, Simulator::StartSharedJob;
// docs/space_sharing.md), every time worked out by hand. sim_world.h's "unit" model computes for
// its whole 3 ms step (flop share 1); the "half" model below adds 3 ms of host-side input to the
// same layer (a 6 ms step, flop share 0.5). Together on one device the arithmetic is asked for
// 1 + 0.5 = 1.5 times what it has, so each runs at 2/3 of its speed alone (perf/space_sharing.h).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/perf/validation.h"
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

// A scheduler that runs a script: `on_schedule` at every call; OnJobFinished counts.
class Scripted : public JobScheduler {
 public:
  explicit Scripted(std::function<void(SchedContext&)> on_schedule) : on_schedule_(std::move(on_schedule)) {}
  std::string_view name() const override { return "scripted-sharing"; }
  void OnJobSubmitted(const JobStatus&, SchedContext&) override {}
  void OnJobFinished(const JobStatus&, SchedContext&) override {}
  void OnJobRequeued(const JobStatus&, SchedContext&) override {}
  void OnJobRunning(const JobStatus&, SchedContext&) override {}
  void Schedule(SchedContext& ctx) override { on_schedule_(ctx); }

 private:
  std::function<void(SchedContext&)> on_schedule_;
};

// Adds the "half" model (3 ms of compute + 3 ms of host input a step) and, where `big_bytes` > 0,
// a "big" one: the unit layer with that many parameter bytes.
void AddModels(testing_util::SimWorld& w, double big_bytes = 0) {
  ModelProfile half = *w.zoo.Find("unit");
  half.name = "half";
  half.host_seconds_per_iteration = 0.003;
  w.zoo.Add(half);
  if (big_bytes > 0) {
    ModelProfile big = *w.zoo.Find("unit");
    big.name = "big";
    big.layers[0].param_bytes = big_bytes;
    w.zoo.Add(big);
  }
}

Job ModelJob(JobId id, double submit_s, const char* model, double iterations) {
  Job j = UnitJob(id, submit_s, 1, 3);
  j.spec.model = model;
  j.spec.iterations = static_cast<int64_t>(iterations);
  j.truth.total_iterations = iterations;
  return j;
}

Result<RunRecord> RunScriptOn(const Cluster& cluster, const ModelZoo& zoo, std::vector<Job> jobs,
                              std::function<void(SchedContext&)> script, SimOptions options = {}) {
  const Workload workload = MakeWorkload(std::move(jobs));
  MethodChoice choice;
  choice.placer = "first-fit";
  Result<Methods> methods = CreateMethods(choice);
  EXPECT_TRUE(methods.ok());
  methods->scheduler = std::make_unique<Scripted>(std::move(script));
  options.full_audit_every = 1;  // the sharing audit after every call
  return Simulate(cluster, zoo, workload, std::move(methods).value(), options);
}

Result<RunRecord> RunScript(const testing_util::SimWorld& w, std::vector<Job> jobs,
                            std::function<void(SchedContext&)> script) {
  return RunScriptOn(*w.cluster, w.zoo, std::move(jobs), std::move(script));
}

const std::vector<DeviceId> kDevice0 = {0};

// A job's bill (sim_world.h: $0.001 and 200 J above idle per device-second): each of two jobs on a
// device pays half of it while both run; a job alone, or beside a held partner, pays all.
void ExpectBilledSeconds(const RunRecord& run, JobId id, double billed_s, double held_s) {
  const JobRecord& rec = run.jobs[static_cast<size_t>(id)];
  EXPECT_NEAR(rec.cost_usd, 0.001 * billed_s, 1e-9) << "job " << id;
  EXPECT_NEAR(rec.busy_energy_joules, 200 * billed_s, 1e-6) << "job " << id;
  EXPECT_NEAR(rec.gpu_seconds, held_s, 1e-6) << "job " << id << ": device-seconds held, shared or not";
}

TEST(SpaceSharingGoldenTest, BothRunAtTheCoLocatedSpeedUntilOneEnds) {
  auto w = MakeSimWorld();
  AddModels(*w);
  // Job 0: unit, 30 s alone (10,000 steps). Job 1: half, 18 s alone (3,000 steps of 6 ms),
  // arrives at 10 s and joins job 0 on device 0. From 10 s both run at 2/3: job 1's 18 s take
  // 27 s (ends at 37 s); job 0 has done 10 + 27 x 2/3 = 28 s of its 30 by then, and its last 2 s
  // run alone: it ends at 39 s. One device is busy throughout.
  bool shared = false;
  Result<RunRecord> run = RunScript(*w, {UnitJob(0, 0, 1, 30), ModelJob(1, 10, "half", 3000)}, [&](SchedContext& ctx) {
    if (ctx.job(0).state == JobState::kPending) {
      ASSERT_TRUE(ctx.StartOn(0, kDevice0));
    }
    if (ctx.now() == 10 && ctx.job(1).state == JobState::kPending) {
      shared = ctx.StartSharing(1, 0);
      EXPECT_EQ(ctx.state().owner(0), 0);
      EXPECT_EQ(ctx.state().guest(0), 1);
      EXPECT_EQ(ctx.job(0).sharing_with, 1);
      EXPECT_EQ(ctx.job(1).sharing_with, 0);
      EXPECT_EQ(ctx.state().total_free(), 3);  // a shared device is not free, and counted once
      EXPECT_NEAR(ctx.job(0).iteration_rate, 1 / 0.003 * 2 / 3, 1e-9);
      EXPECT_NEAR(ctx.job(1).iteration_rate, 1 / 0.006 * 2 / 3, 1e-9);
    }
  });
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_TRUE(shared);
  EXPECT_NEAR(run->jobs[1].first_start_s, 10, 1e-9);
  EXPECT_NEAR(run->jobs[1].finish_s, 37, 1e-6);
  EXPECT_NEAR(run->jobs[0].finish_s, 39, 1e-6);
  EXPECT_NEAR(run->jobs[0].iterations_run, 10000, 1e-6);
  EXPECT_NEAR(run->jobs[1].iterations_run, 3000, 1e-6);
  for (const TimelineSample& s : run->timeline) EXPECT_LE(s.busy_devices, 1) << "at " << s.time_s;
  // Shared from 10 s to 37 s: job 0 pays 10 + 27 / 2 + 2 = 25.5 s of its 39, job 1 13.5 of its 27;
  // together the 39 s the device was busy.
  ExpectBilledSeconds(*run, 0, 25.5, 39);
  ExpectBilledSeconds(*run, 1, 13.5, 27);
}

TEST(SpaceSharingGoldenTest, TheGuestKeepsTheDevicesWhenTheHostEnds) {
  auto w = MakeSimWorld();
  AddModels(*w);
  // Job 0 (half, 6 s alone: 1,000 steps) from 0 s; job 1 (unit, 30 s alone) joins it at 0 s.
  // Both at 2/3: job 0 ends at 9 s; job 1 has done 6 s by then and runs alone: ends at 33 s.
  // At 9 s device 0 passes to job 1, and job 2 (half, 1,000 steps) can join it there: from 9 s
  // both at 2/3 again: job 2 ends at 18 s, job 1 has done 6 + 6 = 12 s by then, ends at 36 s.
  Result<RunRecord> run = RunScript(*w, {ModelJob(0, 0, "half", 1000), UnitJob(1, 0, 1, 30), ModelJob(2, 0, "half", 1000)},
                                    [&](SchedContext& ctx) {
    if (ctx.now() == 0) {
      ASSERT_TRUE(ctx.StartOn(0, kDevice0));
      ASSERT_TRUE(ctx.StartSharing(1, 0));
      EXPECT_FALSE(ctx.StartSharing(2, 0)) << "a third job on a shared device";
      EXPECT_FALSE(ctx.StartSharing(2, 1)) << "a guest is not running alone";
    }
    if (ctx.now() == 9 && ctx.job(2).state == JobState::kPending) {
      EXPECT_EQ(ctx.state().owner(0), 1);
      EXPECT_EQ(ctx.state().guest(0), kNoJob);
      EXPECT_EQ(ctx.job(1).sharing_with, kNoJob);
      ASSERT_TRUE(ctx.StartSharing(2, 1));
    }
  });
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_NEAR(run->jobs[0].finish_s, 9, 1e-6);
  EXPECT_NEAR(run->jobs[2].first_start_s, 9, 1e-9);
  EXPECT_NEAR(run->jobs[2].finish_s, 18, 1e-6);
  EXPECT_NEAR(run->jobs[1].finish_s, 36, 1e-6);
  // Job 1 shares its first 18 s (with job 0, then job 2): it pays 9 + 18 = 27 s; the others 4.5 s
  // each; together the 36 s of device 0's busy time.
  ExpectBilledSeconds(*run, 0, 4.5, 9);
  ExpectBilledSeconds(*run, 1, 27, 36);
  ExpectBilledSeconds(*run, 2, 4.5, 9);
}

TEST(SpaceSharingGoldenTest, AHeldPartnerLeavesTheDeviceToTheOther) {
  auto w = MakeSimWorld();
  AddModels(*w);
  // Job 0 (unit, 30 s) and job 1 (half, 18 s) share device 0 from 0 s. Job 0 is held at 4 s of
  // work (RunUntil), which at 2/3 it reaches at 6 s. Job 1 did 4 s of its 18 s by then and runs
  // alone: ends at 20 s. Then job 0 resumes (mark raised), alone: 26 s left, ends at 46 s. Device
  // 0 is busy throughout, counted once.
  const double four_s = 4 / 0.003;
  Result<RunRecord> run = RunScript(*w, {UnitJob(0, 0, 1, 30), ModelJob(1, 0, "half", 3000)}, [&](SchedContext& ctx) {
    if (ctx.now() == 0) {
      ASSERT_TRUE(ctx.StartOn(0, kDevice0));
      ASSERT_TRUE(ctx.StartSharing(1, 0));
      ctx.RunUntil(0, four_s);
    }
    if (ctx.job(1).state == JobState::kFinished) ctx.RunUntil(0, 1e9);
  });
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_NEAR(run->jobs[1].finish_s, 20, 1e-6);
  EXPECT_NEAR(run->jobs[0].finish_s, 46, 1e-6);
  for (const TimelineSample& s : run->timeline) {
    if (s.time_s < 46) {
      EXPECT_EQ(s.busy_devices, 1) << "at " << s.time_s;
    }
  }
  // Shared from 0 to 6 s; job 0 then held until 20 s (not billed), alone from 20 s to 46 s: it pays
  // 3 + 26 = 29 s; job 1 pays 3 + 14 = 17 s; together the 46 s device 0 was busy.
  ExpectBilledSeconds(*run, 0, 29, 32);
  ExpectBilledSeconds(*run, 1, 17, 20);
}

TEST(SpaceSharingTest, ASharingJobIsNeitherResizedNorHandedOver) {
  auto w = MakeSimWorld();
  AddModels(*w);
  Job host = UnitJob(0, 0, 1, 3);
  host.spec.elastic = true;
  Result<RunRecord> run = RunScript(*w, {host, ModelJob(1, 0, "half", 100)}, [&](SchedContext& ctx) {
    if (ctx.now() != 0) return;
    ASSERT_TRUE(ctx.StartOn(0, kDevice0));
    ASSERT_TRUE(ctx.StartSharing(1, 0));
    const std::vector<DeviceId> two = {0, 1}, other = {2};
    EXPECT_FALSE(std::isfinite(ctx.ResizePauseS(0, two)));
    EXPECT_FALSE(ctx.ResizeOn(0, two));
    EXPECT_FALSE(std::isfinite(ctx.HandOverPauseS(0, other)));
    EXPECT_FALSE(ctx.HandOver(0, other));
    EXPECT_FALSE(ctx.ResizeOn(1, two));
  });
  ASSERT_TRUE(run.ok()) << run.status().ToString();
}

TEST(SpaceSharingTest, JobsThatDoNotFitTheMemoryTogetherAreRefused) {
  auto w = MakeSimWorld();
  AddModels(*w, /*big_bytes=*/3e9);
  // Each "big" job alone fits the 16 GB device; two of them do not (checked from the model).
  Plan plan;
  plan.batch_per_device = 5;
  plan.devices = kDevice0;
  const double bytes = EstimateIteration(*w->zoo.Find("big"), plan, *w->cluster).memory_per_device_bytes;
  ASSERT_LE(bytes, 16e9);
  ASSERT_GT(2 * bytes, 16e9);
  Job a = UnitJob(0, 0, 1, 3), b = UnitJob(1, 0, 1, 3);
  a.spec.model = b.spec.model = "big";
  Result<RunRecord> run = RunScript(*w, {a, b}, [&](SchedContext& ctx) {
    if (ctx.now() != 0) return;
    ASSERT_TRUE(ctx.StartOn(0, kDevice0));
    EXPECT_FALSE(ctx.StartSharing(1, 0));
    EXPECT_EQ(ctx.job(1).state, JobState::kPending);
    EXPECT_EQ(ctx.state().guest(0), kNoJob);
    ASSERT_TRUE(ctx.TryStart(1, 1));
  });
  ASSERT_TRUE(run.ok()) << run.status().ToString();
}

// With Gavel's measured table and its pairs (--pair-throughputs), two measured job types run at
// their measured rates paired, then the survivor at its measured rate alone.
TEST(SpaceSharingGoldenTest, MeasuredJobTypesRunAtGavelsPairRates) {
  const DeviceCatalog devices = DeviceCatalog::BuiltIn();
  const LinkCatalog links = LinkCatalog::BuiltIn();
  auto cluster = MakeShorthandCluster({{"v100", 1}}, 1, devices, links);
  ASSERT_TRUE(cluster.ok());
  auto table = MeasuredThroughputs::Load("data/real/gavel/throughputs.csv", devices);
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE(table->LoadPairs("data/real/gavel/pair_throughputs.csv", devices).ok());
  const char* kSmall = "ResNet-18 (batch size 16)";
  const char* kLarge = "ResNet-18 (batch size 64)";
  const DeviceTypeId v100 = devices.Find("v100");
  const double small_alone = table->StepsPerSecond(table->JobTypeIndex(kSmall), v100, 1, true);
  const auto paired = table->PairStepsPerSecond(table->JobTypeIndex(kSmall), table->JobTypeIndex(kLarge), v100, 1);
  const double large_alone = table->StepsPerSecond(table->JobTypeIndex(kLarge), v100, 1, true);
  ASSERT_TRUE(paired.has_value() && small_alone > 0 && large_alone > 0);
  auto job = [](JobId id, const char* type, int batch, double steps) {
    Job j = UnitJob(id, 0, 1, 3);
    j.spec.model = "resnet18-cifar";
    j.spec.batch_size = batch;
    j.spec.iterations = static_cast<int64_t>(steps);
    j.truth.total_iterations = steps;
    j.truth.measured_job_type = type;
    return j;
  };
  // The large job: 3,600 s of its paired rate; the small one: 1,800 s of its. Both start at 0,
  // paired: the small one ends at 1,800 s; the large one has 1,800 s of paired work left, run alone
  // in 1,800 x paired / alone seconds.
  const double small_steps = 1800 * paired->first, large_steps = 3600 * paired->second;
  SimOptions options;
  options.measured_throughputs = &*table;
  options.contention = false;
  Result<RunRecord> run = RunScriptOn(*cluster, ModelZoo::BuiltIn(), {job(0, kLarge, 64, large_steps), job(1, kSmall, 16, small_steps)},
                                      [&](SchedContext& ctx) {
    if (ctx.now() != 0) return;
    ASSERT_TRUE(ctx.StartOn(0, kDevice0));
    ASSERT_TRUE(ctx.StartSharing(1, 0));
    EXPECT_NEAR(ctx.job(0).iteration_rate, paired->second, 1e-9);
    EXPECT_NEAR(ctx.job(1).iteration_rate, paired->first, 1e-9);
  }, options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_NEAR(run->jobs[1].finish_s, 1800, 1e-6);
  EXPECT_NEAR(run->jobs[0].finish_s, 1800 + 1800 * paired->second / large_alone, 1e-6);
}

}  // namespace
}  // namespace hetsched
