// `--compat NAME`: sets a run up the way a peer simulator (Gavel, Tiresias, Pollux, Sia) would run it, by
// applying that peer's profile (src/hetsched/compat/) to the options the user did not give. An
// explicit option always wins; the run prints the profile and what each setting did.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "hetsched/run/compat_apply.h"
#include "hetsched/sim/runner.h"

namespace hetsched::cli {

// The registered profiles' names, "gavel, pollux, sia, tiresias", for help texts.
std::string CompatNames();

class CompatArgs {
 public:
  void Add(CLI::App& app);
  bool enabled() const { return !name_.empty(); }
  const std::string& name() const { return name_; }

  // Looks the profile up and applies its command-level settings (every option other than
  // --policy-opt/--placer-opt/--planner-opt) to `cmd`'s options that were not given, through
  // CLI11 so that each option's own checks run. `policies` are the policies of the run: a
  // setting limited to some policies applies only when every policy of the run is among them.
  // "--placer"/"--planner" settings also match a command's "--placers"/"--planners".
  Status ApplyToCommand(CLI::App& cmd, const std::vector<std::string>& policies);
  // Applies the method-option settings for `choice.policy` that the user did not give. `label`
  // names the run in the printed lines (compare runs several).
  void ApplyToChoice(MethodChoice& choice, const std::string& label) { applier_.ApplyToChoice(choice, label); }
  CompatApplier& applier() { return applier_; }
  // "compat  : NAME: peer\n" and one line per setting (set / kept / not applicable).
  std::string Report() const { return applier_.Report(); }

 private:
  std::string name_;
  CompatApplier applier_;
};

}  // namespace hetsched::cli
