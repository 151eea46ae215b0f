// `--compat pollux` against Pollux's own simulator (petuum/adaptdl @ osdi21-artifact, simulator/),
// on the project's copy of its workloads and profiles (data/real/pollux, Apache-2.0). The figures
// are the peer's (its simulator, `simulator.py workloads/workload-6.csv --policy tiresias`, run on
// the development machine: average JCT 3,469.69 s, makespan 78,556 s; docs/validation.md,
// "Pollux"), which hetsched reproduces to the second.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

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

// Pollux's published results (simulator/results-jobload/<policy>-1.0/summary.json, copied in
// data/real/pollux/results-jobload/): each job's JCT on each of the 8 workloads.
nlohmann::json Published(const std::string& policy) {
  std::ifstream in(std::string(HETSCHED_SOURCE_DIR) + "/data/real/pollux/results-jobload/" + policy +
                   "-1.0/summary.json");
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

TEST(PolluxCompatTest, TiresiasGivesEveryJobOfEveryWorkloadItsPublishedJct) {
  const nlohmann::json published = Published("tiresias");
  for (int w = 1; w <= 8; ++w) {
    const std::string workload = "workload-" + std::to_string(w);
    SCOPED_TRACE(workload);
    auto run = RunPollux(workload + ".csv", "pollux-tiresias");
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    const nlohmann::json& jcts = published["jcts"][workload];
    ASSERT_EQ(run->jobs.size(), jcts.size());
    for (const JobRecord& j : run->jobs) EXPECT_DOUBLE_EQ(j.jct_s(), jcts.at(j.name).get<double>()) << j.name;
  }
}

// Optimus+Oracle is within 0.6% of the published average JCT on every workload, most jobs to the
// second (docs/validation.md, "Pollux": 126-156 of 160).
TEST(PolluxCompatTest, OptimusIsWithinHalfAPercentOfThePublishedAverages) {
  const nlohmann::json published = Published("optimus");
  for (int w = 1; w <= 8; ++w) {
    const std::string workload = "workload-" + std::to_string(w);
    SCOPED_TRACE(workload);
    auto run = RunPollux(workload + ".csv", "pollux-optimus");
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    double sum = 0;
    int same = 0;
    const nlohmann::json& jcts = published["jcts"][workload];
    for (const JobRecord& j : run->jobs) {
      sum += j.jct_s();
      same += std::abs(j.jct_s() - jcts.at(j.name).get<double>()) < 1e-6;
    }
    const double avg = sum / static_cast<double>(run->jobs.size());
    const double want = published["avgs"][workload].get<double>();
    EXPECT_NEAR(avg / want, 1.0, 0.006) << avg << " vs " << want;
    EXPECT_GE(same, 120) << same << " jobs equal";
  }
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
