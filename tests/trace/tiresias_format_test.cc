// Tiresias job CSVs: the family mapping, bad rows, and the real 60_job.csv.
#include <gtest/gtest.h>

#include "trace_test_util.h"

namespace hetsched {
namespace {

using trace_test::Parse;
using trace_test::Skip;

constexpr const char* kTiresiasHeader = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n";

TEST(TiresiasFormatTest, ReadsRowsAndMapsFamilies) {
  const std::string text = std::string(kTiresiasHeader) +
                           "0,1,0,606,vgg19,164,30\n"
                           "1,8,30,133,inception4,147,23\n"
                           "2,2,53,157,resnet152,127,26\n"
                           "3,4,60,10,alexnet,5,1\n"
                           "4,1,61,11,googlenet,6,1\n"
                           "5,1,62,12,bert-base,7,1\n";
  auto w = Parse(text, "tiresias");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 6u);
  const JobSpec& a = w->jobs[0].spec;
  EXPECT_EQ(a.name, "0");
  EXPECT_EQ(a.model, "vgg16");
  EXPECT_EQ(a.num_gpus, 1);
  EXPECT_EQ(a.iterations, 606);
  EXPECT_EQ(w->jobs[0].truth.total_iterations, 606.0);
  EXPECT_DOUBLE_EQ(w->jobs[0].truth.reference_runtime_s, 164);
  // The duration is the truth, measured on the reference device (the default, v100).
  EXPECT_DOUBLE_EQ(w->jobs[0].truth.runtime_s, 164);
  EXPECT_DOUBLE_EQ(w->jobs[1].truth.runtime_s, 147);
  EXPECT_EQ(w->runtime_device, "v100");
  EXPECT_EQ(a.batch_size, 0);
  EXPECT_EQ(w->jobs[1].spec.model, "inception-v3");
  EXPECT_EQ(w->jobs[1].spec.num_gpus, 8);
  EXPECT_DOUBLE_EQ(w->jobs[1].spec.submit_time_s, 30);
  EXPECT_EQ(w->jobs[2].spec.model, "resnet50");
  EXPECT_EQ(w->jobs[3].spec.model, "vgg16");         // alexnet -> vgg16
  EXPECT_EQ(w->jobs[4].spec.model, "inception-v3");  // googlenet -> inception-v3
  EXPECT_EQ(w->jobs[5].spec.model, "bert-base");     // a zoo name is taken as is
}

TEST(TiresiasFormatTest, BadRowsNameLineAndField) {
  struct Case {
    const char* row;
    const char* expected;
  } cases[] = {
      {"0,0,0,10,vgg16,5,1", "t.csv:2: field 'num_gpu': GPU count must be >= 1, got 0"},
      {"0,-1,0,10,vgg16,5,1", "t.csv:2: field 'num_gpu': GPU count must be >= 1, got -1 (negative)"},
      {"0,1,x,10,vgg16,5,1", "t.csv:2: field 'submit_time': expected a number, got 'x'"},
      {"0,1,0,-10,vgg16,5,1", "t.csv:2: field 'iterations': must be >= 1 iteration, got -10"},
      {"0,1,0,10,lenet5,5,1", "t.csv:2: field 'model_name': unknown model 'lenet5'"},
      {"0,1,0,10,vgg16,-5,1", "t.csv:2: field 'duration': must be >= 0 seconds"},
      {"0,1,0,10,vgg16,5", "t.csv:2: wrong field count: expected 7 comma-separated fields (as in the header), got 6"},
  };
  for (const auto& c : cases) {
    auto w = Parse(std::string(kTiresiasHeader) + c.row + "\n", "tiresias");
    ASSERT_FALSE(w.ok()) << c.row;
    EXPECT_NE(w.status().message().find(c.expected), std::string::npos)
        << c.row << "\nmessage: " << w.status().message();
    auto s = Parse(std::string(kTiresiasHeader) + c.row + "\n1,1,0,10,vgg16,5,1\n", "tiresias", Skip());
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->jobs.size(), 1u);
    EXPECT_EQ(s->rows_skipped, 1);
    EXPECT_EQ(s->rows_read, 2);
  }
}

TEST(TiresiasFormatTest, EmptyFileAndMissingHeader) {
  auto e = Parse("", "tiresias");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("t.csv: empty file"), std::string::npos);
  auto h = Parse("0,1,0,606,vgg19,164,30\n", "tiresias");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("t.csv:1: missing or bad header row"), std::string::npos)
      << h.status().message();
}

TEST(TiresiasFormatTest, RealSixtyJobFileParsesFully) {
  auto w = ReadTrace(std::string(HETSCHED_SOURCE_DIR) + "/data/real/tiresias/60_job.csv", "auto", {},
                     trace_test::Devices(), trace_test::Zoo());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->jobs.size(), 60u);
  EXPECT_EQ(w->rows_skipped, 0);
  // First row of the file: 0,1,0,606,vgg19,164,30.
  EXPECT_EQ(w->jobs[0].spec.model, "vgg16");
  EXPECT_EQ(w->jobs[0].spec.iterations, 606);
  EXPECT_DOUBLE_EQ(w->jobs[0].truth.reference_runtime_s, 164);
}

}  // namespace
}  // namespace hetsched
