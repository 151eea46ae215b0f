#include "hetsched/learn/model_file.h"

#include <gtest/gtest.h>

namespace hetsched::learn {
namespace {

TEST(ModelFileTest, RoundTripsExactly) {
  // 0.1 is not a binary fraction: the hex float keeps every bit (0x1.999999999999ap-4).
  const std::string text = EncodeModelFile("magic v1", {{"a", 3}, {"b", 0.1}}, std::string("w\0x", 3));
  EXPECT_EQ(text, std::string("magic v1\na 0x1.8p+1\nb 0x1.999999999999ap-4\nweights 3\nw\0x", 56));
  auto decoded = DecodeModelFile("f.bin", text, "magic v1", {"a", "b"});
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->values, (std::vector<double>{3, 0.1}));
  EXPECT_EQ(decoded->weights, std::string("w\0x", 3));
}

TEST(ModelFileTest, ErrorsNameFileLineAndField) {
  const std::string text = EncodeModelFile("magic v1", {{"a", 3}, {"b", 4}}, "xyz");
  auto wrong_magic = DecodeModelFile("f.bin", text, "other v1", {"a", "b"});
  ASSERT_FALSE(wrong_magic.ok());
  EXPECT_NE(wrong_magic.status().message().find("f.bin:1"), std::string::npos);
  auto wrong_key = DecodeModelFile("f.bin", text, "magic v1", {"b", "a"});
  ASSERT_FALSE(wrong_key.ok());
  EXPECT_NE(wrong_key.status().message().find("f.bin:2: expected field 'b'"), std::string::npos);
  auto not_number = DecodeModelFile("f.bin", "magic v1\na x\n", "magic v1", {"a"});
  ASSERT_FALSE(not_number.ok());
  EXPECT_NE(not_number.status().message().find("f.bin:2: field 'a': 'x'"), std::string::npos);
  auto truncated = DecodeModelFile("f.bin", text.substr(0, text.size() - 1), "magic v1", {"a", "b"});
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("'weights' says 3 bytes, the file holds 2"), std::string::npos);
}

}  // namespace
}  // namespace hetsched::learn
