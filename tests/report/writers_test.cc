#include "hetsched/report/writers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

namespace fs = std::filesystem;

// Two jobs: one finished, one cut off with a free-text name holding a comma and quotes.
RunRecord SmallRun() {
  RunRecord run;
  run.policy = "fifo";
  run.placer = "first_fit";
  run.planner = "data_parallel";
  run.trace = "demo.csv";
  run.cluster_summary = "4x a100";
  run.seed = 42;
  run.total_devices = 4;
  run.device_types = {"a100", "v100"};
  run.devices_per_type = {2, 2};
  run.idle_power_watts = 10;
  run.events = 17;
  run.scheduler_calls = 5;
  run.wall_seconds = 123.456;  // must not reach any output

  JobRecord a;
  a.id = 0;
  a.name = "resnet run";
  a.user = "alice";
  a.model = "resnet50";
  a.num_gpus = 2;
  a.priority = 1;
  a.device_type = 0;
  a.device_type_name = "a100";
  a.submit_s = 0;
  a.first_start_s = 10;
  a.finish_s = 110;
  a.ideal_runtime_s = 50;
  a.gpu_seconds = 200;
  a.busy_energy_joules = 1234.5;
  a.cost_usd = 0.123456;
  a.cross_node_bytes = 1e9;
  a.max_span_nodes = 1;

  JobRecord b;
  b.id = 1;
  b.name = "big, \"fast\" job";
  b.user = "bob";
  b.model = "bert";
  b.num_gpus = 4;
  b.submit_s = 5.5;
  b.deadline_s = 100;
  b.preemptions = 2;
  run.jobs = {a, b};

  TimelineSample s0, s1, s2;
  s0.time_s = 0;
  s0.pending_jobs = 1;
  s1.time_s = 10;
  s1.busy_devices = 2;
  s1.running_jobs = 1;
  s1.pending_jobs = 1;
  s2.time_s = 110;
  s2.pending_jobs = 1;
  run.AppendSample(s0, std::vector<int>{0, 0});
  run.AppendSample(s1, std::vector<int>{2, 0});
  run.AppendSample(s2, std::vector<int>{0, 0});
  return run;
}

TEST(JobsCsv, GoldenText) {
  // Job 0: JCT 110-0 = 110, queueing 10-0 = 10, slowdown 110/50 = 2.2, cost 0.123456 -> 4
  // decimals 0.1235, no deadline -> empty field. Job 1: never started -> empty start, finish,
  // JCT, queueing and slowdown; its name is quoted with inner quotes doubled.
  const std::string expected =
      "id,name,user,model,num_gpus,priority,device_type,submit_s,first_start_s,finish_s,"
      "deadline_s,jct_s,queueing_delay_s,ideal_runtime_s,slowdown,gpu_seconds,"
      "busy_energy_joules,cost_usd,cross_node_bytes,preemptions,max_span_nodes\n"
      "0,resnet run,alice,resnet50,2,1,a100,0,10,110,,110,10,50,2.2,200,1234.5,0.1235,1000000000,0,1\n"
      "1,\"big, \"\"fast\"\" job\",bob,bert,4,0,,5.5,,,100,,,0,,0,0,0,0,2,0\n";
  EXPECT_EQ(JobsCsv(SmallRun()), expected);
}

TEST(JobsCsv, QuotedNameRoundTrips) {
  const std::string csv = JobsCsv(SmallRun());
  const size_t line2 = csv.find('\n', csv.find('\n') + 1) + 1;
  const std::string row = csv.substr(line2, csv.find('\n', line2) - line2);
  // Split with the project's own RFC 4180 reader: the name comes back intact, 21 fields.
  const Result<std::vector<std::string>> fields = SplitCsvLine(row);
  ASSERT_TRUE(fields.ok());
  ASSERT_EQ(fields->size(), 21u);
  EXPECT_EQ((*fields)[1], "big, \"fast\" job");
  EXPECT_EQ((*fields)[2], "bob");
}

TEST(TimelineCsv, GoldenText) {
  const std::string expected =
      "time_s,busy_devices,running_jobs,pending_jobs,busy_a100,busy_v100\n"
      "0,0,0,1,0,0\n"
      "10,2,1,1,2,0\n"
      "110,0,0,1,0,0\n";
  EXPECT_EQ(TimelineCsv(SmallRun()), expected);
}

TEST(TimelineCsv, ResampledToMaxRows) {
  // max_rows 2 -> one bucket over [0,110] + the final row. Bucket averages: busy
  // (0*10 + 2*100)/110 = 1.818181.. -> 1.818; running 100/110 = 0.909; pending 1; a100 1.818.
  const std::string expected =
      "time_s,busy_devices,running_jobs,pending_jobs,busy_a100,busy_v100\n"
      "0,1.818,0.909,1,1.818,0\n"
      "110,0,0,1,0,0\n";
  EXPECT_EQ(TimelineCsv(SmallRun(), 2), expected);
}

