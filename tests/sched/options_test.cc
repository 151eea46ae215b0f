#include "hetsched/sched/options.h"

#include <gtest/gtest.h>

namespace hetsched {
namespace {

TEST(OptionsTest, ParsesAndTypes) {
  auto o = Options::Parse({"threshold=3600", "backfill = easy", "preempt=yes"});
  ASSERT_TRUE(o.ok());
  EXPECT_DOUBLE_EQ(*o->GetDouble("threshold", 0), 3600);
  EXPECT_EQ(o->GetString("backfill", "none"), "easy");
  EXPECT_TRUE(*o->GetBool("preempt", false));
  EXPECT_EQ(*o->GetInt("depth", 100), 100);  // default when absent
  EXPECT_TRUE(o->Unused().empty());
}

TEST(OptionsTest, ReportsBadItemsAndUnusedKeys) {
  EXPECT_FALSE(Options::Parse({"novalue"}).ok());
  EXPECT_FALSE(Options::Parse({"=3"}).ok());
  auto o = Options::Parse({"thresold=5", "depth=ten"});
  ASSERT_TRUE(o.ok());
  auto depth = o->GetInt("depth", 1);
  ASSERT_FALSE(depth.ok());
  EXPECT_NE(depth.status().message().find("option 'depth'"), std::string::npos);
  // A value the method cannot read is a wrong option (the CLI's exit 2), not a bad file.
  EXPECT_EQ(depth.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(o->GetDouble("depth", 1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(o->Unused(), std::vector<std::string>{"thresold"});
  auto flag = Options::Parse({"x=maybe"});
  EXPECT_FALSE(flag->GetBool("x", false).ok());
}

TEST(OptionsTest, DefaultsNeverCountAsUnusedAndNeverOverride) {
  auto o = Options::Parse({"seed=7"});
  ASSERT_TRUE(o.ok());
  o->SetDefault("seed", "1");      // the user's value wins
  o->SetDefault("offered", "x");   // offered but not read: not an error
  EXPECT_EQ(*o->GetInt("seed", 0), 7);
  EXPECT_TRUE(o->Unused().empty());
  Options plain;
  plain.SetDefault("seed", "3");
  EXPECT_EQ(*plain.GetInt("seed", 1), 3);
}

}  // namespace
}  // namespace hetsched
