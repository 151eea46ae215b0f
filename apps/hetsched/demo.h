// What `hetsched demo` adds to a comparison: its default runs, one-line findings computed from
// them, one HeterPS plan against simple baselines and the exact optimum, and the DLTAP
// placement experiment (quick form) against Kubernetes spread.
#pragma once

#include <string>
#include <vector>

#include "hetsched/metrics/summary.h"

namespace hetsched::cli {

// The demo's runs, each "POLICY[:OPTS]+PLACER[:OPTS]" (compare's --runs syntax).
std::vector<std::string> DemoRuns();

// One line per finding whose runs are present (by label), e.g. "gavel-las cuts average JCT by 21%
// against its heterogeneity-blind twin gavel-las-agnostic".
std::vector<std::string> DemoFindings(const std::vector<std::string>& labels, const std::vector<Summary>& summaries);

// Prints the planning part; returns a CLI exit code.
int RunDemoPlanning(unsigned long long seed);
// Prints the placement part (experiment dltap --quick, outputs under out_dir); returns an exit code.
int RunDemoPlacement(const std::string& out_dir, unsigned long long seed, int threads);

}  // namespace hetsched::cli
