#include "cli_report.h"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <fmt/core.h>

#include "hetsched/util/progress.h"

namespace hetsched::cli {

void PrintErrorLine(const std::string& message) { fmt::print(stderr, "hetsched: error: {}\n", message); }

void PrintErrorText(const std::string& text) { std::fputs((text + "\n").c_str(), stderr); }

int ReportUsageError(const Status& status) {
  PrintErrorLine(status.message());
  return kExitUsage;
}

int ReportFailure(const Status& status, bool usage) { return usage ? ReportUsageError(status) : ReportError(status); }

int ReportError(const Status& status) {
  PrintErrorLine(status.message());
  return status.code() == StatusCode::kInternal ? kExitInternal : kExitError;
}

std::function<void(long long, long long)> MakeProgress(bool quiet, const std::string& label, const std::string& unit) {
  if (quiet || !StderrIsTerminal()) return nullptr;
  auto line = std::make_shared<ProgressLine>(label, unit);
  return [line](long long done, long long total) { line->Update(done, total); };
}


}  // namespace hetsched::cli
