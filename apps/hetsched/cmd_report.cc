// `hetsched report DIR...`: rebuilds the HTML report from run outputs already on disk (a run
// directory of simulate, compare, sweep or agent, or the output directory of compare or sweep),
// without simulating anything again.
#include <fmt/core.h>

#include "cli_common.h"
#include "commands.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/report/html_report.h"
#include "hetsched/report/run_dirs.h"
#include "hetsched/util/file_io.h"

namespace hetsched::cli {

namespace {
struct ReportArgs {
  std::vector<std::string> dirs;
  std::string out;  // default: DIR/report.html for one directory, else hetsched-out/report.html
};

int RunReport(const ReportArgs& a) {
  auto read = ReadRunDirs(a.dirs);
  if (!read.ok()) return ReportError(read.status());
  std::vector<RunRecord> runs;
  std::vector<Summary> summaries;
  for (RunDir& d : *read) {
    summaries.push_back(Summarize(d.run));
    runs.push_back(std::move(d.run));
  }
  const std::string out = !a.out.empty() ? a.out : a.dirs.size() == 1 ? a.dirs[0] + "/report.html" : "hetsched-out/report.html";
  if (const size_t slash = out.rfind('/'); slash != std::string::npos && slash > 0) {
    if (Status st = MakeDirs(out.substr(0, slash)); !st.ok()) return ReportError(st);
  }
  if (Status st = WriteFileAtomic(out, ComparisonHtml(runs, summaries)); !st.ok()) return ReportError(st);
  fmt::print("report  : {} run(s) from {} director{} -> {}\n", runs.size(), a.dirs.size(),
             a.dirs.size() == 1 ? "y" : "ies", out);
  return kExitOk;
}
}  // namespace

void AddReportCommand(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("report", "Rebuild the HTML report from run outputs (simulate, compare, sweep, agent)");
  auto a = std::make_shared<ReportArgs>();
  cmd->add_option("dirs", a->dirs,
                  "Run directories (holding run.json) or output directories of compare/sweep (their run subdirectories)")
      ->required();
  cmd->add_option("-o,--out", a->out, "HTML file to write (default DIR/report.html for one DIR, else hetsched-out/report.html)");
  cmd->callback([a, action] { *action = [a] { return RunReport(*a); }; });
}

}  // namespace hetsched::cli
