#include "hetsched/report/plot.h"

#include <gtest/gtest.h>

#include "balanced_tags.h"

namespace hetsched {
namespace {

using testing_util::CheckBalancedTags;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

RunRecord MakeRun(const std::string& policy, const std::string& placer, std::vector<double> jcts_s) {
  RunRecord run;
  run.policy = policy;
  run.placer = placer;
  run.total_devices = 4;
  for (size_t i = 0; i < jcts_s.size(); ++i) {
    JobRecord j;
    j.id = static_cast<JobId>(i);
    j.submit_s = 0;
    j.first_start_s = 0;
    j.finish_s = jcts_s[i];
    run.jobs.push_back(j);
  }
  TimelineSample a, b;
  a.time_s = 0;
  a.busy_devices = 4;
  b.time_s = 7200;
  run.timeline = {a, b};
  return run;
}

TEST(RunLabels, DisambiguatesRepeatedPolicies) {
  const std::vector<RunRecord> runs = {MakeRun("fifo", "pack", {}), MakeRun("fifo", "first_fit", {}),
                                       MakeRun("gavel", "pack", {}), MakeRun("gavel", "pack", {})};
  EXPECT_EQ(RunLabels(runs),
            (std::vector<std::string>{"fifo/pack", "fifo/first_fit", "gavel/pack #3", "gavel/pack #4"}));
}

TEST(UtilisationSvg, WellFormedWithOneSeriesPerRun) {
  const std::vector<RunRecord> runs = {MakeRun("fifo", "pack", {3600}), MakeRun("s<r&t", "pack", {1800})};
  const std::string svg = UtilisationSvg(runs);
  EXPECT_EQ(CheckBalancedTags(svg), "");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(Count(svg, "<polyline"), 2u);
  EXPECT_NE(svg.find(">fifo<"), std::string::npos);
  EXPECT_NE(svg.find(">s&lt;r&amp;t<"), std::string::npos);  // label escaped
  EXPECT_NE(svg.find(">time (h)<"), std::string::npos);
  EXPECT_NE(svg.find(">100<"), std::string::npos);  // top y tick
  // 4 of 4 busy from 0 to 2 h, then 0: points (0 h,100 %), (2 h,100 %), (2 h,0 %). The x axis
  // ends at a nice 2 h, so x pixels are 70 and 70+550 = 620; y 100 % = 40, 0 % = 400.
  EXPECT_NE(svg.find("points=\"70.0,40.0 620.0,40.0 620.0,400.0\""), std::string::npos) << svg;
  EXPECT_EQ(svg, UtilisationSvg(runs));  // deterministic
}

TEST(JctCdfSvg, StepsThroughEachJob) {
  // JCTs 0.1 h, 1 h, 10 h on a log axis from 0.1 to 10 h (three decades of 275 px... two decades
  // over 550 px: 275 px each). CDF steps: 0 -> 1/3 at 0.1 h, -> 2/3 at 1 h, -> 1 at 10 h.
  const std::vector<RunRecord> runs = {MakeRun("srtf", "pack", {360, 3600, 36000}),
                                       MakeRun("las", "pack", {})};
  const std::string svg = JctCdfSvg(runs);
  EXPECT_EQ(CheckBalancedTags(svg), "");
  EXPECT_EQ(Count(svg, "<polyline"), 2u);
  EXPECT_NE(svg.find(">srtf<"), std::string::npos);
  EXPECT_NE(svg.find(">las<"), std::string::npos);
  // y: 0 -> 400, 1/3 -> 280, 2/3 -> 160, 1 -> 40; x: 0.1 h -> 70, 1 h -> 345, 10 h -> 620.
  EXPECT_NE(svg.find("points=\"70.0,400.0 70.0,280.0 345.0,280.0 345.0,160.0 620.0,160.0 620.0,40.0\""),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(">0.1<"), std::string::npos);  // decade tick labels
  EXPECT_NE(svg.find(">10<"), std::string::npos);
}

TEST(Plots, NoRunsStillWellFormed) {
  EXPECT_EQ(CheckBalancedTags(UtilisationSvg({})), "");
  EXPECT_EQ(CheckBalancedTags(JctCdfSvg({})), "");
  EXPECT_NE(JctCdfSvg({}).find("no data"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
