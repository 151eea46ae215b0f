#include "hetsched/report/format.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

namespace hetsched {
namespace {

TEST(FormatTrimmed, DropsTrailingZeros) {
  EXPECT_EQ(FormatTrimmed(2.5, 3), "2.5");
  EXPECT_EQ(FormatTrimmed(3.0, 3), "3");
  EXPECT_EQ(FormatTrimmed(100.0, 0), "100");  // no '.' to trim: zeros of the integer stay
  EXPECT_EQ(FormatTrimmed(0.1234567, 4), "0.1235");
  EXPECT_EQ(FormatTrimmed(-0.0001, 3), "0");  // -0.000 -> "0"
  EXPECT_EQ(FormatTrimmed(-1.25, 2), "-1.25");
  EXPECT_EQ(FormatTrimmed(NAN, 3), "");
}

// FormatTrimmed formats with std::to_chars; its files were written with fmt's "{:.{}f}" before:
// the two must agree digit for digit, exact binary ties (rounded to even, as printf) included.
std::string TrimmedByFmt(double value, int decimals) {
  std::string s = fmt::format("{:.{}f}", value, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

TEST(FormatTrimmed, AgreesWithFmtFixed) {
  EXPECT_EQ(FormatTrimmed(0.125, 2), "0.12");  // an exact tie: to even
  EXPECT_EQ(FormatTrimmed(0.375, 2), "0.38");
  EXPECT_EQ(FormatTrimmed(2.5, 0), "2");
  EXPECT_EQ(FormatTrimmed(-3.5, 0), "-4");
  EXPECT_EQ(FormatTrimmed(1.005, 2), "1");  // 1.00499999999999989...
  EXPECT_EQ(FormatTrimmed(1.7976931348623157e308, 2), TrimmedByFmt(1.7976931348623157e308, 2));
  EXPECT_EQ(FormatTrimmed(-1e300, 6), TrimmedByFmt(-1e300, 6));
  EXPECT_EQ(FormatTrimmed(5e-324, 3), "0");
  EXPECT_EQ(FormatTrimmed(1e300, 200), TrimmedByFmt(1e300, 200));  // wider than to_chars' buffer
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const int decimals = static_cast<int>(rng() % 10);
    uint64_t bits = rng();
    double any;
    std::memcpy(&any, &bits, sizeof any);
    const double typical = std::ldexp(static_cast<double>(rng() >> 11), -static_cast<int>(rng() % 64)) * (i % 2 ? 1 : -1);
    const double tie = (static_cast<double>(rng() % 100000) + 0.5) / static_cast<double>(1u << (rng() % 4));
    for (double v : {any, typical, tie}) {
      if (!std::isfinite(v)) continue;
      ASSERT_EQ(FormatTrimmed(v, decimals), TrimmedByFmt(v, decimals)) << v << " to " << decimals;
    }
  }
}

TEST(FormatFixed, KeepsDigits) {
  EXPECT_EQ(FormatFixed(12.5, 2), "12.50");
  EXPECT_EQ(FormatFixed(-0.001, 2), "0.00");
  EXPECT_EQ(FormatFixed(-0.5, 1), "-0.5");
  EXPECT_EQ(FormatFixed(INFINITY, 2), "-");
}

TEST(CsvField, QuotesPerRfc4180) {
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField(""), "");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvField("cr\r"), "\"cr\r\"");
}

TEST(XmlEscape, EscapesMarkup) {
  EXPECT_EQ(XmlEscape("a<b & c>\"d\"'"), "a&lt;b &amp; c&gt;&quot;d&quot;&#39;");
}

TEST(RoundTo, RoundsAndSanitises) {
  EXPECT_DOUBLE_EQ(RoundTo(1.0 / 3, 3), 0.333);
  EXPECT_DOUBLE_EQ(RoundTo(2.5, 0), 3);
  EXPECT_DOUBLE_EQ(RoundTo(NAN, 3), 0);
  EXPECT_DOUBLE_EQ(RoundTo(1e300, 6), 1e300);  // scaled product overflows: value kept
  EXPECT_FALSE(std::signbit(RoundTo(-1e-9, 3)));
}

}  // namespace
}  // namespace hetsched
