// The `hetsched` command line, run as a separate process (cli_runner.h: posix_spawn, no shell):
// exit codes (0 ok, 1 bad input or failed run, 2 bad command line), error messages that name the
// file, line and field, no output files at all when a run fails, and trace text that is carried
// through verbatim and never executed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "hetsched/compat/compat.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

namespace fs = std::filesystem;
using cli_test::CliResult;
using cli_test::FreshDir;
using cli_test::ReadWholeFile;
using cli_test::RunCli;
using cli_test::WriteWholeFile;

// A test's own directory: inputs, captured stdout/stderr, and `out/` for the run's outputs.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = FreshDir(info->name());
  }
  // Kept when the test failed, for a look at the inputs, outputs and captured streams.
  void TearDown() override {
    if (!HasFailure()) {
      std::error_code ignored;
      fs::remove_all(dir_, ignored);
      fs::remove(fs::path(dir_).parent_path(), ignored);  // only if no other test left files there
    }
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string Write(const std::string& name, const std::string& text) const {
    WriteWholeFile(Path(name), text);
    return Path(name);
  }
  CliResult Run(const std::vector<std::string>& args) {
    return RunCli(args, Path("capture" + std::to_string(runs_++)));
  }
  // Says everything about a run, for failure messages.
  static std::string Show(const CliResult& r) {
    return "exit " + std::to_string(r.exit_code) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
  }
  // A failed run creates nothing under -o, not even the directory.
  static bool NoOutputs(const std::string& path) { return !fs::exists(path); }

  std::string dir_;
  int runs_ = 0;
};

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Four small jobs on a small cluster: runs in milliseconds.
const char kGoodTrace[] =
    "name,user,submit_time_s,model,num_gpus,iterations\n"
    "job-a,alice,0,resnet50,1,1000\n"
    "job-b,bob,10,resnet50,2,1000\n"
    "job-c,alice,20,resnet18-cifar,4,500\n"
    "job-d,carol,30,transformer-nmt,1,200\n";

// Line 1 is the header; line 3 has a GPU count that is not a number.
const char kBadRowTrace[] =
    "name,user,submit_time_s,model,num_gpus,iterations\n"
    "job-a,alice,0,resnet50,1,1000\n"
    "job-b,bob,10,resnet50,x2,1000\n"
    "job-c,alice,20,resnet50,1,1000\n";

const char kGoodCluster[] =
    "racks:\n"
    "  - name: r0\n"
    "    nodes:\n"
    "      - device: v100\n"
    "        num_devices: 4\n"
    "        count: 2\n";

// Line 4 names a device type that does not exist.
const char kBadCluster[] =
    "racks:\n"
    "  - name: r0\n"
    "    nodes:\n"
    "      - device: v200\n"
    "        num_devices: 4\n";

