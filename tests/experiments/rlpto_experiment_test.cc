#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hetsched/experiments/experiment.h"
#include "hetsched/experiments/rlpto_training.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"

namespace hetsched {
namespace {

TEST(RlptoTrainingTest, DiscountedReturnsGolden) {
  // Rewards (10, 1), (20, 2), (30, 4); gamma 0.5 per 10 s round.
  // Decision at 5: 0.5^0.5 x (1 + 0.5 x (2 + 0.5 x 4)) = 0.70710678 x 3 = 2.12132034.
  // Decision at 10 (reward at 10 is for the interval before it): 0.5 x (2 + 0.5 x 4) = 2.
  // Decision at 30: nothing after it: 0.
  const auto g = DiscountedReturns({5, 10, 30}, {{10, 1}, {20, 2}, {30, 4}}, 0.5, 10);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_NEAR(g[0], 2.12132034, 1e-8);
  EXPECT_NEAR(g[1], 2.0, 1e-12);
  EXPECT_EQ(g[2], 0.0);
}

// The quick experiment trains for 2 episodes of 30 jobs and compares every method on 40 held-out
// jobs of a real trace; it must print a row per method and write its outputs.
TEST(RlptoExperimentTest, QuickRunWritesEveryMethod) {
  const std::string out = (std::filesystem::temp_directory_path() / "hetsched_rlpto_experiment").string();
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  auto experiment = Registry<Experiment>::Instance().Create("rlpto", Options());
  ASSERT_TRUE(experiment.ok());
  ExperimentContext ctx;
  ctx.out_dir = out;
  ctx.quick = true;
  ctx.threads = 2;
  ctx.options.Set("trace", std::string(HETSCHED_SOURCE_DIR) + "/data/real/gavel/traces/msr_seed0_6c71a0.trace");
  ctx.options.Set("throughputs", std::string(HETSCHED_SOURCE_DIR) + "/data/real/gavel/throughputs.csv");
  std::string printed;
  ctx.print = [&](const std::string& s) { printed += s; };
  const Status st = (*experiment)->Run(ctx);
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto csv = ReadFile(out + "/rlpto.csv");
  ASSERT_TRUE(csv.ok());
  for (const char* m : {"\nFIFO,", "\nSRTF,", "\nTiresias-LAS,", "\nGavel-LAS,", "\nmulti-priority,", "\nRLPTO-rule,",
                        "\nRLPTO,"}) {
    EXPECT_NE(csv->find(m), std::string::npos) << m;
  }
  EXPECT_NE(printed.find("episode   2"), std::string::npos) << printed;
  EXPECT_TRUE(std::filesystem::exists(out + "/rlpto_agent.bin"));
  std::filesystem::remove_all(out);
}

TEST(RlptoExperimentTest, BadOptions) {
  auto experiment = Registry<Experiment>::Instance().Create("rlpto", Options());
  ASSERT_TRUE(experiment.ok());
  ExperimentContext ctx;
  ctx.out_dir = std::filesystem::temp_directory_path().string();
  ctx.print = [](const std::string&) {};
  ctx.options.Set("jobs", "3");
  EXPECT_FALSE((*experiment)->Run(ctx).ok());
  ctx.options.Set("jobs", "50");
  ctx.options.Set("trace", "/nonexistent.trace");
  const Status st = (*experiment)->Run(ctx);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("nonexistent.trace"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
