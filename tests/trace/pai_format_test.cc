// Alibaba PAI 2020 job + task tables, written by the test (the real tables are not stored).
#include <gtest/gtest.h>

#include <cmath>

#include "hetsched/trace/formats.h"
#include "hetsched/util/printable.h"
#include "trace_test_util.h"

namespace hetsched {
namespace {

using trace_test::Calibrated;
using trace_test::Devices;
using trace_test::Skip;
using trace_test::TestDir;
using trace_test::WriteFile;

Result<Workload> ReadPai(const std::string& jobs, const std::string& tasks,
                         const TraceReadOptions& options = {}) {
  const std::string dir = TestDir();
  WriteFile(dir, "pai_task_table.csv", tasks);
  const std::string path = WriteFile(dir, "pai_job_table.csv", jobs);
  return ReadTrace(path, "auto", options, Devices(), trace_test::Zoo());
}

// job_name,inst_id,user,status,start_time,end_time
constexpr const char* kJobs =
    "j1,i1,alice,Terminated,1000,5000\n"
    "j2,i2,bob,Terminated,700,800\n"
    "j3,i3,carol,Failed,600,900\n"
    "j4,i4,dave,Terminated,650,700\n";
// job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type
constexpr const char* kTasks =
    "j1,worker,2,Terminated,1100,4100,600,29,50,V100\n"
    "j1,ps,1,Terminated,1050,4000,600,29,100,P100\n"
    "j2,tensorflow,1,Terminated,,,600,29,25,MISC\n"
    "j3,worker,1,Failed,610,900,600,29,100,T4\n"
    "j4,worker,1,Terminated,650,700,600,29,,\n";

TEST(PaiFormatTest, AssemblesJobsFromBothTables) {
  auto w = ReadPai(kJobs, kTasks);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // j3 is Failed and j4 has no GPU: both left out and counted.
  ASSERT_EQ(w->jobs.size(), 2u);
  EXPECT_EQ(w->rows_read, 9);  // 5 task rows + 4 job rows
  EXPECT_EQ(w->rows_skipped, 2);
  // Submit times rebased: the earliest kept job (j2, 700) arrives at 0, j1 at 1000 - 700 = 300.
  const JobSpec& j2 = w->jobs[0].spec;
  EXPECT_EQ(j2.name, "j2");
  EXPECT_EQ(j2.user, "bob");
  EXPECT_DOUBLE_EQ(j2.submit_time_s, 0);
  EXPECT_EQ(j2.num_gpus, 1);             // 1 x 25% -> ceil(0.25) = 1
  EXPECT_TRUE(j2.allowed_types.empty());  // MISC = any
  EXPECT_DOUBLE_EQ(w->jobs[0].truth.reference_runtime_s, 100);  // no task times: job end - start = 800 - 700
  EXPECT_EQ(j2.iterations, Calibrated(j2.model, 1, 100));

  const JobSpec& j1 = w->jobs[1].spec;
  EXPECT_EQ(j1.name, "j1");
  EXPECT_DOUBLE_EQ(j1.submit_time_s, 300);
  EXPECT_EQ(j1.num_gpus, 2);  // 2 x 50 + 1 x 100 = 200% -> 2 GPUs
  ASSERT_EQ(j1.allowed_types.size(), 2u);
  EXPECT_EQ(j1.allowed_types[0], Devices().Find("v100"));
  EXPECT_EQ(j1.allowed_types[1], Devices().Find("p100"));
  // Tasks ran from 1050 (earliest start) to 4100 (latest end): 3050 s, not the job's 4000 s.
  EXPECT_DOUBLE_EQ(w->jobs[1].truth.reference_runtime_s, 3050);
  EXPECT_EQ(j1.iterations, Calibrated(j1.model, 2, 3050));
  EXPECT_EQ(j1.parallelism, Parallelism::kDataRing);
  EXPECT_EQ(j1.id, 1);
}

TEST(PaiFormatTest, HeaderRowsAreTolerated) {
  auto w = ReadPai(std::string("job_name,inst_id,user,status,start_time,end_time\n") + kJobs,
                   std::string("job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type\n") + kTasks);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->jobs.size(), 2u);
}

TEST(PaiFormatTest, V100M32MapsToThe32GbV100) {
  auto w = ReadPai("a,i,u,Terminated,0,10\n", "a,w,1,Terminated,0,10,1,1,100,V100M32\n");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 1u);
  ASSERT_EQ(w->jobs[0].spec.allowed_types.size(), 1u);
  EXPECT_EQ(w->jobs[0].spec.allowed_types[0], Devices().Find("v100-32gb"));
}

