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
  // Types 0..4 are GPUs, type 5 is a CPU node.
  DeviceCatalog catalog;
  for (int i = 0; i < 6; ++i) {
    DeviceType t;
    t.name = "t" + std::to_string(i);
    t.is_cpu = i == 5;
    catalog.Add(t);
  }
  JobSpec any;
  EXPECT_TRUE(any.AllowsType(0, catalog));
  EXPECT_TRUE(any.AllowsType(4, catalog));
  EXPECT_FALSE(any.AllowsType(5, catalog));  // no CPU node unless asked for
  EXPECT_FALSE(any.AllowsType(kNoDeviceType, catalog));
  EXPECT_FALSE(any.AllowsType(6, catalog));  // not in the catalog
  JobSpec some;
  some.allowed_types = {1, 3, 5};
  EXPECT_FALSE(some.AllowsType(0, catalog));
  EXPECT_TRUE(some.AllowsType(1, catalog));
  EXPECT_TRUE(some.AllowsType(3, catalog));
  EXPECT_TRUE(some.AllowsType(5, catalog));  // asked for explicitly
  EXPECT_FALSE(some.AllowsType(kNoDeviceType, catalog));
}

}  // namespace
}  // namespace hetsched
