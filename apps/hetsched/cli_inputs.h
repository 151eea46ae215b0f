// The options that choose a run's inputs and methods (cluster, workload, simulation settings,
// policy, placer and planner, a planning pool), and turning them into library objects with errors
// a person can act on.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/sched/methods.h"
#include "hetsched/run/sim_inputs.h"
#include "hetsched/run/simulate_request.h"

namespace hetsched::cli {

// The options of a run's inputs and settings, each filling in its library struct
// (run/sim_inputs.h).
struct ClusterArgs : ClusterSource {
  void Add(CLI::App& app);
};

struct WorkloadArgs : WorkloadSource {
  void Add(CLI::App& app);
};

struct SimArgs : SimSettings {
  bool quiet = false;  // -q: no progress line
  void Add(CLI::App& app);
};

// The flags that choose the methods of `simulate` and `agent` (--policy and --policy-opt, ...),
// as CreateMethods (sched/methods.h) names them in its errors.
inline const MethodLabels kMethodFlags{"--policy", "--policy-opt", "--placer", "--placer-opt", "--planner", "--planner-opt"};

// --policy/--placer/--planner and their repeatable --*-opt KEY=VALUE options (simulate, agent).
struct MethodArgs {
  std::string policy = "fifo";
  std::vector<std::string> policy_opts;
  std::string placer = "pack";
  std::vector<std::string> placer_opts;
  std::string planner = "data-parallel";
  std::vector<std::string> planner_opts;
  void Add(CLI::App& app);
  // The choice; a malformed KEY=VALUE item is a usage error naming its flag.
  Result<MethodChoice> ToChoice() const;
};

// "cpu-node,t4,v100=8" -> (name, count) pairs; count 0 when not given (`plan --pool`).
Result<std::vector<std::pair<std::string, int>>> ParsePool(const std::string& text);
// The pool `plan` and the demo use by default: CPU nodes and four GPU generations.
inline constexpr const char* kDefaultCostPool = "cpu-node,k80,t4,p100,v100-16gb,a100-40gb";
// Sets `problem` up for HeterPS's cost objective over `pool_text` (ParsePool) with `network`
// (a link catalog name) between nodes; errors name --pool or --network.
Status SetCostPool(const std::string& pool_text, const std::string& network, PlanningProblem* problem);


}  // namespace hetsched::cli
