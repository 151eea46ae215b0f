// The report's figures, each an SVG document plus one sentence saying what it shows, computed
// from the runs (report/html_report.h puts them on one page; `hetsched compare` also writes the
// SVGs as files). Deterministic: identical runs give byte-identical figures.
//
// - utilisation: small multiples, one panel per run; one line per GPU type (share of that type's
//   devices busy) and a dashed line for all devices;
// - queue: small multiples on one shared scale, jobs waiting to start or restart over time;
// - JCT CDF: one line per run on a log time axis (lines, not areas, so overlaps stay readable);
// - cost and energy: one bar per run in each of two panels.
#pragma once

#include <string>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/metrics/summary.h"

namespace hetsched {

struct Figure {
  std::string id;       // short name, also the figure's HTML id ("utilisation", "queue", ...)
  std::string svg;      // a whole <svg> document
  std::string caption;  // what the figure shows, with the runs' own numbers
};

// Legend label of each run: its policy; "policy/placer" where several runs share a policy; a
// " #i" suffix (1-based run index) where even that is ambiguous.
std::vector<std::string> RunLabels(const std::vector<RunRecord>& runs);

Figure UtilisationFigure(const std::vector<RunRecord>& runs);
Figure QueueFigure(const std::vector<RunRecord>& runs);
Figure JctCdfFigure(const std::vector<RunRecord>& runs);
// REQUIRES: summaries in the order of runs (extra entries of the longer one are ignored).
Figure CostEnergyFigure(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries);

// Every figure above, in the report's order.
std::vector<Figure> ReportFigures(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries);

// The SVGs alone (files of `hetsched compare`).
inline std::string UtilisationSvg(const std::vector<RunRecord>& runs) { return UtilisationFigure(runs).svg; }
inline std::string JctCdfSvg(const std::vector<RunRecord>& runs) { return JctCdfFigure(runs).svg; }

}  // namespace hetsched
