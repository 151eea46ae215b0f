// Shared plumbing of the CLI's subcommands: the options that choose a cluster, a workload and
// methods, and turning them into library objects with errors a person can act on.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/validation.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/sched/registry.h"
#include "hetsched/sim/runner.h"
#include "hetsched/trace/trace.h"

namespace hetsched::cli {

// Exit codes (documented in README and `hetsched --help`).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;      // bad input file, infeasible workload, I/O failure
inline constexpr int kExitUsage = 2;      // bad command line (CLI11 also uses 2... see main.cc)
inline constexpr int kExitInternal = 3;   // an invariant broke: a bug, please report it

// Option validators whose messages say what is expected (CLI11's own say "Value 0 not in range
// 0.000000 to 1.79...e308"). The option's name is prefixed by CLI11; a failure exits 2.
CLI::Validator WholeAtLeast(long long min);        // an integer >= min
CLI::Validator NumberAbove(double min);            // a finite number > min
CLI::Validator DeviceCounts();                     // TYPE=COUNT,... of built-in device types, counts >= 1
CLI::Validator NumberAtLeast(double min);          // a finite number >= min
CLI::Validator WholeInRange(long long min, long long max);  // an integer in [min, max]
CLI::Validator NumberBetween(double low, double high);      // a finite number in (low, high)
CLI::Validator SeedValue();                        // an integer in [0, 2^64 - 1] (--seed)
// Every FLOAT option of `app` and of its subcommands refuses NaN and infinity (main.cc).
void RequireFiniteNumbers(CLI::App& app);
// Parses `argv` (argv[0]: the program's name) with `app`; CLI11's error becomes
// kInvalidArgument with its message (a bad command line). For command lines read from a file.
Status ParseCommandLine(CLI::App& app, std::vector<std::string> argv);

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

// Prints "hetsched: error: <message>" to stderr and returns kExitUsage (a bad command line that
// CLI11's own checks cannot see).
int ReportUsageError(const Status& status);

// The flags that choose the methods of `simulate` and `agent` (--policy and --policy-opt, ...),
// as CreateMethods (sched/methods.h) names them in its errors.
inline const MethodLabels kMethodFlags{"--policy", "--policy-opt", "--placer", "--placer-opt", "--planner", "--planner-opt"};

// ReportUsageError when `usage`, else ReportError.
int ReportFailure(const Status& status, bool usage);

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

// Prints "hetsched: error: <message>" to stderr and returns the exit code for `status`.
int ReportError(const Status& status);
// Error messages go to `sink` (appended, one per line) instead of stderr while it is set: the
// Python module turns them into exceptions. nullptr: stderr again.
void SetErrorSink(std::string* sink);
void PrintErrorLine(const std::string& message);  // "hetsched: error: " + message
void PrintErrorText(const std::string& text);      // as it is (CLI11's parse errors)

// The whole command line as `hetsched` runs it (main() is this): returns the exit code.
int RunCli(int argc, char** argv);

// A progress line with the time left on stderr when it is a terminal (and not --quiet);
// otherwise nothing (util/progress.h). Called with (done, total) in `unit`s.
std::function<void(long long, long long)> MakeProgress(bool quiet, const std::string& label,
                                                       const std::string& unit = "jobs");

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
