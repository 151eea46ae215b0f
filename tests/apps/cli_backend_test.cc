// A policy that needs a back-end module which cannot be loaded ends the run with that error: it
// never goes on with a decision it could not make (the Gavel LP policies used to fall back to
// "the fastest type" and exit 0 when the LP back end was missing).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_runner.h"

namespace hetsched::cli_test {
namespace {

TEST(CliBackendTest, GavelLasWithoutTheLpBackEndFails) {
  const std::string dir = FreshDir("lp_no_backend");
  std::filesystem::create_directories(dir + "/bin");
  const std::string alone = dir + "/bin/hetsched";
  std::filesystem::copy_file(HETSCHED_CLI_PATH, alone);
  const std::vector<std::string> args{"simulate", "--policy", "gavel-las", "--synthetic", "20", "--gpus", "v100=16,k80=16",
                                      "-q", "-o", dir + "/out"};
  const CliResult r = RunCli(args, dir + "/s", alone);
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.err.find("gavel-las"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir + "/bin/libhetsched_lp_coin.so"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/summary.json"));
  // The same run from the build tree (back end beside the program) succeeds.
  EXPECT_EQ(RunCli(args, dir + "/ok").exit_code, 0);
}

}  // namespace
}  // namespace hetsched::cli_test
