#include "hetsched/perf/validation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "hetsched/util/file_io.h"
#include "perf_fixtures.h"

namespace hetsched {
namespace {

// A catalog whose "k80" is the fixtures' gpu-a (F = 5e12 FLOP/s, W = 1e12 B/s, kappa 2 ms),
// with NVLink-like peers and 10 GbE-like NICs (1.25e9 x 0.7 = 8.75e8 B/s, 30 us).
struct SmallWorld {
  DeviceCatalog devices;
  LinkCatalog links;
  ModelZoo zoo;
  SmallWorld() {
    DeviceType k80;
    k80.name = "k80";
    k80.fp32_flops = 10e12;
    k80.efficiency = 0.5;
    k80.memory_bandwidth_Bps = 1e12;
    k80.memory_bytes = 16e9;
    k80.iteration_overhead_s = 0.002;
    k80.peer_link = "nvl";
    devices.Add(k80);
    links.Add(LinkClass{"nvl", "NVLink-like", 150e9, 2e-6, 0.8, "test"});
    links.Add(LinkClass{"eth10", "10 GbE-like", 1.25e9, 30e-6, 0.7, "test"});
    ModelProfile model = perf_test::OneLayerModel();
    model.name = "resnet18-cifar";
    zoo.Add(model);
  }
};

GavelThroughputRow Row(bool consolidated, int scale, double steps) {
  GavelThroughputRow r;
  r.gpu_type = "k80";
  r.consolidated = consolidated;
  r.job_type = "ResNet-18 (batch size 64)";
  r.scale_factor = scale;
  r.steps_per_second = steps;
  return r;
}

TEST(ValidateAgainstGavelTest, PredictsStepsAsWorkersOverIterationTime) {
  SmallWorld w;
  const std::vector<GavelThroughputRow> rows = {Row(true, 1, 5.0), Row(false, 2, 10.0),
                                                Row(true, 2, 0.0)};
  auto report = ValidateAgainstGavel(rows, w.zoo, w.devices, w.links);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->points.size(), 2u);
  // Batch 64: 64 * 3e9 / 5e12 = 38.4 ms (memory 64 * 2e6 / 1e12 = 0.128 ms, hidden) + 2 ms
  // = 40.4 ms: 1 / 0.0404 = 24.752 steps/s.
  EXPECT_NEAR(report->points[0].predicted_steps_per_s, 1 / 0.0404, 1e-9);
  EXPECT_NEAR(report->points[0].log_ratio, std::log((1 / 0.0404) / 5.0), 1e-12);
  // Two one-GPU servers over 10 GbE: ring of 2, 2 * 30 us + 1e8 / 8.75e8 = 114.3457 ms;
  // Gavel counts both workers' steps: 2 / (40.4 ms + 114.3457 ms) = 12.924 steps/s.
  const double iteration_s = 0.0404 + 60e-6 + 1e8 / 8.75e8;
  EXPECT_NEAR(report->points[1].predicted_steps_per_s, 2 / iteration_s, 1e-9);
  // The 0 steps/s row is a measured failure, not a point; the model fits it in memory.
  EXPECT_EQ(report->measured_failures, 1);
  EXPECT_EQ(report->failures_predicted_out_of_memory, 0);
  ASSERT_EQ(report->per_model.size(), 1u);
  const double r0 = std::log((1 / 0.0404) / 5.0);
  const double r1 = std::log((2 / iteration_s) / 10.0);
  EXPECT_EQ(report->per_model[0].points, 2);
  EXPECT_NEAR(report->per_model[0].median_abs_log_ratio, 0.5 * (std::fabs(r0) + std::fabs(r1)), 1e-12);
  EXPECT_NEAR(report->per_model[0].max_abs_log_ratio, std::max(std::fabs(r0), std::fabs(r1)), 1e-12);
  EXPECT_NEAR(report->per_model[0].mean_log_ratio, 0.5 * (r0 + r1), 1e-12);
  // The six other mapped models are not in this zoo.
  EXPECT_EQ(report->missing_models.size(), 6u);
  EXPECT_NE(FormatValidationMarkdown(*report).find("| k80 | no | ResNet-18 (batch size 64) | 2 |"),
            std::string::npos);
}

TEST(ValidateAgainstGavelTest, UnknownGpuOrLinkIsAnError) {
  SmallWorld w;
  std::vector<GavelThroughputRow> rows = {Row(true, 1, 5.0)};
  rows[0].gpu_type = "h900";
  auto report = ValidateAgainstGavel(rows, w.zoo, w.devices, w.links);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("h900"), std::string::npos);
  rows[0].gpu_type = "k80";
  ValidationSetup setup;
  setup.nic = "eth400";
  EXPECT_FALSE(ValidateAgainstGavel(rows, w.zoo, w.devices, w.links, setup).ok());
  rows[0].scale_factor = 16;  // more than the 8 GPUs of a server
  EXPECT_FALSE(ValidateAgainstGavel(rows, w.zoo, w.devices, w.links).ok());
}

