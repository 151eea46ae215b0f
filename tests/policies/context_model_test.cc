// SchedContext's model lookup: every start plans with the zoo's profile of the job's own model,
// through the zoo where the back end has not looked it up (as here: FakeBackend's job_model is
// the default), and refuses a job whose model the zoo does not know.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fake_backend.h"

namespace hetsched::test {
namespace {

// Records the profile each plan was made with.
class RecordingPlanner : public FakePlanner {
 public:
  Result<PlannedJob> PlanJob(const JobSpec& job, const ModelProfile& model, std::span<const DeviceId> devices,
                             const Cluster& cluster) override {
    seen.push_back(&model);
    return FakePlanner::PlanJob(job, model, devices, cluster);
  }
  std::vector<const ModelProfile*> seen;
};

class ContextModelTest : public ::testing::Test {
 protected:
  static constexpr int kModels = 40;

  ContextModelTest() : cluster_({{kFast, 8}}), backend_(cluster_.cluster()) {
    for (int m = 0; m < kModels; ++m) {
      ModelProfile profile;
      profile.name = "model-" + std::to_string(m);
      zoo_.Add(profile);
    }
    ctx_ = std::make_unique<SchedContext>(backend_, backend_.state(), placer_, planner_, zoo_);
  }
  // Adds job `id` of model `model`, tries to start it on one device, and ends it if it started.
  bool StartAndFinish(JobId id, const std::string& model) {
    JobSpec spec;
    spec.id = id;
    spec.model = model;
    spec.num_gpus = 1;
    spec.iterations = 10;
    backend_.AddJob(std::move(spec));
    if (!ctx_->TryStart(id, 1)) return false;
    EXPECT_TRUE(backend_.Finish(id).ok());
    return true;
  }

  TestCluster cluster_;
  FakeBackend backend_;
  FakePlacer placer_;
  RecordingPlanner planner_;
  ModelZoo zoo_;
  std::unique_ptr<SchedContext> ctx_;
};

TEST_F(ContextModelTest, EachStartPlansWithItsJobsModel) {
  std::vector<const ModelProfile*> expected;
  // Every third job names model-0; the others walk all 40 models twice in a scrambled order (7 is
  // prime to 40).
  for (JobId id = 0; id < 120; ++id) {
    const int m = id % 3 == 0 ? 0 : static_cast<int>((id * 7) % kModels);
    const std::string model = "model-" + std::to_string(m);
    ASSERT_TRUE(StartAndFinish(id, model)) << "job " << id;
    expected.push_back(zoo_.Find(model));
    ASSERT_NE(expected.back(), nullptr);
  }
  EXPECT_EQ(planner_.seen, expected);
}

TEST_F(ContextModelTest, UnknownModelNeverStarts) {
  EXPECT_FALSE(StartAndFinish(0, "no-such-model"));
  EXPECT_TRUE(StartAndFinish(1, "model-3"));
  EXPECT_FALSE(StartAndFinish(2, "no-such-model"));
  EXPECT_EQ(planner_.seen, (std::vector<const ModelProfile*>{zoo_.Find("model-3")}));
  EXPECT_TRUE(ctx_->TakeError().ok());
}

}  // namespace
}  // namespace hetsched::test
