// The goodput model (perf/goodput.h) and its fit (perf/goodput_fit.h), worked by hand:
// throughput, efficiency and goodput of known parameters; the batch size Optimize picks at the
// two extremes of gradient noise and with accumulation; the fit recovering a model's predictions
// from its own samples, pinning what the samples cannot tell, and refusing bad samples.
#include "hetsched/perf/goodput.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "hetsched/perf/goodput_fit.h"

namespace hetsched {
namespace {

// alpha_c 0.1, beta_c 0.01, alpha_n 0.2, beta_n 0.01, alpha_r 0.05, beta_r 0.005, gamma as given.
ThroughputParams Params(double gamma) { return {0.1, 0.01, 0.2, 0.01, 0.05, 0.005, gamma}; }

TEST(GoodputTest, ThroughputOfKnownParameters) {
  const GoodputModel no_overlap(Params(1.0), {1, 9}, 32);
  // 2 nodes, 4 GPUs, 32 per GPU: T_acc = 0.1 + 0.32 = 0.42; T_net = 0.2 + 0.01 x 2 = 0.22;
  // gamma 1: T_optim = 0.64; 128 samples / 0.64 s = 200/s.
  const GoodputConfig c{2, 4, 32, 0};
  EXPECT_DOUBLE_EQ(no_overlap.AccumTimeS(32), 0.42);
  EXPECT_DOUBLE_EQ(no_overlap.NetworkTimeS(2, 4), 0.22);
  EXPECT_NEAR(no_overlap.Throughput(c), 200, 1e-9);
  // Within one node: T_net = 0.05 + 0.005 x 2 = 0.06; one GPU: 1e-8 + 1e-8 x 1e-8.
  EXPECT_DOUBLE_EQ(no_overlap.NetworkTimeS(1, 4), 0.06);
  EXPECT_NEAR(no_overlap.NetworkTimeS(1, 1), 1e-8, 1e-15);
  // Two accumulated passes more: T_iter = 2 x 0.42 + 0.64 = 1.48 for 384 samples.
  EXPECT_NEAR(no_overlap.Throughput({2, 4, 32, 2}), 384 / 1.48, 1e-9);
  // gamma 2: T_optim = sqrt(0.42^2 + 0.22^2) = sqrt(0.2248).
  const GoodputModel overlap(Params(2.0), {1, 9}, 32);
  EXPECT_NEAR(overlap.IterationTimeS(c), std::sqrt(0.2248), 1e-12);
}

TEST(GoodputTest, EfficiencyIsTheNoiseScaleRatio) {
  // B_noise = var / sqr x M0 = 9 x 32 = 288: E(128) = (288 + 32) / (288 + 128) = 320 / 416.
  const GoodputModel m(Params(1.0), {1, 9}, 32);
  EXPECT_NEAR(m.Efficiency(128), 320.0 / 416.0, 1e-12);
  EXPECT_DOUBLE_EQ(m.Efficiency(32), 1.0);
  // Goodput = throughput x efficiency.
  EXPECT_NEAR(m.Goodput({2, 4, 32, 0}), 200 * 320.0 / 416.0, 1e-9);
  // No gradient statistics: the gain is 1, so E = M0 / M.
  const GoodputModel silent(Params(1.0), {0, 0}, 32);
  EXPECT_DOUBLE_EQ(silent.Efficiency(128), 0.25);
}

TEST(GoodputTest, GeomSpaceMatchesNumpy) {
  double v[5];
  GeomSpace(1, 10000, 5, v);
  EXPECT_EQ(v[0], 1);
  EXPECT_NEAR(v[1], 10, 1e-12);
  EXPECT_NEAR(v[2], 100, 1e-10);
  EXPECT_EQ(v[4], 10000);
}

TEST(GoodputTest, OptimizeFollowsTheGradientNoise) {
  BatchLimits limits;
  limits.max_batch_size = 1024;
  // Without noise every sample beyond M0 is wasted: the smallest batch wins (4 GPUs x 8 = 32).
  const GoodputModel quiet(Params(1.0), {1, 0}, 32);
  const BatchChoice small = quiet.Optimize(1, 4, limits);
  EXPECT_EQ(small.atomic_bsz, 8);
  EXPECT_EQ(small.accum_steps, 0);
  EXPECT_NEAR(small.goodput, quiet.Goodput({1, 4, 8, 0}), 1e-12);
  // With overwhelming noise efficiency stays ~1 and throughput grows with the batch: the largest.
  const GoodputModel noisy(Params(1.0), {1e-9, 1}, 32);
  const BatchChoice large = noisy.Optimize(1, 4, limits);
  EXPECT_EQ(large.atomic_bsz, 256);
  // Atomic batches capped at 64 and accumulation allowed: 1024 / 4 = 256 per GPU = 4 passes of 64.
  limits.max_atomic_bsz = 64;
  limits.accumulation = true;
  const BatchChoice split = noisy.Optimize(1, 4, limits);
  EXPECT_EQ(split.atomic_bsz, 64);
  EXPECT_EQ(split.accum_steps, 3);
  // Without accumulation the batches over 64 per GPU are invalid; the largest candidate left is
  // the 30th of 32 x 32^(i/49): 32 x 2^(145/49) = 248.9 in all, 62.2 per GPU, rounded up to 63.
  limits.accumulation = false;
  const BatchChoice capped = noisy.Optimize(1, 4, limits);
  EXPECT_EQ(capped.atomic_bsz, 63);
  EXPECT_EQ(capped.accum_steps, 0);
}

TEST(GoodputTest, OneGpuAboveTheInitialBatchAccumulatesAtLeastOnce) {
  const GoodputModel noisy(Params(1.0), {1e-9, 1}, 32);
  BatchLimits limits;
  limits.max_batch_size = 64;
  limits.max_atomic_bsz = 64;
  limits.accumulation = true;
  const BatchChoice c = noisy.Optimize(1, 1, limits);
  // 64 on one GPU fits one pass, but its gradient statistics need two: 2 passes of 32 (the
  // noise makes larger batches better, and 64 is the largest).
  EXPECT_EQ(c.atomic_bsz, 32);
  EXPECT_EQ(c.accum_steps, 1);
}

std::vector<ThroughputSample> SamplesOf(const ThroughputParams& p, const std::vector<GoodputConfig>& configs) {
  const GoodputModel m(p, {1, 1}, 1);
  std::vector<ThroughputSample> out;
  for (const GoodputConfig& c : configs) {
    const double accum = m.AccumTimeS(c.atomic_bsz);
    out.push_back({c.nodes, c.replicas, c.atomic_bsz, accum, m.OptimStepTimeS(accum, m.NetworkTimeS(c.nodes, c.replicas))});
  }
  return out;
}

// Seven exact samples of a model without overlap (gamma 1), which neither peer's fit recovers.
const ThroughputParams kSevenTruth{0.05, 0.004, 0.3, 0.02, 0.08, 0.01, 1.0};
const std::vector<GoodputConfig> kSevenConfigs = {{1, 1, 16, 0}, {1, 1, 64, 0}, {1, 2, 32, 0}, {1, 4, 32, 0},
                                                  {2, 8, 32, 0}, {4, 16, 64, 0}, {2, 4, 128, 0}};

// The fit of the seven samples under `tolerance`, checked against scipy's, parameter by
// parameter, to 1e-8 relative.
ThroughputParams ExpectFitAsScipys(double tolerance, const std::array<double, 7>& scipy) {
  auto fitted = FitThroughputParams(SamplesOf(kSevenTruth, kSevenConfigs), tolerance);
  EXPECT_TRUE(fitted.ok()) << fitted.status().message();
  if (!fitted.ok()) return {};
  const double ours[] = {fitted->alpha_c, fitted->beta_c, fitted->alpha_n, fitted->beta_n,
                         fitted->alpha_r, fitted->beta_r, fitted->gamma};
  for (size_t i = 0; i < 7; ++i) EXPECT_NEAR(ours[i] / scipy[i], 1.0, 1e-8) << "parameter " << i;
  return *fitted;
}

// Scipy 1.10.1's L-BFGS-B on Pollux's fit_perf_params (goodput.py:148-206, autograd's gradient)
// stops at the point below, run on the seven samples on the development machine (2026-12-03),
// where the relative decrease falls under factr x eps. The fit here runs the same Fortran
// L-BFGS-B with scipy's settings and stops at the same point.
TEST(GoodputFitTest, StopsWherePolluxsOwnFitStops) {
  const ThroughputParams fitted =
      ExpectFitAsScipys(0, {0.049999999912609, 0.004000000010396773, 0.09167865725128237, 0.04576398283439654,
                            0.08937146679724979, 0.017719765755366816, 1.0389192866546437});
  // The compute terms are found; the network ones explain the samples within 20%.
  const GoodputModel t(kSevenTruth, {1, 1}, 1), f(fitted, {1, 1}, 1);
  for (const GoodputConfig& c : kSevenConfigs) {
    EXPECT_NEAR(f.IterationTimeS(c) / t.IterationTimeS(c), 1.0, 0.2) << c.nodes << "x" << c.replicas;
  }
}

// The same samples under Sia's tolerance (its fit_perf_params passes tol=1e-5: ftol and gtol 1e-5,
// goodput.py:201-203): scipy 1.10.1 on Sia's own fit_perf_params stops at the point below
// (development machine, 2026-12-03), earlier than Pollux's; so does the fit here.
TEST(GoodputFitTest, StopsWhereSiasLooserFitStops) {
  const ThroughputParams loose =
      ExpectFitAsScipys(1e-5, {0.049999754226555886, 0.003999981844645454, 0.09169275741502678, 0.04574875582879547,
                               0.08939253625206682, 0.0177281441705543, 1.038889554071883});
  auto tight = FitThroughputParams(SamplesOf(kSevenTruth, kSevenConfigs));
  ASSERT_TRUE(tight.ok());
  EXPECT_NE(tight->gamma, loose.gamma);
}

// Debian's liblbfgsb writes "ascent direction in projection gd = ..." to standard output (Fortran
// unit 6) whatever iprint says, as this one sample makes it do; the fit keeps it off.
TEST(GoodputFitTest, WritesNothingToStandardOutput) {
  const std::vector<ThroughputSample> samples = {{1, 3, 32, 0.089643142448803531, 0.1166296085505717}};
  ::testing::internal::CaptureStdout();
  auto fitted = FitThroughputParams(samples);
  // gfortran buffers its unit 6: flushed here, anything the fit wrote would show.
  using FlushUnit = void (*)(int*);
  if (auto flush = reinterpret_cast<FlushUnit>(dlsym(RTLD_DEFAULT, "_gfortran_flush_i4"))) {
    int unit = 6;
    flush(&unit);
  }
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  EXPECT_EQ(out, "");
}

// The fit gives the same bits on every x86-64 CPU: its BLAS and LAPACK calls are answered by
// perf/lbfgsb/fixed_blas.h and its exp, log and pow by util/fixed_math.h, not by OpenBLAS's
// per-CPU kernels or glibc's per-CPU code paths (docs/goodput.md, "The same bits on every CPU").
// The bits below came from the development machine (AVX-512) and again with glibc's FMA and AVX
// paths turned off (GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F,-AVX); a CPU-dependent
// routine back in the fit would move them on some machine.
TEST(GoodputFitTest, GivesTheSameBitsOnEveryCpu) {
  const std::array<std::array<double, 7>, 2> expected = {{
      {0x1.9999998d96f82p-5, 0x1.0624dd3a8901dp-8, 0x1.77840a2a288ddp-4, 0x1.76e607341aea1p-5, 0x1.6e10c6715cc5ep-4,
       0x1.2252159a33314p-6, 0x1.09f69d475eb2ap+0},
      {0x1.999915a6c2421p-5, 0x1.06248f351461ap-8, 0x1.7792d32639075p-4, 0x1.76c618438c5efp-5, 0x1.6e26de3b9808ep-4,
       0x1.227539dbf7f67p-6, 0x1.09f4aa72df41fp+0},
  }};
  const std::array<double, 2> tolerances = {0.0, 1e-5};
  for (size_t t = 0; t < tolerances.size(); ++t) {
    auto f = FitThroughputParams(SamplesOf(kSevenTruth, kSevenConfigs), tolerances[t]);
    ASSERT_TRUE(f.ok()) << f.status().message();
    const std::array<double, 7> got = {f->alpha_c, f->beta_c, f->alpha_n, f->beta_n, f->alpha_r, f->beta_r, f->gamma};
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], expected[t][i]) << "tolerance " << tolerances[t] << ", parameter " << i;
  }
}

