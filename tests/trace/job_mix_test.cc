// The job mix shared by the synthetic generator and the fill-in readers.
#include "hetsched/trace/job_mix.h"

#include <gtest/gtest.h>

#include "trace_test_util.h"

namespace hetsched::trace_internal {
namespace {

TEST(JobMixTest, DefaultSizeMixIsTheGavelMsrCounts) {
  const auto mix = DefaultSizeMix();
  ASSERT_EQ(mix.size(), 6u);
  double total = 0;
  for (const auto& [gpus, weight] : mix) total += weight;
  // 10480 + 463 + 2044 + 1916 + 255 + 91 = 15249 of the 15,264 msr jobs.
  EXPECT_EQ(total, 15249);
  EXPECT_EQ(mix.front().first, 1);
  EXPECT_EQ(mix.back().first, 32);
}

TEST(JobMixTest, NextTurnsTheGivenRuntimeIntoIterations) {
  SyntheticOptions o;
  o.model_mix = {{"vgg16", 1}};
  o.size_mix = {{8, 1}};
  auto mix = JobMix::Create(o, trace_test::Devices(), LinkCatalog::BuiltIn(), trace_test::Zoo());
  ASSERT_TRUE(mix.ok()) << mix.status().ToString();
  const Job a = mix->Next(5000);
  EXPECT_EQ(a.spec.model, "vgg16");
  EXPECT_EQ(a.spec.num_gpus, 8);
  EXPECT_EQ(a.spec.iterations, trace_test::Calibrated("vgg16", 8, 5000));
  EXPECT_DOUBLE_EQ(a.spec.estimated_runtime_s, 5000);
  const Job b = mix->Next(5000);
  EXPECT_GT(b.spec.submit_time_s, a.spec.submit_time_s);  // the clock moves on
  EXPECT_EQ(mix->DrawModel()->name, "vgg16");
}

TEST(JobMixTest, DrawsFollowTheWeights) {
  SyntheticOptions o;
  o.model_mix = {{"resnet50", 1}, {"a3c", 0}, {"vgg16", 1}};
  auto mix = JobMix::Create(o, trace_test::Devices(), LinkCatalog::BuiltIn(), trace_test::Zoo());
  ASSERT_TRUE(mix.ok());
  int resnet = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string& name = mix->DrawModel()->name;
    ASSERT_NE(name, "a3c");  // weight 0
    resnet += name == "resnet50" ? 1 : 0;
  }
  EXPECT_NEAR(resnet / 4000.0, 0.5, 0.04);  // sd 0.008
}

}  // namespace
}  // namespace hetsched::trace_internal
