// Helios cluster_log.csv files written by the test (the real traces are not stored).
#include <gtest/gtest.h>

#include "trace_test_util.h"

namespace hetsched {
namespace {

using trace_test::Calibrated;
using trace_test::Parse;
using trace_test::Skip;

constexpr const char* kHeliosHeader =
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";

TEST(HeliosFormatTest, ReadsRowsRebasesTimesAndFiltersCpuJobs) {
  // The README's three example rows plus a CPU-only job.
  const std::string text = std::string(kHeliosHeader) +
      "1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n"
      "1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0\n"
      "1425513,uzqls,vcpDC,0,1,1,CANCELLED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 14:15:21,675233,0\n";
  auto w = Parse(text, "helios");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 2u);
  EXPECT_EQ(w->rows_read, 3);
  EXPECT_EQ(w->rows_skipped, 1);
  EXPECT_EQ(w->skipped_reasons[0], "t.csv:4: CPU-only (gpu_num 0) job left out");
  const JobSpec& a = w->jobs[0].spec;
  EXPECT_EQ(a.name, "1425511");
  EXPECT_EQ(a.user, "uXBbc");
  EXPECT_DOUBLE_EQ(a.submit_time_s, 0);
  EXPECT_EQ(a.num_gpus, 1);
  EXPECT_DOUBLE_EQ(w->jobs[0].truth.reference_runtime_s, 36848);
  EXPECT_EQ(a.iterations, Calibrated(a.model, 1, 36848));
  const JobSpec& b = w->jobs[1].spec;
  EXPECT_DOUBLE_EQ(b.submit_time_s, 26);  // 18:41:27 - 18:41:01
  EXPECT_EQ(b.num_gpus, 4);
  EXPECT_EQ(b.iterations, Calibrated(b.model, 4, 249));
}

TEST(HeliosFormatTest, DurationFromStartAndEndWhenAbsent) {
  const std::string text = "job_id,gpu_num,submit_time,start_time,end_time\n"
                           "7,2,2020-02-28 23:00:00,2020-02-28 23:30:00,2020-03-01 00:30:00\n";
  auto w = Parse(text, "helios");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 1u);
  // 2020 is a leap year: 23:30 on Feb 28 to 00:30 on Mar 1 is 25 hours = 90,000 s.
  EXPECT_DOUBLE_EQ(w->jobs[0].truth.reference_runtime_s, 90000);
}

TEST(HeliosFormatTest, BadRowsNameLineAndField) {
  struct Case {
    const char* row;
    const char* expected;
  } cases[] = {
      {"1,u,v,-1,1,1,COMPLETED,2020-06-09 18:41:01,,,5,0", "t.csv:2: field 'gpu_num': GPU count must be >= 0, got -1 (negative)"},
      {"1,u,v,two,1,1,COMPLETED,2020-06-09 18:41:01,,,5,0", "t.csv:2: field 'gpu_num': expected an integer"},
      {"1,u,v,1,1,1,COMPLETED,2020-13-09 18:41:01,,,5,0", "t.csv:2: field 'submit_time': not a valid date and time"},
      {"1,u,v,1,1,1,COMPLETED,June 9th,,,5,0", "t.csv:2: field 'submit_time': expected 'YYYY-MM-DD HH:MM:SS' or seconds"},
      {"1,u,v,1,1,1,COMPLETED,2020-06-09 18:41:01,,,-5,0", "t.csv:2: field 'duration': must be >= 0 seconds"},
      {"1,u,v,1,1,1,COMPLETED,2020-06-09 18:41:01,,,,0", "t.csv:2: field 'start_time': "},
      {"1,u,v,1,1,1,COMPLETED,2020-06-09 18:41:01,,,5", "t.csv:2: wrong field count: expected 12"},
  };
  for (const auto& c : cases) {
    auto w = Parse(std::string(kHeliosHeader) + c.row + "\n", "helios");
    ASSERT_FALSE(w.ok()) << c.row;
    EXPECT_NE(w.status().message().find(c.expected), std::string::npos)
        << c.row << "\nmessage: " << w.status().message();
  }
  auto s = Parse(std::string(kHeliosHeader) + "1,u,v,-1,1,1,C,2020-06-09 18:41:01,,,5,0\n" +
                 "2,u,v,1,1,1,C,2020-06-09 18:41:01,,,5,0\n", "helios", Skip());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->jobs.size(), 1u);
  EXPECT_EQ(s->rows_skipped, 1);
}

TEST(HeliosFormatTest, HeaderProblems) {
  auto e = Parse("", "helios");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("t.csv: empty file"), std::string::npos);
  auto m = Parse("job_id,user,submit_time\n1,u,2020-06-09 18:41:01\n", "helios");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("t.csv:1: missing header row or column 'gpu_num'"), std::string::npos)
      << m.status().message();
  auto d = Parse("gpu_num,submit_time\n1,5\n", "helios");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("needs a 'duration' column"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
