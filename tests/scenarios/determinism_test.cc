// Determinism end to end: the same inputs, methods and seeds give byte-identical outputs
// (summary.json, jobs.csv, timeline.csv as report/writers.h renders them), whatever the number
// of threads RunMany uses; a different seed of the random placer gives a different run.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hetsched/metrics/summary.h"
#include "hetsched/report/writers.h"
#include "hetsched/sim/runner.h"
#include "scenario_util.h"

namespace hetsched {
namespace {

using scenario_util::DefaultTestCluster;
using scenario_util::GavelShorthandCluster;
using scenario_util::MustReadTrace;

struct Outputs {
  std::string summary_json;
  std::string jobs_csv;
  std::string timeline_csv;
};

Outputs RenderOutputs(const RunRecord& run) {
  return Outputs{SummaryJson(run, Summarize(run)), JobsCsv(run), TimelineCsv(run)};
}

// Compares the three files; on a difference, says which one (the texts are too long to print).
void ExpectSameOutputs(const Outputs& a, const Outputs& b, const std::string& what) {
  EXPECT_TRUE(a.summary_json == b.summary_json) << what << ": summary.json differs";
  EXPECT_TRUE(a.jobs_csv == b.jobs_csv) << what << ": jobs.csv differs";
  EXPECT_TRUE(a.timeline_csv == b.timeline_csv) << what << ": timeline.csv differs";
}

MethodChoice Choice(const std::string& policy, const std::string& placer, const std::string& placer_seed = "") {
  MethodChoice c;
  c.policy = policy;
  c.placer = placer;
  if (!placer_seed.empty()) c.placer_options.Set("seed", placer_seed);
  return c;
}

Outputs MustRun(const Cluster& cluster, const Workload& workload, const MethodChoice& choice) {
  SimOptions options;
  options.full_audit_every = 1000;
  auto run = RunSimulation(cluster, ModelZoo::BuiltIn(), workload, choice, options);
  EXPECT_TRUE(run.ok()) << choice.Label() << ": " << run.status().ToString();
  return run.ok() ? RenderOutputs(*run) : Outputs{};
}

// 300 Gavel msr jobs that queue on the default cluster (so preemption, restarts and contention
// between cross-node jobs all happen).
const Workload& Gavel300() {
  static const Workload w = MustReadTrace("data/real/gavel/traces/msr_seed0_0e4a51.trace", "gavel", 300);
  return w;
}

TEST(DeterminismTest, SameRunTwiceGivesByteIdenticalOutputs) {
  for (const MethodChoice& choice :
       {Choice("tiresias-las", "random"), Choice("srtf", "spread"), Choice("fifo", "pack")}) {
    const Outputs first = MustRun(DefaultTestCluster(), Gavel300(), choice);
    const Outputs second = MustRun(DefaultTestCluster(), Gavel300(), choice);
    ASSERT_FALSE(first.jobs_csv.empty());
    // 300 jobs + the header.
    EXPECT_EQ(std::count(first.jobs_csv.begin(), first.jobs_csv.end(), '\n'), 301) << choice.Label();
    ExpectSameOutputs(first, second, choice.Label());
  }
}

TEST(DeterminismTest, RunManyGivesTheSameOutputsOnOneAndTwoThreads) {
  const std::vector<MethodChoice> choices{Choice("fifo", "first-fit"), Choice("sjf", "pack"),
                                          Choice("srtf", "random"), Choice("tiresias-las", "spread"),
                                          Choice("tiresias-las", "random", "7")};
  SimOptions options;
  options.full_audit_every = 1000;
  const Workload& workload = Gavel300();
  auto one = RunMany(GavelShorthandCluster(), ModelZoo::BuiltIn(), workload, choices, options, 1);
  auto two = RunMany(GavelShorthandCluster(), ModelZoo::BuiltIn(), workload, choices, options, 2);
  ASSERT_EQ(one.size(), choices.size());
  ASSERT_EQ(two.size(), choices.size());
  for (size_t i = 0; i < choices.size(); ++i) {
    ASSERT_TRUE(one[i].ok()) << one[i].status().ToString();
    ASSERT_TRUE(two[i].ok()) << two[i].status().ToString();
    // Results come back in the order of `choices`, not of completion.
    EXPECT_EQ(one[i]->policy, choices[i].policy);
    EXPECT_EQ(two[i]->placer, choices[i].placer);
    ExpectSameOutputs(RenderOutputs(*one[i]), RenderOutputs(*two[i]), choices[i].Label());
  }
  // And a parallel run equals the same choice run alone.
  ExpectSameOutputs(RenderOutputs(*two[3]), MustRun(GavelShorthandCluster(), workload, choices[3]), "alone vs RunMany");
}

TEST(DeterminismTest, RandomPlacerSeedChangesTheRunAndOnlyTheSeedMatters) {
  const Outputs seed1 = MustRun(DefaultTestCluster(), Gavel300(), Choice("fifo", "random", "1"));
  const Outputs seed2 = MustRun(DefaultTestCluster(), Gavel300(), Choice("fifo", "random", "2"));
  const Outputs seed2_again = MustRun(DefaultTestCluster(), Gavel300(), Choice("fifo", "random", "2"));
  const Outputs default_seed = MustRun(DefaultTestCluster(), Gavel300(), Choice("fifo", "random"));
  ASSERT_FALSE(seed1.jobs_csv.empty());
  // Different devices (of different types, on the heterogeneous default cluster) -> different
  // device_type columns and run times.
  EXPECT_NE(seed1.jobs_csv, seed2.jobs_csv);
  ExpectSameOutputs(seed2, seed2_again, "random placer, seed 2 twice");
  ExpectSameOutputs(seed1, default_seed, "random placer, seed 1 vs its default (1)");
}

TEST(DeterminismTest, SyntheticWorkloadDependsOnlyOnItsSeed) {
  auto generate = [](unsigned long long seed) {
    SyntheticOptions options;
    options.num_jobs = 200;
    options.arrival_rate_per_hour = 120;
    options.seed = seed;
    auto w = GenerateSynthetic(options, DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? std::move(w).value() : Workload{};
  };
  const Workload a = generate(11);
  const Workload b = generate(11);
  const Workload c = generate(12);
  ASSERT_EQ(a.jobs.size(), 200u);
  const std::string trace_a = ToNativeTrace(a, DeviceCatalog::BuiltIn());
  EXPECT_EQ(trace_a, ToNativeTrace(b, DeviceCatalog::BuiltIn()));
  EXPECT_NE(trace_a, ToNativeTrace(c, DeviceCatalog::BuiltIn()));
  // The same generated workload simulates to the same outputs, twice.
  const MethodChoice choice = Choice("tiresias-las", "pack");
  ExpectSameOutputs(MustRun(DefaultTestCluster(), a, choice), MustRun(DefaultTestCluster(), b, choice),
                    "synthetic seed 11 twice");
}

}  // namespace
}  // namespace hetsched
