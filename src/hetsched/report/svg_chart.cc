#include "hetsched/report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hetsched/report/format.h"

namespace hetsched::svg {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

double PixelX(const Panel& p, const Axis& a, double v) { return p.x + a.Fraction(v) * p.width; }
double PixelY(const Panel& p, const Axis& a, double v) { return p.y + p.height - a.Fraction(v) * p.height; }

std::string DashAttribute(const std::string& dash) {
  return dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", dash);
}

}  // namespace

const char* PaletteColour(size_t i) { return kPalette[i % std::size(kPalette)]; }

double Axis::Fraction(double v) const {
  const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
  const double x = log ? std::log10(std::max(v, lo)) : v;
  return b > a ? (x - a) / (b - a) : 0;
}

Axis LinearAxis(double max_value, int target_ticks) {
  Axis axis;
  if (!(max_value > 0) || !std::isfinite(max_value)) max_value = 1;
  const double raw = max_value / std::max(1, target_ticks);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step))));
  const int count = static_cast<int>(std::ceil(max_value / step - 1e-9));
  axis.hi = count * step;
  for (int i = 0; i <= count; ++i) axis.ticks.push_back({i * step, FormatFixed(i * step, decimals)});
  return axis;
}

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

std::string LinePanel(const Panel& p, const std::string& title, const std::string& x_label,
                      const std::string& y_label, const Axis& x_axis, const Axis& y_axis,
                      const std::vector<Series>& series, double font_size) {
  std::string s;
  if (!title.empty()) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"{}\">{}</text>\n",
                     p.x + p.width / 2, p.y - 10, font_size + 1, XmlEscape(title));
  }
  s += "<g class=\"x-axis\" stroke=\"#dddddd\">\n";
  for (const Tick& t : x_axis.ticks) {
    const double x = PixelX(p, x_axis, t.value);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>\n", x, p.y, p.y + p.height);
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" stroke=\"none\" fill=\"black\">{}</text>\n", x,
        p.y + p.height + font_size + 6, XmlEscape(t.label));
  }
  s += "</g>\n<g class=\"y-axis\" stroke=\"#dddddd\">\n";
  for (const Tick& t : y_axis.ticks) {
    const double y = PixelY(p, y_axis, t.value);
    s += fmt::format("<line x1=\"{1:.1f}\" y1=\"{0:.1f}\" x2=\"{2:.1f}\" y2=\"{0:.1f}\"/>\n", y, p.x, p.x + p.width);
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" stroke=\"none\" fill=\"black\">{}</text>\n", p.x - 6,
        y + font_size / 3, XmlEscape(t.label));
  }
  s += "</g>\n";
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", p.x,
                   p.y, p.width, p.height);
  if (!x_label.empty()) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", p.x + p.width / 2,
                     p.y + p.height + 2 * font_size + 13, XmlEscape(x_label));
  }
  if (!y_label.empty()) {
    const double lx = p.x - 52;
    s += fmt::format(
        "<text x=\"{0:.1f}\" y=\"{1:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 {0:.1f} {1:.1f})\">{2}</text>\n",
        lx, p.y + p.height / 2, XmlEscape(y_label));
  }
  bool any = false;
  for (const Series& line : series) {
    if (line.points.empty()) continue;
    any = true;
    std::string points;
    for (const Point& pt : line.points) {
      if (!points.empty()) points += ' ';
      points += fmt::format("{:.1f},{:.1f}", PixelX(p, x_axis, pt.x), PixelY(p, y_axis, pt.y));
    }
    s += fmt::format(
        "<polyline class=\"series mark\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} points=\"{}\">"
        "<title>{}</title></polyline>\n",
        line.colour, line.width, DashAttribute(line.dash), points, XmlEscape(line.label));
  }
  if (!any) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#777777\">no data</text>\n",
                     p.x + p.width / 2, p.y + p.height / 2);
  }
  return s;
}

std::string BarPanel(const Panel& p, const std::string& title, const Axis& axis, const std::vector<Bar>& bars) {
  std::string s;
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"13\">{}</text>\n",
                   p.x + p.width / 2, p.y - 10, XmlEscape(title));
  const double row = bars.empty() ? p.height : p.height / static_cast<double>(bars.size());
  const double bar_h = std::min(16.0, row * 0.7);
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double y = p.y + row * static_cast<double>(i) + (row - bar_h) / 2;
    const double w = std::max(0.0, axis.Fraction(b.value)) * p.width;
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", p.x - 6, y + bar_h - 4,
                     XmlEscape(b.label));
    // A zero bar is still a mark one pixel wide, so an all-zero figure shows its rows.
    s += fmt::format(
        "<rect class=\"mark\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
        "<title>{}: {}</title></rect>\n",
        p.x, y, std::max(1.0, w), bar_h, b.colour, XmlEscape(b.label), XmlEscape(b.value_text));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", p.x + std::max(1.0, w) + 4, y + bar_h - 4,
                     XmlEscape(b.value_text));
  }
  s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"black\"/>\n", p.x,
                   p.y, p.y + p.height);
  return s;
}

std::string Legend(double x, double y, const std::vector<LegendEntry>& entries, bool row) {
  std::string s = "<g class=\"legend\">\n";
  double cx = x, cy = y;
  for (const LegendEntry& e : entries) {
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"3\"{}/>\n", cx,
        cy - 4, cx + 16, cy - 4, e.colour, DashAttribute(e.dash));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", cx + 20, cy, XmlEscape(e.label));
    if (row) {
      cx += 20 + 7.0 * static_cast<double>(e.label.size()) + 22;
    } else {
      cy += 18;
    }
  }
  return s + "</g>\n";
}

std::string Document(double width, double height, const std::string& title, const std::string& body) {
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n",
      width, height);
  if (!title.empty()) s += fmt::format("<title>{}</title>\n", XmlEscape(title));
  s += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"white\"/>\n", width, height);
  if (!title.empty()) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n", width / 2,
                     XmlEscape(title));
  }
  return s + body + "</svg>\n";
}

}  // namespace hetsched::svg
