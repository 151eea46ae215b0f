#include "hetsched/report/format.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace hetsched {

namespace {

// Appends the fixed-point text `s` without trailing zeros (and without a bare point), "-0" as "0".
void AppendTrimmedText(std::string_view s, std::string* out) {
  if (s.find('.') != std::string_view::npos) {
    while (s.back() == '0') s.remove_suffix(1);
    if (s.back() == '.') s.remove_suffix(1);
  }
  if (s == "-0") s = "0";
  out->append(s);
}

}  // namespace

void AppendTrimmed(double value, int decimals, std::string* out) {
  if (!std::isfinite(value)) return;
  // std::to_chars's fixed form is printf's "%.*f", correctly rounded, as is fmt's "{:.{}f}" (the
  // two agreed on 6.6 million values, exact ties included: docs/PERFORMANCE.md, "Session 27"), at
  // a fraction of the cost: the CSV writers format every number of every job and timeline row here.
  char buffer[400];  // the largest double has 309 integer digits
  const std::to_chars_result done =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  if (done.ec == std::errc()) {
    AppendTrimmedText(std::string_view(buffer, static_cast<size_t>(done.ptr - buffer)), out);
    return;
  }
  fmt::memory_buffer wide;  // more digits than the buffer holds
  fmt::format_to(std::back_inserter(wide), "{:.{}f}", value, decimals);
  AppendTrimmedText(std::string_view(wide.data(), wide.size()), out);
}

std::string FormatTrimmed(double value, int decimals) {
  std::string s;
  AppendTrimmed(value, decimals, &s);
  return s;
}

std::string FormatFixed(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  std::string s = fmt::format("{:.{}f}", value, decimals);
  // "-0.00" reads as a negative number that is not there.
  if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

void AppendCsvField(std::string_view text, std::string* out) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

std::string CsvField(std::string_view text) {
  std::string out;
  AppendCsvField(text, &out);
  return out;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

double RoundTo(double value, int decimals) {
  if (!std::isfinite(value)) return 0;
  const double scale = std::pow(10.0, decimals);
  const double r = std::round(value * scale) / scale;
  // Very large values would overflow the scaled product; they carry no fractional noise anyway.
  return std::isfinite(r) ? (r == 0 ? 0.0 : r) : value;
}

}  // namespace hetsched
