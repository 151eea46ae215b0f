// Runs named methods: looks the job scheduler, placer and planner up in their registries and
// simulates. Shared by the CLI (simulate, compare, demo) and the experiments.
#pragma once

#include <string>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/sched/options.h"
#include "hetsched/sim/simulator.h"

namespace hetsched {

struct MethodChoice {
  std::string policy = "fifo";
  Options policy_options;
  std::string placer = "pack";
  Options placer_options;
  std::string planner = "data-parallel";
  Options planner_options;

  // "fifo", "tiresias-las", "fifo+first-fit"; options are added separately.
  std::string Label() const { return policy + "+" + placer; }
};

// Creates the three methods. `seed` is offered to each as the option `seed` unless the user set
// one for it (a method that uses no randomness ignores it).
Result<SimMethods> CreateMethods(const MethodChoice& choice, unsigned long long seed = 1);

// Parses "policy[:k=v[:k=v...]]" (e.g. "tiresias-las:thresholds=3600;36000") into a name and
// options.
Result<std::pair<std::string, Options>> ParseMethodSpec(const std::string& spec);

Result<RunRecord> RunSimulation(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                                const MethodChoice& choice, const SimOptions& options);

// Runs each choice on the same inputs, using up to `threads` threads (runs are independent, so
// the results do not depend on the thread count). Results in the order of `choices`. If
// options.progress is set it is called with the jobs finished over all runs and all runs' jobs.
std::vector<Result<RunRecord>> RunMany(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                                       const std::vector<MethodChoice>& choices, const SimOptions& options,
                                       int threads);

}  // namespace hetsched
