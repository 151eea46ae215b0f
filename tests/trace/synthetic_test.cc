// GenerateSynthetic: determinism, mixes, runtimes, estimates, option checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "trace_test_util.h"

namespace hetsched {
namespace {

using trace_test::Calibrated;
using trace_test::Devices;
using trace_test::Zoo;

Workload Generate(const SyntheticOptions& o) {
  auto w = GenerateSynthetic(o, Devices(), Zoo());
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return w.ok() ? std::move(w).value() : Workload{};
}

TEST(SyntheticTest, SameSeedSameTextDifferentSeedDifferentText) {
  SyntheticOptions o;
  o.num_jobs = 500;
  o.user_estimate_error = 0.3;
  const std::string a = ToNativeTrace(Generate(o), Devices());
  const std::string b = ToNativeTrace(Generate(o), Devices());
  EXPECT_EQ(a, b);
  o.seed = 2;
  EXPECT_NE(ToNativeTrace(Generate(o), Devices()), a);
}

TEST(SyntheticTest, JobsAreSortedNumberedAndCalibrated) {
  SyntheticOptions o;
  o.num_jobs = 200;
  const Workload w = Generate(o);
  ASSERT_EQ(w.jobs.size(), 200u);
  EXPECT_EQ(w.source, "synthetic(seed=1)");
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    const JobSpec& s = w.jobs[i].spec;
    EXPECT_EQ(s.id, static_cast<JobId>(i));
    EXPECT_EQ(s.name, "job-" + std::to_string(i));
    if (i > 0) {
      EXPECT_GE(s.submit_time_s, w.jobs[i - 1].spec.submit_time_s);
    }
    EXPECT_EQ(s.parallelism, s.num_gpus > 1 ? Parallelism::kDataRing : Parallelism::kSingle);
    // No estimate error: the estimate is the true runtime, and iterations come from it.
    EXPECT_EQ(s.iterations, Calibrated(s.model, s.num_gpus, s.estimated_runtime_s));
    EXPECT_EQ(w.jobs[i].truth.total_iterations, static_cast<double>(s.iterations));
    EXPECT_EQ(s.user.rfind("user-", 0), 0u);
  }
  // And it reads back through the native format.
  auto back = ParseTrace(ToNativeTrace(w, Devices()), "gen.csv", "native", {}, Devices(), Zoo());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->jobs.size(), 200u);
}

TEST(SyntheticTest, MixProportionsAndArrivalRate) {
  SyntheticOptions o;
  o.num_jobs = 20000;
  o.model_mix = {{"resnet50", 3}, {"a3c", 1}};
  const Workload w = Generate(o);
  std::map<int, int> sizes;
  int resnet = 0;
  for (const Job& j : w.jobs) {
    ++sizes[j.spec.num_gpus];
    resnet += j.spec.model == "resnet50" ? 1 : 0;
  }
  // Default sizes: 1 GPU with weight 10480 of 15249 = 0.687 (sd 0.0033 at n = 20000).
  EXPECT_NEAR(sizes[1] / 20000.0, 10480.0 / 15249, 0.02);
  EXPECT_NEAR(sizes[4] / 20000.0, 2044.0 / 15249, 0.015);
  EXPECT_NEAR(sizes[8] / 20000.0, 1916.0 / 15249, 0.015);
  EXPECT_EQ(sizes.size(), 6u);  // 1, 2, 4, 8, 16, 32
  EXPECT_NEAR(resnet / 20000.0, 0.75, 0.02);
  // 60 jobs/hour: mean gap 60 s (sd of the mean 0.42 s).
  EXPECT_NEAR(w.jobs.back().spec.submit_time_s / 20000.0, 60.0, 2.0);
  // Log-normal runtimes with median 1,200 s.
  std::vector<double> runtimes;
  for (const Job& j : w.jobs) runtimes.push_back(j.spec.estimated_runtime_s);
  std::nth_element(runtimes.begin(), runtimes.begin() + 10000, runtimes.end());
  EXPECT_NEAR(runtimes[10000], 1200.0, 60.0);
}

