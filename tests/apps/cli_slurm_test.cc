// The Slurm-facing commands' command-line errors and `sweep --local`, without Slurm daemons.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cli_runner.h"

namespace hetsched::cli_test {
namespace {

namespace fs = std::filesystem;

class CliSlurmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/hetsched_cli_slurm_" + std::to_string(getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  CliResult Run(const std::vector<std::string>& args) { return RunCli(args, dir_ + "/capture"); }
  std::string dir_;
};

TEST_F(CliSlurmTest, AgentNeedsABackEnd) {
  const CliResult r = Run({"agent", "--journal", dir_ + "/j.jsonl", "-o", dir_ + "/out"});
  EXPECT_EQ(r.exit_code, 2);  // a bad command line
  EXPECT_NE(r.err.find("give a back end (--slurm)"), std::string::npos) << r.err;
  const CliResult bad_map = Run({"agent", "--slurm", "--gpu-type-map", "a100", "--journal", dir_ + "/j.jsonl"});
  EXPECT_EQ(bad_map.exit_code, 2);  // a bad command line
  EXPECT_NE(bad_map.err.find("--gpu-type-map 'a100'"), std::string::npos) << bad_map.err;
}

TEST_F(CliSlurmTest, SweepLocalGathersOneRowPerConfiguration) {
  const std::string configs = dir_ + "/study.txt";
  WriteWholeFile(configs,
                 "# two policies\n--policy fifo --gpus v100=8 --synthetic 20 --seed 2 --skip-unfit\n\n"
                 "--policy sjf --gpus v100=8 --synthetic 20 --seed 2 --skip-unfit\n");
  const CliResult r = Run({"sweep", "--configs", configs, "--local", "-o", dir_ + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string table = ReadWholeFile(dir_ + "/out/sweep.txt");
  EXPECT_NE(table.find("0: --policy fifo"), std::string::npos) << table;
  EXPECT_NE(table.find("1: --policy sjf"), std::string::npos) << table;
  EXPECT_TRUE(fs::exists(dir_ + "/out/runs/1/run.json"));
  // Deterministic: a second sweep gives the same table.
  ASSERT_EQ(Run({"sweep", "--configs", configs, "--local", "-o", dir_ + "/again"}).exit_code, 0);
  EXPECT_EQ(ReadWholeFile(dir_ + "/again/sweep.csv"), ReadWholeFile(dir_ + "/out/sweep.csv"));
}

TEST_F(CliSlurmTest, SweepBadConfigurationsAreNamed) {
  const std::string configs = dir_ + "/study.txt";
  WriteWholeFile(configs, "--policy fifo -o /tmp/elsewhere\n");
  CliResult r = Run({"sweep", "--configs", configs, "--local", "-o", dir_ + "/out"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(configs + ":1: a configuration may not set -o/--out"), std::string::npos) << r.err;
  WriteWholeFile(configs, "--policy fifo --no-such-option 3\n");
  r = Run({"sweep", "--configs", configs, "--local", "-o", dir_ + "/out"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(configs + ":1:"), std::string::npos) << r.err;
  WriteWholeFile(configs, "# nothing\n");
  r = Run({"sweep", "--configs", configs, "--local"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no configuration"), std::string::npos) << r.err;
  r = Run({"sweep", "--configs", configs});
  EXPECT_EQ(r.exit_code, 1);
}

}  // namespace
}  // namespace hetsched::cli_test
