// Pollux's workload CSV (trace/pollux_format.cc) on rows written here, with the project's copy of
// Pollux's profiles (data/real/pollux/traces) as the applications' truth.
#include <gtest/gtest.h>

#include "hetsched/trace/goodput_catalog.h"
#include "trace_test_util.h"
#include "two_type_profiles.h"

namespace hetsched {
namespace {

using trace_test::Parse;

constexpr const char* kPolluxHeader = "name,time,application,num_replicas,batch_size\n";

TraceReadOptions WithPolluxProfiles() {
  TraceReadOptions o;
  o.goodput_profiles = HETSCHED_SOURCE_DIR "/data/real/pollux/traces";
  return o;
}

TEST(PolluxFormatTest, ReadsJobsWithTheirApplicationsAndTunedBatches) {
  const std::string text = std::string(kPolluxHeader) +
                           "cifar10-0,107,cifar10,6,2048\n"
                           "bert-1,110,bert,2,18\n"
                           "cifar10-2,50,cifar10,4,1536\n";
  auto w = Parse(text, "pollux", WithPolluxProfiles());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 3u);
  // Sorted by submission: cifar10-2 (50 s), cifar10-0 (107 s), bert-1 (110 s).
  const JobSpec& a = w->jobs[0].spec;
  EXPECT_EQ(a.name, "cifar10-2");
  EXPECT_DOUBLE_EQ(a.submit_time_s, 50);
  EXPECT_EQ(a.num_gpus, 4);
  EXPECT_EQ(a.batch_size, 384);  // 1536 / 4
  EXPECT_EQ(a.model, "resnet18-cifar");
  EXPECT_EQ(a.application, "cifar10");
  EXPECT_TRUE(a.adaptive_batch);  // no category column: adaptive, as in Sia's reader
  EXPECT_TRUE(a.elastic);
  // Between the validated 1024 (5,722 iterations to epoch 100) and 2048 (3,178): halfway, 4,450.
  EXPECT_EQ(a.iterations, 4450);
  EXPECT_DOUBLE_EQ(w->jobs[0].truth.total_iterations, 4450);
  const JobSpec& b = w->jobs[1].spec;
  EXPECT_EQ(b.batch_size, 342);  // ceil(2048 / 6)
  EXPECT_EQ(b.iterations, 3178);  // validation-2048.csv, epoch 100
  const JobSpec& c = w->jobs[2].spec;
  EXPECT_EQ(c.model, "bert-base");
  EXPECT_EQ(c.batch_size, 9);
  // Between 12 (14,774 iterations to epoch 2) and 24 (7,427): (6 x 7,427 + 6 x 14,774) / 12 =
  // 11,100.5, rounded up.
  EXPECT_EQ(c.iterations, 11101);
  ASSERT_EQ(w->applications.size(), 2u);
  EXPECT_EQ(w->applications.at("cifar10").reference().max_epochs(), 100);  // Pollux's setting for cifar10
  EXPECT_EQ(w->applications.at("bert").reference().max_epochs(), 2);
}

TEST(PolluxFormatTest, CategoriesSayWhatTheSystemMayChange) {
  const std::string text = "name,time,application,num_replicas,batch_size,category\n"
                           "a,0,cifar10,1,128,rigid\n"
                           "b,1,cifar10,2,256,scale-gpus\n"
                           "c,2,cifar10,2,256,Adaptive\n";
  auto w = Parse(text, "pollux", WithPolluxProfiles());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_FALSE(w->jobs[0].spec.adaptive_batch);
  EXPECT_FALSE(w->jobs[0].spec.elastic);
  EXPECT_FALSE(w->jobs[1].spec.adaptive_batch);
  EXPECT_TRUE(w->jobs[1].spec.elastic);
  EXPECT_TRUE(w->jobs[2].spec.adaptive_batch);
}

TEST(PolluxFormatTest, BadRowsNameLineAndField) {
  struct Case {
    std::string row, expected;
  };
  const Case cases[] = {
      {"a,0,resnet,1,128", "t.csv:2: field 'application': unknown application 'resnet'"},
      {"a,0,cifar10,0,128", "t.csv:2: field 'num_replicas'"},
      {"a,0,cifar10,1,0", "t.csv:2: field 'batch_size': must be in [1, 1e9]"},
      {"a,0,cifar10,1,8192", "t.csv:2: field 'batch_size': application 'cifar10': batch size 8192"},
      {"a,-5,cifar10,1,128", "t.csv:2: field 'time'"},
  };
  for (const Case& c : cases) {
    auto w = Parse(std::string(kPolluxHeader) + c.row + "\n", "pollux", WithPolluxProfiles());
    ASSERT_FALSE(w.ok()) << c.row;
    EXPECT_NE(w.status().message().find(c.expected), std::string::npos) << w.status().message();
  }
  auto bad_category = Parse("name,time,application,num_replicas,batch_size,category\na,0,cifar10,1,128,elastic\n",
                            "pollux", WithPolluxProfiles());
  ASSERT_FALSE(bad_category.ok());
  EXPECT_NE(bad_category.status().message().find("t.csv:2: field 'category'"), std::string::npos);
  TraceReadOptions nowhere;
  nowhere.goodput_profiles = "/nonexistent/profiles";
  auto missing = Parse(std::string(kPolluxHeader) + "a,0,cifar10,1,128\n", "pollux", nowhere);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/profiles"), std::string::npos);
}

// A Pollux workload written as hetsched's native CSV keeps its goodput jobs (columns application,
// adaptive_batch, total_batch_size) and reads back to the same jobs and applications; written
// again, the same text.
TEST(PolluxFormatTest, GoodputJobsRoundTripThroughTheNativeFormat) {
  const std::string text = "name,time,application,num_replicas,batch_size,category\n"
                           "a,0,cifar10,6,2048,\n"
                           "b,5,bert,2,18,rigid\n"
                           "c,9,ncf,1,32768,scale-gpus\n";
  auto w = Parse(text, "pollux", WithPolluxProfiles());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const std::string native = ToNativeTrace(*w, DeviceCatalog::BuiltIn());
  EXPECT_NE(native.find(",application,adaptive_batch,total_batch_size\n"), std::string::npos) << native;
  auto back = Parse(native, "native", WithPolluxProfiles());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->jobs.size(), w->jobs.size());
  for (size_t i = 0; i < w->jobs.size(); ++i) {
    const JobSpec& x = w->jobs[i].spec;
    const JobSpec& y = back->jobs[i].spec;
    EXPECT_EQ(y.application, x.application) << i;
    EXPECT_EQ(y.adaptive_batch, x.adaptive_batch) << i;
    EXPECT_EQ(y.elastic, x.elastic) << i;
    EXPECT_EQ(y.total_batch_size, x.total_batch_size) << i;
    EXPECT_EQ(y.batch_size, x.batch_size) << i;
    EXPECT_EQ(y.allowed_types, x.allowed_types) << i;
    EXPECT_EQ(back->jobs[i].truth.total_iterations, w->jobs[i].truth.total_iterations) << i;
  }
  EXPECT_EQ(back->applications.size(), 3u);
  EXPECT_EQ(ToNativeTrace(*back, DeviceCatalog::BuiltIn()), native);
}

