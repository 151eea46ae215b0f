// `--compat pollux` against Pollux's own simulator (petuum/adaptdl @ osdi21-artifact, simulator/),
// on the project's copy of its workloads and profiles (data/real/pollux, Apache-2.0). The figures
// are the peer's (its simulator, `simulator.py workloads/workload-6.csv --policy tiresias`, run on
// the development machine: average JCT 3,469.69 s, makespan 78,556 s; docs/validation.md,
// "Pollux"), which hetsched reproduces to the second.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "hetsched/metrics/summary.h"
#include "hetsched/run/simulate_request.h"
#include "hetsched/sched/methods.h"
#include "hetsched/sim/simulator.h"
#include "hetsched/trace/trace.h"

namespace hetsched {
namespace {

Result<RunRecord> RunPollux(const std::string& workload, const std::string& policy,
                            const std::vector<std::pair<std::string, std::string>>& more = {},
                            const std::vector<std::pair<std::string, std::string>>& policy_options = {}) {
  SimulateRequest r;
  std::vector<std::pair<std::string, std::string>> flags{
      {"--compat", "pollux"},
      {"--policy", policy},
      {"--trace", workload.front() == '/' ? workload : std::string(HETSCHED_SOURCE_DIR) + "/data/real/pollux/workloads/" + workload},
      {"--profiles", std::string(HETSCHED_SOURCE_DIR) + "/data/real/pollux/traces"}};
  flags.insert(flags.end(), more.begin(), more.end());
  for (const auto& [flag, value] : flags) HETSCHED_RETURN_IF_ERROR(r.Set(flag, value));
  for (const auto& [key, value] : policy_options) r.methods.policy_options.Set(key, value);
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

double AverageJct(const RunRecord& run) {
  double sum = 0;
  for (const JobRecord& j : run.jobs) sum += j.jct_s();
  return sum / static_cast<double>(run.jobs.size());
}

// Pollux's own policy, a genetic search each round, on workload-6's first 24 jobs with a short
// search (4 generations instead of 100; the full search is held below and compared with the peer
// in docs/validation.md): every job finishes, ncf on one GPU at most (its batch pinned), and a
// seed gives the same run.
TEST(PolluxCompatTest, PolluxFinishesEveryJobAndRepeatsForItsSeed) {
  const std::vector<std::pair<std::string, std::string>> first24{{"--max-jobs", "24"}};
  const std::vector<std::pair<std::string, std::string>> short_search{{"generations", "4"}};
  auto run = RunPollux("workload-6.csv", "pollux", first24, short_search);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->jobs.size(), 24u);
  int ncf = 0;
  for (const JobRecord& j : run->jobs) {
    ASSERT_TRUE(j.finished()) << j.name;
    if (j.name.rfind("ncf", 0) == 0) {
      ++ncf;
      EXPECT_LE(j.max_span_nodes, 1) << j.name;
      EXPECT_LE(j.gpu_seconds, j.finish_s - j.first_start_s + 1e-6) << j.name;  // one GPU at a time
    }
  }
  EXPECT_GT(ncf, 0);
  auto again = RunPollux("workload-6.csv", "pollux", first24, short_search);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (size_t i = 0; i < run->jobs.size(); ++i) EXPECT_EQ(run->jobs[i].finish_s, again->jobs[i].finish_s);
  auto other = RunPollux("workload-6.csv", "pollux", {{"--max-jobs", "24"}, {"--seed", "2"}}, short_search);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_NE(AverageJct(*run), AverageJct(*other));
}

// Workload-6 under Pollux's policy: the authors' published average JCT and their Tiresias's.
constexpr double kPolluxPublishedJct = 2446.13, kTiresiasPublishedJct = 3469.69;

// The full search on the whole of workload-6 (docs/validation.md, "Pollux"). The peer's search is
// unseeded: its published run and its reruns here lie within [0%, +2%] of 2,446.13 s, hetsched's
// seeds 1-3 within [0%, +0.9%]; the band, -5% to +6%, leaves room for another CPU's floating
// point. Well below Pollux's Tiresias, as in the paper.
TEST(PolluxCompatTest, PolluxOnWorkloadSixIsWithinThePeersSpread) {
  auto run = RunPollux("workload-6.csv", "pollux");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  for (const JobRecord& j : run->jobs) ASSERT_TRUE(j.finished()) << j.name;
  const double avg = AverageJct(*run);
  EXPECT_GT(avg, 0.95 * kPolluxPublishedJct);
  EXPECT_LT(avg, 1.06 * kPolluxPublishedJct);
  EXPECT_LT(avg, 0.8 * kTiresiasPublishedJct);
}

// Sia's policy on Pollux's workload-6, first 24 jobs (one GPU type: its integer program over
// Pollux's cluster's 18 configurations): every job finishes, ncf on one GPU at most, the same run
// twice (CBC is deterministic); keeping the nodes of a job whose configuration stays restarts no
// more jobs than Sia's simulator's placer, which places every job afresh each round.
TEST(PolluxCompatTest, SiaFinishesEveryJobAndRepeats) {
  const std::vector<std::pair<std::string, std::string>> first24{{"--max-jobs", "24"}};
  auto run = RunPollux("workload-6.csv", "sia", first24);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->jobs.size(), 24u);
  long long restarts = 0;
  for (const JobRecord& j : run->jobs) {
    ASSERT_TRUE(j.finished()) << j.name;
    restarts += j.preemptions;
    if (j.name.rfind("ncf", 0) == 0) {
      EXPECT_LE(j.gpu_seconds, j.finish_s - j.first_start_s + 1e-6) << j.name;
    }
  }
  auto again = RunPollux("workload-6.csv", "sia", first24);
  ASSERT_TRUE(again.ok());
  for (size_t i = 0; i < run->jobs.size(); ++i) EXPECT_EQ(run->jobs[i].finish_s, again->jobs[i].finish_s);
  // Re-packing every job each round (placement=fast) restarts more of them than keeping a job
  // whose configuration stays on its nodes (the default).
  auto fast = RunPollux("workload-6.csv", "sia", first24, {{"placement", "fast"}});
  ASSERT_TRUE(fast.ok()) << fast.status().ToString();
  long long fast_restarts = 0;
  for (const JobRecord& j : fast->jobs) {
    ASSERT_TRUE(j.finished()) << j.name;
    fast_restarts += j.preemptions;
  }
  EXPECT_LT(restarts, fast_restarts);
  auto bad = RunPollux("workload-6.csv", "sia", first24, {{"p", "0.5"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("option 'p' must be < 0"), std::string::npos) << bad.status().ToString();
}

// Workload-6 written as hetsched's native CSV (its goodput columns) runs as the original does:
// every job's JCT the same under Pollux's Tiresias.
TEST(PolluxCompatTest, AWorkloadWrittenAsNativeRunsTheSame) {
  std::ifstream in(std::string(HETSCHED_SOURCE_DIR) + "/data/real/pollux/workloads/workload-6.csv");
  std::stringstream text;
  text << in.rdbuf();
  TraceReadOptions options;
  options.goodput_profiles = std::string(HETSCHED_SOURCE_DIR) + "/data/real/pollux/traces";
  auto w = ParseTrace(text.str(), "workload-6.csv", "pollux", options, DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("hetsched_pollux_native_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << ToNativeTrace(*w, DeviceCatalog::BuiltIn());
  auto native = RunPollux(path.string(), "pollux-tiresias", {{"--format", "native"}});
  std::filesystem::remove(path);
  ASSERT_TRUE(native.ok()) << native.status().ToString();
  auto original = RunPollux("workload-6.csv", "pollux-tiresias");
  ASSERT_TRUE(original.ok()) << original.status().ToString();
  ASSERT_EQ(native->jobs.size(), original->jobs.size());
  for (size_t i = 0; i < original->jobs.size(); ++i) {
    EXPECT_EQ(native->jobs[i].name, original->jobs[i].name);
    EXPECT_EQ(native->jobs[i].jct_s(), original->jobs[i].jct_s()) << original->jobs[i].name;
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
