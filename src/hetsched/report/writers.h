// Output files, each written atomically (util/file_io.h): summary JSON, per-job CSV, time-series
// CSV, and the comparison table. Formats in docs/formats-output.md.
#pragma once

#include <string>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/util/status.h"

namespace hetsched {

std::string SummaryJson(const RunRecord& run, const Summary& summary);
std::string JobsCsv(const RunRecord& run);
// Resampled to at most `max_rows` rows (time-weighted average in each bucket) when longer.
std::string TimelineCsv(const RunRecord& run, int max_rows = 5000);

// Writes summary.json, jobs.csv and timeline.csv under `dir` (created if needed).
Status WriteRunOutputs(const std::string& dir, const RunRecord& run, const Summary& summary);

// A fixed-width text table comparing runs (one row per run), as printed by `hetsched compare`.
std::string ComparisonTable(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries);
std::string ComparisonCsv(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries);

}  // namespace hetsched
