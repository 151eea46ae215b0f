// The simulator under an injected fault (issue 20): a planner that lays a job out on a device
// another job holds. ClusterState refuses the double booking; the run must end with that internal
// error (the CLI's exit 3), not go on as if the cluster had no room.
#include <gtest/gtest.h>

#include "../common/device_zero_planner.h"
#include "hetsched/sim/runner.h"
#include "hetsched/sim/simulator.h"
#include "sim_world.h"

namespace hetsched {
namespace {

using testing_util::DeviceZeroPlanner;
using testing_util::MakeSimWorld;
using testing_util::MakeWorkload;
using testing_util::UnitJob;

TEST(SimulatorFaultsTest, DoubleBookingByAPlannerEndsTheRunWithAnInternalError) {
  auto w = MakeSimWorld();
  MethodChoice choice;
  choice.policy = "fifo";
  choice.placer = "first-fit";
  auto methods = CreateMethods(choice);
  ASSERT_TRUE(methods.ok()) << methods.status().ToString();
  methods->planner = std::make_unique<DeviceZeroPlanner>(std::move(methods->planner));
  // Job 0 gets device 0 (first fit); job 1 is placed on device 1 and planned on device 0.
  const Workload workload = MakeWorkload({UnitJob(0, 0, 1, 3), UnitJob(1, 0, 1, 3)});
  auto run = Simulate(*w->cluster, w->zoo, workload, std::move(methods).value(), SimOptions{});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kInternal);
  EXPECT_EQ(run.status().message(), "double booking: device 0 is held by job 0, job 1 asked for it");
}

}  // namespace
}  // namespace hetsched
