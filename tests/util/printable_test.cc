#include "hetsched/util/printable.h"

#include <gtest/gtest.h>

#include <string>

#include "hetsched/util/text.h"

namespace hetsched {
namespace {

using namespace std::string_literals;

TEST(PrintableTest, KeepsPrintableAsciiAndUtf8) {
  EXPECT_EQ(Printable("resnet50 (batch 64)"), "resnet50 (batch 64)");
  EXPECT_EQ(Printable("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac"), "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac");  // café 日本
  EXPECT_EQ(Printable("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");                                       // U+1F600
}

TEST(PrintableTest, EscapesControlBytes) {
  // A terminal escape that would clear the screen, a carriage return that would overwrite the
  // line, NUL, tab, newline and DEL: each one byte, each \xNN.
  EXPECT_EQ(Printable("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(Printable("ok\rEVIL"), "ok\\x0dEVIL");
  EXPECT_EQ(Printable("a\0b"s), "a\\x00b");
  EXPECT_EQ(Printable("\t\n\x7f"), "\\x09\\x0a\\x7f");
}

TEST(PrintableTest, EscapesBinaryAndInvalidUtf8) {
  EXPECT_EQ(Printable("\xff\xfe"), "\\xff\\xfe");            // not UTF-8 lead bytes
  EXPECT_EQ(Printable("\xc3"), "\\xc3");                    // truncated sequence
  EXPECT_EQ(Printable("\xc3(x"), "\\xc3(x");                // bad continuation
  EXPECT_EQ(Printable("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(Printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a UTF-16 surrogate
  EXPECT_EQ(Printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
}

TEST(PrintableTest, EscapesC1ControlsAndBidiOverrides) {
  EXPECT_EQ(Printable("\xc2\x9b" "2J"), "\\xc2\\x9b2J");          // U+009B, the 8-bit CSI
  EXPECT_EQ(Printable("a\xe2\x80\xae" "b"), "a\\xe2\\x80\\xaeb");    // U+202E right-to-left override
  EXPECT_EQ(Printable("a\xe2\x80\x8b" "b"), "a\\xe2\\x80\\x8bb"); // U+200B zero-width space
  EXPECT_EQ(Printable("\xef\xbb\xbfx"), "\\xef\\xbb\\xbfx");     // U+FEFF byte-order mark
}

TEST(PrintableTest, CutsAfterMaxBytesOnACharacterBoundary) {
  EXPECT_EQ(Printable(std::string(100, 'x'), 10), "xxxxxxxxxx...");
  EXPECT_EQ(Printable("0123456789", 10), "0123456789");
  // "é" is two bytes: 9 ASCII bytes + é would be 11 > 10, so the cut falls before it.
  EXPECT_EQ(Printable("123456789\xc3\xa9", 10), "123456789...");
  // Escaping does not count against the budget twice: 4 input bytes, 16 output bytes.
  EXPECT_EQ(Printable("\x01\x02\x03\x04", 4), "\\x01\\x02\\x03\\x04");
}

TEST(QuotedTest, QuotesAndSaysHowLongACutTextWas) {
  EXPECT_EQ(Quoted("v100"), "'v100'");
  EXPECT_EQ(Quoted(""), "''");
  EXPECT_EQ(Quoted(std::string(200, 'a'), 3), "'aaa...' (200 bytes)");
  EXPECT_EQ(Quoted(std::string(kMaxQuotedBytes + 1, 'b')), "'" + std::string(kMaxQuotedBytes, 'b') + "...' (65 bytes)");
}

TEST(ParseNumberTest, QuotesTheBadTextSafely) {
  auto d = ParseDouble("1\x1b[31m", "trace.csv:3: field 'x'");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(), "trace.csv:3: field 'x': expected a number, got '1\\x1b[31m'");
  auto i = ParseInt(std::string(1000, '9') + "\x07", "f");
  ASSERT_FALSE(i.ok());
  EXPECT_EQ(i.status().message(), "f: expected an integer, got '" + std::string(64, '9') + "...' (1001 bytes)");
}

}  // namespace
}  // namespace hetsched
