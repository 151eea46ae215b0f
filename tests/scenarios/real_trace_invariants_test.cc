// Every baseline policy x every placer on real traces (Gavel msr, Tiresias 60-job, Philly
// runtimes), with the simulator's full audit every 1,000 scheduling calls, and after each run
// the invariants of scenario_util.h: every job finished once, no job faster than its ideal,
// device-seconds conserved between the jobs and the timeline, the cluster never over-booked,
// preemptions only where the policy preempts.
//
// Each workload is sized and paired with a cluster so that jobs queue (otherwise the policies
// never differ and nothing is preempted) while the whole binary stays fast in a Debug build and
// under the sanitizers (CI runs it in both): the 100 runs take about 10 s in Debug.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "hetsched/sim/runner.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"
#include "scenario_util.h"

namespace hetsched {
namespace {

using scenario_util::CheckRunInvariants;
using scenario_util::DefaultTestCluster;
using scenario_util::GavelShorthandCluster;
using scenario_util::InvariantOptions;
using scenario_util::MustReadTrace;

constexpr double kRestartCostS = 30;

struct PolicyCase {
  const char* label;         // for test names: letters, digits and '_' only
  const char* name;
  const char* option_key;    // nullptr: no option
  const char* option_value;
  bool preemptive;
  bool elastic = false;  // may run a job on fewer devices than requested
};

const PolicyCase kPolicies[] = {
    {"fifo", "fifo", nullptr, nullptr, false},
    {"fifo_nobackfill", "fifo", "backfill", "none", false},
    {"sjf", "sjf", nullptr, nullptr, false},
    {"srtf", "srtf", nullptr, nullptr, true},
    {"tiresias_las", "tiresias-las", nullptr, nullptr, true},
    {"multi_priority", "multi-priority", nullptr, nullptr, false},
    {"rlpto", "rlpto", nullptr, nullptr, true, true},  // shrinking restarts a job on fewer GPUs
    // Type-aware allocation: waiting jobs on their fastest type with room, running ones moved up.
    {"rlpto_heuristic", "rlpto", "allocation", "heuristic", true, true},
};

struct PlacerCase {
  const char* label;
  const char* name;
};

const PlacerCase kPlacers[] = {
    {"first_fit", "first-fit"},
    {"pack", "pack"},
    {"random", "random"},
    {"spread", "spread"},
};

enum class Scenario { kGavelDefault, kGavelShorthand, kGavelQueuedDefault, kTiresias60, kPhilly };

const char* ScenarioLabel(Scenario s) {
  switch (s) {
    case Scenario::kGavelDefault: return "GavelMsrDefaultCluster";
    case Scenario::kGavelShorthand: return "GavelMsrShorthandCluster";
    case Scenario::kGavelQueuedDefault: return "GavelMsr300DefaultCluster";
    case Scenario::kTiresias60: return "Tiresias60JobSmallCluster";
    case Scenario::kPhilly: return "PhillyRuntimeStrided";
  }
  return "unknown";
}

// Gavel's msr trace seed 0 / e13805, whole: 607 jobs of 1-24 GPUs (233 x 1, 5 x 2, 116 x 4,
// 234 x 8, 6 x 12, 11 x 16, 2 x 24), so every placer has to span nodes. It queues hard on the
// shorthand cluster (tens of jobs pending) and lightly on the default one.
const Workload& GavelMsr() {
  static const Workload w = MustReadTrace("data/real/gavel/traces/msr_seed0_e13805.trace", "gavel", -1);
  return w;
}

// The first 300 jobs of Gavel's msr trace seed 0 / 0e4a51 (1-4 GPUs): on the default cluster
// about 85 jobs pend at the peak and the preemptive policies preempt hundreds of times.
const Workload& GavelMsrFirst300() {
  static const Workload w = MustReadTrace("data/real/gavel/traces/msr_seed0_0e4a51.trace", "gavel", 300);
  return w;
}

// Tiresias' 60-job trace (1-8 GPUs, arrivals over ~30 minutes). On the default cluster's 96
// GPUs no job ever waits, so it runs on a small cluster (8 V100 + 8 K80, 4 per server) where up
// to ~25 jobs pend and SRTF and LAS preempt.
const Workload& Tiresias60() {
  static const Workload w = MustReadTrace("data/real/tiresias/60_job.csv", "tiresias", -1);
  return w;
}

const Cluster& SmallCluster() {
  static const Cluster cluster = [] {
    auto c = MakeShorthandCluster({{"v100", 8}, {"k80", 8}}, 4, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn());
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : Cluster();
  }();
  return cluster;
}

// Philly runtimes: data/real/philly/philly_runtime.csv is sorted by runtime, so its first 2,000
// rows (max_jobs = 2000) are all jobs of at most 30 s that never queue. Every 83rd row instead
// (1,001 jobs) spans the whole distribution, from seconds to weeks; sizes (1-32 GPUs), models
// and arrivals come from the reader's fixed synthetic fill (docs/formats-trace.md).
const Workload& PhillyStrided() {
  static const Workload w = [] {
    const std::string path = scenario_util::SourcePath("data/real/philly/philly_runtime.csv");
    auto text = ReadFile(path);
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    if (!text.ok()) return Workload{};
    std::string subset;
    size_t row = 0;
    for (std::string_view line : Split(*text, '\n')) {
      if (line.empty()) continue;
      // Row 0 is the header; keep it and every 83rd data row.
      if (row == 0 || (row - 1) % 83 == 0) subset.append(line).push_back('\n');
      ++row;
    }
    auto parsed = ParseTrace(subset, path + " (every 83rd row)", "philly-runtime", TraceReadOptions{},
                        DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    return parsed.ok() ? std::move(parsed).value() : Workload{};
  }();
  return w;
}

const Workload& WorkloadOf(Scenario s) {
  switch (s) {
    case Scenario::kGavelDefault:
    case Scenario::kGavelShorthand: return GavelMsr();
    case Scenario::kGavelQueuedDefault: return GavelMsrFirst300();
    case Scenario::kTiresias60: return Tiresias60();
    case Scenario::kPhilly: return PhillyStrided();
  }
  return GavelMsr();
}

const Cluster& ClusterOf(Scenario s) {
  switch (s) {
    case Scenario::kGavelShorthand: return GavelShorthandCluster();
    case Scenario::kTiresias60: return SmallCluster();
    default: return DefaultTestCluster();
  }
}

using Param = std::tuple<Scenario, int /*policy index*/, int /*placer index*/>;

class RealTraceInvariantsTest : public ::testing::TestWithParam<Param> {};

TEST_P(RealTraceInvariantsTest, RunsToCompletionWithInvariantsHeld) {
  const auto [scenario, policy_index, placer_index] = GetParam();
  const PolicyCase& policy = kPolicies[policy_index];
  const Workload& workload = WorkloadOf(scenario);
  ASSERT_FALSE(workload.jobs.empty());

  MethodChoice choice;
  choice.policy = policy.name;
  if (policy.option_key != nullptr) choice.policy_options.Set(policy.option_key, policy.option_value);
  choice.placer = kPlacers[placer_index].name;
  SimOptions options;
  options.restart_cost_s = kRestartCostS;
  options.check_invariants = true;
  options.full_audit_every = 1000;
  auto run = RunSimulation(ClusterOf(scenario), ModelZoo::BuiltIn(), workload, choice, options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();

  InvariantOptions check;
  check.preemptive = policy.preemptive;
  check.elastic = policy.elastic;
  CheckRunInvariants(*run, workload, check);
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  const auto [scenario, policy_index, placer_index] = info.param;
  return std::string(ScenarioLabel(scenario)) + "_" + kPolicies[policy_index].label + "_" +
         kPlacers[placer_index].label;
}

// Every scenario, policy and placer. Under ASan (CI's second stage) RLPTO's rows, 40 of 160 but
// ~90% of the suite's time there (its learned agent runs at each decision; 4-6 s a row), keep one
// placer per scenario, a different one each (the placers are every other policy's rows too); the
// release stage runs them all (docs/PERFORMANCE.md, "CI time", session 43).
std::vector<Param> AllParams() {
  const Scenario scenarios[] = {Scenario::kGavelDefault, Scenario::kGavelShorthand, Scenario::kGavelQueuedDefault,
                                Scenario::kTiresias60, Scenario::kPhilly};
  std::vector<Param> params;
  for (size_t s = 0; s < std::size(scenarios); ++s) {
    for (int p = 0; p < static_cast<int>(std::size(kPolicies)); ++p) {
      for (int q = 0; q < static_cast<int>(std::size(kPlacers)); ++q) {
#if defined(__SANITIZE_ADDRESS__)
        const bool learned = std::string_view(kPolicies[p].name) == "rlpto";
        if (learned && static_cast<size_t>(q) != s % std::size(kPlacers)) continue;
#endif
        params.emplace_back(scenarios[s], p, q);
      }
    }
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(AllMethods, RealTraceInvariantsTest, ::testing::ValuesIn(AllParams()), ParamName);

// The workloads are what the comments above say, so the runs cover what they claim.
TEST(RealTraceWorkloadsTest, SizesAndShapes) {
  auto max_gpus = [](const Workload& w) {
    int m = 0;
    for (const Job& j : w.jobs) m = std::max(m, j.spec.num_gpus);
    return m;
  };
  EXPECT_EQ(GavelMsr().jobs.size(), 607u);
  EXPECT_EQ(max_gpus(GavelMsr()), 24);
  EXPECT_EQ(GavelMsrFirst300().jobs.size(), 300u);
  EXPECT_EQ(Tiresias60().jobs.size(), 60u);
  EXPECT_EQ(max_gpus(Tiresias60()), 8);
  // 83,154 data rows, numbered 0..83,153: rows 0, 83, ..., 83 x 1,001 = 83,083 are kept, 1,002
  // rows. The file's only 0-second runtimes are its rows 0 and 1; row 0 is kept and left out
  // (a job that did no work), so 1,001 jobs.
  EXPECT_EQ(PhillyStrided().rows_read, 1002);
  EXPECT_EQ(PhillyStrided().jobs.size(), 1001u);
  EXPECT_EQ(max_gpus(PhillyStrided()), 32);
}

// The preemptive policies do preempt where jobs queue, so the audits above cover the
// preempt/restart path and not only start/finish.
TEST(RealTraceWorkloadsTest, PreemptivePoliciesPreemptWhenJobsQueue) {
  for (const char* policy : {"srtf", "tiresias-las"}) {
    MethodChoice choice;
    choice.policy = policy;
    choice.placer = "pack";
    SimOptions options;
    options.full_audit_every = 1000;
    auto run = RunSimulation(SmallCluster(), ModelZoo::BuiltIn(), Tiresias60(), choice, options);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    long long preemptions = 0;
    for (const JobRecord& j : run->jobs) preemptions += j.preemptions;
    EXPECT_GT(preemptions, 0) << policy;
  }
}

}  // namespace
}  // namespace hetsched
