#include "hetsched/model/job.h"

#include <gtest/gtest.h>

namespace hetsched {
namespace {

TEST(ParallelismTest, NamesRoundTrip) {
  for (Parallelism p : {Parallelism::kSingle, Parallelism::kDataRing, Parallelism::kDataPS,
                        Parallelism::kPipeline}) {
    auto parsed = ParseParallelism(ParallelismName(p));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, p);
  }
  EXPECT_EQ(ParallelismName(Parallelism::kDataPS), "ps");
}

TEST(ParallelismTest, ParseIsCaseInsensitiveAndStrict) {
  EXPECT_EQ(ParseParallelism("RING"), Parallelism::kDataRing);
  EXPECT_EQ(ParseParallelism(" Pipeline "), Parallelism::kPipeline);
  EXPECT_FALSE(ParseParallelism("").has_value());
  EXPECT_FALSE(ParseParallelism("allreduce").has_value());
  EXPECT_FALSE(ParseParallelism("rings").has_value());
}

TEST(JobSpecTest, AllowsType) {
  JobSpec any;
  EXPECT_TRUE(any.AllowsType(0));
  EXPECT_TRUE(any.AllowsType(5));
  EXPECT_FALSE(any.AllowsType(kNoDeviceType));
  JobSpec some;
  some.allowed_types = {1, 3};
  EXPECT_FALSE(some.AllowsType(0));
  EXPECT_TRUE(some.AllowsType(1));
  EXPECT_TRUE(some.AllowsType(3));
  EXPECT_FALSE(some.AllowsType(kNoDeviceType));
}

}  // namespace
}  // namespace hetsched
