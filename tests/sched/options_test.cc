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
  EXPECT_EQ(o->Unused(), std::vector<std::string>{"thresold"});
  auto flag = Options::Parse({"x=maybe"});
  EXPECT_FALSE(flag->GetBool("x", false).ok());
}

}  // namespace
}  // namespace hetsched
