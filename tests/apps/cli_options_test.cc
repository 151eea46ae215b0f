// Every option of every command is validated (issue 20): a number that is not finite, out of its
// range, or two options that conflict is a command-line error (exit 2) whose message names the
// option. The walk reads the commands and their options from `--help`, so a new option is covered
// by the NaN/infinity rule without a new test line.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace hetsched {
namespace {

using cli_test::CliResult;
using cli_test::FreshDir;
using cli_test::RunCli;

std::string Show(const CliResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
}

class CliOptionsTest : public ::testing::Test {
 protected:
  CliResult Run(const std::vector<std::string>& args) {
    if (dir_.empty()) dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    return RunCli(args, dir_ + "/capture" + std::to_string(runs_++));
  }
  std::string dir_;
  int runs_ = 0;
};

// The subcommands listed by `hetsched --help` (the lines under "Subcommands:").
std::vector<std::string> Commands(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream lines(help);
  std::string line;
  bool in_list = false;
  while (std::getline(lines, line)) {
    if (line.rfind("Subcommands:", 0) == 0 || line.rfind("SUBCOMMANDS:", 0) == 0) {
      in_list = true;
      continue;
    }
    if (in_list && line.size() > 2 && line[0] == ' ' && line[2] != ' ') {
      std::istringstream words(line);
      std::string name;
      words >> name;
      out.push_back(name);
    }
  }
  return out;
}

// The long names of a command's options whose type is FLOAT, from its `--help`.
std::vector<std::string> FloatOptions(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream lines(help);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string names, type;
    words >> names >> type;
    if (names.rfind("-", 0) != 0 || type.rfind("FLOAT", 0) != 0) continue;
    const size_t comma = names.rfind(',');
    out.push_back(comma == std::string::npos ? names : names.substr(comma + 1));
  }
  return out;
}

TEST_F(CliOptionsTest, NoNumberOfAnyCommandTakesNanOrInfinity) {
  const CliResult help = Run({"--help"});
  ASSERT_EQ(help.exit_code, 0) << Show(help);
  const std::vector<std::string> commands = Commands(help.out);
  ASSERT_GE(commands.size(), 8u) << help.out;
  int walked = 0;
  for (const std::string& command : commands) {
    const CliResult command_help = Run({command, "--help"});
    ASSERT_EQ(command_help.exit_code, 0) << command << "\n" << Show(command_help);
    for (const std::string& option : FloatOptions(command_help.out)) {
      for (const std::string bad : {"nan", "inf"}) {
        const CliResult r = Run({command, option, bad});
        EXPECT_EQ(r.exit_code, 2) << command << " " << option << " " << bad << "\n" << Show(r);
        EXPECT_NE(r.err.find(option), std::string::npos) << command << " " << option << "\n" << Show(r);
        EXPECT_NE(r.err.find("finite"), std::string::npos) << command << " " << option << "\n" << Show(r);
      }
      ++walked;
    }
  }
  EXPECT_GE(walked, 8) << "the walk found too few FLOAT options: has --help's layout changed?";
}

TEST_F(CliOptionsTest, RangesAndConflictsExitTwoNamingTheOption) {
  struct Case {
    std::vector<std::string> args;
    std::string option;  // must appear in the message
    std::string says;
  };
  const Case cases[] = {
      // `--synthetic -5` used to run the demo trace and exit 0.
      {{"simulate", "--synthetic", "-5"}, "--synthetic", "whole number >= 1, got '-5'"},
      {{"simulate", "--synthetic", "0"}, "--synthetic", "whole number >= 1"},
      {{"simulate", "--synthetic", "5", "--trace", "t.csv"}, "--synthetic", "excludes"},
      {{"simulate", "--gpus", "v100=4", "--cluster", HETSCHED_SOURCE_DIR "/data/default_cluster.yaml"}, "--gpus",
       "excludes"},
      {{"simulate", "--gpus-per-server", "4"}, "--gpus-per-server", "requires --gpus"},
      {{"simulate", "--synthetic", "5", "--arrival-rate", "0"}, "--arrival-rate", "finite number > 0"},
      {{"simulate", "--arrival-rate", "10"}, "--arrival-rate", "requires --synthetic"},
      {{"simulate", "--max-jobs", "0"}, "--max-jobs", "whole number >= 1"},
      {{"simulate", "--restart-cost", "-1"}, "--restart-cost", "finite number >= 0"},
      {{"simulate", "--max-time", "0"}, "--max-time", "finite number > 0"},
      {{"compare", "--synthetic", "-1"}, "--synthetic", "whole number >= 1"},
      {{"forecast", "--trace", "t.trace", "--window", "-60"}, "--window", "finite number > 0"},
      {{"plan", "-m", "resnet50", "--throughput", "-3"}, "--throughput", "finite number > 0"},
      {{"plan", "-m", "resnet50", "--micro-batches", "0"}, "--micro-batches", "whole number >= 1"},
  };
  for (const Case& c : cases) {
    std::string line;
    for (const auto& a : c.args) line += " " + a;
    const CliResult r = Run(c.args);
    EXPECT_EQ(r.exit_code, 2) << "hetsched" << line << "\n" << Show(r);
    EXPECT_NE(r.err.find(c.option), std::string::npos) << "hetsched" << line << "\n" << Show(r);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << "hetsched" << line << "\n" << Show(r);
  }
}

}  // namespace
}  // namespace hetsched
