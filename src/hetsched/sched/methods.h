// The three methods a run drives (job scheduler, placer, planner), chosen by registered name and
// options: the one entry the simulator, the Slurm agent, the CLI and the Python module create them
// through (issue #45).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/options.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/planner.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/status.h"

namespace hetsched {

struct Methods {
  std::unique_ptr<JobScheduler> scheduler;
  std::unique_ptr<Placer> placer;
  std::unique_ptr<Planner> planner;
};

struct MethodChoice {
  std::string policy = "fifo";
  Options policy_options{};
  std::string placer = "pack";
  Options placer_options{};
  std::string planner = "data-parallel";
  Options planner_options{};

  // "fifo", "tiresias-las", "fifo+first-fit"; options are added separately.
  std::string Label() const { return policy + "+" + placer; }
};

// What an error of CreateMethods calls the choice of each method and of its options (the CLI
// passes its flags, e.g. "--policy" and "--policy-opt"; `hetsched compare` "--policies").
struct MethodLabels {
  std::string policy = "policy", policy_options = "policy options";
  std::string placer = "placer", placer_options = "placer options";
  std::string planner = "planner", planner_options = "planner options";
};

// Creates method `name` of registry `Base` with `options`; `name_label` and `options_label` say
// what chose the method and its options (the CLI's flags). An unknown name, or an option key or
// value the method does not take (kInvalidArgument: the registry's "does not take" and the Options
// getters), is a bad choice: `*bad_choice` is set and the message names the label and the method.
// Any other failure (a back end that cannot be loaded, a file an option names that cannot be read)
// leaves it false.
template <typename Base>
Result<std::unique_ptr<Base>> CreateNamed(const std::string& name, const Options& options, const std::string& name_label,
                                          const std::string& options_label, bool* bad_choice) {
  const Registry<Base>& registry = Registry<Base>::Instance();
  *bad_choice = false;
  if (!registry.Contains(name)) {
    *bad_choice = true;
    return registry.Create(name, options).status().WithContext(name_label);
  }
  auto made = registry.Create(name, options);
  if (made.ok() || made.status().code() != StatusCode::kInvalidArgument) return made;
  *bad_choice = true;
  const Status error = made.status();
  const std::string method = std::string(Base::kKind) + " '" + name + "'";
  if (error.message().rfind(method, 0) == 0) return error.WithContext(options_label);  // it names the method
  return error.WithContext(options_label + ": " + method);
}

// Creates the three methods of `choice`. `seed` is offered to each as the option `seed` unless the
// choice set one for it (a method that uses no randomness ignores it). An unknown name or an option
// a method refuses is an error naming its label; `*bad_choice` (when given) then says that the
// choice itself is wrong (a usage error at the command line), not a fault met while building a
// method (a file it could not read, a back end it could not load). A method `built` holds already
// (a Python object's adapter) is used as it is, and the choice's name and options for it unread.
Result<Methods> CreateMethods(const MethodChoice& choice, unsigned long long seed = 1,
                              const MethodLabels& labels = MethodLabels{}, bool* bad_choice = nullptr,
                              Methods built = {});

// The provenance a registered method states ("[SRC] ...", "[REC] ...", "[CLASSIC] ..."); "" for a
// name `Base`'s registry does not hold.
template <typename Base>
std::string ProvenanceOf(const std::string& name) {
  for (const MethodInfo& m : Registry<Base>::Instance().List()) {
    if (m.name == name) return m.provenance;
  }
  return "";
}

// Parses "policy[:k=v[:k=v...]]" (e.g. "tiresias-las:thresholds=3600;36000") into a name and
// options.
Result<std::pair<std::string, Options>> ParseMethodSpec(const std::string& spec);

}  // namespace hetsched
