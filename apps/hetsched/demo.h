// What `hetsched demo` adds to a comparison: its default runs, one-line findings computed from
// them, one HeterPS plan against simple baselines and the exact optimum, the DLTAP placement
// experiment (quick form) against Kubernetes spread, and the goodput experiment (quick form):
// Sia, its unaware Pollux and sia-plus.
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
// Prints one experiment's quick form under `title` (the placement part: dltap; the goodput part:
// goodput), outputs under out_dir, and its finding; returns an exit code.
int RunDemoExperiment(const std::string& name, const std::string& title, const std::string& out_dir,
                      unsigned long long seed, int threads);

}  // namespace hetsched::cli
