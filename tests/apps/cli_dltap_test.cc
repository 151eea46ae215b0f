// The command line with parameter-server container jobs: `hetsched experiment dltap --quick`,
// a simulation of a native container trace with the dltap placer (link peaks in summary.json),
// and a bad container field (file, line and field in the message, exit 1, no outputs).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"

namespace hetsched {
namespace {

namespace fs = std::filesystem;
using cli_test::FreshDir;
using cli_test::ReadWholeFile;
using cli_test::RunCli;
using cli_test::WriteWholeFile;

constexpr const char* kDltapTrace =
    "submit_time_s,model,num_gpus,iterations,num_ps,num_workers,worker_cpu,worker_memory_gib\n"
    "0,resnet50,6,300,2,6,4,16\n"
    "10,lstm-lm,4,300,1,4,4,16\n"
    "20,resnet50,2,300,,,,\n";

TEST(CliDltapTest, QuickExperimentWritesItsTable) {
  const std::string dir = FreshDir("dltap_experiment");
  const auto r = RunCli({"experiment", "dltap", "--quick", "-j", "1", "-o", dir + "/out"}, dir + "/cap");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("dltap (E5)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("k8s-spread"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir + "/out/dltap.csv"));
  // Every run's outputs and record, per workload, so that `hetsched report` rebuilds its page.
  for (const char* placer : {"dltap", "k8s-spread", "k8s-binpack", "k8s-random"}) {
    EXPECT_TRUE(fs::exists(dir + "/out/runs/cnn/" + placer + "/run.json")) << placer;
    EXPECT_TRUE(fs::exists(dir + "/out/runs/lm/" + placer + "/jobs.csv")) << placer;
  }
  const auto rep = RunCli({"report", dir + "/out/runs/cnn", "-o", dir + "/cnn.html"}, dir + "/rep");
  ASSERT_EQ(rep.exit_code, 0) << rep.out << rep.err;
  EXPECT_NE(rep.out.find("4 run(s)"), std::string::npos) << rep.out;
  EXPECT_NE(ReadWholeFile(dir + "/cnn.html").find("k8s-spread"), std::string::npos);
  fs::remove_all(dir);
}

// An experiment option the experiment does not take, or a value it cannot read, is a usage error
// before anything runs or is written (every experiment reads its options first).
TEST(CliDltapTest, UnknownOrBadExperimentOptionIsRefusedBeforeRunning) {
  const std::string dir = FreshDir("dltap_bad_opt");
  auto r = RunCli({"experiment", "dltap", "--quick", "--opt", "jobz=4", "-o", dir + "/out"}, dir + "/cap");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("does not take option(s): jobz"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out"));
  r = RunCli({"experiment", "dltap", "--quick", "--opt", "jobs=many", "-o", dir + "/out"}, dir + "/cap");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("jobs"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out"));
  r = RunCli({"experiment", "dltap", "--quick", "--opt", "jobs=4", "-o", dir + "/out"}, dir + "/cap");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("4 jobs per workload"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// --seeds: one run per seed in its own folder, then the summary; a bad list is a usage error
// before anything is written.
TEST(CliDltapTest, QuickExperimentOverSeedsSummarisesEachRow) {
  const std::string dir = FreshDir("dltap_seeds");
  auto r = RunCli({"experiment", "dltap", "--quick", "-j", "1", "--seeds", "1-2", "-o", dir + "/out"}, dir + "/cap");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(dir + "/out/seed-1/dltap.csv"));
  EXPECT_TRUE(fs::exists(dir + "/out/seed-2/runs/cnn/dltap/run.json"));
  EXPECT_NE(r.out.find("over seeds 1, 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result  : seed 1: dltap moves"), std::string::npos) << r.out;
  const std::string csv = ReadWholeFile(dir + "/out/dltap_seeds.csv");
  EXPECT_EQ(csv.rfind("workload,placer,", 0), 0u) << csv;
  size_t rows = 0;
  for (char c : csv) rows += c == '\n';
  EXPECT_EQ(rows, 1u + 3 * 4) << csv;  // the per-seed table's rows, one each
  EXPECT_TRUE(fs::exists(dir + "/out/dltap_seeds.txt"));

  r = RunCli({"experiment", "dltap", "--quick", "--seeds", "2-1", "-o", dir + "/bad"}, dir + "/cap");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--seeds: seed list '2-1'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/bad"));
  fs::remove_all(dir);
}

// An experiment's default data (here gadget's runtimes and msr trace, "data/real/...") is found
// beside the program when the command runs in another directory (util/file_io.h).
TEST(CliDltapTest, AnExperimentFindsItsDefaultDataFromAnotherDirectory) {
  const std::string dir = FreshDir("experiment_elsewhere");
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  ASSERT_FALSE(fs::exists("data/real"));
  const auto r = RunCli({"experiment", "gadget", "--quick", "-j", "1", "-o", dir + "/out"}, dir + "/cap");
  fs::current_path(before);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(dir + "/out/gadget.csv"));
  fs::remove_all(dir);
}

TEST(CliDltapTest, SimulatesAContainerTraceWithLinkPeaks) {
  const std::string dir = FreshDir("dltap_simulate");
  WriteWholeFile(dir + "/t.csv", kDltapTrace);
  const auto r = RunCli({"simulate", "--gpus", "v100=12", "--gpus-per-server", "4", "--placer", "k8s-spread",
                         "--trace", dir + "/t.csv", "--format", "native", "-o", dir + "/out"},
                        dir + "/cap");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto summary = nlohmann::json::parse(ReadWholeFile(dir + "/out/summary.json"));
  EXPECT_EQ(summary["jobs_finished"], 3);
  EXPECT_GT(summary["cross_node_bytes"].get<double>(), 0);
  ASSERT_TRUE(summary.contains("link_peaks"));
  EXPECT_GT(summary["peak_nic_load_Bps"].get<double>(), 0);
  fs::remove_all(dir);
}

TEST(CliDltapTest, BadContainerFieldNamesFileLineAndField) {
  const std::string dir = FreshDir("dltap_bad");
  WriteWholeFile(dir + "/t.csv", "submit_time_s,model,num_gpus,iterations,num_ps,worker_cpu\n0,resnet50,2,10,1,-4\n");
  const auto r = RunCli({"simulate", "--gpus", "v100=8", "--placer", "dltap", "--trace", dir + "/t.csv", "--format",
                         "native", "-o", dir + "/out"},
                        dir + "/cap");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("t.csv:2: field 'worker_cpu'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetsched
