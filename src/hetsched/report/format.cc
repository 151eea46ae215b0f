#include "hetsched/report/format.h"

#include <fmt/format.h>

#include <cmath>

namespace hetsched {

void AppendTrimmed(double value, int decimals, std::string* out) {
  if (!std::isfinite(value)) return;
  fmt::memory_buffer buffer;  // 500 bytes inline: allocates only for a longer number
  fmt::format_to(std::back_inserter(buffer), "{:.{}f}", value, decimals);
  std::string_view s(buffer.data(), buffer.size());
  if (s.find('.') != std::string_view::npos) {
    while (s.back() == '0') s.remove_suffix(1);
    if (s.back() == '.') s.remove_suffix(1);
  }
  if (s == "-0") s = "0";
  out->append(s);
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
