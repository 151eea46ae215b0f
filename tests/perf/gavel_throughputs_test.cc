#include <gtest/gtest.h>

#include <set>
#include <string>

#include "hetsched/perf/validation.h"

namespace hetsched {
namespace {

const std::string kHeader = "gpu_type,consolidated,job_type,scale_factor,steps_per_second\n";

TEST(ParseGavelThroughputsTest, ReadsRows) {
  const std::string csv = kHeader +
                          "k80,no,A3C,1,3.5\n"
                          "\n"
                          "V100,yes,ResNet-50 (batch size 32),8,24.25\r\n";
  auto rows = ParseGavelThroughputs(csv, "t.csv");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].gpu_type, "k80");
  EXPECT_FALSE((*rows)[0].consolidated);
  EXPECT_EQ((*rows)[0].job_type, "A3C");
  EXPECT_EQ((*rows)[0].scale_factor, 1);
  EXPECT_DOUBLE_EQ((*rows)[0].steps_per_second, 3.5);
  EXPECT_EQ((*rows)[0].line, 2);
  EXPECT_EQ((*rows)[1].gpu_type, "v100");  // lower-cased
  EXPECT_TRUE((*rows)[1].consolidated);
  EXPECT_EQ((*rows)[1].scale_factor, 8);
  EXPECT_EQ((*rows)[1].line, 4);
}

struct BadCase {
  std::string text;
  std::string expected_in_message;
};

TEST(ParseGavelThroughputsTest, RejectsBadInput) {
  const BadCase cases[] = {
      {"", "t.csv: empty file"},
      {"gpu,consolidated,job,scale,steps\n", "t.csv:1: expected the header"},
      {kHeader + "k80,no,A3C,1\n", "t.csv:2: expected 5 fields, got 4"},
      {kHeader + "k80,maybe,A3C,1,2.0\n", "t.csv:2: field 'consolidated' must be 'yes' or 'no'"},
      {kHeader + "k80,no,A3C,two,2.0\n", "t.csv:2: field 'scale_factor'"},
      {kHeader + "k80,no,A3C,0,2.0\n", "t.csv:2: field 'scale_factor' must be in 1..1024"},
      {kHeader + "k80,no,A3C,1,fast\n", "t.csv:2: field 'steps_per_second'"},
      {kHeader + "k80,no,A3C,1,-1\n", "t.csv:2: field 'steps_per_second' must be >= 0"},
      {kHeader + ",no,A3C,1,1\n", "t.csv:2: field 'gpu_type' is empty"},
      {kHeader + "k80,no,,1,1\n", "t.csv:2: field 'job_type' is empty"},
      {kHeader + "k80,no,\"A3C,1,1\n", "t.csv:2"},
  };
  for (const BadCase& c : cases) {
    auto rows = ParseGavelThroughputs(c.text, "t.csv");
    ASSERT_FALSE(rows.ok()) << c.text;
    EXPECT_NE(rows.status().message().find(c.expected_in_message), std::string::npos)
        << rows.status().message() << " (expected: " << c.expected_in_message << ")";
  }
}

TEST(GavelJobMappingsTest, SevenDistinctJobTypes) {
  std::set<std::string_view> types;
  for (const GavelJobMapping& m : GavelJobMappings()) {
    types.insert(m.job_type);
    EXPECT_FALSE(m.zoo_model.empty());
  }
  EXPECT_EQ(types.size(), 7u);
}

}  // namespace
}  // namespace hetsched