TEST(PolluxFormatTest, NativeGoodputColumnsRefuseBadInput) {
  const std::string header = "submit_time_s,model,num_gpus,iterations,batch_size,application,adaptive_batch,total_batch_size\n";
  auto expect_error = [&](const std::string& row, const std::string& want) {
    auto w = Parse(header + row, "native", WithPolluxProfiles());
    ASSERT_FALSE(w.ok()) << row;
    EXPECT_NE(w.status().message().find(want), std::string::npos) << w.status().message();
  };
  expect_error("0,resnet18-cifar,1,10,128,,,256\n", "field 'total_batch_size': only a goodput job has it");
  expect_error("0,resnet18-cifar,1,10,128,,1,\n", "field 'adaptive_batch': only a goodput job has it");
  expect_error("0,resnet18-cifar,1,10,128,cifar11,1,128\n", "field 'application': unknown application 'cifar11'");
  expect_error("0,resnet18-cifar,1,10,128,cifar10,maybe,128\n", "field 'adaptive_batch': expected 0, 1, true or false");
  expect_error("0,resnet18-cifar,1,10,128,cifar10,1,0\n", "field 'total_batch_size': must be in [1, 1e9]");
  expect_error("0,resnet18-cifar,2,10,,cifar10,1,\n", "a goodput job needs its tuned batch");
  // Without total_batch_size: num_gpus x batch_size; without allowed_types: the profiles' device.
  auto w = Parse(header + "0,resnet18-cifar,2,10,128,cifar10,1,\n", "native", WithPolluxProfiles());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->jobs[0].spec.total_batch_size, 256);
  ASSERT_EQ(w->jobs[0].spec.allowed_types.size(), 1u);
  EXPECT_EQ(DeviceCatalog::BuiltIn().type(w->jobs[0].spec.allowed_types[0]).name, "t4");
}

TEST(PolluxFormatTest, DetectedFromItsHeaderWithTheBuiltInProfiles) {
  // No profile directory given: the copy of Pollux's profiles in the data tree beside the program.
  auto w = Parse(std::string(kPolluxHeader) + "a,0,imagenet,8,1600\n", "auto");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->jobs[0].spec.model, "resnet50");
  EXPECT_EQ(w->jobs[0].spec.application, "imagenet");
  EXPECT_EQ(w->jobs[0].spec.batch_size, 200);
}

