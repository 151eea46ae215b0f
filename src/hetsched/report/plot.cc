#include "hetsched/report/plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "hetsched/report/format.h"
#include "hetsched/report/timeline_resample.h"

namespace hetsched {
namespace {

constexpr double kWidth = 820, kHeight = 460;
constexpr double kLeft = 70, kRight = 200, kTop = 40, kBottom = 60;  // margins; legend on the right
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr int kMaxPointsPerSeries = 400;
constexpr double kSecondsPerHour = 3600;

// Ten distinguishable colours, cycled.
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

struct Point {
  double x = 0, y = 0;
};
struct Series {
  std::string label;
  std::vector<Point> points;  // data coordinates
};
struct Tick {
  double value = 0;
  std::string label;
};

// An axis maps data values to pixels; log axes map log10(value).
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<Tick> ticks;
  double Fraction(double v) const {
    const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    const double x = log ? std::log10(std::max(v, lo)) : v;
    return b > a ? (x - a) / (b - a) : 0;
  }
};

// "Nice" linear ticks (steps of 1, 2 or 5 x 10^k) from 0 to at least `max_value`.
Axis LinearAxis(double max_value) {
  Axis axis;
  if (!(max_value > 0)) max_value = 1;
  const double raw = max_value / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step))));
  const int count = static_cast<int>(std::ceil(max_value / step - 1e-9));
  axis.hi = count * step;
  for (int i = 0; i <= count; ++i) axis.ticks.push_back({i * step, FormatFixed(i * step, decimals)});
  return axis;
}

// Decade ticks covering [min_value, max_value] (both > 0).
Axis LogAxis(double min_value, double max_value) {
  Axis axis;
  axis.log = true;
  int lo = static_cast<int>(std::floor(std::log10(min_value)));
  int hi = static_cast<int>(std::ceil(std::log10(max_value)));
  if (hi <= lo) hi = lo + 1;
  axis.lo = std::pow(10.0, lo);
  axis.hi = std::pow(10.0, hi);
  for (int k = lo; k <= hi; ++k)
    axis.ticks.push_back({std::pow(10.0, k), FormatFixed(std::pow(10.0, k), std::max(0, -k))});
  return axis;
}

double PixelX(const Axis& a, double v) { return kLeft + a.Fraction(v) * kPlotW; }
double PixelY(const Axis& a, double v) { return kTop + kPlotH - a.Fraction(v) * kPlotH; }

std::string Render(const std::string& title, const std::string& x_label, const std::string& y_label,
                   const Axis& x_axis, const Axis& y_axis, const std::vector<Series>& series) {
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n",
      kWidth, kHeight);
  s += fmt::format("<title>{}</title>\n", XmlEscape(title));
  s += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"white\"/>\n", kWidth, kHeight);
  s += fmt::format("<text x=\"{:.1f}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n",
                   kLeft + kPlotW / 2, XmlEscape(title));
  // Grid lines and tick labels.
  s += "<g class=\"x-axis\" stroke=\"#dddddd\">\n";
  for (const Tick& t : x_axis.ticks) {
    const double x = PixelX(x_axis, t.value);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>\n", x, kTop,
                     kTop + kPlotH);
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" stroke=\"none\" fill=\"black\">{}</text>\n",
        x, kTop + kPlotH + 18, XmlEscape(t.label));
  }
  s += "</g>\n<g class=\"y-axis\" stroke=\"#dddddd\">\n";
  for (const Tick& t : y_axis.ticks) {
    const double y = PixelY(y_axis, t.value);
    s += fmt::format("<line x1=\"{1:.1f}\" y1=\"{0:.1f}\" x2=\"{2:.1f}\" y2=\"{0:.1f}\"/>\n", y, kLeft,
                     kLeft + kPlotW);
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" stroke=\"none\" fill=\"black\">{}</text>\n",
        kLeft - 6, y + 4, XmlEscape(t.label));
  }
  s += "</g>\n";
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n",
                   kLeft, kTop, kPlotW, kPlotH);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", kLeft + kPlotW / 2,
                   kHeight - 15, XmlEscape(x_label));
  s += fmt::format(
      "<text x=\"18\" y=\"{0:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {0:.1f})\">{1}</text>\n",
      kTop + kPlotH / 2, XmlEscape(y_label));
  // Data lines, then the legend.
  for (size_t i = 0; i < series.size(); ++i) {
    const char* colour = kPalette[i % std::size(kPalette)];
    std::string points;
    for (const Point& p : series[i].points) {
      if (!points.empty()) points += ' ';
      points += fmt::format("{:.1f},{:.1f}", PixelX(x_axis, p.x), PixelY(y_axis, p.y));
    }
    s += fmt::format(
        "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\">"
        "<title>{}</title></polyline>\n",
        colour, points, XmlEscape(series[i].label));
  }
  s += "<g class=\"legend\">\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const double y = kTop + 10 + 18 * static_cast<double>(i);
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"4\" fill=\"{}\"/>\n",
                     kLeft + kPlotW + 12, y - 4, kPalette[i % std::size(kPalette)]);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", kLeft + kPlotW + 32, y + 2,
                     XmlEscape(series[i].label));
  }
  s += "</g>\n";
  if (series.empty() ||
      std::all_of(series.begin(), series.end(), [](const Series& x) { return x.points.empty(); })) {
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#777777\">no data</text>\n",
        kLeft + kPlotW / 2, kTop + kPlotH / 2);
  }
  s += "</svg>\n";
  return s;
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

std::string UtilisationSvg(const std::vector<RunRecord>& runs) {
  const std::vector<std::string> labels = RunLabels(runs);
  std::vector<Series> series;
  double max_h = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    Series line{labels[i], {}};
    const std::vector<TimelineRow> rows = ResampleTimeline(runs[i], kMaxPointsPerSeries);
    if (runs[i].total_devices > 0) {
      // Step line: each row's value holds until the next row.
      for (size_t k = 0; k < rows.size(); ++k) {
        const double pct = 100 * rows[k].busy_devices / runs[i].total_devices;
        const double t_h = rows[k].time_s / kSecondsPerHour;
        if (k > 0) line.points.push_back({t_h, line.points.back().y});
        line.points.push_back({t_h, pct});
        max_h = std::max(max_h, t_h);
      }
    }
    series.push_back(std::move(line));
  }
  Axis y_axis = LinearAxis(100);
  return Render("Cluster utilisation over time", "time (h)", "busy devices (%)", LinearAxis(max_h), y_axis,
                series);
}

std::string JctCdfSvg(const std::vector<RunRecord>& runs) {
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
  const Axis x_axis = LogAxis(min_pos, std::max(max_h, min_pos));
  std::vector<Series> series;
  for (size_t i = 0; i < runs.size(); ++i) {
    Series line{labels[i], {}};
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
    series.push_back(std::move(line));
  }
  Axis y_axis = LinearAxis(1);
  return Render("JCT distribution (CDF)", "job completion time (h, log scale)", "fraction of finished jobs",
                x_axis, y_axis, series);
}

}  // namespace hetsched
