// The "goodput" experiment in quick mode (the first 8 jobs of Pollux's workload 6): the derived
// profiles are written, every policy finishes every job, its table has one row per policy, the
// headline compares sia-plus with Sia from the same rows, and a second run gives the same rows.
// The full run's figures are in docs/experiments/goodput.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hetsched/experiments/experiment.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

std::string SlurpGoodput(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Status RunGoodput(const std::string& dir, const std::string& workloads, std::string* printed, std::string* headline,
                  const std::string& ablation = "") {
  auto made = Registry<Experiment>::Instance().Create("goodput", Options());
  if (!made.ok()) return made.status();
  ExperimentContext ctx;
  ctx.out_dir = dir;
  ctx.quick = true;
  ctx.options.Set("jobs", "8");
  ctx.options.Set("workloads", workloads);
  if (!ablation.empty()) ctx.options.Set("ablation", ablation);
  ctx.print = [&](const std::string& s) { *printed += s; };
  Status st = (*made)->Run(ctx);
  *headline = ctx.headline;
  return st;
}

TEST(GoodputExperimentTest, QuickModeRunsThreePoliciesOnDerivedProfiles) {
  const std::string dir = (std::filesystem::path(::testing::TempDir()) / "hetsched_goodput_experiment").string();
  std::filesystem::remove_all(dir);
  std::string printed, headline;
  Status st = RunGoodput(dir, "6", &printed, &headline);
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (const char* f : {"profiles/cifar10/placements.csv", "profiles/cifar10/placements-v100.csv",
                        "profiles/imagenet/scalability-p100.csv", "cluster.yaml", "goodput.svg"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
  }
  const std::string csv = SlurpGoodput(dir + "/goodput.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);  // header + 3 policies
  for (const char* p : {"6,sia,8,", "6,pollux,8,", "6,sia-plus,8,"}) EXPECT_NE(csv.find(p), std::string::npos) << p << csv;
  EXPECT_NE(headline.find("sia-plus's average JCT is"), std::string::npos) << headline;
  std::string again_printed, again_headline;
  ASSERT_TRUE(RunGoodput(dir, "6", &again_printed, &again_headline).ok());
  EXPECT_EQ(SlurpGoodput(dir + "/goodput.csv"), csv);
}

// ablation=true: sia-plus once more per part, with that part off; the text names each variant's
// mean against sia-plus, and the three policies' rows are those of the run without it.
TEST(GoodputExperimentTest, AblationAddsSiaPlusWithEachPartOff) {
  const std::string dir = (std::filesystem::path(::testing::TempDir()) / "hetsched_goodput_ablation").string();
  std::filesystem::remove_all(dir);
  std::string printed, headline;
  Status st = RunGoodput(dir, "6", &printed, &headline, "true");
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::string csv = SlurpGoodput(dir + "/goodput.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 10);  // header + 3 policies + 6 parts
  for (const char* part : {"resize", "moves", "handover", "split", "history", "remaining"}) {
    const std::string label = std::string("sia-plus-no-") + part;
    EXPECT_NE(csv.find("6," + label + ",8,"), std::string::npos) << label << csv;
    EXPECT_NE(printed.find(label + " "), std::string::npos) << label << printed;
  }
  EXPECT_NE(printed.find("against sia-plus"), std::string::npos) << printed;
  const std::string plain_dir = dir + "-plain";
  std::filesystem::remove_all(plain_dir);
  std::string plain_printed, plain_headline;
  ASSERT_TRUE(RunGoodput(plain_dir, "6", &plain_printed, &plain_headline).ok());
  EXPECT_EQ(csv.substr(0, SlurpGoodput(plain_dir + "/goodput.csv").size()), SlurpGoodput(plain_dir + "/goodput.csv"));
  EXPECT_EQ(headline, plain_headline);
  st = RunGoodput(dir, "6", &printed, &headline, "maybe");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("option 'ablation'"), std::string::npos) << st.ToString();
}

TEST(GoodputExperimentTest, AWorkloadPolluxDoesNotHaveIsRefused) {
  std::string printed, headline;
  Status st = RunGoodput(::testing::TempDir(), "7-9", &printed, &headline);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("option 'workloads'"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace hetsched