TEST_F(CliTest, CatalogListsModelsPoliciesAndPlacers) {
  const CliResult r = Run({"catalog"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  // Everything built in and registered appears (the CLI links the same library as this test).
  for (const ModelProfile& m : ModelZoo::BuiltIn().models()) EXPECT_TRUE(Contains(r.out, m.name)) << m.name;
  for (const MethodInfo& p : Registry<JobScheduler>::Instance().List()) EXPECT_TRUE(Contains(r.out, p.name)) << p.name;
  for (const MethodInfo& p : Registry<Placer>::Instance().List()) EXPECT_TRUE(Contains(r.out, p.name)) << p.name;
  for (const char* expected : {"resnet50", "fifo", "tiresias-las", "first-fit", "v100-16gb", "[CLASSIC]"}) {
    EXPECT_TRUE(Contains(r.out, expected)) << expected;
  }
  EXPECT_EQ(r.err, "");
}

// A cluster file of the project's data tree ("data/real/sia/cluster.yaml", what --compat sia
// sets) is found from any directory, as the traces and profiles under data/ are; a file that is
// nowhere is refused with exit 2.
TEST_F(CliTest, AClusterFileOfTheDataTreeIsFoundFromAnyDirectory) {
  const std::string trace = Write("trace.csv", kGoodTrace);
  const CliResult r = Run({"simulate", "--trace", trace, "--format", "native", "--cluster", "data/real/sia/cluster.yaml",
                           "-o", Path("sia_cluster"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_TRUE(Contains(r.out, "64 GPUs")) << r.out;
  const CliResult missing = Run({"simulate", "--trace", trace, "--format", "native", "--cluster", "data/real/nope.yaml", "-q"});
  EXPECT_EQ(missing.exit_code, 2) << Show(missing);
  EXPECT_TRUE(Contains(missing.err, "data/real/nope.yaml")) << missing.err;
}

TEST_F(CliTest, SimulateWritesTheThreeOutputs) {
  const std::string trace = Write("trace.csv", kGoodTrace);
  const std::string out = Path("out");
  const CliResult r = Run({"simulate", "--trace", trace, "--format", "native", "--gpus", "v100=4,k80=4",
                           "--gpus-per-server", "4", "--policy", "tiresias-las", "-o", out, "-q"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  for (const char* file : {"summary.json", "jobs.csv", "timeline.csv"}) {
    EXPECT_TRUE(fs::is_regular_file(out + "/" + file)) << file;
  }
  // jobs.csv: a header and one row per job, in id order.
  const std::string jobs = ReadWholeFile(out + "/jobs.csv");
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 5);
  EXPECT_TRUE(Contains(jobs, "\n0,job-a,alice,resnet50,1,"));
  EXPECT_TRUE(Contains(jobs, "\n3,job-d,carol,transformer-nmt,1,"));
  const auto summary = nlohmann::json::parse(ReadWholeFile(out + "/summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_EQ(summary["jobs_total"], 4);
  EXPECT_EQ(summary["jobs_finished"], 4);
  EXPECT_EQ(summary["policy"], "tiresias-las");
  EXPECT_EQ(summary["total_devices"], 8);
  EXPECT_TRUE(Contains(ReadWholeFile(out + "/timeline.csv"), "time_s,busy_devices"));
  EXPECT_TRUE(Contains(r.out, "outputs : " + out + "/summary.json"));

  // The same command again gives byte-identical outputs.
  const std::string out2 = Path("out2");
  const CliResult again = Run({"simulate", "--trace", trace, "--format", "native", "--gpus", "v100=4,k80=4",
                               "--gpus-per-server", "4", "--policy", "tiresias-las", "-o", out2, "-q"});
  ASSERT_EQ(again.exit_code, 0) << Show(again);
  for (const char* file : {"summary.json", "jobs.csv", "timeline.csv"}) {
    EXPECT_EQ(ReadWholeFile(out + "/" + file), ReadWholeFile(out2 + "/" + file)) << file;
  }
}

// --seed reaches every method that draws random numbers (here the random placer, which picks a
// device type per job at random, so the jobs' finish times depend on the draws).
TEST_F(CliTest, SeedReachesTheRandomPlacer) {
  const std::string trace = Write("trace.csv", kGoodTrace);
  std::set<std::string> outputs;
  for (const char* seed : {"1", "2", "3", "4", "5"}) {
    const std::string out = Path(std::string("out") + seed);
    const CliResult r = Run({"simulate", "--trace", trace, "--format", "native", "--gpus", "v100=4,k80=4",
                             "--gpus-per-server", "4", "--placer", "random", "--seed", seed, "-o", out, "-q"});
    ASSERT_EQ(r.exit_code, 0) << Show(r);
    outputs.insert(ReadWholeFile(out + "/jobs.csv"));
  }
  EXPECT_GE(outputs.size(), 2u);
  // An explicit placer option still wins over --seed.
  const CliResult a = Run({"simulate", "--trace", trace, "--format", "native", "--gpus", "v100=4,k80=4",
                           "--gpus-per-server", "4", "--placer", "random", "--placer-opt", "seed=9", "--seed", "1",
                           "-o", Path("pinned1"), "-q"});
  const CliResult b = Run({"simulate", "--trace", trace, "--format", "native", "--gpus", "v100=4,k80=4",
                           "--gpus-per-server", "4", "--placer", "random", "--placer-opt", "seed=9", "--seed", "2",
                           "-o", Path("pinned2"), "-q"});
  ASSERT_EQ(a.exit_code, 0) << Show(a);
  ASSERT_EQ(b.exit_code, 0) << Show(b);
  EXPECT_EQ(ReadWholeFile(Path("pinned1") + "/jobs.csv"), ReadWholeFile(Path("pinned2") + "/jobs.csv"));
}

TEST_F(CliTest, MalformedRowFailsWithFileLineAndFieldAndWritesNothing) {
  const std::string trace = Write("bad_row.csv", kBadRowTrace);
  const std::string out = Path("out");
  const CliResult r = Run({"simulate", "--trace", trace, "--format", "native", "-o", out, "-q"});
  EXPECT_EQ(r.exit_code, 1) << Show(r);
  EXPECT_TRUE(Contains(r.err, trace + ":3: field 'num_gpus'")) << Show(r);
  EXPECT_TRUE(Contains(r.err, "'x2'")) << Show(r);
  EXPECT_TRUE(NoOutputs(out)) << "a failed run left outputs in " << out;

  // Into a directory holding a good run's outputs, a failed run changes none of them.
  const std::string good = Write("good.csv", kGoodTrace);
  ASSERT_EQ(Run({"simulate", "--trace", good, "--format", "native", "-o", out, "-q"}).exit_code, 0);
  const std::string jobs_before = ReadWholeFile(out + "/jobs.csv");
  const std::string summary_before = ReadWholeFile(out + "/summary.json");
  EXPECT_EQ(Run({"simulate", "--trace", trace, "--format", "native", "-o", out, "-q"}).exit_code, 1);
  EXPECT_EQ(ReadWholeFile(out + "/jobs.csv"), jobs_before);
  EXPECT_EQ(ReadWholeFile(out + "/summary.json"), summary_before);
  // summary.json, jobs.csv, timeline.csv, run.json; no stray temp files
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 4);
}

TEST_F(CliTest, OnBadRowSkipSucceedsAndCountsTheSkippedRow) {
  const std::string trace = Write("bad_row.csv", kBadRowTrace);
  const std::string out = Path("out");
  const CliResult r =
      Run({"simulate", "--trace", trace, "--format", "native", "--on-bad-row", "skip", "-o", out, "-q"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_TRUE(Contains(r.out, "2 jobs")) << Show(r);
  EXPECT_TRUE(Contains(r.out, "1 bad rows skipped")) << Show(r);
  const std::string jobs = ReadWholeFile(out + "/jobs.csv");
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 3);  // header + job-a + job-c
  EXPECT_FALSE(Contains(jobs, "job-b"));

  // `validate` reports the same row as skipped, with its line and field.
  const CliResult v = Run({"validate", "--trace", trace, "--format", "native", "--on-bad-row", "skip"});
  ASSERT_EQ(v.exit_code, 0) << Show(v);
  EXPECT_TRUE(Contains(v.out, "1 skipped")) << Show(v);
  EXPECT_TRUE(Contains(v.out, ":3: field 'num_gpus'")) << Show(v);
}

TEST_F(CliTest, UnknownGpuTypeInClusterFileNamesFileAndField) {
  const std::string cluster = Write("cluster_bad.yaml", kBadCluster);
  const std::string trace = Write("trace.csv", kGoodTrace);
  const std::string out = Path("out");
  const CliResult r = Run({"simulate", "--cluster", cluster, "--trace", trace, "-o", out, "-q"});
  EXPECT_EQ(r.exit_code, 1) << Show(r);
  EXPECT_TRUE(Contains(r.err, cluster + ":4: racks[0].nodes[0].device")) << Show(r);
  EXPECT_TRUE(Contains(r.err, "'v200'")) << Show(r);
  EXPECT_TRUE(Contains(r.err, "known: ")) << Show(r);
  EXPECT_TRUE(NoOutputs(out));
}

TEST_F(CliTest, UnknownPolicyListsTheKnownOnes) {
  const std::string trace = Write("trace.csv", kGoodTrace);
  const std::string out = Path("out");
  const CliResult r = Run({"simulate", "--trace", trace, "--policy", "no-such-policy", "-o", out, "-q"});
  EXPECT_NE(r.exit_code, 0) << Show(r);
  EXPECT_TRUE(Contains(r.err, "unknown policy 'no-such-policy'")) << Show(r);
  for (const MethodInfo& p : Registry<JobScheduler>::Instance().List()) {
    EXPECT_TRUE(Contains(r.err, p.name)) << p.name << "\n" << Show(r);
  }
  EXPECT_TRUE(NoOutputs(out));

  // Same for an unknown placer in `compare`.
  const CliResult c = Run({"compare", "--trace", trace, "--placers", "pack,no-such-placer", "-o", out, "-q"});
  EXPECT_NE(c.exit_code, 0) << Show(c);
  EXPECT_TRUE(Contains(c.err, "no-such-placer")) << Show(c);
  EXPECT_TRUE(Contains(c.err, "first-fit")) << Show(c);
  EXPECT_TRUE(NoOutputs(out));
}

// `--compat` names a registered profile; an unknown one is refused, with the known ones, before
// anything runs or is written (on every command that takes it).
TEST_F(CliTest, UnknownCompatProfileIsRefusedBeforeAnythingRuns) {
  const std::string trace = Write("trace.csv", kGoodTrace);
  const std::string out = Path("out");
  for (const char* command : {"simulate", "compare"}) {
    const CliResult r = Run({command, "--trace", trace, "--compat", "no-such-peer", "-o", out, "-q"});
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << Show(r);  // a bad command line
    EXPECT_TRUE(Contains(r.err, "unknown compatibility profile 'no-such-peer'")) << Show(r);
    for (const CompatProfile* p : CompatProfiles::Instance().List()) EXPECT_TRUE(Contains(r.err, p->name)) << Show(r);
    EXPECT_TRUE(NoOutputs(out));
  }
  const std::string configs = Write("configs.txt", "--policy fifo --trace " + trace + "\n");
  const CliResult s = Run({"sweep", "--configs", configs, "--local", "--compat", "no-such-peer", "-o", out});
  EXPECT_EQ(s.exit_code, 2) << Show(s);
  EXPECT_TRUE(Contains(s.err, "unknown compatibility profile 'no-such-peer'")) << Show(s);
  EXPECT_TRUE(NoOutputs(out));
  const CliResult c = Run({"catalog", "compat"});
  EXPECT_EQ(c.exit_code, 0) << Show(c);
  EXPECT_TRUE(Contains(c.out, "Compatibility profiles")) << Show(c);
}

// compare --round offers the round length to every policy: a round-based one uses it, the
// others run as before (so a mixed comparison works).
TEST_F(CliTest, CompareRoundReachesRoundBasedPoliciesOnly) {
  const std::string trace = Write("trace.csv", kGoodTrace);
  const std::string cluster = Write("cluster.yaml", kGoodCluster);
  const CliResult r = Run({"compare", "--trace", trace, "--cluster", cluster, "--policies", "fifo,gavel-las",
                           "--round", "120", "-o", Path("out"), "-q"});
  EXPECT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_TRUE(fs::exists(Path("out/compare.txt"))) << Show(r);
  const CliResult bad = Run({"compare", "--trace", trace, "--cluster", cluster, "--round", "0", "-o", Path("out2")});
  EXPECT_EQ(bad.exit_code, 2) << Show(bad);
  EXPECT_TRUE(NoOutputs(Path("out2")));
}

// `simulate` checks the method names before it reads the trace: with a trace whose second row
// is bad, the error is about the unknown name (with the known ones), not about the row.
TEST_F(CliTest, SimulateChecksMethodNamesBeforeReadingTheTrace) {
  const std::string trace = Write("bad.csv",
                                  "name,submit_time_s,model,num_gpus,iterations\n"
                                  "job-a,0,resnet50,-3,1000\n");
  const std::string out = Path("out");
  const CliResult bad_row = Run({"simulate", "--trace", trace, "--format", "native", "-o", out, "-q"});
  ASSERT_EQ(bad_row.exit_code, 1) << Show(bad_row);
  EXPECT_TRUE(Contains(bad_row.err, trace + ":2")) << Show(bad_row);  // the trace is bad on its own
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--policy", "policy"}, {"--placer", "placer"}, {"--planner", "planner"}};
  for (const auto& [flag, kind] : cases) {
    const CliResult r = Run({"simulate", "--trace", trace, "--format", "native", flag, "no-such-method", "-o", out, "-q"});
    EXPECT_EQ(r.exit_code, 2) << Show(r);  // a bad command line
    EXPECT_TRUE(Contains(r.err, flag + ": ")) << Show(r);
    EXPECT_TRUE(Contains(r.err, "unknown " + kind + " 'no-such-method' (known: ")) << Show(r);
    EXPECT_FALSE(Contains(r.err, trace)) << "the trace was read first\n" << Show(r);
    EXPECT_TRUE(NoOutputs(out));
  }
  // Options are checked early too.
  const CliResult opt = Run({"simulate", "--trace", trace, "--format", "native", "--policy", "tiresias-las",
                             "--policy-opt", "window=0", "-o", out, "-q"});
  EXPECT_EQ(opt.exit_code, 2) << Show(opt);
  EXPECT_TRUE(Contains(opt.err, "--policy-opt")) << Show(opt);
  EXPECT_TRUE(Contains(opt.err, "window")) << Show(opt);
  EXPECT_FALSE(Contains(opt.err, trace)) << Show(opt);
}

// `--gpus-per-server 0` is a command-line error (exit 2) that says what is wanted, not CLI11's
// "Value 0 not in range 0.000000 to 1.79...e308".
TEST_F(CliTest, GpusPerServerZeroSaysWhatIsWanted) {
  for (const std::string bad : {"0", "-2", "four"}) {
    const CliResult r = Run({"simulate", "--gpus", "v100=8", "--gpus-per-server", bad, "-q"});
    EXPECT_EQ(r.exit_code, 2) << Show(r);
    EXPECT_TRUE(Contains(r.err, "--gpus-per-server")) << Show(r);
    EXPECT_TRUE(Contains(r.err, "whole number >= 1, got '" + bad + "'")) << Show(r);
    EXPECT_FALSE(Contains(r.err, "not in range")) << Show(r);
  }
}

TEST_F(CliTest, JobThatCanNeverFitFailsNamingItUnlessSkipped) {
  const std::string trace = Write("huge.csv",
                                  "name,submit_time_s,model,num_gpus,iterations\n"
                                  "job-a,0,resnet50,1,1000\n"
                                  "huge-job,5,resnet50,512,100\n");
  const std::string out = Path("out");
  const CliResult r = Run({"simulate", "--trace", trace, "--format", "native", "-o", out, "-q"});
  EXPECT_EQ(r.exit_code, 1) << Show(r);
  EXPECT_TRUE(Contains(r.err, "'huge-job'")) << Show(r);
  EXPECT_TRUE(Contains(r.err, "can never fit")) << Show(r);
  EXPECT_TRUE(Contains(r.err, "512")) << Show(r);
  EXPECT_TRUE(NoOutputs(out));

  const CliResult skipped =
      Run({"simulate", "--trace", trace, "--format", "native", "--skip-unfit", "-o", out, "-q"});
  ASSERT_EQ(skipped.exit_code, 0) << Show(skipped);
  EXPECT_TRUE(Contains(skipped.out, "1 job(s) could never fit")) << Show(skipped);
  const std::string jobs = ReadWholeFile(out + "/jobs.csv");
  EXPECT_TRUE(Contains(jobs, "job-a"));
  EXPECT_FALSE(Contains(jobs, "huge-job"));
}

TEST_F(CliTest, MissingTraceFileFailsNamingIt) {
  const std::string missing = Path("no_such_trace.csv");
  const std::string out = Path("out");
  const CliResult r = Run({"simulate", "--trace", missing, "--format", "native", "-o", out, "-q"});
  EXPECT_EQ(r.exit_code, 1) << Show(r);
  EXPECT_TRUE(Contains(r.err, missing)) << Show(r);
  EXPECT_TRUE(NoOutputs(out));
}

TEST_F(CliTest, CompareWritesATableAndOneDirectoryPerRun) {
  const std::string trace = Write("trace.csv", kGoodTrace);
  const std::string out = Path("out");
  const CliResult r = Run({"compare", "--trace", trace, "--format", "native", "--gpus", "v100=4,k80=4",
                           "--policies", "fifo,srtf", "--placers", "pack,spread", "-j", "2", "-o", out, "-q"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  for (const char* file : {"compare.txt", "compare.csv", "report.html", "jct_cdf.svg", "utilisation.svg"}) {
    EXPECT_TRUE(fs::is_regular_file(out + "/" + file)) << file;
  }
  for (const char* run : {"fifo_pack", "fifo_spread", "srtf_pack", "srtf_spread"}) {
    EXPECT_TRUE(fs::is_regular_file(out + "/" + run + "/jobs.csv")) << run;
  }
  // compare.csv: a header and one row per run.
  const std::string csv = ReadWholeFile(out + "/compare.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5) << csv;
}

// The README's first command: heterogeneity-aware and seed policies beside baselines on the
// built-in cluster and demo trace, then a plan, a placement experiment and the goodput one, each
// with a finding.
TEST_F(CliTest, DemoShowsTheMission) {
  const std::string out = Path("demo");
  const CliResult r = Run({"demo", "-o", out, "-q", "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  const std::string csv = ReadWholeFile(out + "/compare.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9) << csv;  // header + 8 runs
  for (const char* run : {"fifo_pack", "tiresias-las_pack", "gavel-las-agnostic_pack",
                          "gavel-las_profile_data_real_gavel_throughputs.csv_pack", "gavel-las_mechanism_gavel_pack",
                          "gavel-las-packed_pack", "gadget_gadget-ring",
                          "rlpto_model_data_models_rlpto_agent_e2_yield_seed1.bin_yield_true_pack"}) {
    EXPECT_TRUE(fs::is_regular_file(out + "/" + run + "/summary.json")) << run;
    EXPECT_TRUE(fs::is_regular_file(out + "/" + run + "/run.json")) << run;
  }
  // Every job of the demo trace finished in each run but the two under Gavel's own round mechanism,
  // which drops a multi-GPU job left with fewer steps than GPUs after five failed micro-tasks, as
  // Gavel's simulator does (docs/gavel.md); the finding says how many each finished.
  size_t finished = 0;
  for (size_t p = r.out.find("533/533"); p != std::string::npos; p = r.out.find("533/533", p + 1)) ++finished;
  EXPECT_EQ(finished, 6u) << Show(r);
  EXPECT_TRUE(Contains(r.out, "finding : gavel-las (sees each GPU type's measured speed)")) << Show(r);
  EXPECT_TRUE(Contains(r.out, "finding : gavel-las-packed (Gavel's space sharing: two jobs on one GPU where together they go faster)"))
      << Show(r);
  EXPECT_TRUE(Contains(r.out, "p99 JCT")) << Show(r);
  EXPECT_TRUE(Contains(r.out, "finding : HeterPS's learned plan costs")) << Show(r);
  EXPECT_TRUE(Contains(r.out, "finding : rlpto (priority queues, convergence shrinking, the shipped PPO allocation agent with its learned yield) cuts"))
      << Show(r);
  EXPECT_TRUE(Contains(r.out, "finding : dltap moves")) << Show(r);
  EXPECT_TRUE(fs::is_regular_file(out + "/placement/dltap.csv"));
  EXPECT_TRUE(Contains(r.out, "finding : sia-plus's average JCT is")) << Show(r);
  EXPECT_TRUE(fs::is_regular_file(out + "/goodput/goodput.csv"));

  // `hetsched report` rebuilds the page from the run directories alone.
  const std::string page = Path("rebuilt.html");
  const CliResult rep = Run({"report", out, "-o", page});
  ASSERT_EQ(rep.exit_code, 0) << Show(rep);
  EXPECT_TRUE(Contains(rep.out, "8 run(s)")) << Show(rep);
  const std::string html = ReadWholeFile(page);
  EXPECT_TRUE(Contains(html, "gadget+gadget-ring"));
  EXPECT_TRUE(Contains(html, "<figure id=\"cost-energy\">"));
}

// The scheduler's yield rule on a legacy agent's keeps (docs/experiments/rlpto.md, "The demo
// trace", session 16: 22.05 h on the demo's cluster and trace). Queue 0's head is tested as the
// devices stand when a kept job comes up, not as the round's state was taken: a change to the
// latter gave 29.49 h here while E2's rows stayed the same.
TEST_F(CliTest, LegacyAgentYieldRuleOnTheDemoTrace) {
  const std::string out = Path("legacy_yield");
  const CliResult r = Run({"compare", "--runs", "rlpto:model=data/models/rlpto_agent_e2_seed1.bin:yield=true+pack", "-j", "1",
                           "-q", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  const std::string csv = ReadWholeFile(out + "/compare.csv");
  EXPECT_TRUE(Contains(csv, ",533,533,79370.962,")) << csv;  // every job finished; average JCT 22.05 h
}

TEST_F(CliTest, CompareRunsGivesExactPairs) {
  const std::string trace = Write("trace.csv", kGoodTrace);
  const std::string out = Path("out");
  const CliResult r = Run({"compare", "--trace", trace, "--format", "native", "--gpus", "v100=4,k80=4", "--runs",
                           "fifo:backfill=none+spread,srtf", "-j", "1", "-o", out, "-q"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_TRUE(fs::is_regular_file(out + "/fifo_backfill_none_spread/run.json"));
  EXPECT_TRUE(fs::is_regular_file(out + "/srtf_pack/run.json"));  // placer default: pack
  const std::string csv = ReadWholeFile(out + "/compare.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  // --runs replaces policies x placers: both together are a usage error.
  const CliResult both = Run({"compare", "--trace", trace, "--format", "native", "--gpus", "v100=4", "--runs", "fifo",
                              "--policies", "srtf", "-o", Path("out2"), "-q"});
  EXPECT_EQ(both.exit_code, 2) << Show(both);
}

TEST_F(CliTest, ReportNamesADirectoryWithoutRuns) {
  const std::string empty = Path("empty");
  fs::create_directories(empty);
  const CliResult r = Run({"report", empty, "-o", Path("r.html")});
  EXPECT_EQ(r.exit_code, 1) << Show(r);
  EXPECT_TRUE(Contains(r.err, "no run.json")) << Show(r);
  EXPECT_FALSE(fs::exists(Path("r.html")));
}

TEST_F(CliTest, ValidateCluster) {
  const CliResult good = Run({"validate", "--cluster", Write("cluster.yaml", kGoodCluster)});
  ASSERT_EQ(good.exit_code, 0) << Show(good);
  EXPECT_TRUE(Contains(good.out, "ok")) << Show(good);
  EXPECT_TRUE(Contains(good.out, "8 GPUs")) << Show(good);  // 2 nodes x 4 v100

  const std::string bad_path = Write("cluster_bad.yaml", kBadCluster);
  const CliResult bad = Run({"validate", "--cluster", bad_path});
  EXPECT_EQ(bad.exit_code, 1) << Show(bad);
  EXPECT_TRUE(Contains(bad.err, bad_path + ":4:")) << Show(bad);
  EXPECT_TRUE(Contains(bad.err, "racks[0].nodes[0].device")) << Show(bad);

  // A YAML syntax error names the file too.
  const std::string broken = Write("broken.yaml", "racks: [\n  - {name: r0\n");
  const CliResult syntax = Run({"validate", "--cluster", broken});
  EXPECT_EQ(syntax.exit_code, 1) << Show(syntax);
  EXPECT_TRUE(Contains(syntax.err, broken)) << Show(syntax);
}

TEST_F(CliTest, BadCommandLineExitsTwo) {
  const std::vector<std::vector<std::string>> bad_lines{
      {},                                      // no subcommand
      {"no-such-command"},                     // unknown subcommand
      {"simulate", "--no-such-flag"},          // unknown flag
      {"simulate", "--on-bad-row", "maybe"},   // value outside the allowed set
      {"simulate", "--gpus-per-server", "0"},  // not a positive number
      {"catalog", "nonsense"},                 // unknown catalog section
      {"validate"},                            // nothing to validate
  };
  for (const auto& args : bad_lines) {
    const CliResult r = Run(args);
    std::string line;
    for (const auto& a : args) line += " " + a;
    EXPECT_EQ(r.exit_code, 2) << "hetsched" << line << "\n" << Show(r);
    EXPECT_FALSE(r.err.empty()) << "hetsched" << line;
  }
  const CliResult help = Run({"--help"});
  EXPECT_EQ(help.exit_code, 0) << Show(help);
  EXPECT_TRUE(Contains(help.out, "Exit codes")) << Show(help);
}

TEST_F(CliTest, ShellMetacharactersInJobNamesAreCarriedVerbatimAndNeverRun) {
  const std::string marker = Path("pwned");
  const std::string marker2 = Path("pwned2");
  // No comma or quote, so CSV needs no quoting and the text must come out byte for byte.
  const std::string evil = "; rm -rf " + Path("x") + " $(touch " + marker + ") `touch " + marker2 + "` | & > <";
  // Quoted in the trace (RFC 4180), with an inner quote pair, to exercise the reader's quoting.
  const std::string evil_quoted = "\"$(touch " + marker + ") say \"\"hi\"\"\"";
  const std::string trace = Write("evil.csv",
                                  "name,user,submit_time_s,model,num_gpus,iterations\n" + evil +
                                      ",mallory,0,resnet50,1,100\n" + evil_quoted +
                                      ",\"$(touch " + marker2 + ")\",1,resnet50,1,100\n");
  WriteWholeFile(Path("x"), "must survive");
  const std::string out = Path("out");
  const CliResult r = Run({"simulate", "--trace", trace, "--format", "native", "-o", out, "-q"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  const std::string jobs = ReadWholeFile(out + "/jobs.csv");
  EXPECT_TRUE(Contains(jobs, "\n0," + evil + ",mallory,resnet50,")) << jobs;
  // Written back with CSV quoting: the inner quotes doubled.
  EXPECT_TRUE(Contains(jobs, "\n1,\"$(touch " + marker + ") say \"\"hi\"\"\",$(touch " + marker2 + "),resnet50,"))
      << jobs;
  EXPECT_FALSE(fs::exists(marker)) << "a job name was executed";
  EXPECT_FALSE(fs::exists(marker2)) << "a job name was executed";
  EXPECT_EQ(ReadWholeFile(Path("x")), "must survive");
}

}  // namespace
}  // namespace hetsched
