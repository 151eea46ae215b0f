// Text formatting shared by the report writers. Every number goes through fmt with a fixed
// precision (never the locale, never iostream state), so identical inputs give byte-identical
// files.
#pragma once

#include <string>
#include <string_view>

namespace hetsched {

// Fixed-point with `decimals` digits, trailing zeros (and a bare '.') removed: 2.500 -> "2.5",
// 3.000 -> "3", -0.000 -> "0". Non-finite values print as "" (an empty CSV field).
std::string FormatTrimmed(double value, int decimals);
// The same text appended to `out` (no string of its own: the CSV writers call it per field).
void AppendTrimmed(double value, int decimals, std::string* out);

// Fixed-point with exactly `decimals` digits ("12.50"); non-finite values print as "-".
std::string FormatFixed(double value, int decimals);

// One CSV field per RFC 4180: quoted when it holds a comma, a double quote, CR or LF, with
// inner quotes doubled ("a,""b""").
std::string CsvField(std::string_view text);
void AppendCsvField(std::string_view text, std::string* out);

// Escapes & < > " ' for XML/HTML text and attribute values.
std::string XmlEscape(std::string_view text);

// Rounds to `decimals` decimal places (half away from zero); non-finite values become 0. Used
// for JSON numbers so that float noise does not reach the files.
double RoundTo(double value, int decimals);

}  // namespace hetsched
