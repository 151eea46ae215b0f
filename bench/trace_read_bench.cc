// Trace throughput: generating, writing and reading a 1,000,000-job native trace. The issue's
// target is a 1M-row read in under 2 s; the "rows/s" counter is the figure to compare.
//   build/<dir>/bench/trace_read_bench [--benchmark_filter=Read]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "hetsched/model/device.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/trace/trace.h"
#include "hetsched/util/file_io.h"

namespace hetsched {
namespace {

constexpr long long kJobs = 1'000'000;

SyntheticOptions MillionJobs() {
  SyntheticOptions o;
  o.num_jobs = kJobs;
  o.user_estimate_error = 0.5;
  return o;
}

// The trace file, written once per process to the temp directory and removed at exit.
class TraceFile {
 public:
  TraceFile() {
    path_ = (std::filesystem::temp_directory_path() /
             ("hetsched_trace_read_bench_" + std::to_string(getpid()) + ".csv")).string();
    auto w = GenerateSynthetic(MillionJobs(), DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
    if (!w.ok()) {
      std::fprintf(stderr, "generate: %s\n", w.status().ToString().c_str());
      return;
    }
    Status st = WriteFileAtomic(path_, ToNativeTrace(*w, DeviceCatalog::BuiltIn()));
    if (!st.ok()) std::fprintf(stderr, "write: %s\n", st.ToString().c_str());
  }
  ~TraceFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const TraceFile& File() {
  static const TraceFile file;
  return file;
}

void BM_GenerateSynthetic1M(benchmark::State& state) {
  for (auto _ : state) {
    auto w = GenerateSynthetic(MillionJobs(), DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
    if (!w.ok()) state.SkipWithError(w.status().ToString().c_str());
    benchmark::DoNotOptimize(w);
  }
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(kJobs), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_GenerateSynthetic1M)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_WriteNative1M(benchmark::State& state) {
  auto w = GenerateSynthetic(MillionJobs(), DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
  if (!w.ok()) {
    state.SkipWithError(w.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    std::string text = ToNativeTrace(*w, DeviceCatalog::BuiltIn());
    benchmark::DoNotOptimize(text);
  }
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(kJobs), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_WriteNative1M)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ReadNative1M(benchmark::State& state) {
  const std::string& path = File().path();
  long long rows = 0;
  for (auto _ : state) {
    auto w = ReadTrace(path, "native", {}, DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
    if (!w.ok()) {
      state.SkipWithError(w.status().ToString().c_str());
      return;
    }
    rows = static_cast<long long>(w->jobs.size());
    benchmark::DoNotOptimize(w);
  }
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["rows"] = static_cast<double>(rows);
}
BENCHMARK(BM_ReadNative1M)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace hetsched

BENCHMARK_MAIN();
