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
    "figure{margin:1.5em 0}figcaption{max-width:60em;margin-top:.4em}svg{max-width:100%;height:auto}";

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

// One sentence naming the workload and cluster the runs share (or saying they differ).
std::string IntroHtml(const std::vector<RunRecord>& runs) {
  if (runs.empty()) return "<p>No runs.</p>\n";
  const RunRecord& first = runs.front();
  const bool same = std::all_of(runs.begin(), runs.end(), [&](const RunRecord& r) {
    return r.trace == first.trace && r.cluster_summary == first.cluster_summary;
  });
  if (!same) return fmt::format("<p>{} runs on different workloads or clusters (see the list below).</p>\n", runs.size());
  return fmt::format("<p>{} runs of the workload <b>{}</b> on {}.</p>\n", runs.size(), XmlEscape(first.trace),
                     XmlEscape(first.cluster_summary));
}

}  // namespace

std::string ComparisonHtml(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries) {
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>hetsched comparison</title>\n";
  s += fmt::format("<style>{}</style>\n</head>\n<body>\n", kStyle);
  s += "<h1>hetsched comparison</h1>\n";
  s += IntroHtml(runs);
  s += TableHtml(runs, summaries);
  s += RunListHtml(runs);
  for (const Figure& f : ReportFigures(runs, summaries)) {
    s += fmt::format("<figure id=\"{}\">\n{}<figcaption>{}</figcaption>\n</figure>\n", f.id, f.svg,
                     XmlEscape(f.caption));
  }
  s += "</body>\n</html>\n";
  return s;
}

}  // namespace hetsched
