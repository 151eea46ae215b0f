#include "hetsched/model/json_fields.h"

#include <gtest/gtest.h>

#include "hetsched/model/device.h"

namespace hetsched::model_internal {
namespace {

TEST(JsonFieldsTest, SyntaxErrorNamesLineAndColumn) {
  // The stray comma sits on line 3, column 8.
  auto r = ParseJsonText("{\n  \"a\": 1,\n  \"b\": ,\n}", "f.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kParseError);
  EXPECT_NE(r.status().message().find("f.json:3:8:"), std::string::npos) << r.status().message();
}

TEST(JsonFieldsTest, NumberBeyondDoubleIsAnErrorNotAnException) {
  // Found by fuzz_model_profile in CI: nlohmann throws out_of_range (406), not parse_error.
  auto r = ParseJsonText("{\"a\": 1e61200}", "f.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kParseError);
  EXPECT_NE(r.status().message().find("f.json: invalid JSON:"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("number overflow"), std::string::npos);
}

TEST(JsonFieldsTest, NumberRules) {
  const nlohmann::json obj = nlohmann::json::parse(R"({"zero": 0, "neg": -1, "half": 0.5, "s": "x"})");
  JsonFields f(obj, "w");
  EXPECT_FALSE(f.Number("zero", NumberRule::kPositive).ok());
  EXPECT_TRUE(f.Number("zero", NumberRule::kNonNegative).ok());
  EXPECT_FALSE(f.Number("neg", NumberRule::kNonNegative).ok());
  EXPECT_DOUBLE_EQ(*f.Number("half", NumberRule::kFraction), 0.5);
  EXPECT_DOUBLE_EQ(*f.Number("absent", NumberRule::kPositive, 7.0), 7.0);
  auto s = f.Number("s", NumberRule::kPositive);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "w: field 's' must be a number");
}

TEST(JsonFieldsDeathTest, BrokenBuiltInFileAborts) {
  EXPECT_DEATH(ValueOrDie(DeviceCatalog::FromJson("{", "data/devices.json"), "device catalog"),
               "built-in device catalog is invalid: data/devices.json:1:");
  EXPECT_DEATH(EmbeddedOrDie("data/no-such-file.json"), "no-such-file.json is missing");
}

TEST(JsonFieldsTest, EmbeddedCatalogsArePresent) {
  EXPECT_FALSE(EmbeddedOrDie("data/devices.json").empty());
  EXPECT_FALSE(EmbeddedOrDie("data/links.json").empty());
  EXPECT_FALSE(EmbeddedOrDie("data/default_cluster.yaml").empty());
}

}  // namespace
}  // namespace hetsched::model_internal
