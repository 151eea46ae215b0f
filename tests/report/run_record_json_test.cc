#include "hetsched/report/run_record_json.h"

#include <gtest/gtest.h>

#include "hetsched/metrics/summary.h"
#include "hetsched/report/writers.h"

namespace hetsched {
namespace {

RunRecord Sample() {
  RunRecord run;
  run.policy = "fifo";
  run.placer = "pack";
  run.planner = "data-parallel";
  run.trace = "slurm partition all";
  run.cluster_summary = "2 nodes";
  run.total_devices = 12;
  run.device_types = {"a100-40gb", "v100-16gb"};
  run.devices_per_type = {4, 8};
  run.idle_power_watts = 123.25;
  run.scheduler_calls = 9;
  JobRecord a;
  a.id = 17;
  a.name = "evil \"name\", with\nnewline";
  a.model = "resnet50";
  a.num_gpus = 2;
  a.device_type = 0;
  a.device_type_name = "a100-40gb";
  a.submit_s = 0;
  a.first_start_s = 1.5;
  a.finish_s = 10.0 / 3.0;
  a.ideal_runtime_s = 0.1;
  a.gpu_seconds = 3.25;
  a.cost_usd = 0.001;
  a.dropped_s = 2.0;  // written only for a dropped job
  JobRecord b;  // never started, no deadline, one with a deadline
  b.id = 18;
  b.deadline_s = 100;
  run.jobs = {a, b};
  run.AppendSample({0, 0, 0, 2}, std::vector<int>{0, 0});
  run.AppendSample({1.5, 2, 1, 1}, std::vector<int>{2, 0});
  return run;
}

TEST(RunRecordJsonTest, RoundTripKeepsWhatSummariesRead) {
  const RunRecord run = Sample();
  auto back = ParseRunRecordJson(RunRecordJson(run), "run.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->jobs.size(), 2u);
  EXPECT_EQ(back->jobs[0].name, run.jobs[0].name);
  EXPECT_EQ(back->jobs[0].finish_s, 10.0 / 3.0);  // exact: shortest round-trip doubles
  EXPECT_EQ(back->jobs[0].first_start_s, 1.5);
  EXPECT_EQ(back->jobs[1].first_start_s, -1);
  EXPECT_EQ(back->jobs[1].deadline_s, 100);
  EXPECT_EQ(back->jobs[0].deadline_s, kNoDeadline);
  EXPECT_EQ(back->jobs[0].dropped_s, 2.0);
  EXPECT_EQ(back->jobs[1].dropped_s, -1);
  EXPECT_EQ(RunRecordJson(run).find("dropped_s"), RunRecordJson(run).rfind("dropped_s"));  // job a's only
  EXPECT_EQ(back->timeline.size(), 2u);
  EXPECT_EQ(std::vector<int>(back->BusyByType(1).begin(), back->BusyByType(1).end()), (std::vector<int>{2, 0}));
  EXPECT_EQ(back->device_types, run.device_types);
  // Same summary file from the original and from the copy read back.
  EXPECT_EQ(SummaryJson(*back, Summarize(*back)), SummaryJson(run, Summarize(run)));
  EXPECT_EQ(JobsCsv(*back), JobsCsv(run));
  EXPECT_EQ(RunRecordJson(*back), RunRecordJson(run));
}

// The exact text (nlohmann's dump with one-space indentation, written key by key for speed):
// the job and timeline arrays nest two levels deep, doubles keep their shortest round-trip form
// (50 -> 50.0), an absent deadline is null, and an empty array is [].
TEST(RunRecordJsonTest, ExactLayout) {
  RunRecord run;
  run.policy = "fifo";
  run.placer = "pack";
  run.planner = "dp";
  run.trace = "t";
  run.cluster_summary = "c";
  run.seed = 7;
  run.total_devices = 4;
  run.device_types = {"v100"};
  run.devices_per_type = {4};
  run.idle_power_watts = 50;
  run.scheduler_calls = 3;
  run.events = 5;
  const std::string head =
      "{\n \"format\": \"hetsched-run-record-1\",\n \"policy\": \"fifo\",\n \"placer\": \"pack\",\n"
      " \"planner\": \"dp\",\n \"trace\": \"t\",\n \"cluster\": \"c\",\n \"seed\": 7,\n \"total_devices\": 4,\n"
      " \"device_types\": [\n  \"v100\"\n ],\n \"devices_per_type\": [\n  4\n ],\n \"idle_power_watts\": 50.0,\n"
      " \"jobs_rejected\": 0,\n \"rejected_reasons\": [],\n \"scheduler_calls\": 3,\n \"events\": 5,\n";
  EXPECT_EQ(RunRecordJson(run), head + " \"jobs\": [],\n \"timeline\": []\n}\n");
  JobRecord j;
  j.id = 1;
  j.name = "a";
  j.num_gpus = 2;
  j.finish_s = 2.5;
  run.jobs = {j};
  run.AppendSample({0.5, 2, 1, 0}, std::vector<int>{2});
  EXPECT_EQ(RunRecordJson(run),
            head +
                " \"jobs\": [\n  {\n   \"id\": 1,\n   \"name\": \"a\",\n   \"user\": \"\",\n   \"model\": \"\",\n"
                "   \"num_gpus\": 2,\n   \"priority\": 0,\n   \"device_type\": -1,\n   \"device_type_name\": \"\",\n"
                "   \"submit_s\": 0.0,\n   \"first_start_s\": -1.0,\n   \"finish_s\": 2.5,\n   \"deadline_s\": null,\n"
                "   \"ideal_runtime_s\": 0.0,\n   \"gpu_seconds\": 0.0,\n   \"busy_energy_joules\": 0.0,\n"
                "   \"cost_usd\": 0.0,\n   \"cross_node_bytes\": 0.0,\n   \"preemptions\": 0,\n   \"max_span_nodes\": 0\n"
                "  }\n ],\n"
                " \"timeline\": [\n  [\n   0.5,\n   2,\n   1,\n   0,\n   [\n    2\n   ]\n  ]\n ]\n}\n");
}

TEST(RunRecordJsonTest, BadInputNamesTheField) {
  auto r = ParseRunRecordJson("{\"format\": \"other\"}", "x/run.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x/run.json"), std::string::npos);
  std::string text = RunRecordJson(Sample());
  const std::string key = "\"gpu_seconds\": 3.25";
  ASSERT_NE(text.find(key), std::string::npos);
  text.replace(text.find(key), key.size(), "\"gpu_seconds\": \"lots\"");
  auto bad = ParseRunRecordJson(text, "run.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("jobs[0].gpu_seconds"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(ParseRunRecordJson("not json", "run.json").ok());
}

// A timeline row has one busy count per device type: a shorter row reads as zeros for the types
// after it, a longer one is an error naming the sample.
TEST(RunRecordJsonTest, TimelineRowsPerDeviceType) {
  const std::string text = RunRecordJson(Sample());
  const std::string row = "[\n    2,\n    0\n   ]";  // sample 1: a100 2, v100 0
  ASSERT_NE(text.find(row), std::string::npos);
  std::string short_row = text;
  short_row.replace(short_row.find(row), row.size(), "[\n    2\n   ]");
  auto padded = ParseRunRecordJson(short_row, "run.json");
  ASSERT_TRUE(padded.ok()) << padded.status().message();
  EXPECT_EQ(std::vector<int>(padded->BusyByType(1).begin(), padded->BusyByType(1).end()), (std::vector<int>{2, 0}));
  std::string long_row = text;
  long_row.replace(long_row.find(row), row.size(), "[2, 0, 1]");
  auto bad = ParseRunRecordJson(long_row, "run.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("timeline[1]: 3 busy counts for 2 device types"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace hetsched
