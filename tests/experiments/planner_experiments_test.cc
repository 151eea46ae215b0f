// The "heterps" (E1) and "tapp" (E3) experiments in quick mode: one CSV row per case, and in
// every row the DP optimum is no worse than any other method (it is exact for both models), and
// local search never makes the learned plan worse. The figures themselves are in
// docs/experiments/heterps.md and tapp.md (full runs).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "hetsched/experiments/experiment.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

std::vector<std::vector<double>> ReadCsvNumbers(const std::string& path, std::vector<std::string>* header) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  header->clear();
  for (std::string_view h : Split(line, ',')) header->emplace_back(h);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    for (std::string_view cell : Split(line, ',')) {
      auto v = ParseDouble(cell, "cell");
      row.push_back(v.ok() ? *v : 0.0);  // model / set names read as 0
    }
    rows.push_back(row);
  }
  return rows;
}

size_t Col(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

Status RunQuick(const std::string& name, const std::string& dir, std::string* printed) {
  auto made = Registry<Experiment>::Instance().Create(name, Options());
  if (!made.ok()) return made.status();
  ExperimentContext ctx;
  ctx.out_dir = dir;
  ctx.quick = true;
  ctx.options.Set("episodes", "150");
  ctx.print = [printed](const std::string& s) { *printed += s; };
  return (*made)->Run(ctx);
}

TEST(PlannerExperiments, HeterPsQuick) {
  std::string printed;
  ASSERT_TRUE(RunQuick("heterps", ::testing::TempDir(), &printed).ok()) << printed;
  std::vector<std::string> h;
  const auto rows = ReadCsvNumbers(::testing::TempDir() + "/heterps.csv", &h);
  ASSERT_EQ(rows.size(), 2u);  // 2 models x 1 limit
  for (const auto& r : rows) {
    const double dp = r[Col(h, "dp_cost")];
    EXPECT_GT(dp, 0);
    for (const char* other : {"rl_cost", "rl_polished_cost", "greedy_fastest", "greedy_cheapest", "greedy_per_layer", "all_cpu"}) {
      EXPECT_LE(dp, r[Col(h, other)] * (1 + 1e-9)) << other;
    }
    EXPECT_LE(r[Col(h, "rl_polished_cost")], r[Col(h, "rl_cost")] * (1 + 1e-12));
  }
  EXPECT_NE(printed.find("within 2%"), std::string::npos);
}

TEST(PlannerExperiments, TappQuick) {
  std::string printed;
  ASSERT_TRUE(RunQuick("tapp", ::testing::TempDir(), &printed).ok()) << printed;
  std::vector<std::string> h;
  const auto rows = ReadCsvNumbers(::testing::TempDir() + "/tapp.csv", &h);
  ASSERT_EQ(rows.size(), 2u);  // vgg16 x {H1, H2}
  for (const auto& r : rows) {
    const double dp = r[Col(h, "dp_step_s")];
    EXPECT_GT(dp, 0);
    for (const char* other : {"even_step_s", "tapp_step_s", "tapp_polished_step_s"}) {
      EXPECT_LE(dp, r[Col(h, other)] * (1 + 1e-9)) << other;
    }
    EXPECT_LE(r[Col(h, "tapp_polished_step_s")], r[Col(h, "tapp_step_s")] * (1 + 1e-12));
    EXPECT_GT(r[Col(h, "bsp_step_s")], 0);
  }
  EXPECT_NE(printed.find("paper: 1.37x"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
