// `--compat pollux` against Pollux's own simulator (petuum/adaptdl @ osdi21-artifact, simulator/),
// on the project's copy of its workloads and profiles (data/real/pollux, Apache-2.0). The figures
// are the peer's (its simulator, `simulator.py workloads/workload-6.csv --policy tiresias`, run on
// this machine: average JCT 3,469.69 s, makespan 78,556 s; ../shared/peers/README.md and
// docs/validation.md, "Pollux"), which hetsched reproduces to the second.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "hetsched/metrics/summary.h"
#include "hetsched/run/simulate_request.h"
#include "hetsched/sched/methods.h"
#include "hetsched/sim/simulator.h"

namespace hetsched {
namespace {

Result<RunRecord> RunPollux(const std::string& workload, const std::string& policy) {
  SimulateRequest r;
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--compat", "pollux"},
           {"--policy", policy},
           {"--trace", std::string(HETSCHED_SOURCE_DIR) + "/data/real/pollux/workloads/" + workload},
           {"--profiles", std::string(HETSCHED_SOURCE_DIR) + "/data/real/pollux/traces"}}) {
    HETSCHED_RETURN_IF_ERROR(r.Set(flag, value));
  }
  std::string report;
  HETSCHED_RETURN_IF_ERROR(r.Prepare(&report));
  HETSCHED_ASSIGN_OR_RETURN(SimInputs in, LoadSimInputs(r.cluster, r.workload, r.sim, ModelZoo::BuiltIn()));
  HETSCHED_ASSIGN_OR_RETURN(Methods methods, CreateMethods(r.methods, in.options.seed));
  return Simulate(in.cluster, ModelZoo::BuiltIn(), in.workload, std::move(methods), in.options);
}

TEST(PolluxCompatTest, TiresiasOnWorkloadSixIsThePeersToTheSecond) {
  auto run = RunPollux("workload-6.csv", "pollux-tiresias");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->jobs.size(), 160u);
  double jct = 0, last = 0, first = 1e18;
  for (const JobRecord& j : run->jobs) {
    ASSERT_TRUE(j.finished()) << j.name;
    jct += j.jct_s();
    last = std::max(last, j.finish_s);
    first = std::min(first, j.submit_s);
    EXPECT_EQ(j.finish_s, static_cast<double>(static_cast<long long>(j.finish_s))) << j.name;  // whole seconds
  }
  EXPECT_DOUBLE_EQ(jct / 160, 3469.69375);
  EXPECT_EQ(last, 78609);
  EXPECT_EQ(last - first, 78556);
}

TEST(PolluxCompatTest, ItsClusterYieldsToAGivenOne) {
  SimulateRequest r;
  ASSERT_TRUE(r.Set("--compat", "pollux").ok());
  ASSERT_TRUE(r.Set("--policy", "pollux-tiresias").ok());
  ASSERT_TRUE(r.Set("--cluster", "my.yaml").ok());
  std::string report;
  ASSERT_TRUE(r.Prepare(&report).ok()) << report;
  EXPECT_EQ(r.cluster.gpus, "");  // not set beside --cluster
  EXPECT_NE(report.find("--gpus t4=64") , std::string::npos) << report;
  EXPECT_NE(report.find("not with --cluster (given)"), std::string::npos) << report;
  EXPECT_TRUE(r.sim.goodput_round_epochs);
  EXPECT_EQ(r.sim.goodput_delay_s, 30);
}

}  // namespace
}  // namespace hetsched