TEST(PaiFormatTest, BadRowsNameFileLineAndField) {
  struct Case {
    std::string jobs, tasks;
    const char* expected;
  } cases[] = {
      {"a,i,u,Terminated,0,10\n", "a,w,1,T,0,10,1,1,100,H200X\n", "pai_task_table.csv:1: field 'gpu_type': "},
      {"a,i,u,Terminated,0,10\n", "a,w,x,T,0,10,1,1,100,V100\n", "pai_task_table.csv:1: field 'inst_num': expected a number"},
      {"a,i,u,Terminated,0,10\n", "a,w,1,T,0,10,1,1,-100,V100\n", "pai_task_table.csv:1: field 'plan_gpu': GPU count must be >= 0 percent, got -100 (negative)"},
      {"a,i,u,Terminated,0,10\n", "a,w,1,T,0,10,1,1,100\n", "pai_task_table.csv:1: wrong field count: expected 10"},
      {"a,i,u,Terminated,0,10\n", "a,w,1,T,-4,10,1,1,100,V100\n", "pai_task_table.csv:1: field 'start_time': must be >= 0"},
      {"a,i,u,Terminated,0\n", "a,w,1,T,0,10,1,1,100,V100\n", "pai_job_table.csv:1: wrong field count: expected 6"},
      {"a,i,u,Terminated,x,10\n", "a,w,1,T,0,10,1,1,100,V100\n", "pai_job_table.csv:1: field 'start_time': expected a number"},
      {"a,i,u,Terminated,20,10\n", "a,w,1,T,0,10,1,1,100,V100\n", "pai_job_table.csv:1: field 'end_time': ends (10) before it starts (20)"},
      {"b,i,u,Terminated,0,10\n", "a,w,1,T,0,10,1,1,100,V100\n", "pai_job_table.csv:1: field 'job_name': job 'b' has no task"},
  };
  for (const auto& c : cases) {
    auto w = ReadPai(c.jobs, c.tasks);
    ASSERT_FALSE(w.ok()) << c.expected;
    EXPECT_NE(w.status().message().find(c.expected), std::string::npos)
        << "message: " << w.status().message();
  }
}

TEST(PaiFormatTest, SkipKeepsTheGoodJobs) {
  auto w = ReadPai("a,i,u,Terminated,0,10\nb,i,u,Terminated,0,10\n",
                   "a,w,1,T,0,10,1,1,100,H200X\nb,w,1,T,0,10,1,1,200,V100\n", Skip());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // Task row 1 is bad (skipped), so job a has no task: its row is bad too.
  ASSERT_EQ(w->jobs.size(), 1u);
  EXPECT_EQ(w->jobs[0].spec.name, "b");
  EXPECT_EQ(w->jobs[0].spec.num_gpus, 2);
  EXPECT_EQ(w->rows_skipped, 2);
}

TEST(PaiFormatTest, MissingOrEmptyTablesAreErrors) {
  const std::string dir = TestDir();
  const std::string path = WriteFile(dir, "pai_job_table.csv", "a,i,u,Terminated,0,10\n");
  auto no_tasks = ReadTrace(path, "pai", {}, Devices(), trace_test::Zoo());
  ASSERT_FALSE(no_tasks.ok());
  EXPECT_NE(no_tasks.status().message().find("task table must sit next to the job table"), std::string::npos);
  auto empty_jobs = ReadPai("", "a,w,1,T,0,10,1,1,100,V100\n");
  ASSERT_FALSE(empty_jobs.ok());
  EXPECT_NE(empty_jobs.status().message().find("pai_job_table.csv: empty file"), std::string::npos);
  auto empty_tasks = ReadPai("a,i,u,Terminated,0,10\n", "\n");
  ASSERT_FALSE(empty_tasks.ok());
  EXPECT_NE(empty_tasks.status().message().find("pai_task_table.csv: empty file"), std::string::npos);
}

// The tables given in memory (as the fuzz target and the Python module do) are judged as from
// files: an empty job table is refused, not read as a workload of no jobs (fuzz_trace_pai, CI).
TEST(PaiFormatTest, EmptyJobTableInMemoryIsRefusedAsFromAFile) {
  const std::string origin = "pai_job_table.csv";
  const TraceReadOptions options;
  for (const char* jobs : {"", "\n", " \n\n"}) {
    const trace_internal::FormatInput in{jobs, origin, options, Devices(), trace_test::Zoo()};
    auto w = trace_internal::ParsePaiTables(in, "a,w,1,T,0,10,1,1,100,V100\n", "pai_task_table.csv");
    ASSERT_FALSE(w.ok()) << "jobs " << Quoted(jobs);
    EXPECT_NE(w.status().message().find("pai_job_table.csv: empty file"), std::string::npos) << w.status().message();
  }
}

}  // namespace
}  // namespace hetsched
