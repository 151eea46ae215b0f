// Applying a compat profile (compat/compat.h) to a run: its settings become the values of the
// options the user did not give, and every setting is reported (set, kept as given, or not
// applicable). The command line applies it to its options through CLI11 (apps/hetsched/
// cli_compat.h); the Python module to a SimulateRequest (run/simulate_request.h). Both go through
// this class, so that a profile means the same everywhere and prints the same lines.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/compat/compat.h"
#include "hetsched/sched/methods.h"
#include "hetsched/util/status.h"

namespace hetsched {

// The options a profile's command-level settings go to.
class CompatTarget {
 public:
  virtual ~CompatTarget() = default;
  // What "(not an option of `NAME`)" names: the command ("simulate").
  virtual std::string_view name() const = 0;
  // False when the target has no option `option` ("--round"; "--placer" may be a command's
  // "--placers").
  virtual bool Has(std::string_view option) const = 0;
  // The value(s) given explicitly for `option`, joined by spaces; nullopt when not given.
  virtual std::optional<std::string> Given(std::string_view option) const = 0;
  // Sets `option` to `value` through its own checks.
  virtual Status Set(std::string_view option, std::string_view value) = 0;
};

class CompatApplier {
 public:
  // The profile called `name` (empty: none, and every call below does nothing); an unknown name
  // is an error naming "--compat".
  static Result<CompatApplier> Find(const std::string& name);
  bool enabled() const { return profile_ != nullptr; }

  // Applies the command-level settings (all but --policy-opt/--placer-opt/--planner-opt) to the
  // options of `target` that were not given. `policies` are the run's policies: a setting limited
  // to some policies applies only when every policy of the run is among them.
  Status ApplyToTarget(CompatTarget& target, const std::vector<std::string>& policies);
  // Applies the method-option settings for `choice.policy` that the choice does not set. `label`
  // names the run in the printed lines (compare runs several).
  void ApplyToChoice(MethodChoice& choice, const std::string& label);
  // "compat  : NAME: peer\n" and one line per setting (set / kept / not applicable); "" for none.
  std::string Report() const;

 private:
  const CompatProfile* profile_ = nullptr;
  std::vector<std::string> lines_;
};

}  // namespace hetsched