// The process that fits maps no system BLAS or LAPACK: liblbfgsb is linked statically against
// the fixed routines (src/hetsched/CMakeLists.txt), so OpenBLAS is never loaded for it.
TEST(GoodputFitTest, MapsNoSystemBlas) {
  ASSERT_TRUE(FitThroughputParams(SamplesOf(kSevenTruth, kSevenConfigs)).ok());
  std::ifstream maps("/proc/self/maps");
  ASSERT_TRUE(maps.good());
  std::string line;
  while (std::getline(maps, line)) {
    for (const char* lib : {"libblas", "libopenblas", "liblapack", "liblbfgsb.so"}) {
      EXPECT_EQ(line.find(lib), std::string::npos) << line;
    }
  }
}

TEST(GoodputFitTest, PinsWhatTheSamplesCannotTell) {
  // One GPU, one batch size: alpha_c = half the mean pass time; no network seen at all, so the
  // network terms stay at their floor (and the inter-node ones at 1.1 x the intra-node ones).
  const auto samples = SamplesOf(Params(1.0), {{1, 1, 32, 0}});
  auto fitted = FitThroughputParams(samples);
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  EXPECT_DOUBLE_EQ(fitted->alpha_c, 0.42 / 2);
  EXPECT_NEAR(fitted->beta_c * 32, 0.21, 1e-4);  // the rest of the pass
  EXPECT_EQ(fitted->alpha_r, 1e-8);
  EXPECT_EQ(fitted->beta_r, 1e-8);
  EXPECT_DOUBLE_EQ(fitted->alpha_n, 1.1e-8);
  EXPECT_DOUBLE_EQ(fitted->beta_n, 1.1e-8);
}

TEST(GoodputFitTest, RefusesBadSamples) {
  EXPECT_FALSE(FitThroughputParams({}).ok());
  std::vector<ThroughputSample> bad = {{1, 1, 32, 0.4, 0.0}};
  const auto st = FitThroughputParams(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("not finite and positive"), std::string::npos);
  bad[0] = {2, 1, 32, 0.4, 0.5};  // more nodes than GPUs
  EXPECT_FALSE(FitThroughputParams(bad).ok());
}

}  // namespace
}  // namespace hetsched
