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
#include "hetsched/perf/validation.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/sched/methods.h"
#include "hetsched/sim/simulator.h"
#include "hetsched/trace/trace.h"

namespace hetsched::cli {

struct ClusterArgs {
  std::string file;             // --cluster
  std::string gpus;             // --gpus v100=36,p100=36
  int gpus_per_server = 4;      // --gpus-per-server
  void Add(CLI::App& app);
  // The cluster chosen: a file, the shorthand, or the built-in default. `description` says which.
  Result<Cluster> Load(std::string* description) const;
};

struct WorkloadArgs {
  std::string trace;            // --trace
  std::string format = "auto";  // --format
  long long synthetic = 0;      // --synthetic N
  double arrival_rate_per_hour = 30;
  long long max_jobs = -1;
  std::string on_bad_row = "stop";
  std::string reference_device = "v100";
  unsigned long long seed = 1;  // shared with the simulation seed
  void Add(CLI::App& app);
  Result<Workload> Load(const DeviceCatalog& devices, const ModelZoo& zoo) const;
};

// What a simulate/compare run reads: the cluster (and which one it is) and the workload on it.
struct SimInputs {
  Cluster cluster;
  std::string cluster_description;
  Workload workload;
};
Result<SimInputs> LoadSimInputs(const ClusterArgs& cluster, const WorkloadArgs& workload, const ModelZoo& zoo);
// Prints the "cluster :" and "workload:" lines.
void PrintSimInputs(const SimInputs& inputs);

struct SimArgs {
  std::string throughputs = "auto";  // --throughputs: measured-throughput truth table
  double restart_cost_s = 30;
  double resize_rendezvous_s = 10;
  double max_time_s = 1e12;
  bool no_contention = false;
  bool assume_consolidated = false;
  bool skip_unfit = false;
  bool quiet = false;
  void Add(CLI::App& app);
  SimOptions ToOptions(unsigned long long seed) const;
  // Loads the --throughputs table ("auto": data/real/gavel/throughputs.csv if that file exists
  // under the working directory; "none": no table) into `table` and points options at it.
  Status LoadThroughputs(const DeviceCatalog& devices, MeasuredThroughputs* table, SimOptions* options) const;
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

// "policy  : fifo  [CLASSIC] ...\nplacer  : ...\nplanner : ...\n"
std::string DescribeMethods(const MethodChoice& choice);

// "cpu-node,t4,v100=8" -> (name, count) pairs; count 0 when not given (`plan --pool`).
Result<std::vector<std::pair<std::string, int>>> ParsePool(const std::string& text);
// The pool `plan` and the demo use by default: CPU nodes and four GPU generations.
inline constexpr const char* kDefaultCostPool = "cpu-node,k80,t4,p100,v100-16gb,a100-40gb";
// Sets `problem` up for HeterPS's cost objective over `pool_text` (ParsePool) with `network`
// (a link catalog name) between nodes; errors name --pool or --network.
Status SetCostPool(const std::string& pool_text, const std::string& network, PlanningProblem* problem);

// The provenance line of a method ("[CLASSIC] ...") for printing next to results.
std::string Provenance(const std::string& kind, const std::string& name);

}  // namespace hetsched::cli
