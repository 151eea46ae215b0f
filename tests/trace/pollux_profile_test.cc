// The readers of Pollux's and Sia's per-model profiles (trace/pollux_profile.h): a hand-made model
// in their layout (tests/data/pollux/toy/), Sia's per-type suffix, and bad values named by file,
// line and field.
#include "hetsched/trace/pollux_profile.h"

#include <gtest/gtest.h>

#include <string>

namespace hetsched {
namespace {

const std::string kDir = std::string(HETSCHED_TEST_DATA_DIR) + "/pollux";

TEST(PolluxProfileTest, ReadsAModelsProfileAndItsValidationCurves) {
  auto p = LoadPolluxModelProfile(kDir, "toy");
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->placements.size(), 4u);
  EXPECT_EQ(p->placements[2].placement, "22");
  EXPECT_EQ(p->placements[2].nodes(), 2);
  EXPECT_EQ(p->placements[2].replicas(), 4);
  EXPECT_EQ(p->placements[3].local_bsz, 64);
  EXPECT_DOUBLE_EQ(p->placements[3].step_time_s, 0.12);
  EXPECT_DOUBLE_EQ(p->placements[3].sync_time_s, 0.03);
  ASSERT_EQ(p->scalability.size(), 2u);
  EXPECT_EQ(p->scalability[1].num_nodes, 4);
  EXPECT_EQ(p->scalability[1].num_replicas, 16);
  ASSERT_EQ(p->validation.size(), 2u);
  EXPECT_DOUBLE_EQ(p->validation.at(128)[1].grad_sqr, 1.9);
  // Columns in another order are read by name.
  EXPECT_EQ(p->validation.at(512)[0].iteration, 50);
  EXPECT_DOUBLE_EQ(p->validation.at(512)[0].grad_var, 20.0);
}

TEST(PolluxProfileTest, SiasPerTypeFilesAndAnEmptyTable) {
  auto p = LoadPolluxModelProfile(kDir, "toy", "a100");
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->placements.size(), 1u);
  EXPECT_EQ(p->placements[0].replicas(), 4);
  EXPECT_TRUE(p->scalability.empty());  // a header and no row
  EXPECT_EQ(p->validation.size(), 2u);  // the type-independent curves
  auto missing = LoadPolluxModelProfile(kDir, "toy", "t4");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("placements-t4.csv"), std::string::npos) << missing.status().message();
}

TEST(PolluxProfileTest, BadValuesNameTheFileLineAndField) {
  const std::string header = "placement,local_bsz,step_time,sync_time\n";
  auto bad_placement = ParsePolluxPlacements(header + "1,32,0.05,0.0005\n40,32,0.05,0.001\n", "p.csv");
  ASSERT_FALSE(bad_placement.ok());
  EXPECT_EQ(bad_placement.status().message().rfind("p.csv:3: field 'placement'", 0), 0u)
      << bad_placement.status().message();
  auto bad_time = ParsePolluxPlacements(header + "1,32,0,0.0005\n", "p.csv");
  ASSERT_FALSE(bad_time.ok());
  EXPECT_EQ(bad_time.status().message().rfind("p.csv:2: field 'step_time'", 0), 0u) << bad_time.status().message();
  auto short_row = ParsePolluxPlacements(header + "1,32,0.05\n", "p.csv");
  ASSERT_FALSE(short_row.ok());
  EXPECT_NE(short_row.status().message().find("wrong field count"), std::string::npos);
  auto missing_column = ParsePolluxScalability("num_nodes,local_bsz,step_time,sync_time\n", "s.csv");
  ASSERT_FALSE(missing_column.ok());
  EXPECT_NE(missing_column.status().message().find("num_replicas"), std::string::npos)
      << missing_column.status().message();
  auto fewer_replicas = ParsePolluxScalability("num_nodes,num_replicas,local_bsz,step_time,sync_time\n4,2,8,1,0\n",
                                               "s.csv");
  ASSERT_FALSE(fewer_replicas.ok());
  EXPECT_NE(fewer_replicas.status().message().find("num_replicas"), std::string::npos);
  auto backwards = ParsePolluxValidation(
      "progress,iteration,metric,grad_sqr,grad_var\n100,99,0.4,1,1\n90,120,0.5,1,1\n", "v.csv");
  ASSERT_FALSE(backwards.ok());
  EXPECT_EQ(backwards.status().message().rfind("v.csv:3: field 'progress'", 0), 0u) << backwards.status().message();
  EXPECT_FALSE(ParsePolluxValidation("", "v.csv").ok());  // no header
}

}  // namespace
}  // namespace hetsched
