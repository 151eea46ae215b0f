// The "gadget" experiment (E4) in quick mode: it runs every method on both workloads, writes one
// CSV row per (workload, method), and every job finishes. The ordering of the methods is not
// asserted on 80 jobs (too few for a robust ranking); the full run is in docs/experiments/gadget.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "hetsched/experiments/experiment.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

std::string SlurpGadget(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ExperimentContext QuickContext(std::string* printed) {
  ExperimentContext ctx;
  ctx.out_dir = ::testing::TempDir();
  ctx.quick = true;
  ctx.options.Set("runtimes", std::string(HETSCHED_SOURCE_DIR) + "/data/real/philly/philly_runtime.csv");
  ctx.options.Set("trace", std::string(HETSCHED_SOURCE_DIR) + "/data/real/gavel/traces/msr_seed0_6214e9.trace");
  ctx.options.Set("jobs", "40");
  ctx.print = [printed](const std::string& s) { *printed += s; };
  return ctx;
}

TEST(GadgetExperimentTest, QuickModeWritesOneRowPerWorkloadAndMethod) {
  auto made = Registry<Experiment>::Instance().Create("gadget", Options());
  ASSERT_TRUE(made.ok()) << made.status().message();
  std::string printed;
  ExperimentContext ctx = QuickContext(&printed);
  Status st = (*made)->Run(ctx);
  ASSERT_TRUE(st.ok()) << st.message();
  const std::string csv = SlurpGadget(ctx.out_dir + "/gadget.csv");
  // Header + 2 workloads x 9 methods.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 19);
  EXPECT_NE(csv.find("philly-mix,GADGET-static,40,"), std::string::npos);
  EXPECT_NE(csv.find("philly-mix,GADGET,40,"), std::string::npos);
  EXPECT_NE(csv.find("msr,List-Scheduling,40,"), std::string::npos);
  EXPECT_NE(csv.find("msr,Random,40,"), std::string::npos);
  EXPECT_NE(printed.find("avg JCT"), std::string::npos);
  EXPECT_NE(SlurpGadget(ctx.out_dir + "/gadget.txt").find("GADGET-rigid"), std::string::npos);
}

TEST(GadgetExperimentTest, BadInputsAreErrors) {
  auto made = Registry<Experiment>::Instance().Create("gadget", Options());
  ASSERT_TRUE(made.ok());
  std::string printed;
  ExperimentContext ctx = QuickContext(&printed);
  ctx.options.Set("runtimes", ::testing::TempDir() + "/no_such_runtimes.csv");
  EXPECT_FALSE((*made)->Run(ctx).ok());
  ExperimentContext ctx2 = QuickContext(&printed);
  ctx2.options.Set("rate", "0");
  EXPECT_FALSE((*made)->Run(ctx2).ok());
}

}  // namespace
}  // namespace hetsched