TEST(SummaryJson, KeysInDocumentedOrderAndValues) {
  const RunRecord run = SmallRun();
  const Summary summary = Summarize(run);
  const std::string text = SummaryJson(run, summary);
  EXPECT_EQ(text, SummaryJson(run, summary));          // deterministic
  EXPECT_EQ(text.find("123.456"), std::string::npos);  // wall-clock time left out
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  const std::vector<std::string> expected_keys = {
      "policy",          "placer",           "planner",
      "trace",           "cluster",          "seed",
      "total_devices",   "jobs_total",       "jobs_finished",
      "jobs_dropped",    "jct_s",            "queueing_delay_s",
      "slowdown",
      "makespan_s",      "utilisation",      "busy_fraction_by_type",
      "cost_usd",        "energy_joules",    "jain_fairness",
      "ftf_max",         "ftf_mean",         "cross_node_bytes",
      "deadline_misses", "preemptions",      "events",
      "scheduler_calls"};
  EXPECT_EQ(keys, expected_keys);
  EXPECT_EQ(j["policy"], "fifo");
  EXPECT_EQ(j["cluster"], "4x a100");
  EXPECT_EQ(j["seed"], 42);
  EXPECT_EQ(j["jobs_finished"], 1);
  EXPECT_EQ(j["jobs_dropped"], 0);
  // Makespan: 110 - 0. Busy device-seconds on [0,110]: 2 devices x 100 s = 200 -> 200/(4*110)
  // = 0.454545.. -> 0.454545 (6 decimals). a100: 200/(2*110) = 0.909091; v100: 0.
  EXPECT_DOUBLE_EQ(j["makespan_s"].get<double>(), 110);
  EXPECT_DOUBLE_EQ(j["utilisation"].get<double>(), 0.454545);
  EXPECT_DOUBLE_EQ(j["busy_fraction_by_type"]["a100"].get<double>(), 0.909091);
  EXPECT_DOUBLE_EQ(j["busy_fraction_by_type"]["v100"].get<double>(), 0);
  // Cost 0.123456 -> 0.1235; energy 10 W * 110 s + 1234.5 J = 2334.5 J.
  EXPECT_DOUBLE_EQ(j["cost_usd"].get<double>(), 0.1235);
  EXPECT_DOUBLE_EQ(j["energy_joules"].get<double>(), 2334.5);
  EXPECT_EQ(j["cross_node_bytes"], 1000000000);
  EXPECT_DOUBLE_EQ(j["jct_s"]["mean"].get<double>(), 110);
  EXPECT_EQ(j["deadline_misses"], 1);  // job 1: unfinished with a deadline
  EXPECT_EQ(j["preemptions"], 2);
}

TEST(SummaryJson, EmptyRunHasNoNulls) {
  const RunRecord run;
  const std::string text = SummaryJson(run, Summarize(run));
  EXPECT_EQ(text.find("null"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string Slurp(const std::string& path) {
  auto r = ReadFile(path);
  return r.ok() ? *r : "";
}

TEST(WriteRunOutputs, WritesThreeFilesAndNoTemp) {
  const std::string dir = ::testing::TempDir() + "/hetsched_writers_ok/nested/out";
  fs::remove_all(::testing::TempDir() + "/hetsched_writers_ok");
  const RunRecord run = SmallRun();
  const Summary summary = Summarize(run);
  ASSERT_TRUE(WriteRunOutputs(dir, run, summary).ok());
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"jobs.csv", "summary.json", "timeline.csv"}));
  EXPECT_EQ(Slurp(dir + "/jobs.csv"), JobsCsv(run));
  EXPECT_EQ(Slurp(dir + "/timeline.csv"), TimelineCsv(run));
  EXPECT_EQ(Slurp(dir + "/summary.json"), SummaryJson(run, summary));
  // Writing again replaces the files in place, still without leftovers.
  ASSERT_TRUE(WriteRunOutputs(dir, run, summary).ok());
  EXPECT_EQ(ListDir(dir).size(), 3u);
}

TEST(WriteRunOutputs, DirectoryUnderARegularFileFails) {
  // Works even as root (permission bits would not stop root): a path through a regular file
  // can never be a directory.
  const std::string base = ::testing::TempDir() + "/hetsched_writers_blocker";
  fs::remove_all(base);
  fs::create_directories(base);
  std::ofstream(base + "/file") << "x";
  const Status st = WriteRunOutputs(base + "/file/out", SmallRun(), Summary{});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("file/out"), std::string::npos) << st.message();
}

TEST(WriteRunOutputs, FailedWriteNamesTheFileAndLeavesNoTemp) {
  // summary.json is a directory: its rename fails; the error names summary.json and the temp
  // file is removed.
  const std::string dir = ::testing::TempDir() + "/hetsched_writers_fail";
  fs::remove_all(dir);
  fs::create_directories(dir + "/summary.json/inner");
  const Status st = WriteRunOutputs(dir, SmallRun(), Summary{});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("summary.json"), std::string::npos) << st.message();
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"summary.json"}));
}

}  // namespace
}  // namespace hetsched
