// What the CLI tells the person at the terminal besides its results: errors (with the exit code
// each means) and progress.
#pragma once

#include <functional>
#include <string>

#include "hetsched/util/status.h"

namespace hetsched::cli {

// Exit codes (documented in README and `hetsched --help`).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;      // bad input file, infeasible workload, I/O failure
inline constexpr int kExitUsage = 2;      // bad command line (CLI11 also uses 2... see main.cc)
inline constexpr int kExitInternal = 3;   // an invariant broke: a bug, please report it

// Prints "hetsched: error: <message>" to stderr and returns kExitUsage (a bad command line that
// CLI11's own checks cannot see).
int ReportUsageError(const Status& status);

// ReportUsageError when `usage`, else ReportError.
int ReportFailure(const Status& status, bool usage);

// Prints "hetsched: error: <message>" to stderr and returns the exit code for `status`.
int ReportError(const Status& status);
void PrintErrorLine(const std::string& message);  // "hetsched: error: " + message
void PrintErrorText(const std::string& text);      // as it is (CLI11's parse errors)

// A progress line with the time left on stderr when it is a terminal (and not --quiet);
// otherwise nothing (util/progress.h). Called with (done, total) in `unit`s.
std::function<void(long long, long long)> MakeProgress(bool quiet, const std::string& label,
                                                       const std::string& unit = "jobs");

}  // namespace hetsched::cli
