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

TEST(UtilisationFigure, OnePanelPerRunWithALinePerType) {
  // Two runs of 4 devices (2 v100 + 2 k80): both v100 busy from 0 to 2 h, the k80s idle.
  std::vector<RunRecord> runs = {MakeRun("fifo", "pack", {3600}), MakeRun("s<r&t", "pack", {1800})};
  for (RunRecord& r : runs) {
    r.device_types = {"v100", "k80"};
    r.devices_per_type = {2, 2};
    r.timeline[0].busy_devices = 2;
    r.timeline_busy_by_type = {2, 0, 0, 0};  // per sample: v100, k80
  }
  runs[1].timeline[0].busy_devices = 1;  // second run: one v100 busy
  runs[1].timeline_busy_by_type = {1, 0, 0, 0};
  const Figure f = UtilisationFigure(runs);
  EXPECT_EQ(CheckBalancedTags(f.svg), "");
  EXPECT_EQ(f.svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  // Per panel: v100, k80 and all devices: 6 lines.
  EXPECT_EQ(Count(f.svg, "<polyline"), 6u);
  EXPECT_NE(f.svg.find(">fifo<"), std::string::npos);
  EXPECT_NE(f.svg.find(">s&lt;r&amp;t<"), std::string::npos);  // label escaped
  // Panel 1 spans x 62..302, y 86..226; the time axis ends at 2 h, busy at 100 %. Run 1's v100
  // line: 100 % from 0 to 2 h, then 0; its k80 line stays at 0; "all devices" at 50 %.
  EXPECT_NE(f.svg.find("points=\"62.0,86.0 302.0,86.0 302.0,226.0\""), std::string::npos) << f.svg;
  EXPECT_NE(f.svg.find("points=\"62.0,226.0 302.0,226.0 302.0,226.0\""), std::string::npos);
  EXPECT_NE(f.svg.find("points=\"62.0,156.0 302.0,156.0 302.0,226.0\""), std::string::npos);
  // Panel 2 starts 320 px to the right: its v100 line at 50 %.
  EXPECT_NE(f.svg.find("points=\"382.0,156.0 622.0,156.0 622.0,226.0\""), std::string::npos);
  EXPECT_EQ(f.caption,
            "Each panel is one run; each line is the share of one GPU type's devices that are busy, the dashed line "
            "all devices. Averaged over each run's timeline, utilisation is highest under fifo (50.0 %) and lowest "
            "under s<r&t (25.0 %). The busiest type is v100 in 2 of 2 runs.");
  EXPECT_EQ(f.svg, UtilisationFigure(runs).svg);  // deterministic
}

TEST(QueueFigure, SharedScaleAndPeakInTheCaption) {
  std::vector<RunRecord> runs = {MakeRun("a", "pack", {}), MakeRun("b", "pack", {})};
  runs[0].timeline[0].pending_jobs = 3;
  runs[1].timeline[0].pending_jobs = 6;
  const Figure f = QueueFigure(runs);
  EXPECT_EQ(CheckBalancedTags(f.svg), "");
  EXPECT_EQ(Count(f.svg, "<polyline"), 2u);
  // One y scale to 6 jobs (ticks 0, 2, 4, 6) for both panels: run a's 3 jobs sit half way up.
  EXPECT_NE(f.svg.find("points=\"62.0,156.0 302.0,156.0 302.0,226.0\""), std::string::npos) << f.svg;
  EXPECT_NE(f.svg.find("points=\"382.0,86.0 622.0,86.0 622.0,226.0\""), std::string::npos);
  EXPECT_NE(f.caption.find("The queue peaks at 6 jobs under b (3 under a)"), std::string::npos) << f.caption;
  EXPECT_NE(f.caption.find("shortest under a (3.0 jobs) and longest under b (6.0 jobs)"), std::string::npos);
}

TEST(CostEnergyFigure, OneBarPerRunInEachPanel) {
  const std::vector<RunRecord> runs = {MakeRun("cheap", "pack", {}), MakeRun("dear", "pack", {})};
  std::vector<Summary> summaries(2);
  summaries[0].cost_usd = 50;
  summaries[0].energy_joules = 3.6e6;  // 1 kWh
  summaries[1].cost_usd = 100;
  summaries[1].energy_joules = 7.2e6;
  const Figure f = CostEnergyFigure(runs, summaries);
  EXPECT_EQ(CheckBalancedTags(f.svg), "");
  EXPECT_EQ(Count(f.svg, "<rect class=\"mark\""), 4u);
  // Cost axis to 100 $ over 230 px: the cheap run's bar is 115 px wide.
  EXPECT_NE(f.svg.find("width=\"115.0\""), std::string::npos) << f.svg;
  EXPECT_NE(f.caption.find("Cheapest is cheap ($50), dearest dear ($100); energy ranges from 1.0 kWh (cheap) to "
                           "2.0 kWh (dear)."),
            std::string::npos)
      << f.caption;
}

TEST(JctCdfSvg, StepsThroughEachJob) {
  // JCTs 0.1 h, 1 h, 10 h on a log axis from 0.1 to 10 h (three decades of 275 px... two decades
  // over 550 px: 275 px each). CDF steps: 0 -> 1/3 at 0.1 h, -> 2/3 at 1 h, -> 1 at 10 h.
  const std::vector<RunRecord> runs = {MakeRun("srtf", "pack", {360, 3600, 36000}),
                                       MakeRun("las", "pack", {})};
  const std::string svg = JctCdfSvg(runs);
  EXPECT_EQ(CheckBalancedTags(svg), "");
  EXPECT_EQ(Count(svg, "<polyline"), 1u);  // "las" finished no job: in the legend, no line
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
  for (const Figure& f : ReportFigures({}, {})) {
    EXPECT_EQ(CheckBalancedTags(f.svg), "") << f.id;
    EXPECT_NE(f.svg.find("no data"), std::string::npos) << f.id;
  }
  EXPECT_EQ(ReportFigures({}, {}).size(), 4u);
}

}  // namespace
}  // namespace hetsched
