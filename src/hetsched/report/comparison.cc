#include "hetsched/report/comparison.h"

#include <fmt/format.h>

#include <algorithm>

#include "hetsched/report/format.h"
#include "hetsched/report/writers.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace {

constexpr double kJoulesPerKwh = 3.6e6;
constexpr double kBytesPerTb = 1e12;

std::string Hours(double seconds) { return FormatFixed(seconds / kSecondsPerHour, 2); }

std::string PadTo(const std::string& cell, size_t width, bool right_align) {
  if (cell.size() >= width) return cell;
  const std::string pad(width - cell.size(), ' ');
  return right_align ? pad + cell : cell + pad;
}

}  // namespace

const std::vector<ComparisonColumn>& ComparisonColumns() {
  static const std::vector<ComparisonColumn> columns = {
      {"policy", false},     {"placer", false},          {"finished/total", true},
      {"avg JCT (h)", true}, {"median", true},           {"p95", true},
      {"p99", true},         {"avg queueing (h)", true}, {"makespan (h)", true},
      {"util %", true},      {"cost $", true},           {"energy kWh", true},
      {"Jain", true},        {"max FTF", true},          {"cross-node TB", true},
  };
  return columns;
}

std::vector<std::string> ComparisonCells(const RunRecord& run, const Summary& s) {
  return {run.policy,
          run.placer,
          fmt::format("{}/{}", s.jobs_finished, s.jobs_total),
          Hours(s.jct_s.mean),
          Hours(s.jct_s.median),
          Hours(s.jct_s.p95),
          Hours(s.jct_s.p99),
          Hours(s.queueing_delay_s.mean),
          Hours(s.makespan_s),
          FormatFixed(100 * s.utilisation, 1),
          FormatFixed(s.cost_usd, 2),
          FormatFixed(s.energy_joules / kJoulesPerKwh, 1),
          FormatFixed(s.jain_fairness, 3),
          FormatFixed(s.ftf_max, 2),
          FormatFixed(s.cross_node_bytes / kBytesPerTb, 3)};
}

std::string ComparisonTable(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries) {
  const std::vector<ComparisonColumn>& columns = ComparisonColumns();
  std::vector<std::vector<std::string>> rows;
  const size_t n = std::min(runs.size(), summaries.size());
  for (size_t i = 0; i < n; ++i) rows.push_back(ComparisonCells(runs[i], summaries[i]));

  std::vector<size_t> width(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    width[c] = columns[c].header.size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) out += "  ";
      out += PadTo(cells[c], width[c], columns[c].numeric);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::vector<std::string> headers, rules;
  for (size_t c = 0; c < columns.size(); ++c) {
    headers.push_back(columns[c].header);
    rules.emplace_back(width[c], '-');
  }
  std::string out = line(headers) + line(rules);
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string ComparisonCsv(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries) {
  // Machine-readable: SI units like summary.json, more digits than the table.
  std::string out =
      "policy,placer,planner,trace,seed,jobs_finished,jobs_total,avg_jct_s,median_jct_s,p95_jct_s,"
      "p99_jct_s,avg_queueing_delay_s,makespan_s,utilisation,cost_usd,energy_joules,"
      "jain_fairness,ftf_max,ftf_mean,cross_node_bytes,deadline_misses,preemptions\n";
  const size_t n = std::min(runs.size(), summaries.size());
  for (size_t i = 0; i < n; ++i) {
    const RunRecord& r = runs[i];
    const Summary& s = summaries[i];
    fmt::format_to(
        std::back_inserter(out), "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
        CsvField(r.policy), CsvField(r.placer), CsvField(r.planner), CsvField(r.trace), r.seed,
        s.jobs_finished, s.jobs_total, FormatTrimmed(s.jct_s.mean, 3), FormatTrimmed(s.jct_s.median, 3),
        FormatTrimmed(s.jct_s.p95, 3), FormatTrimmed(s.jct_s.p99, 3),
        FormatTrimmed(s.queueing_delay_s.mean, 3), FormatTrimmed(s.makespan_s, 3),
        FormatTrimmed(s.utilisation, 6), FormatTrimmed(s.cost_usd, 4), FormatTrimmed(s.energy_joules, 1),
        FormatTrimmed(s.jain_fairness, 6), FormatTrimmed(s.ftf_max, 6), FormatTrimmed(s.ftf_mean, 6),
        FormatTrimmed(s.cross_node_bytes, 0), s.deadline_misses, s.preemptions);
  }
  return out;
}

}  // namespace hetsched
