#include "hetsched/report/plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "hetsched/report/format.h"
#include "hetsched/report/svg_chart.h"
#include "hetsched/report/timeline_resample.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace {

using svg::Axis;
using svg::Panel;
using svg::Point;
using svg::Series;

constexpr int kMaxPointsPerSeries = 400;
constexpr int kMaxPointsPerPanel = 80;

// Small multiples: a grid of panels, at most kColumns a row, under a title and a legend row.
constexpr int kColumns = 3;
constexpr double kCellW = 320, kCellH = 215, kHeaderH = 60;
constexpr double kPanelLeft = 62, kPanelTop = 26, kPanelW = 240, kPanelH = 140;

Panel GridPanel(size_t i) {
  const double col = static_cast<double>(i % kColumns), row = static_cast<double>(i / kColumns);
  return {col * kCellW + kPanelLeft, kHeaderH + row * kCellH + kPanelTop, kPanelW, kPanelH};
}
double GridWidth(size_t n) { return static_cast<double>(std::clamp<size_t>(n, 1, kColumns)) * kCellW + 10; }
double GridHeight(size_t n) {
  return kHeaderH + static_cast<double>((std::max<size_t>(n, 1) + kColumns - 1) / kColumns) * kCellH;
}

// A step line through resampled rows: each value holds until the next row.
void AddStep(std::vector<Point>* points, double t_s, double value) {
  const double t_h = t_s / kSecondsPerHour;
  if (!points->empty()) points->push_back({t_h, points->back().y});
  points->push_back({t_h, value});
}

// Time-weighted mean of f(row) over the rows' span (the last row holds no time); 0 if no span.
template <typename F>
double TimeMean(const std::vector<TimelineRow>& rows, F f) {
  if (rows.size() < 2) return rows.empty() ? 0 : f(rows.front());
  double area = 0;
  for (size_t k = 0; k + 1 < rows.size(); ++k) area += (rows[k + 1].time_s - rows[k].time_s) * f(rows[k]);
  const double span = rows.back().time_s - rows.front().time_s;
  return span > 0 ? area / span : f(rows.front());
}

double LastTimeH(const std::vector<TimelineRow>& rows) {
  return rows.empty() ? 0 : rows.back().time_s / kSecondsPerHour;
}

// Index of the smallest and largest value (first on ties).
std::pair<size_t, size_t> ArgMinMax(const std::vector<double>& v) {
  size_t lo = 0, hi = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i] < v[lo]) lo = i;
    if (v[i] > v[hi]) hi = i;
  }
  return {lo, hi};
}

Figure NoRuns(const std::string& id, const std::string& title) {
  const std::string body =
      "<text x=\"205\" y=\"110\" text-anchor=\"middle\" fill=\"#777777\">no data</text>\n";
  return {id, svg::Document(410, 200, title, body), "No runs to show."};
}

// Labels drawn in a panel title, a legend or beside a bar are cut to kMaxDrawnLabel characters
// ("..." at the end); the table and the marks' tooltips keep the whole label.
constexpr size_t kMaxDrawnLabel = 34;
std::string Short(const std::string& label) {
  return label.size() <= kMaxDrawnLabel ? label : label.substr(0, kMaxDrawnLabel - 3) + "...";
}

}  // namespace

std::vector<std::string> RunLabels(const std::vector<RunRecord>& runs) {
  std::map<std::string, int> policy_count, pair_count;
  for (const RunRecord& r : runs) {
    ++policy_count[r.policy];
    ++pair_count[r.policy + "/" + r.placer];
  }
  std::vector<std::string> labels;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = runs[i];
    std::string label = r.policy;
    if (policy_count[r.policy] > 1) label += "/" + r.placer;
    if (pair_count[r.policy + "/" + r.placer] > 1) label += fmt::format(" #{}", i + 1);
    labels.push_back(label);
  }
  return labels;
}

