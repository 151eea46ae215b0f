// --assume-consolidated: a measured job runs at its consolidated measured speed wherever its
// devices are (Gavel's simulator's assumption, set by --compat gavel).
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

// One ResNet-18 (batch 128) job of 8 GPUs and 162,092 steps, submitted at 0, on 8 V100s in two
// servers of 4: it must span both. data/real/gavel/throughputs.csv measures it at 162.0916 steps/s
// consolidated and 61.1363 unconsolidated on v100.
constexpr const char* kConsolidatedTrace =
    "ResNet-18 (batch size 128)\tcd %s/gpusched/workloads/pytorch/image_classification/cifar10 && python3 "
    "main.py --data_dir=%s/data/cifar10 --batch_size 128 \t--num_steps\t1\t162092\t0.000000\t8\n";

double JctS(const std::string& dir, bool assume_consolidated) {
  std::vector<std::string> args{"simulate", "--gpus",       "v100=8", "--gpus-per-server", "4", "--trace",
                                dir + "/t.trace", "--format", "gavel", "--no-contention", "-q",
                                "-o", dir + "/out"};
  if (assume_consolidated) args.push_back("--assume-consolidated");
  const auto r = RunCli(args, dir + "/cap");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  if (r.exit_code != 0) return -1;
  return nlohmann::json::parse(ReadWholeFile(dir + "/out/summary.json"))["jct_s"]["mean"].get<double>();
}

TEST(CliAssumeConsolidatedTest, SplitJobRunsAtTheConsolidatedRate) {
  const std::string dir = FreshDir("assume_consolidated");
  WriteWholeFile(dir + "/t.trace", kConsolidatedTrace);
  // 162,092 / 162.09160717942794 = 1000.0 s; 162,092 / 61.136289695518286 = 2651.3 s.
  EXPECT_NEAR(JctS(dir, true), 162092 / 162.09160717942794, 1.0);
  EXPECT_NEAR(JctS(dir, false), 162092 / 61.136289695518286, 1.0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetsched
