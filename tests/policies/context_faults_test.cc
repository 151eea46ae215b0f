// SchedContext under back-end faults (issue 20): a failed start or preemption must reach the run
// as an error, never read as "no room". The back end's kInfeasible is the one refusal that is an
// outcome (try another layout); everything else is kept for TakeError() and stops later starts.
#include <gtest/gtest.h>

#include "fake_backend.h"

namespace hetsched::test {
namespace {

class ContextFaultsTest : public ::testing::Test {
 protected:
  ContextFaultsTest() : h({{kFast, 4}}, "fifo") {
    for (JobId id = 0; id < 3; ++id) AddJob(id, 1);
  }
  void AddJob(JobId id, int gpus) {
    JobSpec spec;
    spec.id = id;
    spec.model = "toy";
    spec.num_gpus = gpus;
    spec.iterations = 10;
    h.backend().AddJob(std::move(spec));
  }
  PolicyHarness h;
};

TEST_F(ContextFaultsTest, StartFaultIsKeptAndStopsLaterStarts) {
  h.backend().fail_start = Status::Internal("device 0 already held");
  EXPECT_FALSE(h.ctx().TryStart(0, 1));
  EXPECT_TRUE(h.ctx().failed());
  // The fault is fixed, but the run is over: the context refuses to start anything more.
  h.backend().fail_start = Status::Ok();
  EXPECT_FALSE(h.ctx().TryStart(1, 1));
  EXPECT_TRUE(h.backend().log.empty());
  const Status error = h.ctx().TakeError();
  EXPECT_EQ(error.code(), StatusCode::kInternal);
  EXPECT_EQ(error.message(), "device 0 already held");
  EXPECT_TRUE(h.ctx().TakeError().ok());  // taken once
}

TEST_F(ContextFaultsTest, InfeasibleIsAnOutcomeNotAFault) {
  h.backend().fail_start = Status::Infeasible("uneven split");
  EXPECT_FALSE(h.ctx().TryStart(0, 1));
  EXPECT_FALSE(h.ctx().failed());
  h.backend().fail_start = Status::Ok();
  EXPECT_TRUE(h.ctx().TryStart(0, 1));
  EXPECT_TRUE(h.ctx().TakeError().ok());
}

TEST_F(ContextFaultsTest, IoErrorOfTheBackEndIsAFault) {
  h.backend().fail_start = Status::IoError("journal write: No space left on device");
  EXPECT_FALSE(h.ctx().StartOn(0, std::vector<DeviceId>{2}));
  EXPECT_EQ(h.ctx().TakeError().code(), StatusCode::kIoError);
}

TEST_F(ContextFaultsTest, PreemptionFaultIsKept) {
  ASSERT_TRUE(h.ctx().TryStart(0, 1));
  h.backend().fail_preempt = Status::IoError("scontrol requeuehold failed");
  h.ctx().Preempt(0);
  EXPECT_EQ(h.state(0), JobState::kRunning);
  EXPECT_EQ(h.ctx().TakeError().message(), "scontrol requeuehold failed");
}

// The case of the issue: a planner that lays a job out on a device it was not given. The back end
// refuses the double booking (ClusterState::Allocate); the context used to turn that into "no
// room". Now it is an internal error.
class OneDevicePlanner : public FakePlanner {
 public:
  Result<PlannedJob> PlanJob(const JobSpec& job, const ModelProfile& model, std::span<const DeviceId> /*devices*/,
                             const Cluster& cluster) override {
    const DeviceId always[] = {0};
    return FakePlanner::PlanJob(job, model, always, cluster);
  }
};

TEST(ContextDoubleBookingTest, PlannerThatDoubleBooksEndsWithAnInternalError) {
  TestCluster cluster({{kFast, 4}});
  FakeBackend backend(cluster.cluster());
  FakePlacer placer;
  OneDevicePlanner planner;
  ModelZoo zoo;
  ModelProfile model;
  model.name = "toy";
  zoo.Add(model);
  SchedContext ctx(backend, backend.state(), placer, planner, zoo);
  for (JobId id = 0; id < 2; ++id) {
    JobSpec spec;
    spec.id = id;
    spec.model = "toy";
    spec.iterations = 10;
    backend.AddJob(std::move(spec));
  }
  EXPECT_TRUE(ctx.TryStart(0, 1));   // device 0
  EXPECT_FALSE(ctx.TryStart(1, 1));  // placed on device 1, planned on device 0: held by job 0
  const Status error = ctx.TakeError();
  EXPECT_EQ(error.code(), StatusCode::kInternal);
  EXPECT_EQ(error.message(), "double booking: device 0 is held by job 0, job 1 asked for it");
}

}  // namespace
}  // namespace hetsched::test
