// Shared by the planner experiments (heterps_experiment.cc, tapp_experiment.cc).
#pragma once

#include <string>
#include <vector>

#include "hetsched/experiments/experiment.h"

namespace hetsched {

// The options of the learned planner an experiment runs: episodes and the run's seed, plus every
// experiment option named "rl.KEY", passed on as KEY (e.g. `--opt rl.entropy=0.05`).
Options LearnedPlannerOptionsOf(const ExperimentContext& ctx, long long episodes);

// The q-quantile (0..1, nearest rank) of `v`; 0 when empty.
double Quantile(std::vector<double> v, double q);

}  // namespace hetsched
