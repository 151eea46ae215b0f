#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

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

const std::string kPairHeader = "gpu_type,job_type,other_job_type,scale_factor,steps_per_second,other_steps_per_second\n";

TEST(GavelPairThroughputsTest, PairsAreReadEitherWayRoundAndNamedInErrors) {
  const DeviceCatalog devices = DeviceCatalog::BuiltIn();
  auto singles = ParseGavelThroughputs(kHeader + "v100,yes,A3C,1,4\nv100,yes,CycleGAN,1,2\n", "t.csv");
  ASSERT_TRUE(singles.ok());
  auto table = MeasuredThroughputs::FromRows(*singles, devices, "t.csv");
  ASSERT_TRUE(table.ok());
  auto pairs = ParseGavelPairThroughputs(kPairHeader + "V100,CycleGAN,A3C,1,1.5,3\n", "p.csv");
  ASSERT_TRUE(pairs.ok()) << pairs.status().ToString();
  ASSERT_TRUE(table->AddPairs(*pairs, devices, "p.csv").ok());
  const DeviceTypeId v100 = devices.Find("v100");
  const int a3c = table->JobTypeIndex("A3C"), gan = table->JobTypeIndex("CycleGAN");
  ASSERT_TRUE(table->has_pairs());
  auto ab = table->PairStepsPerSecond(a3c, gan, v100, 1);
  ASSERT_TRUE(ab.has_value());
  EXPECT_DOUBLE_EQ(ab->first, 3);  // A3C's, asked first
  EXPECT_DOUBLE_EQ(ab->second, 1.5);
  EXPECT_DOUBLE_EQ(table->PairStepsPerSecond(gan, a3c, v100, 1)->first, 1.5);
  EXPECT_FALSE(table->PairStepsPerSecond(a3c, gan, v100, 2).has_value());

  // A job type the table of singles lacks; bad fields; a bad header.
  auto unknown = ParseGavelPairThroughputs(kPairHeader + "v100,A3C,LM (batch size 5),1,1,1\n", "p.csv");
  ASSERT_TRUE(unknown.ok());
  const Status st = table->AddPairs(*unknown, devices, "p.csv");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("p.csv:2: field 'other_job_type'"), std::string::npos) << st.message();
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {kPairHeader + "v100,A3C,A3C,1,-1,1\n", "p.csv:2: field 'steps_per_second'"},
           {kPairHeader + "v100,A3C,A3C,0,1,1\n", "p.csv:2: field 'scale_factor'"},
           {kPairHeader + "v100,,A3C,1,1,1\n", "p.csv:2: field 'job_type' is empty"},
           {kPairHeader + "v100,A3C,A3C,1,1\n", "p.csv:2: expected 6 fields"},
           {kHeader, "p.csv:1: expected the header"}}) {
    auto bad = ParseGavelPairThroughputs(text, "p.csv");
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_NE(bad.status().message().find(needle), std::string::npos) << bad.status().message();
  }
}

TEST(GavelPairThroughputsTest, TheBuiltInTableHasEveryPairOfSingleGpuJobTypes) {
  const DeviceCatalog devices = DeviceCatalog::BuiltIn();
  auto table = MeasuredThroughputs::Load("data/real/gavel/throughputs.csv", devices);
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE(table->LoadPairs("data/real/gavel/pair_throughputs.csv", devices).ok());
  // 26 job types, every unordered pair (self-pairs included) on each of the three types.
  ASSERT_EQ(table->num_job_types(), 26u);
  int found = 0;
  for (const char* gpu : {"k80", "p100", "v100"}) {
    for (int a = 0; a < 26; ++a) {
      for (int b = a; b < 26; ++b) found += table->PairStepsPerSecond(a, b, devices.Find(gpu), 1).has_value() ? 1 : 0;
    }
  }
  EXPECT_EQ(found, 3 * 26 * 27 / 2);
  // Gavel's own figure (simulation_throughputs.json, v100): ResNet-18 at batch 16 beside batch 64.
  auto pair = table->PairStepsPerSecond(table->JobTypeIndex("ResNet-18 (batch size 16)"),
                                        table->JobTypeIndex("ResNet-18 (batch size 64)"), devices.Find("v100"), 1);
  ASSERT_TRUE(pair.has_value());
  EXPECT_NEAR(pair->first, 32.353384328946916, 1e-12);
  EXPECT_NEAR(pair->second, 24.093231895382736, 1e-12);
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