TEST(RecommendEfficienciesTest, FindsTheEfficiencyThatMatchesAComputeBoundRow) {
  SmallWorld w;
  // Measured as if F were 0.25 x 10e12: 64 * 3e9 / 2.5e12 = 76.8 ms + 2 ms = 78.8 ms.
  const std::vector<GavelThroughputRow> rows = {Row(true, 1, 1 / 0.0788)};
  auto recs = RecommendEfficiencies(rows, w.zoo, w.devices, w.links);
  ASSERT_TRUE(recs.ok()) << recs.status().ToString();
  ASSERT_EQ(recs->size(), 1u);
  EXPECT_DOUBLE_EQ((*recs)[0].catalog_efficiency, 0.5);
  EXPECT_NEAR((*recs)[0].recommended_efficiency, 0.25, 1e-12);
  EXPECT_NEAR((*recs)[0].recommended_median_abs_log_ratio, 0.0, 1e-9);
  EXPECT_GT((*recs)[0].catalog_median_abs_log_ratio, 0.5);  // ln(78.8 / 40.4) = 0.668
}

// Regression guard on the real data: Gavel's measured throughputs against the built-in zoo,
// device and link catalogs. The bounds are the errors measured when this test was written
// (docs/perf-validation.md) plus a margin; a change that makes the model worse fails here.
// A change that makes it better should lower these numbers.
struct Bound {
  const char* job_type;
  double median_abs_log_ratio;
  double max_abs_log_ratio;
};
constexpr double kMedianMargin = 0.05;
constexpr double kMaxMargin = 0.10;
constexpr Bound kBounds[] = {
    {"ResNet-18 (batch size 64)", 0.231, 0.333},
    {"ResNet-50 (batch size 32)", 0.225, 0.945},
    {"Transformer (batch size 128)", 0.216, 0.430},
    {"LM (batch size 20)", 0.728, 1.557},
    {"Recommendation (batch size 2048)", 0.766, 2.021},
    {"A3C", 3.795, 3.801},
    {"CycleGAN", 0.401, 0.432},
};
constexpr double kOverallMedian = 0.278;

TEST(GavelValidationTest, ErrorsDoNotGrowBeyondTheRecordedLevel) {
  auto text = ReadFile(HETSCHED_SOURCE_DIR "/data/real/gavel/throughputs.csv");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto rows = ParseGavelThroughputs(*text, "data/real/gavel/throughputs.csv");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 492u);
  auto report = ValidateAgainstGavel(*rows, ModelZoo::BuiltIn(), DeviceCatalog::BuiltIn(),
                                     LinkCatalog::BuiltIn());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->missing_models.empty());
  // 4 types x 2 layouts x 3 GPUs x 4 scales = 96, plus 3 single-GPU types x 6 rows = 18.
  EXPECT_EQ(report->points.size(), 114u);
  ASSERT_EQ(report->per_model.size(), std::size(kBounds));
  for (size_t i = 0; i < std::size(kBounds); ++i) {
    const ValidationError& e = report->per_model[i];
    EXPECT_EQ(e.job_type, kBounds[i].job_type);
    EXPECT_LE(e.median_abs_log_ratio, kBounds[i].median_abs_log_ratio + kMedianMargin) << e.job_type;
    EXPECT_LE(e.max_abs_log_ratio, kBounds[i].max_abs_log_ratio + kMaxMargin) << e.job_type;
  }
  EXPECT_LE(report->overall.median_abs_log_ratio, kOverallMedian + kMedianMargin);
  EXPECT_EQ(report->fitting_rows_predicted_out_of_memory, 0);
}

}  // namespace
}  // namespace hetsched
