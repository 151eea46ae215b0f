// The whole run record as JSON (run.json), written by `hetsched agent` for a real run and read
// back by `hetsched compare --real-run DIR`, so that a run on a real cluster sits in the same table
// as simulations of the same workload. Lossless for every field the summaries read (doubles are
// written in shortest round-trip form).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "hetsched/metrics/run_record.h"
#include "hetsched/util/status.h"

namespace hetsched {

std::string RunRecordJson(const RunRecord& run);
// The fields that name a run (policy, placer, planner, trace, cluster, seed, total_devices), in
// that order: the head of both run.json and summary.json.
void AppendRunIdentity(const RunRecord& run, nlohmann::ordered_json* j);
// Errors name `origin` and the field ("run.json: jobs[3].finish_s: not a number").
Result<RunRecord> ParseRunRecordJson(std::string_view text, const std::string& origin);

}  // namespace hetsched
