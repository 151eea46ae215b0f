// SchedContext::PrefetchJob (the simulator's SchedBackend::PrefetchJob) is a cache hint: a policy
// that gives it for every job it tries, and for ids the run does not have, gets the same run as
// one that never does. Golden times by hand (sim_world.h: 3 ms an iteration on any device count).
#include <gtest/gtest.h>

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

// First come, first served over ids 0..n-1, each tried with TryStart; with `hints`, every try is
// preceded by PrefetchJob for the id and for ids out of range.
class InOrder : public JobScheduler {
 public:
  InOrder(int jobs, bool hints) : jobs_(jobs), hints_(hints) {}
  std::string_view name() const override { return "in-order"; }
  void OnJobSubmitted(const JobStatus&, SchedContext&) override {}
  void OnJobFinished(const JobStatus&, SchedContext&) override {}
  void OnJobRequeued(const JobStatus&, SchedContext&) override {}
  void OnJobRunning(const JobStatus&, SchedContext&) override {}
  void Schedule(SchedContext& ctx) override {
    for (JobId id = 0; id < jobs_; ++id) {
      if (hints_) {
        ctx.PrefetchJob(-1);
        ctx.PrefetchJob(jobs_);
        ctx.PrefetchJob(1'000'000'000);
        ctx.PrefetchJob(id);
      }
      if (ctx.job(id).state == JobState::kPending && ctx.now() >= ctx.job(id).spec->submit_time_s) {
        if (!ctx.TryStart(id, ctx.job(id).spec->num_gpus)) break;  // in order: no overtaking
      }
    }
  }

 private:
  int jobs_;
  bool hints_;
};

RunRecord RunInOrder(bool hints) {
  auto w = MakeSimWorld();  // one node of 4 GPUs
  // Job 0: 4 GPUs, 30 s; job 1: 2 GPUs, 12 s, waits for job 0; job 2: 2 GPUs, 6 s, beside job 1.
  const Workload workload = MakeWorkload({UnitJob(0, 0, 4, 30), UnitJob(1, 1, 2, 12), UnitJob(2, 2, 2, 6)});
  MethodChoice choice;
  choice.placer = "first-fit";
  Result<Methods> methods = CreateMethods(choice);
  EXPECT_TRUE(methods.ok());
  methods->scheduler = std::make_unique<InOrder>(3, hints);
  SimOptions options;
  options.full_audit_every = 1;
  Result<RunRecord> run = Simulate(*w->cluster, w->zoo, workload, std::move(methods).value(), options);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  return run.ok() ? std::move(run).value() : RunRecord{};
}

TEST(PrefetchJobTest, HintsChangeNothing) {
  const RunRecord plain = RunInOrder(false);
  const RunRecord hinted = RunInOrder(true);
  ASSERT_EQ(plain.jobs.size(), 3u);
  ASSERT_EQ(hinted.jobs.size(), 3u);
  // Job 0 runs 0-30 s; jobs 1 and 2 start together at 30 s and end at 42 s and 36 s.
  EXPECT_NEAR(plain.jobs[0].finish_s, 30, 1e-6);
  EXPECT_NEAR(plain.jobs[1].first_start_s, 30, 1e-6);
  EXPECT_NEAR(plain.jobs[1].finish_s, 42, 1e-6);
  EXPECT_NEAR(plain.jobs[2].finish_s, 36, 1e-6);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(hinted.jobs[i].first_start_s, plain.jobs[i].first_start_s);
    EXPECT_EQ(hinted.jobs[i].finish_s, plain.jobs[i].finish_s);
    EXPECT_EQ(hinted.jobs[i].gpu_seconds, plain.jobs[i].gpu_seconds);
  }
}

}  // namespace
}  // namespace hetsched
