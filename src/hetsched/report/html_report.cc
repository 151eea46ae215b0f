#include "hetsched/report/html_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "hetsched/report/comparison.h"
#include "hetsched/report/format.h"
#include "hetsched/report/plot.h"

namespace hetsched {
namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse;font-size:13px}"
    "th,td{border:1px solid #ccc;padding:3px 8px}"
    "th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "figure{margin:1.5em 0}";

std::string TableHtml(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries) {
  const std::vector<ComparisonColumn>& columns = ComparisonColumns();
  std::string s = "<table>\n<thead><tr>";
  for (const ComparisonColumn& c : columns) s += "<th>" + XmlEscape(c.header) + "</th>";
  s += "</tr></thead>\n<tbody>\n";
  const size_t n = std::min(runs.size(), summaries.size());
  for (size_t i = 0; i < n; ++i) {
    const std::vector<std::string> cells = ComparisonCells(runs[i], summaries[i]);
    s += "<tr>";
    for (size_t c = 0; c < columns.size(); ++c) {
      s += columns[c].numeric ? "<td class=\"num\">" : "<td>";
      s += XmlEscape(cells[c]) + "</td>";
    }
    s += "</tr>\n";
  }
  return s + "</tbody>\n</table>\n";
}

// Runs' identity below the table: trace, cluster and seed, which the table leaves out.
std::string RunListHtml(const std::vector<RunRecord>& runs) {
  const std::vector<std::string> labels = RunLabels(runs);
  std::string s = "<ul>\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = runs[i];
    s += fmt::format("<li><b>{}</b>: policy {}, placer {}, planner {}, trace {}, cluster {}, seed {}</li>\n",
                     XmlEscape(labels[i]), XmlEscape(r.policy), XmlEscape(r.placer), XmlEscape(r.planner),
                     XmlEscape(r.trace), XmlEscape(r.cluster_summary), r.seed);
  }
  return s + "</ul>\n";
}

}  // namespace

std::string ComparisonHtml(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries) {
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>hetsched comparison</title>\n";
  s += fmt::format("<style>{}</style>\n</head>\n<body>\n", kStyle);
  s += "<h1>hetsched comparison</h1>\n";
  s += TableHtml(runs, summaries);
  s += RunListHtml(runs);
  s += "<figure>\n" + UtilisationSvg(runs) +
       "<figcaption>Busy devices over time, per run.</figcaption>\n</figure>\n";
  s += "<figure>\n" + JctCdfSvg(runs) +
       "<figcaption>Empirical CDF of job completion time over finished jobs, per "
       "run.</figcaption>\n</figure>\n";
  s += "</body>\n</html>\n";
  return s;
}

}  // namespace hetsched
