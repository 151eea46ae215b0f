#include "hetsched/report/format.h"

#include <gtest/gtest.h>

#include <cmath>

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
