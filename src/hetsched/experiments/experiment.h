// Reproduction experiments (E1..E5 of ALGORITHMS.md and the Gavel comparison): each is a class in
// its own file, registered by name, run by `hetsched experiment NAME`. An experiment builds its
// clusters and workloads, runs the simulator, prints a table and writes its outputs under
// `out_dir`. Everything it prints comes from the runs it just did.
#pragma once

#include <functional>
#include <string>
#include <vector>
#include <utility>
#include <string_view>

#include "hetsched/metrics/run_record.h"
#include "hetsched/sched/options.h"
#include "hetsched/util/status.h"

namespace hetsched {

struct ExperimentContext {
  std::string out_dir;            // where to write tables, CSVs, plots
  unsigned long long seed = 1;
  bool quick = false;             // a smaller configuration (tests, CI)
  int threads = 1;                // independent runs in parallel
  Options options;                // experiment-specific KEY=VALUE options
  // Read and check the options, then return Ok without running anything (`hetsched experiment`
  // does this first, so that a key no experiment reads is refused before any output is written).
  bool check_only = false;
  std::function<void(const std::string&)> print;  // where the table and progress lines go
  // Overall progress (done, total), e.g. a progress line on a terminal; may be empty.
  std::function<void(long long, long long)> progress;
  // Set by Run: the result in one sentence from the runs just done (e.g. "dltap moves 53% fewer
  // bytes across nodes than k8s-spread"); `hetsched experiment` and the demo print it.
  std::string headline;
};

// The progress of part `part` (0-based) of `parts` equal parts of an experiment (e.g. one RunMany
// call each), as a SimOptions::progress callback: reports the whole experiment's fraction through
// ctx.progress in millionths. Empty when ctx.progress is.
std::function<void(long long, long long)> PartProgress(const ExperimentContext& ctx, int part, int parts);

// The experiment's result files: each {file name, contents} written (atomically) under
// ctx.out_dir, in order, then their paths on one "outputs:" line, followed by those of `more`
// (names under ctx.out_dir of outputs written elsewhere, or patterns: "seed-<N>/").
Status WriteExperimentOutputs(const ExperimentContext& ctx, const std::vector<std::pair<std::string, std::string>>& files,
                              const std::vector<std::string>& more = {});

// Writes one run of the experiment under <out_dir>/runs/<part>/<name>/ (summary.json, jobs.csv,
// timeline.csv, run.json; report/run_dirs.h), the record's policy shown as `name`: `hetsched
// report <out_dir>/runs/<part>` rebuilds that part's report page.
Status WriteExperimentRun(const ExperimentContext& ctx, const std::string& part, const std::string& name,
                          RunRecord run);

class Experiment {
 public:
  static constexpr std::string_view kKind = "experiment";
  virtual ~Experiment() = default;
  virtual std::string_view name() const = 0;
  virtual Status Run(ExperimentContext& ctx) = 0;
};

}  // namespace hetsched
