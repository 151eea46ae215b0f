// Several runs on one workload and cluster, as `hetsched compare` and hetsched.compare() ask for
// them: every policy with every placer (or exact policy+placer pairs), one planner, --round offered
// to every policy, a compat profile; the runs in parallel; a table, per-run outputs and plots.
// The command line chooses through its options (apps/hetsched/cmd_compare.cc), the Python module
// through a CompareRequest; both go through the steps below.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/run/compat_apply.h"
#include "hetsched/run/simulate_request.h"

namespace hetsched {

// One run of a comparison, from its specs ("tiresias-las:thresholds=3600", "pack").
struct CompareSpec {
  std::string policy, placer;  // names
  Options policy_options, placer_options;
  std::string label;  // "tiresias-las:thresholds=3600+pack": the specs as given
};

// The (policy, placer) spec pairs: `runs` ("POLICY[:OPTS][+PLACER[:OPTS]]", placer default pack)
// when given, else every policy with every placer.
std::vector<std::pair<std::string, std::string>> ComparePairs(const std::vector<std::string>& policies,
                                                              const std::vector<std::string>& placers,
                                                              const std::vector<std::string>& runs);
// Parses each pair's specs; an error names `policy_flag` or `placer_flag` (the command line's
// --policies/--placers, or --runs).
Result<std::vector<CompareSpec>> ParseCompareSpecs(const std::vector<std::pair<std::string, std::string>>& pairs,
                                                   const std::string& policy_flag, const std::string& placer_flag);
// The policies of the specs, for a compat profile's settings limited to some policies.
std::vector<std::string> PolicyNames(const std::vector<CompareSpec>& specs);
// Each spec's choice: the planner for every run, `round_s` (> 0) offered to every policy as its
// option `round` unless its spec sets one, then `compat`'s method options.
std::vector<MethodChoice> CompareChoices(const std::vector<CompareSpec>& specs, const std::string& planner,
                                         double round_s, CompatApplier& compat);

// The runs' results, in the order of the specs (then any real runs), labelled.
struct CompareOutcome {
  std::vector<std::string> labels;
  std::vector<RunRecord> runs;  // each run's `policy` is its label
  std::vector<Summary> summaries;
};
// Runs each method set on the inputs, `threads` at a time; an error names the run's label.
Result<CompareOutcome> RunCompare(const SimInputs& inputs, std::vector<Methods> methods,
                                  const std::vector<std::string>& labels, int threads);
// Adds the run records `hetsched agent` wrote (DIR/run.json) beside the simulations, labelled
// "real:POLICY+PLACER".
Status AddRealRuns(const std::vector<std::string>& dirs, CompareOutcome* outcome);
// Writes DIR/<run>/{summary.json,jobs.csv,timeline.csv,run.json} per run and compare.txt,
// compare.csv, utilisation.svg, jct_cdf.svg and report.html.
Status WriteCompareOutputs(const std::string& dir, const CompareOutcome& outcome);

// What hetsched.compare() asks for: a simulation request's inputs, settings, planner, --round and
// compat profile, the runs, and the threads. Its settings are `hetsched compare`'s flags.
struct CompareRequest {
  SimulateRequest base;  // its policy and placer are not used
  std::vector<std::string> policies{"fifo", "fifo:backfill=none", "sjf", "srtf", "tiresias-las"};
  std::vector<std::string> placers{"pack"};
  std::vector<std::string> runs;
  std::vector<std::string> real_runs;  // --real-run
  int threads = 0;                     // 0: one per core

  // --policies, --placers and --runs (comma-separated lists), --real-run (a directory; each Set
  // adds one), --threads, and every SimulateRequest setting but --policy and --placer.
  Status Set(std::string_view flag, std::string_view text);
  // As SimulateRequest::Prepare, for the runs: checks the settings' relations, parses the specs,
  // applies the compat profile (its report in `*compat_report`) and builds each run's choice.
  Status Prepare(std::vector<CompareSpec>* specs, std::vector<MethodChoice>* choices, std::string* compat_report);
};

}  // namespace hetsched
