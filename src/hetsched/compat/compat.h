// Compatibility profiles: the assumptions a peer simulator (Gavel, Tiresias) makes, written as
// default values of hetsched's own options, so that `--compat NAME` sets a run up the way the peer
// would run it. A profile only changes defaults: an option the user gives explicitly wins.
//
// A profile is data. Each one lives in its own .cc of this folder and registers itself with
// HETSCHED_REGISTER_COMPAT; the CLI (apps/hetsched/cli_compat.cc) applies it and prints every value
// it set or kept, and docs/compat.md lists each setting with the peer's file and line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched {

struct CompatSetting {
  // A command-line option as a user types it ("--restart-cost", "--placer", "--round",
  // "--throughputs", ...), or "--policy-opt" / "--placer-opt" whose value is "KEY=VALUE".
  std::string option;
  std::string value;
  // Empty: runs of every policy. Otherwise only runs of these policies (names as registered).
  std::vector<std::string> policies;
  std::string source;  // where the peer decides it, e.g. "scheduler/scheduler.py:1734"
  std::string why;     // one line
  // Not applied when one of these options is given (the peer's default cluster, "--gpus", is not
  // applied to a run given "--cluster").
  std::vector<std::string> unless_given = {};

  bool AppliesTo(std::string_view policy) const;
  // True for "--policy-opt", "--placer-opt" and "--planner-opt" settings.
  bool IsMethodOption() const;
  // For a method option: the KEY of "KEY=VALUE". Empty for other settings.
  std::string MethodOptionKey() const;
  std::string MethodOptionValue() const;
};

// A hetsched method (policy or placer, as registered) that reproduces one of the peer's under
// this profile; `hetsched catalog` prints it beside the method.
struct CompatMethod {
  std::string method;       // "gavel-las"
  std::string peer_method;  // "max_min_fairness_perf"
  std::string source;       // where the peer defines it, e.g. "scheduler/policies/max_min_fairness.py"
};

struct CompatProfile {
  std::string name;     // "gavel", "tiresias"
  std::string peer;     // "Gavel's simulator (stanford-futuredata/gavel @ c4fa400)"
  std::string summary;  // one line
  std::vector<CompatSetting> settings;
  std::vector<CompatMethod> reproduces;
};

class CompatProfiles {
 public:
  static CompatProfiles& Instance();
  bool Register(CompatProfile profile);
  // The profile called `name`; NotFound (listing the known names) otherwise.
  Result<const CompatProfile*> Find(std::string_view name) const;
  std::vector<const CompatProfile*> List() const;  // by name
  // "Gavel's max_min_fairness_perf (--compat gavel)" for each profile in which `method`
  // reproduces a peer's method, joined by "; ". Empty if none.
  std::string Reproduces(std::string_view method) const;

 private:
  std::vector<CompatProfile> profiles_;
};

// Checks a profile's own consistency: a name fit for a command line, a peer, every setting has an
// option that starts with "--", a value, a source and a reason, method options are KEY=VALUE, and
// every reproduced method names the peer's method and its source.
Status ValidateProfile(const CompatProfile& profile);

}  // namespace hetsched

#define HETSCHED_REGISTER_COMPAT(var, profile)                                        \
  namespace {                                                                         \
  const bool var = ::hetsched::CompatProfiles::Instance().Register(profile);         \
  }
