// What a simulation reads, stated as a user states it (a cluster file or the --gpus shorthand, a
// trace file or a synthetic workload, the simulation's settings), and turning it into the
// library's objects with errors a person can act on. The command line's options
// (apps/hetsched/cli_inputs.h) and the Python module fill these in.
#pragma once

#include <memory>
#include <string>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/validation.h"
#include "hetsched/sim/simulator.h"
#include "hetsched/trace/trace.h"

namespace hetsched {

struct ClusterSource {
  std::string file;          // --cluster: a cluster spec file
  std::string gpus;          // --gpus: the shorthand, v100=36,p100=36
  int gpus_per_server = 4;   // --gpus-per-server
  // The cluster chosen: a file, the shorthand, or the built-in default. `description` says which.
  Result<Cluster> Load(std::string* description) const;
};

// "aws=t4,rtx=rtx-2080ti" (a bare "t4": the unsuffixed files) as (suffix, device type) pairs, the
// types as given (checked against the catalog where the profiles are opened).
Result<std::vector<std::pair<std::string, std::string>>> ParseProfileTypes(std::string_view text);

struct WorkloadSource {
  std::string trace;            // --trace: a trace file (empty: the built-in demo trace)
  // A trace held in memory instead of a file (the Python module's DataFrame as native CSV text),
  // read as `format` and named `text_origin` in errors ("DataFrame:4: field 'num_gpus': ...").
  std::string text, text_origin;
  std::string format = "auto";  // --format
  long long synthetic = 0;      // --synthetic N: generated jobs instead of a trace
  double arrival_rate_per_hour = 30;
  long long max_jobs = -1;
  std::string on_bad_row = "stop";
  std::string reference_device = "v100";
  std::string profiles;         // --profiles: goodput applications' profiles (empty: Pollux's, built in)
  // --profile-types: the profiles' GPU types, SUFFIX=TYPE,... (a bare TYPE: the unsuffixed files;
  // empty: "t4", Pollux's); --profile-settings: whose application settings, "pollux" or "sia".
  std::string profile_types;
  std::string profile_settings = "pollux";
  unsigned long long seed = 1;  // shared with the simulation seed
  Result<Workload> Load(const DeviceCatalog& devices, const ModelZoo& zoo) const;
};

// A simulation's settings besides its inputs and methods (SimOptions as a user gives them).
struct SimSettings {
  std::string throughputs = "auto";  // --throughputs: measured-throughput truth table, "auto", "none"
  // --pair-throughputs: Gavel's co-location table (space sharing) added to it; "auto": the built-in
  // one where --throughputs is the built-in table, else none; "none"; a path.
  std::string pair_throughputs = "auto";
  double restart_cost_s = 30;
  double resize_rendezvous_s = 10;
  double max_time_s = 1e12;
  bool no_contention = false;
  bool assume_consolidated = false;
  bool skip_unfit = false;
  // Goodput jobs (SimOptions::goodput_*; docs/goodput.md).
  double goodput_delay_s = -1;  // < 0: each application's own, else 30 s
  double goodput_interval_s = 60;
  bool goodput_round_epochs = false;
  bool goodput_free_moves = false;
  bool whole_second_completions = false;
  SimOptions ToOptions(unsigned long long seed) const;
};

// What a simulate/compare run reads and how it runs: the cluster (and which one it is), the
// workload on it, the simulator's options and the measured table they point at.
struct SimInputs {
  Cluster cluster;
  std::string cluster_description;
  Workload workload;
  SimOptions options;
  // --throughputs' table ("auto": Gavel's, built in), pointed at by options; null for "none".
  std::unique_ptr<MeasuredThroughputs> measured;
};
Result<SimInputs> LoadSimInputs(const ClusterSource& cluster, const WorkloadSource& workload,
                                const SimSettings& settings, const ModelZoo& zoo);
// The "cluster :" and "workload:" lines a run prints.
std::string DescribeSimInputs(const SimInputs& inputs);

}  // namespace hetsched