Figure UtilisationFigure(const std::vector<RunRecord>& runs) {
  const std::string title = "Utilisation per GPU type over time (one panel per run)";
  if (runs.empty()) return NoRuns("utilisation", title);
  const std::vector<std::string> labels = RunLabels(runs);
  // Types named by any run, in first-seen order: one colour per type across panels.
  std::vector<std::string> types;
  for (const RunRecord& r : runs) {
    for (const std::string& t : r.device_types) {
      if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
    }
  }
  std::string body;
  std::vector<double> mean_util(runs.size(), 0);
  std::vector<int> busiest_count(types.size(), 0);
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = runs[i];
    const std::vector<TimelineRow> rows = ResampleTimeline(r, kMaxPointsPerPanel);
    std::vector<Series> series;
    double best_share = -1;
    size_t best_type = 0;
    for (size_t k = 0; k < r.device_types.size() && k < r.devices_per_type.size(); ++k) {
      const double n = r.devices_per_type[k];
      if (!(n > 0)) continue;
      const size_t colour = static_cast<size_t>(std::find(types.begin(), types.end(), r.device_types[k]) - types.begin());
      Series line{r.device_types[k], svg::PaletteColour(colour), "", 1.5, {}};
      auto busy = [k](const TimelineRow& row) { return k < row.busy_by_type.size() ? row.busy_by_type[k] : 0.0; };
      for (const TimelineRow& row : rows) AddStep(&line.points, row.time_s, 100 * busy(row) / n);
      const double share = TimeMean(rows, busy) / n;
      if (share > best_share) {
        best_share = share;
        best_type = colour;
      }
      series.push_back(std::move(line));
    }
    if (r.total_devices > 0) {
      Series all{"all devices", "#000000", "4 3", 1, {}};
      for (const TimelineRow& row : rows) AddStep(&all.points, row.time_s, 100 * row.busy_devices / r.total_devices);
      mean_util[i] = 100 * TimeMean(rows, [](const TimelineRow& row) { return row.busy_devices; }) / r.total_devices;
      series.push_back(std::move(all));
    }
    if (best_share >= 0) ++busiest_count[best_type];
    body += svg::LinePanel(GridPanel(i), Short(labels[i]), i + kColumns >= runs.size() ? "time (h)" : "",
                           i % kColumns == 0 ? "busy (%)" : "", svg::LinearAxis(LastTimeH(rows), 4),
                           svg::LinearAxis(100, 4), series, 11);
  }
  std::vector<svg::LegendEntry> legend;
  for (size_t t = 0; t < types.size(); ++t) legend.push_back({types[t], svg::PaletteColour(t), ""});
  legend.push_back({"all devices", "#000000", "4 3"});
  body += svg::Legend(kPanelLeft, 46, legend, /*row=*/true);

  const auto [lo, hi] = ArgMinMax(mean_util);
  std::string caption = fmt::format(
      "Each panel is one run; each line is the share of one GPU type's devices that are busy, the dashed line "
      "all devices. Averaged over each run's timeline, utilisation is highest under {} ({} %) and lowest under {} "
      "({} %).",
      labels[hi], FormatFixed(mean_util[hi], 1), labels[lo], FormatFixed(mean_util[lo], 1));
  const auto top = std::max_element(busiest_count.begin(), busiest_count.end());
  if (top != busiest_count.end() && *top > 0) {
    caption += fmt::format(" The busiest type is {} in {} of {} runs.", types[static_cast<size_t>(top - busiest_count.begin())],
                           *top, runs.size());
  }
  return {"utilisation", svg::Document(GridWidth(runs.size()), GridHeight(runs.size()), title, body), caption};
}

