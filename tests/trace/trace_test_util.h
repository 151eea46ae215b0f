// Helpers shared by the trace tests: temp files and the built-in catalogs.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hetsched/model/device.h"
#include "hetsched/model/link.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/trace/calibrate.h"
#include "hetsched/trace/trace.h"

namespace hetsched::trace_test {

// A fresh directory under the test temp dir, named after the running test.
inline std::string TestDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "hetsched_trace" /
                              (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline std::string WriteFile(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::path(dir) / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline const DeviceCatalog& Devices() { return DeviceCatalog::BuiltIn(); }
inline const ModelZoo& Zoo() { return ModelZoo::BuiltIn(); }

inline Result<Workload> Parse(const std::string& text, const std::string& format,
                              const TraceReadOptions& options = {}) {
  return ParseTrace(text, "t.csv", format, options, Devices(), Zoo());
}

inline TraceReadOptions Skip() {
  TraceReadOptions o;
  o.on_bad_row = BadRowPolicy::kSkip;
  return o;
}

// Iterations the calibration gives for a runtime on the default reference device (v100).
inline int64_t Calibrated(const std::string& model, int gpus, double runtime_s) {
  auto cal = RuntimeCalibrator::Create(Devices(), LinkCatalog::BuiltIn(), "v100");
  EXPECT_TRUE(cal.ok()) << cal.status().ToString();
  auto n = cal->IterationsFor(**Zoo().Lookup(model), 0, gpus, runtime_s);
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  return *n;
}

}  // namespace hetsched::trace_test
