// Format dispatch and "auto" detection.
#include "hetsched/trace/trace.h"

#include <gtest/gtest.h>

#include "hetsched/trace/formats.h"
#include "trace_test_util.h"

namespace hetsched {
namespace {

using trace_internal::DetectFormat;

TEST(TraceTest, DetectsFormatsByNameAndHeader) {
  EXPECT_EQ(*DetectFormat("anything", "x/msr.trace"), "gavel");
  EXPECT_EQ(*DetectFormat("a\tb\tc", "x/jobs.txt"), "gavel");
  EXPECT_EQ(*DetectFormat("", "dir/pai_job_table.csv"), "pai");
  EXPECT_EQ(*DetectFormat("\nid,submit_time_s,model,num_gpus,iterations\n", "w.csv"), "native");
  EXPECT_EQ(*DetectFormat("job_id,num_gpu,submit_time,iterations,model_name,duration,interval", "t.csv"), "tiresias");
  EXPECT_EQ(*DetectFormat("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time", "cluster_log.csv"), "helios");
  EXPECT_EQ(*DetectFormat("runtime\n5\n", "philly_runtime.csv"), "philly-runtime");
  auto unknown = DetectFormat("foo,bar\n", "x.csv");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("x.csv: cannot tell the trace format"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("philly-runtime"), std::string::npos);
}

TEST(TraceTest, UnknownFormatAndMissingFileAreErrors) {
  auto f = trace_test::Parse("runtime\n5\n", "csv");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("unknown trace format 'csv'"), std::string::npos);
  auto m = ReadTrace("/nonexistent/dir/x.trace", "auto", {}, trace_test::Devices(), trace_test::Zoo());
  EXPECT_FALSE(m.ok());
}

TEST(TraceTest, ParseTraceAutoDispatches) {
  auto w = trace_test::Parse("submit_time_s,model,num_gpus,iterations\n0,a3c,1,3\n", "auto");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->jobs[0].spec.iterations, 3);
  EXPECT_EQ(w->source, "t.csv");
}

TEST(TraceTest, FormatListNamesEveryReader) {
  const auto formats = TraceFormats();
  for (const char* f : {"auto", "native", "gavel", "tiresias", "philly-runtime", "pai", "helios"}) {
    EXPECT_NE(std::find(formats.begin(), formats.end(), f), formats.end()) << f;
  }
}

}  // namespace
}  // namespace hetsched
