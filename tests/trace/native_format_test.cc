// The native CSV format: reading, writing, round trip, and every bad-input path.
#include <gtest/gtest.h>

#include <cmath>

#include "trace_test_util.h"

namespace hetsched {
namespace {

using trace_test::Devices;
using trace_test::Parse;
using trace_test::Skip;

constexpr const char* kHeader =
    "id,name,user,submit_time_s,model,batch_size,num_gpus,iterations,estimated_runtime_s,"
    "allowed_types,parallelism,priority,deadline_s,true_iterations,reference_runtime_s\n";

TEST(NativeFormatTest, ReadsEveryColumn) {
  const std::string text = std::string(kHeader) +
      "7,\"train, big\",alice,30.5,resnet50,64,4,1000,3600,v100;a100,ring,2,7200,1200.5,3000\n"
      "3,small,bob,10,lm,0,1,50,,,,,,,\n";
  auto w = Parse(text, "native");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 2u);
  EXPECT_EQ(w->rows_read, 2);
  EXPECT_EQ(w->rows_skipped, 0);
  // Sorted by submit time (10 before 30.5), ids renumbered 0, 1 in that order.
  const JobSpec& a = w->jobs[0].spec;
  EXPECT_EQ(a.id, 0);
  EXPECT_EQ(a.name, "small");
  EXPECT_EQ(a.user, "bob");
  EXPECT_EQ(a.model, "lstm-lm");  // alias "lm" resolved to the zoo key
  EXPECT_EQ(a.batch_size, 0);
  EXPECT_EQ(a.num_gpus, 1);
  EXPECT_EQ(a.iterations, 50);
  EXPECT_EQ(a.parallelism, Parallelism::kSingle);  // default for one GPU
  EXPECT_TRUE(a.allowed_types.empty());
  EXPECT_TRUE(std::isinf(a.deadline_s));
  EXPECT_EQ(w->jobs[0].truth.total_iterations, 50.0);  // truth defaults to iterations

  const JobSpec& b = w->jobs[1].spec;
  EXPECT_EQ(b.id, 1);
  EXPECT_EQ(b.name, "train, big");
  EXPECT_DOUBLE_EQ(b.submit_time_s, 30.5);
  EXPECT_EQ(b.model, "resnet50");
  EXPECT_EQ(b.batch_size, 64);
  EXPECT_EQ(b.num_gpus, 4);
  EXPECT_EQ(b.iterations, 1000);
  EXPECT_DOUBLE_EQ(b.estimated_runtime_s, 3600);
  ASSERT_EQ(b.allowed_types.size(), 2u);
  EXPECT_EQ(b.allowed_types[0], Devices().Find("v100-16gb"));
  EXPECT_EQ(b.allowed_types[1], Devices().Find("a100-40gb"));
  EXPECT_EQ(b.parallelism, Parallelism::kDataRing);
  EXPECT_EQ(b.priority, 2);
  EXPECT_DOUBLE_EQ(b.deadline_s, 7200);
  EXPECT_DOUBLE_EQ(w->jobs[1].truth.total_iterations, 1200.5);
  EXPECT_DOUBLE_EQ(w->jobs[1].truth.reference_runtime_s, 3000);
}

TEST(NativeFormatTest, MinimalColumnsInAnyOrderWithCommentsAndBlankLines) {
  auto w = Parse("# a comment\n\nnum_gpus,iterations,model,submit_time_s\n2,10,vgg16,5\n\n# x\n1,20,a3c,0\n",
                 "native");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 2u);
  EXPECT_EQ(w->jobs[0].spec.model, "a3c");
  EXPECT_EQ(w->jobs[1].spec.model, "vgg16");
  EXPECT_EQ(w->jobs[1].spec.num_gpus, 2);
}

TEST(NativeFormatTest, EqualSubmitTimesKeepFileOrder) {
  auto w = Parse("submit_time_s,model,num_gpus,iterations,name\n5,a3c,1,1,first\n5,a3c,1,1,second\n"
                 "1,a3c,1,1,early\n", "native");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->jobs[0].spec.name, "early");
  EXPECT_EQ(w->jobs[1].spec.name, "first");
  EXPECT_EQ(w->jobs[2].spec.name, "second");
  EXPECT_EQ(w->jobs[2].spec.id, 2);
}

