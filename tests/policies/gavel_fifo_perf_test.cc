// fifo-perf: arrival order, fastest type with room, head blocks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "fake_backend.h"

namespace hetsched {
namespace {

using ::testing::ElementsAre;
using test::kFast;
using test::kSlow;

// Devices 0-1 fast (node 0), 2-3 slow (node 1). Job 1 (2 GPUs) takes the fast pair; job 2 finds
// no fast room and takes a slow GPU; job 3 (2 GPUs) does not fit (1 slow left): it blocks job 4.
TEST(FifoPerfTest, FastestTypeWithRoomAndHeadBlocks) {
  test::PolicyHarness h({{kFast, 2}, {kSlow, 2}}, "fifo-perf");
  h.Submit(1, 2, 0, 100);
  h.Submit(2, 1, 0, 100);
  h.Submit(3, 2, 0, 100);
  h.Submit(4, 1, 0, 100);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]", "start 2 on [2]"));
  h.Finish(1, 10);
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 3 on [0,1]", "start 4 on [3]"));
}

}  // namespace
}  // namespace hetsched

namespace hetsched {
namespace {

// With a profile that measures the job on the slow type only, at 10 steps/s (20 x the fake
// planner's 0.5 it/s there), fast's modelled 1 it/s becomes 20 steps/s in the profile's units:
// fast still comes first. A profile measuring both types (slow 10, fast 5) puts slow first.
TEST(FifoPerfTest, ProfileRanksTypesInItsUnits) {
  const auto run = [](const std::string& rows) {
    const std::string path = ::testing::TempDir() + "/fifo_perf_profile.csv";
    std::ofstream(path) << "gpu_type,consolidated,job_type,scale_factor,steps_per_second\n" << rows;
    test::PolicyHarness h({{kFast, 1}, {kSlow, 1}}, "fifo-perf", {"profile=" + path});
    h.SubmitNamed(1, "toyjob", 1, 100);
    h.ScheduleAt(0);
    return h.TakeLog();
  };
  EXPECT_THAT(run("slow-gpu,no,toyjob,1,10\n"), ElementsAre("start 1 on [0]"));
  EXPECT_THAT(run("slow-gpu,no,toyjob,1,10\nfast-gpu,no,toyjob,1,5\n"), ElementsAre("start 1 on [1]"));
}

// A profile naming a GPU type the catalog lacks ends the run with the file, line and field.
TEST(FifoPerfTest, ProfileWithAnUnknownGpuTypeEndsTheRun) {
  for (const char* policy : {"fifo-perf", "gavel-las"}) {
    const std::string path = ::testing::TempDir() + "/bad_profile.csv";
    std::ofstream(path) << "gpu_type,consolidated,job_type,scale_factor,steps_per_second\n"
                        << "h900,no,toyjob,1,10\n";
    test::PolicyHarness h({{kFast, 1}, {kSlow, 1}}, policy, {"profile=" + path});
    h.Submit(1, 1, 0, 100);
    const Status error = h.ctx().TakeError();
    ASSERT_FALSE(error.ok()) << policy;
    EXPECT_NE(error.message().find("bad_profile.csv:2: field 'gpu_type': unknown device type 'h900'"),
              std::string::npos)
        << error.message();
    EXPECT_NE(error.message().find(std::string(policy) + ": option 'profile'"), std::string::npos) << error.message();
  }
}

TEST(FifoPerfTest, MissingProfileIsAnError) {
  auto made = Registry<JobScheduler>::Instance().Create("fifo-perf", *Options::Parse({"profile=/nonexistent.csv"}));
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("nonexistent"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
