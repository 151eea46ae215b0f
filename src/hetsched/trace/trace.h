// Workloads: lists of jobs (spec + truth) read from trace files or generated. Formats in
// docs/formats.md; every reader reports the file, line and field of a bad row.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/device.h"
#include "hetsched/model/job.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/goodput_application.h"
#include "hetsched/util/status.h"

namespace hetsched {

enum class BadRowPolicy { kStop, kSkip };

struct TraceReadOptions {
  BadRowPolicy on_bad_row = BadRowPolicy::kStop;
  long long max_jobs = -1;       // read at most this many jobs (-1: all)
  // For traces that give runtimes instead of iteration counts: the device type the runtime was
  // measured on (it is converted to iterations with the perf model). Default: v100.
  std::string reference_device = "v100";
  // Memory a read may plan for (0: what this machine has available, util/memory.h). A trace whose
  // jobs would need more (kBytesPerJob each, plus its text) is refused before it is parsed.
  uint64_t memory_limit_bytes = 0;
  // Goodput workloads (Pollux's and Sia's): the profile directory of their applications
  // (DIR/<application>/placements[-SUFFIX].csv ...; trace/goodput_catalog.h). Empty: the built-in
  // copy of Pollux's T4 profiles (GoodputCatalog::kBuiltInDir).
  std::string goodput_profiles;
  // The GPU types the profiles hold, as (file suffix, catalog device type): a goodput job may run
  // on these types only, its truth on each being that type's files. Default: Pollux's unsuffixed
  // files, measured on AWS g4dn.12xlarge (4 NVIDIA T4 a node). Sia's: {aws, t4}, {dgx-ext,
  // a100-40gb}, {rtx, rtx-2080ti}.
  std::vector<std::pair<std::string, std::string>> goodput_types = {{"", "t4"}};
  // Whose settings the applications get beside their files: "pollux" or "sia" (GoodputSettings).
  std::string goodput_settings = "pollux";
};

// Memory one job takes through a whole run: its spec and truth, the simulator's per-job state and
// its record. Our measurement: a 1M-job simulate peaks at 1.6 GiB RSS (docs/PERFORMANCE.md);
// rounded up.
inline constexpr double kBytesPerJob = 2048;

struct Workload {
  std::vector<Job> jobs;          // sorted by submit time then id; ids are 0..n-1 in that order
  std::string source;             // file path or "synthetic(seed=...)"
  long long rows_read = 0;
  long long rows_skipped = 0;
  std::vector<std::string> skipped_reasons;  // first few, "file:line: field 'x': ..."
  // The device type (catalog name) on which the jobs' JobTruth::runtime_s were measured: the
  // reader's TraceReadOptions::reference_device; empty when no job has a run time.
  std::string runtime_device;
  // The goodput applications the jobs name (JobSpec::application), by name: their truth on each
  // GPU type they were profiled on.
  std::map<std::string, GoodputTruth> applications;
};

// Formats: "native" (hetsched CSV), "gavel" (Gavel .trace), "tiresias" (Tiresias CSV),
// "philly-runtime" (one runtime column -> jobs), "pai" (Alibaba PAI 2020 job+task tables),
// "helios" (Helios cluster_log CSV), "pollux" (Pollux's and Sia's workloads of goodput
// applications). "auto" picks by extension and header.
Result<Workload> ReadTrace(const std::string& path, const std::string& format,
                           const TraceReadOptions& options, const DeviceCatalog& devices,
                           const ModelZoo& zoo);
// Same, from text already in memory (tests, embedded demo trace). `origin` names it in errors.
Result<Workload> ParseTrace(std::string_view text, const std::string& origin,
                            const std::string& format, const TraceReadOptions& options,
                            const DeviceCatalog& devices, const ModelZoo& zoo);

std::vector<std::string> TraceFormats();

// Writes the native format (round-trips through ReadTrace "native").
std::string ToNativeTrace(const Workload& workload, const DeviceCatalog& devices);

struct SyntheticOptions {
  long long num_jobs = 1000;
  double arrival_rate_per_hour = 60;           // Poisson arrivals
  unsigned long long seed = 1;
  // Job size mix: (gpus, weight). Default: Philly-like 1:2:4:8:16:32.
  std::vector<std::pair<int, double>> size_mix;
  // Model mix: (zoo name, weight). Default: every zoo model, equal weight.
  std::vector<std::pair<std::string, double>> model_mix;
  // Durations (seconds on the reference device) drawn from this empirical sample if non-empty,
  // else log-normal with median 1,200 s and sigma 1.6 (Philly-like; docs/formats.md).
  std::vector<double> runtime_sample_s;
  double user_estimate_error = 0.0;  // estimated_runtime = runtime * exp(N(0, error))
  int num_users = 20;
  std::string reference_device = "v100";
};
Result<Workload> GenerateSynthetic(const SyntheticOptions& options, const DeviceCatalog& devices,
                                   const ModelZoo& zoo);

}  // namespace hetsched
