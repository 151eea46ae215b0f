// Goodput jobs on several GPU types (Sia's setting): each type's truth from its own profile files,
// a model per type in what the job reports, Sia's policy choosing among the types. The second
// type's profiles are synthetic (tests/trace/two_type_profiles.h: Pollux's T4 times halved).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "../trace/two_type_profiles.h"
#include "hetsched/run/simulate_request.h"
#include "hetsched/sched/methods.h"
#include "hetsched/sim/simulator.h"

namespace hetsched {
namespace {

// A folder for this test: Sia-style profiles of cifar10 and bert ("slow": Pollux's T4 times,
// "fast": half of them), and `workload` written beside them.
std::string Prepare(const std::string& workload) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "hetsched_goodput_types" / info->name();
  std::filesystem::remove_all(dir);
  for (const char* app : {"cifar10", "bert"}) {
    testing_util::MakeScaledProfiles((dir / "traces").string(), app, {{"slow", 1.0}, {"fast", 0.5}});
  }
  std::ofstream(dir / "workload.csv") << workload;
  return dir.string();
}

Result<RunRecord> RunOn(const std::string& dir, const std::string& gpus, const std::string& policy) {
  SimulateRequest r;
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--gpus", gpus},
           {"--gpus-per-server", "4"},
           {"--policy", policy},
           {"--trace", dir + "/workload.csv"},
           {"--profiles", dir + "/traces"},
           {"--profile-types", "slow=t4,fast=a100-40gb"}}) {
    HETSCHED_RETURN_IF_ERROR(r.Set(flag, value));
  }
  std::string report;
  HETSCHED_RETURN_IF_ERROR(r.Prepare(&report));
  HETSCHED_ASSIGN_OR_RETURN(SimInputs in, LoadSimInputs(r.cluster, r.workload, r.sim, ModelZoo::BuiltIn()));
  HETSCHED_ASSIGN_OR_RETURN(Methods methods, CreateMethods(r.methods, in.options.seed));
  return Simulate(in.cluster, ModelZoo::BuiltIn(), in.workload, std::move(methods), in.options);
}

// One rigid job alone (its batch fixed, its GPU count its own): every step takes half as long on
// the type whose times are halved, so after the same 30 s re-allocation delay its training takes
// exactly half as long: (JCT_fast - 30) = (JCT_slow - 30) / 2.
TEST(GoodputTypesTest, AJobRunsAtItsTypesOwnTimes) {
  const std::string dir = Prepare("name,time,application,num_replicas,batch_size,category\ncifar10-0,0,cifar10,2,256,rigid\n");
  auto slow = RunOn(dir, "t4=4", "fifo");
  ASSERT_TRUE(slow.ok()) << slow.status().ToString();
  auto fast = RunOn(dir, "a100-40gb=4", "fifo");
  ASSERT_TRUE(fast.ok()) << fast.status().ToString();
  ASSERT_TRUE(slow->jobs[0].finished() && fast->jobs[0].finished());
  EXPECT_EQ(slow->jobs[0].device_type_name, "t4");
  EXPECT_EQ(fast->jobs[0].device_type_name, "a100-40gb");
  const double slow_train = slow->jobs[0].jct_s() - 30, fast_train = fast->jobs[0].jct_s() - 30;
  EXPECT_GT(slow_train, 1000);
  EXPECT_NEAR(fast_train, slow_train / 2, 1e-9 * slow_train);
  // Its ideal run (for slowdowns) is on the faster type of those it may use.
  auto both = RunOn(dir, "t4=4,a100-40gb=4", "fifo");
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_NEAR(both->jobs[0].ideal_runtime_s, fast->jobs[0].jct_s(), 1e-6 * fast_train);
  // A cluster of a type the profiles do not cover cannot run it.
  auto none = RunOn(dir, "v100=4", "fifo");
  EXPECT_FALSE(none.ok());
}

// Sia's policy on 8 T4 and 8 "fast" GPUs: every job finishes, the run repeats (CBC is
// deterministic), and jobs end on both types (a job offered a type it has not run on gets one GPU
// there, as in Sia, and its model there once it has measured itself).
TEST(GoodputTypesTest, SiaChoosesAmongTheTypes) {
  std::string workload = "name,time,application,num_replicas,batch_size\n";
  for (int i = 0; i < 8; ++i) {
    workload += (i % 2 ? "bert-" : "cifar10-") + std::to_string(i) + "," + std::to_string(120 * i) +
                (i % 2 ? ",bert,1,12\n" : ",cifar10,1,128\n");
  }
  const std::string dir = Prepare(workload);
  auto run = RunOn(dir, "t4=8,a100-40gb=8", "sia");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  std::set<std::string> types;
  double gpu_s = 0;
  for (const JobRecord& j : run->jobs) {
    ASSERT_TRUE(j.finished()) << j.name;
    types.insert(j.device_type_name);
    gpu_s += j.gpu_seconds;
  }
  EXPECT_EQ(types, (std::set<std::string>{"a100-40gb", "t4"}));
  EXPECT_GT(gpu_s, 0);
  auto again = RunOn(dir, "t4=8,a100-40gb=8", "sia");
  ASSERT_TRUE(again.ok());
  for (size_t i = 0; i < run->jobs.size(); ++i) EXPECT_EQ(run->jobs[i].finish_s, again->jobs[i].finish_s);
}

}  // namespace
}  // namespace hetsched
