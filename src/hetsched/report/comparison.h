// The rows of `hetsched compare`: one per run, shared by the text table (writers.h
// ComparisonTable), the CSV and the HTML report so the three never disagree.
#pragma once

#include <string>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/metrics/summary.h"

namespace hetsched {

struct ComparisonColumn {
  std::string header;
  bool numeric = true;  // numbers are right-aligned, text left-aligned
};

// policy, placer, finished/total, avg JCT (h), median, p95, p99, avg queueing (h), makespan (h),
// util %, cost $, energy kWh, Jain, max FTF, cross-node TB.
const std::vector<ComparisonColumn>& ComparisonColumns();

// The display cells of one run, in ComparisonColumns() order, formatted for people (hours,
// percent, kWh, TB = 1e12 bytes).
std::vector<std::string> ComparisonCells(const RunRecord& run, const Summary& summary);

}  // namespace hetsched
