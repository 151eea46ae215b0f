// Philly run times: rows become jobs through the fill-in mix and the runtime calibration.
#include <gtest/gtest.h>

#include "trace_test_util.h"

namespace hetsched {
namespace {

using trace_test::Calibrated;
using trace_test::Parse;
using trace_test::Skip;

TEST(PhillyFormatTest, EachRuntimeBecomesAJobWithCalibratedIterations) {
  auto w = Parse("runtime\n3600.0\n0.0\n61\n", "philly-runtime");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // The zero-second row is left out and counted, under the default kStop policy too.
  ASSERT_EQ(w->jobs.size(), 2u);
  EXPECT_EQ(w->rows_read, 3);
  EXPECT_EQ(w->rows_skipped, 1);
  ASSERT_EQ(w->skipped_reasons.size(), 1u);
  EXPECT_EQ(w->skipped_reasons[0], "t.csv:3: field 'runtime': zero-second job left out");
  const JobSpec& first = w->jobs[0].spec;
  EXPECT_EQ(first.name, "philly-0");
  EXPECT_DOUBLE_EQ(w->jobs[0].truth.reference_runtime_s, 3600);
  EXPECT_DOUBLE_EQ(first.estimated_runtime_s, 3600);  // no estimate error by default
  EXPECT_EQ(first.iterations, Calibrated(first.model, first.num_gpus, 3600));
  EXPECT_EQ(w->jobs[0].truth.total_iterations, static_cast<double>(first.iterations));
  EXPECT_GT(first.submit_time_s, 0);  // Poisson arrivals start after t = 0
  EXPECT_LT(first.submit_time_s, w->jobs[1].spec.submit_time_s);
  EXPECT_EQ(w->jobs[1].spec.name, "philly-1");
  EXPECT_EQ(w->jobs[1].spec.iterations, Calibrated(w->jobs[1].spec.model, w->jobs[1].spec.num_gpus, 61));
}

TEST(PhillyFormatTest, SameFileGivesSameJobs) {
  auto a = Parse("runtime\n100\n200\n300\n", "philly-runtime");
  auto b = Parse("runtime\n100\n200\n300\n", "philly-runtime");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(ToNativeTrace(*a, trace_test::Devices()), ToNativeTrace(*b, trace_test::Devices()));
}

TEST(PhillyFormatTest, BadRows) {
  struct Case {
    const char* text;
    const char* expected;
  } cases[] = {
      {"runtime\n-5\n", "t.csv:2: field 'runtime': must be >= 0 seconds, got -5"},
      {"runtime\nlong\n", "t.csv:2: field 'runtime': expected a number, got 'long'"},
      {"runtime\n1,2\n", "t.csv:2: wrong field count: expected 1 comma-separated fields"},
      {"duration\n5\n", "t.csv:1: missing header row or column 'runtime'"},
      {"", "t.csv: empty file"},
  };
  for (const auto& c : cases) {
    auto w = Parse(c.text, "philly-runtime");
    ASSERT_FALSE(w.ok()) << c.text;
    EXPECT_NE(w.status().message().find(c.expected), std::string::npos)
        << c.text << "\nmessage: " << w.status().message();
  }
  auto s = Parse("runtime\n-5\n10\n", "philly-runtime", Skip());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->jobs.size(), 1u);
  EXPECT_EQ(s->rows_skipped, 1);
}

TEST(PhillyFormatTest, RealRuntimeFileParsesFully) {
  auto w = ReadTrace(std::string(HETSCHED_SOURCE_DIR) + "/data/real/philly/philly_runtime.csv", "auto",
                     {}, trace_test::Devices(), trace_test::Zoo());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // data/real/SOURCES.md: 83,154 run times, of which two are 0.0 (left out).
  EXPECT_EQ(w->rows_read, 83154);
  EXPECT_EQ(w->rows_skipped, 2);
  EXPECT_EQ(w->jobs.size(), 83152u);
}

}  // namespace
}  // namespace hetsched
