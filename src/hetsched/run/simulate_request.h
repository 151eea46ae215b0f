// One simulation as a user asks for it, by value: its inputs (run/sim_inputs.h), its methods by
// name and options, `--round` and a compat profile. The Python module fills one in from its
// keywords; its settings are named by the command line's flags ("--restart-cost") and checked by
// the same checks as the command line's options (run/value_checks.h), so that a keyword means
// what its flag means. Prepare() applies the compat profile and --round, as `hetsched simulate`
// does.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/run/sim_inputs.h"
#include "hetsched/sched/methods.h"

namespace hetsched {

struct SimulateRequest {
  ClusterSource cluster;
  WorkloadSource workload;
  SimSettings sim;
  MethodChoice methods;
  double round_s = 0;  // --round: the policy option `round` (0: not given)
  std::string compat;  // --compat: a profile name (compat/compat.h), or empty

  // Sets the setting `flag` ("--restart-cost", "--no-contention", "--gpus", "--policy", ...) from
  // `text` through its check and records it as given (a compat profile leaves it alone). An
  // unknown flag, or a value its check refuses, is kInvalidArgument naming the flag.
  Status Set(std::string_view flag, std::string_view text);
  // The flags given through Set, with their text.
  const std::map<std::string, std::string, std::less<>>& given() const { return given_; }
  // Records `flag` as given with `text` (for the settings of a request built on this one:
  // CompareRequest's lists).
  void NoteGiven(std::string_view flag, std::string_view text) { given_.insert_or_assign(std::string(flag), std::string(text)); }
  // Sets `flag` as a compat profile does: through its check, not recorded as given.
  Status SetByProfile(std::string_view flag, std::string_view text);
  // The relations between the settings given (as the command line's: --arrival-rate needs
  // --synthetic, --synthetic excludes --trace, ...).
  Status CheckRelations() const;

  // Makes the request ready to run: checks the relations between the settings given (as the
  // command line's --arrival-rate needs --synthetic), applies the compat profile (settings, then
  // method options; its printed report in `*compat_report`) and folds --round into the policy's
  // options. Every error is a bad request (a usage error at the command line).
  Status Prepare(std::string* compat_report);

 private:
  std::map<std::string, std::string, std::less<>> given_;
};

// The flags SimulateRequest::Set takes.
std::vector<std::string_view> SimulateRequestFlags();
bool IsSimulateRequestFlag(std::string_view flag);

// Sets the policy option `round` from --round (`round_s` > 0); an error when the policy options
// set it too.
Status FoldRoundIntoPolicy(double round_s, MethodChoice* choice);

// "policy  : fifo  [CLASSIC] ...\nplacer  : ...\nplanner : ...\n": each method with its
// provenance as registered.
std::string DescribeMethods(const MethodChoice& choice);

// What `hetsched simulate` prints after its run (`runs` holds the one run): a blank line, the
// results table, then how the truth was taken and the jobs skipped or dropped, when any.
std::string DescribeSimulation(const std::vector<RunRecord>& runs, const Summary& summary);

}  // namespace hetsched
