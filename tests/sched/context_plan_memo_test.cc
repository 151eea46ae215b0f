// SchedContext::StartOn's memo of plans (Planner::PlanKey): a start on devices that a job of the
// same model and key was planned on takes that plan, without asking the planner again; a planner
// that names no key is asked at every start.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "../policies/fake_backend.h"
#include "hetsched/sched/context.h"

namespace hetsched::test {
namespace {

// FakePlanner's plans, counted; keyed by the job's parallelism, except kDataPS (no key).
class CountingPlanner : public FakePlanner {
 public:
  int calls = 0;
  Result<PlannedJob> PlanJob(const JobSpec& job, const ModelProfile& model, std::span<const DeviceId> devices,
                             const Cluster& cluster) override {
    ++calls;
    return FakePlanner::PlanJob(job, model, devices, cluster);
  }
  std::optional<uint64_t> PlanKey(const JobSpec& job, const ModelProfile& /*model*/,
                                  size_t /*num_devices*/) const override {
    if (job.parallelism == Parallelism::kDataPS) return std::nullopt;
    return static_cast<uint64_t>(job.parallelism);
  }
};

class PlanMemoTest : public ::testing::Test {
 protected:
  PlanMemoTest() : cluster_({{kFast, 2}, {kSlow, 2}}), backend_(cluster_.cluster()) {
    ModelProfile model;
    model.name = "toy";
    zoo_.Add(model);
    ctx_ = std::make_unique<SchedContext>(backend_, backend_.state(), placer_, planner_, zoo_);
  }
  void Add(JobId id, Parallelism parallelism) {
    JobSpec spec;
    spec.id = id;
    spec.model = "toy";
    spec.num_gpus = 2;
    spec.parallelism = parallelism;
    backend_.AddJob(std::move(spec));
  }

  TestCluster cluster_;
  FakeBackend backend_;
  FakePlacer placer_;
  CountingPlanner planner_;
  ModelZoo zoo_;
  std::unique_ptr<SchedContext> ctx_;
};

// Jobs 0 and 1 (same key) take turns on devices {0, 1}: planned once. Job 1 on the slow devices
// {2, 3}: planned (other devices), at the slow type's speed. Job 2 (another key) on {0, 1}:
// planned. Job 3 (no key) on {0, 1}, twice: planned each time.
TEST_F(PlanMemoTest, SameKeyAndDevicesReuseThePlan) {
  Add(0, Parallelism::kDataRing);
  Add(1, Parallelism::kDataRing);
  Add(2, Parallelism::kPipeline);
  Add(3, Parallelism::kDataPS);
  const std::vector<DeviceId> fast{0, 1}, slow{2, 3};
  ASSERT_TRUE(ctx_->StartOn(0, fast));
  EXPECT_EQ(planner_.calls, 1);
  ctx_->Preempt(0);
  ASSERT_TRUE(ctx_->StartOn(1, fast));
  EXPECT_EQ(planner_.calls, 1);
  EXPECT_EQ(backend_.job_status(1).devices, fast);
  EXPECT_DOUBLE_EQ(backend_.job_status(1).iteration_rate, 1.0);  // FakePlanner: 1 s on kFast
  ctx_->Preempt(1);
  ASSERT_TRUE(ctx_->StartOn(1, slow));
  EXPECT_EQ(planner_.calls, 2);
  EXPECT_DOUBLE_EQ(backend_.job_status(1).iteration_rate, 0.5);  // 2 s on kSlow
  ASSERT_TRUE(ctx_->StartOn(2, fast));
  EXPECT_EQ(planner_.calls, 3);
  ctx_->Preempt(2);
  ASSERT_TRUE(ctx_->StartOn(3, fast));
  ctx_->Preempt(3);
  ASSERT_TRUE(ctx_->StartOn(3, fast));
  EXPECT_EQ(planner_.calls, 5);
  // The memo keeps the first plan of job 0's key: job 0 again on {0, 1} after job 3.
  ctx_->Preempt(3);
  ASSERT_TRUE(ctx_->StartOn(0, fast));
  EXPECT_EQ(planner_.calls, 5);
  EXPECT_FALSE(ctx_->failed());
}

}  // namespace
}  // namespace hetsched::test
