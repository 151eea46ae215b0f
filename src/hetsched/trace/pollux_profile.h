// Pollux's and Sia's per-model profiles (issue #46), as their simulators read them [SRC:
// petuum/adaptdl @ osdi21-artifact, simulator/traces/<model>/ (Apache-2.0), read by
// simulator/applications.py; Sia's traces/<model>/ adds a GPU-type suffix to the first two]:
//   placements[-TYPE].csv  placement,local_bsz,step_time,sync_time   (placement: the GPUs on each
//                          node used, one digit per node, e.g. "44" = 2 nodes x 4 GPUs)
//   scalability[-TYPE].csv num_nodes,num_replicas,local_bsz,step_time,sync_time
//   validation-BSZ.csv     progress,iteration,metric,grad_sqr,grad_var  (one row per epoch, at
//                          total batch size BSZ; progress in iterations at the initial batch size)
// Columns may come in any order. Bad values are errors naming the file, line and field.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/perf/measured_profile.h"
#include "hetsched/util/status.h"

namespace hetsched {

Result<std::vector<PolluxPlacementRow>> ParsePolluxPlacements(std::string_view text, const std::string& origin);
Result<std::vector<PolluxScalabilityRow>> ParsePolluxScalability(std::string_view text, const std::string& origin);
// Rows in epoch order; progress and iteration may not decrease.
Result<std::vector<PolluxValidationRow>> ParsePolluxValidation(std::string_view text, const std::string& origin);

// Reads DIR/MODEL/: placements[-TYPE].csv, scalability[-TYPE].csv (TYPE empty: Pollux's files
// without a suffix) and every validation-BSZ.csv (at least one).
Result<PolluxModelProfile> LoadPolluxModelProfile(const std::string& dir, const std::string& model,
                                                  const std::string& gpu_type = "");

}  // namespace hetsched
