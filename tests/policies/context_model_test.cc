// SchedContext's model lookup: every start plans with the profile the back end resolved for the
// job (SchedBackend::job_model, as the simulator does once per job), else with the zoo's profile
// of the job's model by name; a job whose model neither knows never starts.
#include <cmath>
#include <map>
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

// FakeBackend with the models it resolved by job (none: the default, nullptr).
class ResolvingBackend : public FakeBackend {
 public:
  using FakeBackend::FakeBackend;
  const ModelProfile* job_model(JobId id) const override {
    const auto it = models.find(id);
    return it == models.end() ? nullptr : it->second;
  }
  std::map<JobId, const ModelProfile*> models;
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
  ResolvingBackend backend_;
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

TEST_F(ContextModelTest, BackEndsModelComesFirst) {
  // The back end's profile is used as it is, even where the job's name says another model (the
  // simulator's is the zoo's own, so the two agree there).
  const ModelProfile* resolved = zoo_.Find("model-7");
  backend_.models[0] = resolved;
  EXPECT_TRUE(StartAndFinish(0, "model-1"));
  backend_.models[1] = resolved;
  EXPECT_TRUE(StartAndFinish(1, "no-such-model"));
  EXPECT_TRUE(StartAndFinish(2, "model-1"));  // not resolved: by name
  EXPECT_EQ(planner_.seen, (std::vector<const ModelProfile*>{resolved, resolved, zoo_.Find("model-1")}));
}

// A planner's fault is not "no room" (issue 45): it reaches the run as an internal error, while
// kInfeasible (the job does not fit those devices) stays an outcome the policy works around.
TEST(ContextPlannerFaultTest, AFaultStopsTheRunAndNoRoomDoesNot) {
  for (const bool fault : {false, true}) {
    SCOPED_TRACE(fault ? "fault" : "infeasible");
    PolicyHarness h({{kFast, 4}}, "fifo");
    h.planner().fail_with = fault ? Status::InvalidArgument("job 1: no batch size")
                                  : Status::Infeasible("job 1 does not fit in 16 GiB of fast");
    h.Submit(1, 2, 0, 100);
    h.ScheduleAt(0);
    EXPECT_EQ(h.state(1), JobState::kPending);
    const Status kept = h.ctx().TakeError();
    if (fault) {
      EXPECT_EQ(kept.code(), StatusCode::kInternal);
      EXPECT_EQ(kept.message(), "planner: job 1: no batch size");
    } else {
      EXPECT_TRUE(kept.ok()) << kept.message();
    }
    EXPECT_TRUE(std::isinf(h.ctx().EstimateIterationS(1, 2, kFast)));
    EXPECT_EQ(h.ctx().TakeError().ok(), !fault);
  }
}

}  // namespace
}  // namespace hetsched::test
