// Small text helpers shared by the readers: splitting, trimming and strict number parsing that
// names the field when it fails.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched {

std::string_view Trim(std::string_view s);
// Splits on `sep`; no quoting rules (callers that need quoted CSV use SplitCsvLine).
std::vector<std::string_view> Split(std::string_view s, char sep);
// Splits one CSV line (RFC 4180 quotes: "a,b" and "" escapes). Returns an error on an
// unterminated quote.
Result<std::vector<std::string>> SplitCsvLine(std::string_view line);

// Strict parses: the whole field must be a number. `what` names the field in the error
// message, e.g. "trace.csv:12: field 'num_gpus'".
Result<double> ParseDouble(std::string_view s, std::string_view what);
Result<long long> ParseInt(std::string_view s, std::string_view what);

std::string ToLower(std::string_view s);

// Iterates over the lines of a buffer, yielding 1-based line numbers; strips a trailing '\r'.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool Next(std::string_view* line);
  int line_number() const { return line_no_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int line_no_ = 0;
};

}  // namespace hetsched