TEST(NativeFormatTest, RoundTripsThroughToNativeTrace) {
  const std::string text = std::string(kHeader) +
      "0,\"q\"\"uote, x\",u1,0.1,resnet18-cifar,128,8,123456,99.25,k80;p100,ps,-3,1e9,123456.75,17\n"
      "1,plain,u2,0.30000000000000004,bert-base,16,2,5,0,,pipeline,0,,5,0\n";
  auto first = Parse(text, "native");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const std::string written = ToNativeTrace(*first, Devices());
  auto second = Parse(written, "native");
  ASSERT_TRUE(second.ok()) << second.status().ToString() << "\n" << written;
  ASSERT_EQ(second->jobs.size(), first->jobs.size());
  for (size_t i = 0; i < first->jobs.size(); ++i) {
    const JobSpec& x = first->jobs[i].spec;
    const JobSpec& y = second->jobs[i].spec;
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.user, y.user);
    EXPECT_EQ(x.model, y.model);
    EXPECT_EQ(x.batch_size, y.batch_size);
    EXPECT_EQ(x.iterations, y.iterations);
    EXPECT_EQ(x.num_gpus, y.num_gpus);
    EXPECT_EQ(x.allowed_types, y.allowed_types);
    EXPECT_EQ(x.parallelism, y.parallelism);
    EXPECT_EQ(x.priority, y.priority);
    EXPECT_EQ(x.submit_time_s, y.submit_time_s);  // exact: shortest round-trip doubles
    EXPECT_EQ(x.deadline_s, y.deadline_s);
    EXPECT_EQ(x.estimated_runtime_s, y.estimated_runtime_s);
    EXPECT_EQ(first->jobs[i].truth.reference_runtime_s, second->jobs[i].truth.reference_runtime_s);
    EXPECT_EQ(first->jobs[i].truth.total_iterations, second->jobs[i].truth.total_iterations);
  }
  // Writing again gives the same text.
  EXPECT_EQ(ToNativeTrace(*second, Devices()), written);
  EXPECT_EQ(second->jobs[0].spec.name, "q\"uote, x");
}

TEST(NativeFormatTest, WriterOutputIsExact) {
  Workload w;
  Job j;
  j.spec.name = "a";
  j.spec.user = "u";
  j.spec.model = "resnet50";
  j.spec.num_gpus = 2;
  j.spec.iterations = 10;
  j.spec.submit_time_s = 1.5;
  j.truth.total_iterations = 12;
  w.jobs.push_back(j);
  // The container columns (empty for a plain job) follow the plain ones.
  std::string header = kHeader;
  header.pop_back();
  header += ",num_ps,num_workers,ps_cpu,ps_memory_gib,ps_gpus,worker_cpu,worker_memory_gib,worker_gpus,intra_job_planner\n";
  EXPECT_EQ(ToNativeTrace(w, Devices()), header + "0,a,u,1.5,resnet50,0,2,10,0,,ring,0,,12,0,,,,,,,,,\n");
  w.jobs[0].spec.intra_job_planner = "tapp";
  EXPECT_EQ(ToNativeTrace(w, Devices()), header + "0,a,u,1.5,resnet50,0,2,10,0,,ring,0,,12,0,,,,,,,,,tapp\n");
}

struct BadCaseText {
  std::string row;
  const char* expected;
};

// The optional intra_job_planner column: read, round-tripped, and bad names refused with the
// file, line and field.
TEST(NativeFormatTest, IntraJobPlannerColumn) {
  const std::string header = "submit_time_s,model,num_gpus,iterations,intra_job_planner\n";
  auto w = Parse(header + "0,bert-base,4,10,tapp\n1,bert-base,4,10,\n2,bert-base,4,10, dp \n", "native");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 3u);
  EXPECT_EQ(w->jobs[0].spec.intra_job_planner, "tapp");
  EXPECT_EQ(w->jobs[1].spec.intra_job_planner, "");  // empty: no intra-job planning
  EXPECT_EQ(w->jobs[2].spec.intra_job_planner, "dp");  // trimmed
  auto again = Parse(ToNativeTrace(*w, Devices()), "native");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(again->jobs[i].spec.intra_job_planner, w->jobs[i].spec.intra_job_planner);
  const BadCaseText bad[] = {
      {"0,bert-base,4,10,Tapp", "t.csv:2: field 'intra_job_planner': expected a planner name"},
      {"0,bert-base,4,10,rm -rf", "t.csv:2: field 'intra_job_planner': expected a planner name"},
      {"0,bert-base,4,10,a;b", "got 'a;b'"},
      {"0,bert-base,4,10," + std::string(65, 'x'), "at most 64"},
  };
  for (const BadCaseText& c : bad) {
    auto r = Parse(header + c.row + "\n", "native");
    ASSERT_FALSE(r.ok()) << c.row;
    EXPECT_NE(r.status().message().find(c.expected), std::string::npos) << r.status().message();
  }
  auto container = Parse("submit_time_s,model,num_gpus,iterations,num_ps,intra_job_planner\n0,resnet50,2,10,1,tapp\n",
                         "native");
  ASSERT_FALSE(container.ok());
  EXPECT_NE(container.status().message().find("t.csv:2: field 'intra_job_planner': a container job"), std::string::npos)
      << container.status().message();
}