Figure QueueFigure(const std::vector<RunRecord>& runs) {
  const std::string title = "Jobs waiting over time (one panel per run, same scale)";
  if (runs.empty()) return NoRuns("queue", title);
  const std::vector<std::string> labels = RunLabels(runs);
  std::vector<std::vector<TimelineRow>> rows;
  double max_pending = 0, max_h = 0;
  std::vector<double> peak(runs.size(), 0), mean(runs.size(), 0);
  for (size_t i = 0; i < runs.size(); ++i) {
    rows.push_back(ResampleTimeline(runs[i], kMaxPointsPerPanel));
    for (const TimelineRow& row : rows.back()) max_pending = std::max(max_pending, row.pending_jobs);
    for (const TimelineSample& s : runs[i].timeline) peak[i] = std::max(peak[i], static_cast<double>(s.pending_jobs));
    mean[i] = TimeMean(rows.back(), [](const TimelineRow& row) { return row.pending_jobs; });
    max_h = std::max(max_h, LastTimeH(rows.back()));
  }
  const Axis x_axis = svg::LinearAxis(max_h, 4), y_axis = svg::LinearAxis(max_pending, 4);
  std::string body;
  for (size_t i = 0; i < runs.size(); ++i) {
    Series line{labels[i], svg::PaletteColour(i), "", 1.5, {}};
    for (const TimelineRow& row : rows[i]) AddStep(&line.points, row.time_s, row.pending_jobs);
    body += svg::LinePanel(GridPanel(i), Short(labels[i]), i + kColumns >= runs.size() ? "time (h)" : "",
                           i % kColumns == 0 ? "jobs waiting" : "", x_axis, y_axis, {line}, 11);
  }
  const auto [lo_peak, hi_peak] = ArgMinMax(peak);
  const auto [lo, hi] = ArgMinMax(mean);
  const std::string caption = fmt::format(
      "Jobs submitted and not running (waiting to start or to resume after a preemption), on one time and "
      "count scale for every run. The queue peaks at {} jobs under {} ({} under {}); averaged over time it is "
      "shortest under {} ({} jobs) and longest under {} ({} jobs).",
      FormatFixed(peak[hi_peak], 0), labels[hi_peak], FormatFixed(peak[lo_peak], 0), labels[lo_peak], labels[lo],
      FormatFixed(mean[lo], 1), labels[hi], FormatFixed(mean[hi], 1));
  return {"queue", svg::Document(GridWidth(runs.size()), GridHeight(runs.size()), title, body), caption};
}

Figure JctCdfFigure(const std::vector<RunRecord>& runs) {
  // One panel of 550 x 360 px at (70, 40) with the legend on its right (900 x 460 in all).
  const Panel panel{70, 40, 550, 360};
  const std::vector<std::string> labels = RunLabels(runs);
  std::vector<std::vector<double>> jct_h(runs.size());
  double min_pos = INFINITY, max_h = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const JobRecord& job : runs[i].jobs) {
      if (!job.finished()) continue;
      const double h = job.jct_s() / kSecondsPerHour;
      jct_h[i].push_back(h);
      if (h > 0) min_pos = std::min(min_pos, h);
      max_h = std::max(max_h, h);
    }
    std::sort(jct_h[i].begin(), jct_h[i].end());
  }
  if (!std::isfinite(min_pos)) min_pos = max_h = 1;  // no positive JCT: an axis around 1 h
  const Axis x_axis = svg::LogAxis(min_pos, std::max(max_h, min_pos));
  std::vector<Series> series;
  std::vector<svg::LegendEntry> legend;
  std::vector<double> medians;
  std::vector<size_t> with_jobs;
  for (size_t i = 0; i < runs.size(); ++i) {
    // Past ten runs the colours repeat: a dash pattern tells the cycles apart.
    const std::string dash = (i / 10) % 2 == 1 ? "6 3" : "";
    Series line{labels[i], svg::PaletteColour(i), dash, 1.5, {}};
    const std::vector<double>& v = jct_h[i];
    const size_t n = v.size();
    const size_t m = std::min<size_t>(n, kMaxPointsPerSeries);
    double prev_f = 0;
    for (size_t k = 0; k < m; ++k) {
      // The k-th of m evenly spaced ranks (the last one is n): exact when n <= m.
      const size_t idx = ((k + 1) * n + m - 1) / m - 1;
      const double x = std::max(v[idx], x_axis.lo);
      const double f = static_cast<double>(idx + 1) / static_cast<double>(n);
      line.points.push_back({x, prev_f});
      line.points.push_back({x, f});
      prev_f = f;
    }
    if (n > 0) {
      medians.push_back(n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
      with_jobs.push_back(i);
    }
    legend.push_back({Short(labels[i]), line.colour, dash});
    series.push_back(std::move(line));
  }
  std::string body = svg::LinePanel(panel, "", "job completion time (h, log scale)", "fraction of finished jobs",
                                    x_axis, svg::LinearAxis(1), series);
  body += svg::Legend(panel.x + panel.width + 12, panel.y + 14, legend, /*row=*/false);
  std::string caption =
      "Share of each run's finished jobs (y) that completed within a time (x, log scale): a curve further up and "
      "to the left finishes more jobs sooner.";
  if (!medians.empty()) {
    const auto [lo, hi] = ArgMinMax(medians);
    caption += fmt::format(" Median JCT ranges from {} h under {} to {} h under {}.", FormatFixed(medians[lo], 2),
                           labels[with_jobs[lo]], FormatFixed(medians[hi], 2), labels[with_jobs[hi]]);
  }
  return {"jct-cdf", svg::Document(900, 460, "JCT distribution (CDF)", body), caption};
}

