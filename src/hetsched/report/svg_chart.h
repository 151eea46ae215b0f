// Plain-SVG chart drawing for the report's figures (report/plot.h): axes with "nice" ticks, a
// line panel (frame, grid, tick labels, step or polyline series), a horizontal bar panel and a
// legend. Text only, no plotting dependency, no scripts; every number goes through fmt with a
// fixed precision, so identical inputs give byte-identical SVG.
//
// Data marks (series lines and bars) carry class "mark": the browser check
// (tests/report/browser_test.cc) counts them per figure.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace hetsched::svg {

struct Point {
  double x = 0, y = 0;
};

struct Series {
  std::string label;
  std::string colour;
  std::string dash;  // stroke-dasharray, "" for a solid line
  double width = 1.5;
  std::vector<Point> points;  // data coordinates
};

struct Tick {
  double value = 0;
  std::string label;
};

// Maps data values to [0, 1]; a log axis maps log10(value) (values below lo are clamped).
struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<Tick> ticks;
  double Fraction(double v) const;
};

// Ticks at steps of 1, 2 or 5 x 10^k from 0 to at least max_value (an axis to 1 when max <= 0).
Axis LinearAxis(double max_value, int target_ticks = 5);
// Decade ticks covering [min_value, max_value] (both > 0).
Axis LogAxis(double min_value, double max_value);

// A plot area in pixels inside the SVG (margins for labels lie outside it).
struct Panel {
  double x = 0, y = 0, width = 0, height = 0;
};

// Frame, grid, tick labels, the title centred above and the axis labels (either may be empty),
// then the series. A panel whose series have no points says "no data".
std::string LinePanel(const Panel& panel, const std::string& title, const std::string& x_label,
                      const std::string& y_label, const Axis& x_axis, const Axis& y_axis,
                      const std::vector<Series>& series, double font_size = 12);

// One horizontal bar per row (label on the left, value printed after the bar), bars scaled to
// the axis' range; the title above.
struct Bar {
  std::string label;
  double value = 0;
  std::string value_text;
  std::string colour;
};
std::string BarPanel(const Panel& panel, const std::string& title, const Axis& axis, const std::vector<Bar>& bars);

// Legend entries (label, colour, dash) in a column from (x, y), or in a row when `row`.
struct LegendEntry {
  std::string label;
  std::string colour;
  std::string dash;
};
std::string Legend(double x, double y, const std::vector<LegendEntry>& entries, bool row);

// The <svg> element: white background, `title` as its accessible title and heading (empty: none).
std::string Document(double width, double height, const std::string& title, const std::string& body);

// The i-th of ten distinguishable colours, cycled.
const char* PaletteColour(size_t i);

}  // namespace hetsched::svg
