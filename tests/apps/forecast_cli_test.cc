// `hetsched forecast` end to end on a real trace (data/real/gavel, Philly-derived arrivals).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_runner.h"

namespace hetsched::cli_test {
namespace {

const std::string kForecastTrace = std::string(HETSCHED_SOURCE_DIR) + "/data/real/gavel/traces/msr_seed0_6c71a0.trace";

std::vector<std::string> Quick(std::vector<std::string> extra) {
  std::vector<std::string> args{"forecast", "--trace", kForecastTrace, "--gru-epochs", "3", "--gru-hidden", "4"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(ForecastCliTest, PrintsEveryMethodAgainstSeasonalNaiveAndIsDeterministic) {
  const std::string dir = FreshDir("forecast_ok");
  const CliResult a = RunCli(Quick({"--csv", dir + "/f.csv"}), dir + "/a");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  // 2,000 jobs over 30 days in 1-hour windows: 720 windows, 576 train, 144 held out.
  EXPECT_NE(a.out.find("720 windows, 576 train, 144 held out"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("seasonal-naive (season 24)"), std::string::npos);
  EXPECT_NE(a.out.find("GRU alone"), std::string::npos);
  EXPECT_NE(a.out.find(" + GRU(residuals)"), std::string::npos);
  EXPECT_NE(a.out.find("ARIMA("), std::string::npos);
  const std::string csv = ReadWholeFile(dir + "/f.csv");
  EXPECT_EQ(csv.rfind("method,mae,mape,points,mape_points\n", 0), 0u);
  EXPECT_NE(csv.find(",144,"), std::string::npos) << csv;
  const CliResult b = RunCli(Quick({}), dir + "/b");
  ASSERT_EQ(b.exit_code, 0);
  const auto table = [](const std::string& out) {
    const size_t begin = out.find("method ");
    return out.substr(begin, out.find("outputs") - begin);
  };
  EXPECT_EQ(table(a.out), table(b.out));
}

TEST(ForecastCliTest, GpuSeriesAndSavedModel) {
  const std::string dir = FreshDir("forecast_gpus");
  const CliResult r = RunCli(Quick({"--series", "gpus", "--window", "7200", "--save-gru", dir + "/gru.bin"}), dir + "/r");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("series 'gpus' per 7200 s window: 360 windows"), std::string::npos) << r.out;
  EXPECT_EQ(ReadWholeFile(dir + "/gru.bin").rfind("hetsched-gru-forecaster v1\n", 0), 0u);
}

TEST(ForecastCliTest, BadInput) {
  const std::string dir = FreshDir("forecast_bad");
  const CliResult missing = RunCli({"forecast", "--trace", dir + "/nope.trace"}, dir + "/m");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("nope.trace"), std::string::npos);
  // One window per 10 days: 3 windows, far too few to train on.
  const CliResult few = RunCli(Quick({"--window", "864000"}), dir + "/f");
  EXPECT_EQ(few.exit_code, 1);
  EXPECT_NE(few.err.find("too few"), std::string::npos) << few.err;
  // A window of 0 s is a bad command line (issue 20: every option validated, exit 2).
  const CliResult window = RunCli(Quick({"--window", "0"}), dir + "/w");
  EXPECT_EQ(window.exit_code, 2);
  EXPECT_NE(window.err.find("--window: must be a finite number > 0"), std::string::npos) << window.err;
  EXPECT_EQ(RunCli(Quick({"--test-fraction", "1.5"}), dir + "/t").exit_code, 2);
  EXPECT_EQ(RunCli(Quick({"--series", "hours"}), dir + "/s").exit_code, 2);
  EXPECT_EQ(RunCli({"forecast"}, dir + "/n").exit_code, 2);  // --trace is required
  // A malformed trace row names the file and line; no CSV is written.
  const std::string bad = dir + "/bad.trace";
  WriteWholeFile(bad, "ResNet-18 (batch size 16)\tcmd\t--num_steps\tFalse\t100\tnot-a-time\t1\n");
  const CliResult row = RunCli({"forecast", "--trace", bad, "--format", "gavel", "--csv", dir + "/out.csv"}, dir + "/b");
  EXPECT_EQ(row.exit_code, 1);
  EXPECT_NE(row.err.find("bad.trace:1"), std::string::npos) << row.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out.csv"));
}

// learn's LibTorch back end is opened on first use (learn/backend.h). A copy of the binary with
// no back end beside it still starts and simulates FIFO; the GRU forecaster, a learned
// component, fails with a message naming the missing module (exit 1), not a crash.
TEST(ForecastCliTest, WithoutTheLibTorchBackEnd) {
  const std::string dir = FreshDir("forecast_no_backend");
  std::filesystem::create_directories(dir + "/bin");
  const std::string alone = dir + "/bin/hetsched";
  std::filesystem::copy_file(HETSCHED_CLI_PATH, alone);
  const CliResult version = RunCli({"--version"}, dir + "/v", alone);
  EXPECT_EQ(version.exit_code, 0) << version.err;
  const CliResult fifo = RunCli({"simulate", "--policy", "fifo", "--trace", kForecastTrace, "-o", dir + "/out"}, dir + "/s", alone);
  EXPECT_EQ(fifo.exit_code, 0) << fifo.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/summary.json"));
  const CliResult gru = RunCli(Quick({}), dir + "/g", alone);
  EXPECT_EQ(gru.exit_code, 1) << gru.err;
  EXPECT_NE(gru.err.find("LibTorch's back end (for the learned components) is not installed beside this program"),
            std::string::npos)
      << gru.err;
  EXPECT_NE(gru.err.find(dir + "/bin/libhetsched_learn_torch.so"), std::string::npos) << gru.err;
}

}  // namespace
}  // namespace hetsched::cli_test
