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
  JobRecord b;  // never started, no deadline, one with a deadline
  b.id = 18;
  b.deadline_s = 100;
  run.jobs = {a, b};
  run.timeline = {{0, 0, 0, 2, {0, 0}}, {1.5, 2, 1, 1, {2, 0}}};
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
  EXPECT_EQ(back->timeline.size(), 2u);
  EXPECT_EQ(back->timeline[1].busy_by_type, (std::vector<int>{2, 0}));
  EXPECT_EQ(back->device_types, run.device_types);
  // Same summary file from the original and from the copy read back.
  EXPECT_EQ(SummaryJson(*back, Summarize(*back)), SummaryJson(run, Summarize(run)));
  EXPECT_EQ(JobsCsv(*back), JobsCsv(run));
  EXPECT_EQ(RunRecordJson(*back), RunRecordJson(run));
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

}  // namespace
}  // namespace hetsched
