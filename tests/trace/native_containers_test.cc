// The native format's parameter-server container columns: defaults, derivation of num_workers,
// the round trip, and every bad input naming file, line and field.
#include <gtest/gtest.h>

#include "trace_test_util.h"

namespace hetsched {
namespace {

using trace_test::Devices;
using trace_test::Parse;

constexpr const char* kNativeContainersHeader =
    "submit_time_s,model,num_gpus,iterations,parallelism,num_ps,num_workers,ps_cpu,ps_memory_gib,ps_gpus,"
    "worker_cpu,worker_memory_gib,worker_gpus\n";
constexpr int64_t kGiB = 1073741824;

TEST(NativeContainersTest, ReadsRequestsAndDefaults) {
  const std::string text = std::string(kNativeContainersHeader) +
      "0,resnet50,8,100,ps,2,4,1.5,4,0,6,32,2\n"  // 4 workers x 2 GPUs = 8
      "1,resnet50,3,100,,1,,,,,,,\n"              // defaults; num_workers = 3 / 1
      "2,resnet50,2,100,,,,,,,,,\n";              // a plain job
  auto w = Parse(text, "native");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const JobSpec& a = w->jobs[0].spec;
  EXPECT_TRUE(a.is_container_job());
  EXPECT_EQ(a.num_ps, 2);
  EXPECT_EQ(a.num_workers, 4);
  EXPECT_EQ(a.parallelism, Parallelism::kDataPS);
  EXPECT_EQ(a.ps_request.cpu_millicores, 1500);
  EXPECT_EQ(a.ps_request.memory_bytes, 4 * kGiB);
  EXPECT_EQ(a.ps_request.gpus, 0);
  EXPECT_EQ(a.worker_request.cpu_millicores, 6000);
  EXPECT_EQ(a.worker_request.memory_bytes, 32 * kGiB);
  EXPECT_EQ(a.worker_request.gpus, 2);
  const JobSpec& b = w->jobs[1].spec;
  EXPECT_EQ(b.num_ps, 1);
  EXPECT_EQ(b.num_workers, 3);
  EXPECT_EQ(b.parallelism, Parallelism::kDataPS);  // implied by num_ps
  EXPECT_EQ(b.ps_request.cpu_millicores, 2000);    // defaults: 2 cores, 8 GiB, 0 GPUs
  EXPECT_EQ(b.ps_request.memory_bytes, 8 * kGiB);
  EXPECT_EQ(b.worker_request.cpu_millicores, 4000);  // 4 cores, 16 GiB, 1 GPU
  EXPECT_EQ(b.worker_request.memory_bytes, 16 * kGiB);
  EXPECT_EQ(b.worker_request.gpus, 1);
  EXPECT_FALSE(w->jobs[2].spec.is_container_job());
}

TEST(NativeContainersTest, RoundTripsThroughToNativeTrace) {
  auto w = Parse(std::string(kNativeContainersHeader) + "0,resnet50,7,100,ps,3,4,0.25,1.5,1,7.125,12.75,1\n", "native");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const std::string written = ToNativeTrace(*w, Devices());
  auto again = Parse(written, "native");
  ASSERT_TRUE(again.ok()) << again.status().ToString() << "\n" << written;
  const JobSpec& x = w->jobs[0].spec;
  const JobSpec& y = again->jobs[0].spec;
  EXPECT_EQ(y.num_ps, 3);
  EXPECT_EQ(y.num_workers, 4);
  EXPECT_EQ(y.ps_request.cpu_millicores, 250);
  EXPECT_EQ(y.ps_request.memory_bytes, x.ps_request.memory_bytes);
  EXPECT_EQ(y.ps_request.gpus, 1);
  EXPECT_EQ(y.worker_request.cpu_millicores, 7125);
  EXPECT_EQ(y.worker_request.memory_bytes, x.worker_request.memory_bytes);
  EXPECT_EQ(ToNativeTrace(*again, Devices()), written);
}

TEST(NativeContainersTest, EveryBadFieldNamesFileLineAndField) {
  struct BadCase {
    const char* row;
    const char* expected;
  };
  const BadCase cases[] = {
      {"0,resnet50,2,1,,-1,,,,,,,", "t.csv:2: field 'num_ps': must be an integer in [0, 100000], got -1"},
      {"0,resnet50,2,1,,x,,,,,,,", "t.csv:2: field 'num_ps': expected an integer"},
      {"0,resnet50,2,1,,0,2,,,,,,", "t.csv:2: field 'num_workers': only parameter-server container jobs"},
      {"0,resnet50,2,1,,,,,,,4,,", "t.csv:2: field 'worker_cpu': only parameter-server container jobs"},
      {"0,resnet50,2,1,ring,1,2,,,,,,", "t.csv:2: field 'parallelism': a container job (num_ps >= 1) is 'ps', got 'ring'"},
      {"0,resnet50,2,1,,1,0,,,,,,", "t.csv:2: field 'num_workers': must be an integer in [1, 100000], got 0"},
      {"0,resnet50,2,1,,1,2,0,,,,,", "t.csv:2: field 'ps_cpu': must be in (0, 1e6] cores, got 0"},
      {"0,resnet50,2,1,,1,2,,-3,,,,", "t.csv:2: field 'ps_memory_gib': must be in (0, 1e6] GiB, got -3"},
      {"0,resnet50,2,1,,1,2,,,-1,,,", "t.csv:2: field 'ps_gpus': must be an integer in [0, 100000], got -1"},
      {"0,resnet50,2,1,,1,2,,,,nan,,", "t.csv:2: field 'worker_cpu': "},
      {"0,resnet50,2,1,,1,2,,,,,big,", "t.csv:2: field 'worker_memory_gib': expected a number"},
      {"0,resnet50,2,1,,1,2,,,,,,0", "t.csv:2: field 'worker_gpus': must be an integer in [1, 100000], got 0"},
      {"0,resnet50,5,1,,1,2,,,,,,2",
       "t.csv:2: field 'num_gpus': a container job holds num_workers x worker_gpus + num_ps x ps_gpus = 2 x 2 + 1 x 0 = 4 GPUs, the row says 5"},
      {"0,resnet50,5,1,,1,,,,,,,2", "t.csv:2: field 'num_workers': missing, and num_gpus 5 minus the servers' 0 GPUs"},
  };
  for (const BadCase& c : cases) {
    auto w = Parse(std::string(kNativeContainersHeader) + c.row + "\n", "native");
    ASSERT_FALSE(w.ok()) << c.row;
    EXPECT_NE(w.status().message().find(c.expected), std::string::npos)
        << "row: " << c.row << "\nmessage: " << w.status().message();
  }
}

}  // namespace
}  // namespace hetsched
