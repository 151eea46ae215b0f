// One self-contained HTML page for `hetsched compare`: the comparison table and both SVG plots
// inline, no scripts, no external resources (it opens offline and can be mailed as one file).
#pragma once

#include <string>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/metrics/summary.h"

namespace hetsched {

// REQUIRES: runs and summaries in the same order (extra entries of the longer one are ignored).
std::string ComparisonHtml(const std::vector<RunRecord>& runs, const std::vector<Summary>& summaries);

}  // namespace hetsched