// The optional elastic column: 0/1/true/false, written (last) only when some job is elastic, so
// the files of workloads without elastic jobs stay as they were.
TEST(NativeFormatTest, ElasticColumn) {
  const std::string header = "submit_time_s,model,num_gpus,iterations,elastic\n";
  auto w = Parse(header + "0,bert-base,4,10,1\n1,bert-base,4,10,\n2,bert-base,4,10, TRUE \n3,bert-base,4,10,0\n",
                 "native");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 4u);
  EXPECT_TRUE(w->jobs[0].spec.elastic);
  EXPECT_FALSE(w->jobs[1].spec.elastic);  // empty: not elastic
  EXPECT_TRUE(w->jobs[2].spec.elastic);
  EXPECT_FALSE(w->jobs[3].spec.elastic);
  const std::string written = ToNativeTrace(*w, Devices());
  EXPECT_NE(written.find(",intra_job_planner,elastic\n"), std::string::npos);
  EXPECT_NE(written.find(",,1\n"), std::string::npos);
  auto again = Parse(written, "native");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(again->jobs[i].spec.elastic, w->jobs[i].spec.elastic) << i;
  for (Job& j : w->jobs) j.spec.elastic = false;
  EXPECT_EQ(ToNativeTrace(*w, Devices()).find("elastic"), std::string::npos);
  auto bad = Parse(header + "0,bert-base,4,10,yes\n", "native");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.csv:2: field 'elastic': expected 0, 1, true or false, got 'yes'"),
            std::string::npos)
      << bad.status().message();
  auto container =
      Parse("submit_time_s,model,num_gpus,iterations,num_ps,elastic\n0,resnet50,2,10,1,1\n", "native");
  ASSERT_FALSE(container.ok());
  EXPECT_NE(container.status().message().find("field 'elastic': a container job"), std::string::npos)
      << container.status().message();
}

struct BadCase {
  const char* row;
  const char* expected;  // substring of the message
};

// One data row after a full header; the row sits on line 2.
TEST(NativeFormatTest, EveryBadFieldNamesFileLineAndField) {
  const BadCase cases[] = {
      {"x,n,u,0,resnet50,0,1,1,0,,,0,,,", "t.csv:2: field 'id': expected an integer, got 'x'"},
      {"-1,n,u,0,resnet50,0,1,1,0,,,0,,,", "t.csv:2: field 'id': must be >= 0"},
      {"0,n,u,soon,resnet50,0,1,1,0,,,0,,,", "t.csv:2: field 'submit_time_s': expected a number, got 'soon'"},
      {"0,n,u,-4,resnet50,0,1,1,0,,,0,,,", "t.csv:2: field 'submit_time_s': must be >= 0 seconds"},
      {"0,n,u,0,resnet999,0,1,1,0,,,0,,,", "t.csv:2: field 'model': "},
      {"0,n,u,0,resnet50,-2,1,1,0,,,0,,,", "t.csv:2: field 'batch_size': must be >= 0"},
      {"0,n,u,0,resnet50,0,-2,1,0,,,0,,,", "t.csv:2: field 'num_gpus': GPU count must be >= 1, got -2 (negative)"},
      {"0,n,u,0,resnet50,0,0,1,0,,,0,,,", "t.csv:2: field 'num_gpus': GPU count must be >= 1, got 0"},
      {"0,n,u,0,resnet50,0,1.5,1,0,,,0,,,", "t.csv:2: field 'num_gpus': expected an integer, got '1.5'"},
      {"0,n,u,0,resnet50,0,1,0,0,,,0,,,", "t.csv:2: field 'iterations': must be >= 1 iteration, got 0"},
      {"0,n,u,0,resnet50,0,1,1,-1,,,0,,,", "t.csv:2: field 'estimated_runtime_s': must be >= 0"},
      {"0,n,u,0,resnet50,0,1,1,0,v200,,0,,,", "t.csv:2: field 'allowed_types': "},
      {"0,n,u,0,resnet50,0,1,1,0,,mesh,0,,,", "t.csv:2: field 'parallelism': expected single, ring, ps or pipeline, got 'mesh'"},
      {"0,n,u,0,resnet50,0,2,1,0,,single,0,,,", "t.csv:2: field 'parallelism': 'single' needs num_gpus = 1, got 2"},
      {"0,n,u,0,resnet50,0,1,1,0,,,high,,,", "t.csv:2: field 'priority': expected an integer"},
      {"0,n,u,0,resnet50,0,1,1,0,,,0,-5,,", "t.csv:2: field 'deadline_s': must be >= 0"},
      {"0,n,u,0,resnet50,0,1,1,0,,,0,,0,", "t.csv:2: field 'true_iterations': must be > 0"},
      {"0,n,u,0,resnet50,0,1,1,0,,,0,,,x", "t.csv:2: field 'reference_runtime_s': expected a number"},
      {"0,n,u,0,resnet50,0,1,1,0,,,0,,", "t.csv:2: wrong field count: expected 15 comma-separated fields (as in the header), got 14"},
      {"0,\"n,u,0,resnet50,0,1,1,0,,,0,,,", "t.csv:2: unterminated quoted field"},
  };
  for (const BadCase& c : cases) {
    auto w = Parse(std::string(kHeader) + c.row + "\n", "native");
    ASSERT_FALSE(w.ok()) << c.row;
    EXPECT_NE(w.status().message().find(c.expected), std::string::npos)
        << "row: " << c.row << "\nmessage: " << w.status().message();
  }
}

