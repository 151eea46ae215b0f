// The "dltap" experiment (E5) in quick mode: every placer on every workload, one CSV row each,
// every job finishes, and on each workload DLTAP sends no more bytes across nodes per iteration
// than the default spreading when both place the same jobs (the direction the paper reports;
// the size is in docs/experiments/dltap.md).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "hetsched/experiments/experiment.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

TEST(DltapExperimentTest, QuickModeWritesOneRowPerWorkloadAndPlacer) {
  auto made = Registry<Experiment>::Instance().Create("dltap", Options());
  ASSERT_TRUE(made.ok()) << made.status().message();
  std::string printed;
  ExperimentContext ctx;
  ctx.out_dir = ::testing::TempDir();
  ctx.quick = true;
  ctx.print = [&printed](const std::string& s) { printed += s; };
  Status st = (*made)->Run(ctx);
  ASSERT_TRUE(st.ok()) << st.message();
  std::ifstream in(ctx.out_dir + "/dltap.csv");
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();  // Split's views point into it
  std::vector<std::string> lines;
  for (std::string_view line : Split(all, '\n')) {
    if (!line.empty()) lines.emplace_back(line);
  }
  ASSERT_EQ(lines.size(), 1u + 3 * 4);  // header + 3 workloads x 4 placers
  for (size_t i = 1; i < lines.size(); ++i) {
    const auto f = Split(lines[i], ',');
    ASSERT_EQ(f.size(), 11u) << lines[i];
    EXPECT_EQ(f[2], "10") << "every job finishes: " << lines[i];  // quick: 10 jobs
    if (f[1] == "dltap") {
      const double static_vs_spread = std::stod(std::string(f[9]));
      EXPECT_LE(static_vs_spread, 1.0) << lines[i];
    }
  }
  EXPECT_NE(printed.find("cross-node"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