// Sia's layout: one placements and scalability file per GPU type (here a synthetic second type,
// the T4 times halved), the validation runs shared. A job may run on every type, each at its own
// times; its epochs are the same on both.
TEST(PolluxFormatTest, ProfilesOfSeveralGpuTypesGiveEachTypeItsOwnTimes) {
  TraceReadOptions o;
  o.goodput_profiles = testing_util::MakeScaledProfiles(trace_test::TestDir(), "cifar10", {{"slow", 1.0}, {"fast", 0.5}});
  o.goodput_types = {{"slow", "t4"}, {"fast", "a100-40gb"}};
  auto w = Parse(std::string(kPolluxHeader) + "cifar10-0,0,cifar10,2,256\n", "pollux", o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  EXPECT_EQ(w->jobs[0].spec.allowed_types, (std::vector<DeviceTypeId>{devices.Find("t4"), devices.Find("a100-40gb")}));
  const GoodputTruth& truth = w->applications.at("cifar10");
  ASSERT_EQ(truth.by_type.size(), 2u);
  const GoodputApplication* slow = truth.On(devices.Find("t4"));
  const GoodputApplication* fast = truth.On(devices.Find("a100-40gb"));
  ASSERT_TRUE(slow != nullptr && fast != nullptr);
  EXPECT_EQ(truth.On(devices.Find("v100")), nullptr);
  // placements.csv's first row, "1" at local batch 32: 0.0427886962890625 s, half of it on "fast".
  const std::vector<int> one = {1};
  EXPECT_DOUBLE_EQ(slow->StepTime(one, 32)->step_s, 0.0427886962890625);
  EXPECT_DOUBLE_EQ(fast->StepTime(one, 32)->step_s, 0.0427886962890625 / 2);
  EXPECT_EQ(fast->ProgressAt(fast->max_epochs()), slow->ProgressAt(slow->max_epochs()));

  auto expect_error = [&](std::vector<std::pair<std::string, std::string>> types, const std::string& want) {
    TraceReadOptions bad = o;
    bad.goodput_types = std::move(types);
    auto r = Parse(std::string(kPolluxHeader) + "cifar10-0,0,cifar10,2,256\n", "pollux", bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(want), std::string::npos) << r.status().message();
  };
  expect_error({{"slow", "t4"}, {"medium", "v100"}}, "placements-medium.csv");
  expect_error({{"slow", "no-such-gpu"}}, "'no-such-gpu', is not in the device catalog");
  expect_error({{"slow", "t4"}, {"fast", "t4"}}, "given twice");
  TraceReadOptions settings = o;
  settings.goodput_settings = "gavel";
  auto r = Parse(std::string(kPolluxHeader) + "cifar10-0,0,cifar10,2,256\n", "pollux", settings);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("settings must be 'pollux' or 'sia'"), std::string::npos) << r.status().message();
}

// Sia's settings beside the files: no local-batch cap for yolov3 (Pollux's: 8), deepspeech2's 57
// on rtx, ncf unpinned.
TEST(PolluxFormatTest, SiasApplicationSettings) {
  EXPECT_EQ(PolluxApplicationSettings("yolov3").max_local_bsz, 8);
  EXPECT_EQ(SiaApplicationSettings("yolov3", "aws").max_local_bsz, 0);
  EXPECT_EQ(SiaApplicationSettings("yolov3", "aws").max_epochs, 50);
  EXPECT_EQ(SiaApplicationSettings("deepspeech2", "rtx").max_local_bsz, 57);
  EXPECT_EQ(SiaApplicationSettings("deepspeech2", "aws").max_local_bsz, 0);
  EXPECT_EQ(SiaApplicationSettings("ncf", "aws").pinned_batch_size, 0);
  EXPECT_EQ(SiaApplicationSettings("ncf", "aws").max_replicas, 0);
  EXPECT_EQ(PolluxApplicationSettings("ncf").max_replicas, 1);
  // Sia's job model: delays per application, calibration slowdowns, local batch per placement.
  EXPECT_EQ(SiaApplicationSettings("cifar10", "aws").restart_delay_s, 50);
  EXPECT_DOUBLE_EQ(SiaApplicationSettings("cifar10", "aws").progress_scale, 1 / 1.8);
  EXPECT_EQ(SiaApplicationSettings("imagenet", "rtx").restart_delay_s, 250);
  EXPECT_DOUBLE_EQ(SiaApplicationSettings("imagenet", "rtx").progress_scale, 1 / 1.2);
  EXPECT_EQ(SiaApplicationSettings("ncf", "aws").restart_delay_s, 15);
  EXPECT_DOUBLE_EQ(SiaApplicationSettings("ncf", "aws").progress_scale, 1 / 1.5);
  EXPECT_EQ(SiaApplicationSettings("mine", "aws").restart_delay_s, 30);
  EXPECT_EQ(SiaApplicationSettings("mine", "aws").progress_scale, 1);
  EXPECT_TRUE(SiaApplicationSettings("bert", "aws").local_batch_per_placement);
  EXPECT_EQ(SiaApplicationSettings("bert", "aws").fit_tolerance, 1e-5);
  EXPECT_EQ(PolluxApplicationSettings("bert").fit_tolerance, 0);
  EXPECT_EQ(PolluxApplicationSettings("cifar10").restart_delay_s, 0);
  EXPECT_EQ(PolluxApplicationSettings("cifar10").progress_scale, 1);
  EXPECT_FALSE(PolluxApplicationSettings("cifar10").local_batch_per_placement);
}

}  // namespace
}  // namespace hetsched