Figure CostEnergyFigure(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries) {
  const std::string title = "Cost and energy per run";
  const size_t n = std::min(runs.size(), summaries.size());
  if (n == 0) return NoRuns("cost-energy", title);
  const std::vector<std::string> labels = RunLabels(runs);
  std::vector<double> cost(n), kwh(n);
  std::vector<svg::Bar> cost_bars, energy_bars;
  for (size_t i = 0; i < n; ++i) {
    cost[i] = summaries[i].cost_usd;
    kwh[i] = summaries[i].energy_joules / 3.6e6;
    cost_bars.push_back({Short(labels[i]), cost[i], "$" + FormatFixed(cost[i], 0), svg::PaletteColour(i)});
    energy_bars.push_back({Short(labels[i]), kwh[i], FormatFixed(kwh[i], 1) + " kWh", svg::PaletteColour(i)});
  }
  const double label_w = 230, bar_w = 230, gap = 90, row_h = 24, top = 64;
  const double height = top + row_h * static_cast<double>(n) + 20;
  const double max_cost = *std::max_element(cost.begin(), cost.end());
  const double max_kwh = *std::max_element(kwh.begin(), kwh.end());
  std::string body =
      svg::BarPanel({label_w, top, bar_w, row_h * static_cast<double>(n)}, "cost ($)", svg::LinearAxis(max_cost), cost_bars);
  body += svg::BarPanel({2 * label_w + bar_w + gap, top, bar_w, row_h * static_cast<double>(n)}, "energy (kWh)",
                        svg::LinearAxis(max_kwh), energy_bars);
  const auto [c_lo, c_hi] = ArgMinMax(cost);
  const auto [e_lo, e_hi] = ArgMinMax(kwh);
  const std::string caption = fmt::format(
      "Cost: device-hours held by the jobs times each type's hourly price in the device catalog; energy: idle "
      "power over the makespan plus busy power while devices run (our model, docs/metrics.md). Cheapest is {} "
      "(${}), dearest {} (${}); energy ranges from {} kWh ({}) to {} kWh ({}).",
      labels[c_lo], FormatFixed(cost[c_lo], 0), labels[c_hi], FormatFixed(cost[c_hi], 0),
      FormatFixed(kwh[e_lo], 1), labels[e_lo], FormatFixed(kwh[e_hi], 1), labels[e_hi]);
  return {"cost-energy", svg::Document(2 * label_w + 2 * bar_w + gap + 90, height, title, body), caption};
}

std::vector<Figure> ReportFigures(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries) {
  return {UtilisationFigure(runs), QueueFigure(runs), JctCdfFigure(runs), CostEnergyFigure(runs, summaries)};
}

}  // namespace hetsched
