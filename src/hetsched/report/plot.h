// SVG plots for `hetsched compare`, written as plain SVG text (no plotting dependency):
// utilisation over time per run (compare.svg) and the JCT CDF per run (jct_cdf.svg). Both are
// deterministic: identical runs give byte-identical files.
#pragma once

#include <string>
#include <vector>

#include "hetsched/metrics/run_record.h"

namespace hetsched {

// Legend label of each run: its policy; "policy/placer" where several runs share a policy; a
// " #i" suffix (1-based run index) where even that is ambiguous.
std::vector<std::string> RunLabels(const std::vector<RunRecord>& runs);

// Busy devices / total devices in percent (y) against simulated time in hours (x), one step
// line per run, from the time-weighted resampled timeline (at most ~400 points per run).
std::string UtilisationSvg(const std::vector<RunRecord>& runs);

// Empirical CDF of the JCT of finished jobs (y: fraction of the run's finished jobs with JCT at
// most x), x on a log10 axis in hours, one line per run (at most ~400 points per run).
std::string JctCdfSvg(const std::vector<RunRecord>& runs);

}  // namespace hetsched
