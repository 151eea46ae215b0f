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
  EXPECT_EQ(*DetectFormat("name,time,application,num_replicas,batch_size\n", "workload-1.csv"), "pollux");
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
  for (const char* f : {"auto", "native", "gavel", "tiresias", "philly-runtime", "pai", "helios", "pollux"}) {
    EXPECT_NE(std::find(formats.begin(), formats.end(), f), formats.end()) << f;
  }
}

// Issue 20: input quoted in an error is escaped and bounded, whatever the reader. Each case is a
// bad row whose bad field holds a terminal escape, a carriage return, a NUL and binary bytes.
TEST(TraceTest, ErrorMessagesQuoteInputSafely) {
  using trace_test::Parse;
  const std::string hostile = std::string("x\x1b[2J\r\0\xff\xfe", 9);
  const std::string native_header =
      "id,name,user,submit_time_s,model,batch_size,num_gpus,iterations,estimated_runtime_s,allowed_types,"
      "parallelism,priority,deadline_s,true_iterations,reference_runtime_s\n";
  const std::pair<std::string, std::string> cases[] = {
      {"native", native_header + "0,a,u,0," + hostile + ",0,1,10,,,,,,,\n"},        // model
      {"native", native_header + "0,a,u,0,lm,0," + hostile + ",10,,,,,,,\n"},       // num_gpus
      {"native", native_header + "0,a,u,0,lm,0,1,10,,," + hostile + ",,,,\n"},       // parallelism
      {"gavel", hostile + " (batch size 4)\tcmd\t-n\t1\t10\t0\t1\n"},                  // job_type
      {"tiresias", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,1,0,10," + hostile +
                       ",10,1\n"},
      {"helios", "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
                 "1,u,v,1,1,1,COMPLETED," + hostile + ",,,10,0\n"},
      {"philly-runtime", "runtime\n" + hostile + "\n"},
      {"pollux", "name,time,application,num_replicas,batch_size\na,0," + hostile + ",1,128\n"},  // application
      {"native", "id,model," + hostile + "\n"},                                       // header
      {"auto", hostile + "\n"},                                                        // detection
      {"native", native_header + "0,a,u,0,lm,0,1,10,,," + std::string(500, 'p') + ",,,,\n"},  // long
  };
  for (const auto& [format, text] : cases) {
    SCOPED_TRACE(format + ": " + text.substr(0, 40));
    auto w = Parse(text, format);
    ASSERT_FALSE(w.ok());
    const std::string m = w.status().message();
    for (unsigned char c : m) EXPECT_TRUE(c >= 0x20 && c != 0x7f) << "raw byte " << int(c) << " in: " << m;
    EXPECT_LT(m.size(), 700u) << m;
    if (text.find('\x1b') != std::string::npos) {
      EXPECT_NE(m.find("\\x1b"), std::string::npos) << m;
    }
  }
}

// Issue 20, limits up front: a trace whose jobs would need more memory than the read may use is
// refused before it is parsed, saying how much it needs.
TEST(TraceTest, TraceTooLargeForTheMemoryIsRefusedUpFront) {
  std::string text = "runtime\n";
  for (int i = 0; i < 999; ++i) text += "100\n";  // 1,000 lines + the empty last one
  TraceReadOptions options;
  options.memory_limit_bytes = 1 << 20;  // 1 MiB; 1,001 rows x 2 KiB + 4 KiB of text ~ 2.0 MiB
  auto w = trace_test::Parse(text, "philly-runtime", options);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(),
            "t.csv: a trace of 1001 rows needs about 2.0 MiB of memory; this machine has 1.0 MiB available");
  options.max_jobs = 100;  // 100 rows x 2 KiB + the text: 0.2 MiB
  EXPECT_TRUE(trace_test::Parse(text, "philly-runtime", options).ok());
}

}  // namespace
}  // namespace hetsched