TEST(SyntheticTest, CustomSizesAndEmpiricalRuntimes) {
  SyntheticOptions o;
  o.num_jobs = 300;
  o.size_mix = {{3, 1}, {5, 0}};
  o.runtime_sample_s = {100, 200};
  o.num_users = 2;
  const Workload w = Generate(o);
  for (const Job& j : w.jobs) {
    EXPECT_EQ(j.spec.num_gpus, 3);  // weight 0 is never drawn
    EXPECT_TRUE(j.spec.estimated_runtime_s == 100 || j.spec.estimated_runtime_s == 200);
    EXPECT_TRUE(j.spec.user == "user-00" || j.spec.user == "user-01");
  }
}

TEST(SyntheticTest, EstimateErrorScalesTheSameTrueRuntimes) {
  SyntheticOptions exact;
  exact.num_jobs = 5000;
  SyntheticOptions noisy = exact;
  noisy.user_estimate_error = 0.5;
  const Workload a = Generate(exact);
  const Workload b = Generate(noisy);
  // Each quantity has its own random stream: arrivals, sizes, models and true runtimes are
  // unchanged, only the estimates move, by exp(N(0, 0.5)).
  double sum = 0, sum_sq = 0;
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    ASSERT_EQ(a.jobs[i].spec.submit_time_s, b.jobs[i].spec.submit_time_s);
    ASSERT_EQ(a.jobs[i].spec.model, b.jobs[i].spec.model);
    ASSERT_EQ(a.jobs[i].truth.total_iterations, b.jobs[i].truth.total_iterations);
    const double log_ratio = std::log(b.jobs[i].spec.estimated_runtime_s / a.jobs[i].spec.estimated_runtime_s);
    sum += log_ratio;
    sum_sq += log_ratio * log_ratio;
  }
  const double n = static_cast<double>(a.jobs.size());
  EXPECT_NEAR(sum / n, 0.0, 0.03);
  EXPECT_NEAR(std::sqrt(sum_sq / n - (sum / n) * (sum / n)), 0.5, 0.03);
}

TEST(SyntheticTest, SizeMixDoesNotMoveArrivals) {
  SyntheticOptions a;
  a.num_jobs = 100;
  SyntheticOptions b = a;
  b.size_mix = {{2, 1}};
  const Workload x = Generate(a), y = Generate(b);
  for (size_t i = 0; i < x.jobs.size(); ++i) EXPECT_EQ(x.jobs[i].spec.submit_time_s, y.jobs[i].spec.submit_time_s);
}

TEST(SyntheticTest, BadOptionsNameTheOption) {
  struct Case {
    SyntheticOptions o;
    const char* expected;
  };
  std::vector<Case> cases;
  SyntheticOptions o;
  o.num_jobs = -1;
  cases.push_back({o, "num_jobs: must be >= 0"});
  o = {};
  o.arrival_rate_per_hour = 0;
  cases.push_back({o, "arrival_rate_per_hour: must be > 0"});
  o = {};
  o.size_mix = {{1, 1}, {0, 1}};
  cases.push_back({o, "size_mix[1]: GPU count must be >= 1"});
  o = {};
  o.size_mix = {{1, -1}};
  cases.push_back({o, "size_mix[0]: weight must be finite and >= 0"});
  o = {};
  o.size_mix = {{1, 0}};
  cases.push_back({o, "size_mix: the weights must have a positive sum"});
  o = {};
  o.model_mix = {{"resnet50", 1}, {"nosuchnet", 1}};
  cases.push_back({o, "model_mix[1]: "});
  o = {};
  o.runtime_sample_s = {5, -1};
  cases.push_back({o, "runtime_sample_s[1]: must be finite and >= 0"});
  o = {};
  o.num_users = 0;
  cases.push_back({o, "num_users: must be >= 1"});
  o = {};
  o.user_estimate_error = -0.1;
  cases.push_back({o, "user_estimate_error: must be >= 0"});
  o = {};
  o.reference_device = "v200";
  cases.push_back({o, "reference_device: "});
  for (const Case& c : cases) {
    auto w = GenerateSynthetic(c.o, Devices(), Zoo());
    ASSERT_FALSE(w.ok()) << c.expected;
    EXPECT_NE(w.status().message().find(c.expected), std::string::npos) << w.status().message();
  }
}

}  // namespace
}  // namespace hetsched
