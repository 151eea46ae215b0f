// Progress on long work (issue 23): a progress line with the time left when stderr is a terminal
// (here a pseudo-terminal from util-linux's `script`), nothing when it is not.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_runner.h"

namespace hetsched {
namespace {

using cli_test::FreshDir;
using cli_test::ReadWholeFile;
using cli_test::RunCli;

// Runs `command` under `script` (stdin/stdout/stderr on a pseudo-terminal; its own stdout sent to
// a file), returning what the terminal showed.
std::string OnTerminal(const std::string& dir, const std::string& command) {
  const auto r = RunCli({"-qec", command + " >" + dir + "/stdout.txt", "/dev/null"}, dir + "/script", "/usr/bin/script");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return r.out;
}

TEST(CliProgressTest, SimulateShowsTimeLeftOnATerminalOnly) {
  if (!std::filesystem::exists("/usr/bin/script")) GTEST_SKIP() << "no /usr/bin/script (util-linux)";
  const std::string dir = FreshDir("cli_progress_simulate");
  const std::string cli = HETSCHED_CLI_PATH;
  const std::string terminal = OnTerminal(dir, cli + " simulate --synthetic 3000 --gpus v100=64 -o " + dir + "/a");
  EXPECT_NE(terminal.find("3,000/3,000 jobs"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("done in"), std::string::npos) << terminal;
  EXPECT_EQ(ReadWholeFile(dir + "/stdout.txt").find("done in"), std::string::npos);  // stderr only

  const auto piped = RunCli({"simulate", "--synthetic", "3000", "--gpus", "v100=64", "-o", dir + "/b"}, dir + "/piped");
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err, "");  // nothing extra when the output is not a terminal
  const std::string quiet = OnTerminal(dir, cli + " simulate --synthetic 3000 --gpus v100=64 -q -o " + dir + "/c");
  EXPECT_EQ(quiet.find("jobs  done in"), std::string::npos) << quiet;
}

TEST(CliProgressTest, CompareAndExperimentsShowOneLineForAllTheirRuns) {
  if (!std::filesystem::exists("/usr/bin/script")) GTEST_SKIP() << "no /usr/bin/script (util-linux)";
  const std::string dir = FreshDir("cli_progress_compare");
  const std::string cli = HETSCHED_CLI_PATH;
  const std::string compare =
      OnTerminal(dir, cli + " compare --policies fifo,srtf --synthetic 1000 --gpus v100=64 -o " + dir + "/a");
  EXPECT_NE(compare.find("2 runs"), std::string::npos) << compare;
  EXPECT_NE(compare.find("2,000/2,000 jobs"), std::string::npos) << compare;
  const std::string experiment = OnTerminal(dir, cli + " experiment dltap --quick -o " + dir + "/b");
  EXPECT_NE(experiment.find("experiment dltap"), std::string::npos) << experiment;
  EXPECT_NE(experiment.find("100.0%"), std::string::npos) << experiment;
}

// The learned planners' experiments report progress case by case (each case a training run).
TEST(CliProgressTest, PlannerExperimentsShowProgressByCase) {
  if (!std::filesystem::exists("/usr/bin/script")) GTEST_SKIP() << "no /usr/bin/script (util-linux)";
  const std::string dir = FreshDir("cli_progress_planners");
  const std::string cli = HETSCHED_CLI_PATH;
  const std::string tapp = OnTerminal(dir, cli + " experiment tapp --quick -o " + dir + "/a");
  EXPECT_NE(tapp.find("experiment tapp"), std::string::npos) << tapp;
  EXPECT_NE(tapp.find("50.0%"), std::string::npos) << tapp;  // the first of its two cases
  EXPECT_NE(tapp.find("100.0%"), std::string::npos) << tapp;
  const std::string heterps = OnTerminal(dir, cli + " experiment heterps --quick -o " + dir + "/b");
  EXPECT_NE(heterps.find("experiment heterps"), std::string::npos) << heterps;
  EXPECT_NE(heterps.find("100.0%"), std::string::npos) << heterps;
}

}  // namespace
}  // namespace hetsched