TEST(NativeFormatTest, UnknownModelAndDeviceMessagesComeFromTheCatalogs) {
  auto w = Parse("submit_time_s,model,num_gpus,iterations,allowed_types\n0,resnet50,1,1,v200\n", "native");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("t.csv:2: field 'allowed_types'"), std::string::npos);
  EXPECT_NE(w.status().message().find("v200"), std::string::npos) << w.status().message();
  auto m = Parse("submit_time_s,model,num_gpus,iterations\n0,nosuchnet,1,1\n", "native");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("nosuchnet"), std::string::npos) << m.status().message();
}

TEST(NativeFormatTest, EmptyFileAndMissingHeaderAreErrors) {
  auto empty = Parse("", "native");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("t.csv: empty file"), std::string::npos);
  auto comments_only = Parse("# nothing\n\n", "native");
  ASSERT_FALSE(comments_only.ok());
  EXPECT_NE(comments_only.status().message().find("empty file"), std::string::npos);
  // A data row where the header should be.
  auto no_header = Parse("0,n,u,0,resnet50,0,1,1,0,,,0,,,\n", "native");
  ASSERT_FALSE(no_header.ok());
  EXPECT_NE(no_header.status().message().find("t.csv:1: missing or bad header row"), std::string::npos)
      << no_header.status().message();
  // A header lacking a required column.
  auto missing = Parse("submit_time_s,model,num_gpus\n0,resnet50,1\n", "native");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("t.csv:1: missing header row or column 'iterations'"),
            std::string::npos) << missing.status().message();
  auto twice = Parse("submit_time_s,model,num_gpus,iterations,model\n", "native");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("column 'model' appears twice"), std::string::npos);
}

TEST(NativeFormatTest, StopAtFirstBadRowOrSkipAndCount) {
  const std::string text = "submit_time_s,model,num_gpus,iterations\n"
                           "0,a3c,1,1\n"
                           "1,a3c,0,1\n"      // line 3: zero GPUs
                           "2,a3c,1,1\n"
                           "3,nosuch,1,1\n"   // line 5: unknown model
                           "4,a3c,1,1\n";
  auto stop = Parse(text, "native");
  ASSERT_FALSE(stop.ok());
  EXPECT_NE(stop.status().message().find("t.csv:3: field 'num_gpus'"), std::string::npos);

  auto skip = Parse(text, "native", Skip());
  ASSERT_TRUE(skip.ok()) << skip.status().ToString();
  EXPECT_EQ(skip->jobs.size(), 3u);
  EXPECT_EQ(skip->rows_read, 5);
  EXPECT_EQ(skip->rows_skipped, 2);
  ASSERT_EQ(skip->skipped_reasons.size(), 2u);
  EXPECT_EQ(skip->skipped_reasons[0].rfind("t.csv:3: field 'num_gpus'", 0), 0u);
  EXPECT_EQ(skip->skipped_reasons[1].rfind("t.csv:5: field 'model'", 0), 0u);
  // Ids stay dense after skips.
  EXPECT_EQ(skip->jobs[2].spec.id, 2);
  EXPECT_DOUBLE_EQ(skip->jobs[2].spec.submit_time_s, 4);
}

TEST(NativeFormatTest, MaxJobsStopsReading) {
  TraceReadOptions o;
  o.max_jobs = 2;
  auto w = Parse("submit_time_s,model,num_gpus,iterations\n0,a3c,1,1\n1,a3c,1,1\n2,a3c,1,1\n", "native", o);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->jobs.size(), 2u);
  EXPECT_EQ(w->rows_read, 2);
}

}  // namespace
}  // namespace hetsched
