// Runs named methods (sched/methods.h) through the simulator: one run, or several on the same
// inputs. Shared by the CLI (simulate, compare, demo) and the experiments.
#pragma once

#include <string>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/sched/methods.h"
#include "hetsched/sim/simulator.h"

namespace hetsched {

Result<RunRecord> RunSimulation(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                                const MethodChoice& choice, const SimOptions& options);

// Runs each choice on the same inputs, using up to `threads` threads (runs are independent, so
// the results do not depend on the thread count). Results in the order of `choices`. If
// options.progress is set it is called with the jobs finished over all runs and all runs' jobs.
std::vector<Result<RunRecord>> RunMany(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                                       const std::vector<MethodChoice>& choices, const SimOptions& options,
                                       int threads);
// The same with the methods of each run already built (the CLI builds them before it reads the
// inputs, to refuse a bad choice at once): each is used by one run.
std::vector<Result<RunRecord>> RunMany(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                                       std::vector<Methods> methods, const SimOptions& options, int threads);

}  // namespace hetsched
