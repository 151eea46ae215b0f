// Run outputs read back for `hetsched report DIR...`: a directory is either one run (it holds a
// run.json, written by simulate, compare, sweep and agent) or a directory of runs (compare's and
// sweep's output directories: every immediate subdirectory holding a run.json, in name order).
#pragma once

#include <string>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/util/status.h"

namespace hetsched {

struct RunDir {
  std::string path;  // the directory that held run.json
  RunRecord run;
};

// Errors name the directory ("DIR: no run.json in it or in any subdirectory") or the file and field.
Result<std::vector<RunDir>> ReadRunDirs(const std::vector<std::string>& dirs);

// A directory name for a run's label: "gavel-las+pack" -> "gavel-las_pack" (letters, digits,
// '-' and '.' kept; anything else '_').
std::string RunDirName(const std::string& label);
// One run's outputs under `dir` (created): summary.json, jobs.csv, timeline.csv (WriteRunOutputs)
// and run.json, the whole record that ReadRunDirs and `hetsched report` read back.
Status WriteRunDir(const std::string& dir, const RunRecord& run, const Summary& summary);

}  // namespace hetsched
