// What hetsched reads from Slurm 22.05's JSON outputs (`sinfo --json`, `squeue --json`), as plain
// structs, and the small Slurm notations inside them: host lists ("a100-[1-2,4]"), GRES strings
// ("gpu:a100:4", "gres:gpu:6") and allocated GPU indices ("gpu:a100:3(IDX:0-2)"). Parsing errors
// name the origin (command or file) and the field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::slurm {

struct SlurmNode {
  std::string name;
  std::string state;                     // "idle", "mixed", "allocated", "down", "drained", ...
  std::vector<std::string> state_flags;  // "DRAIN", "NOT_RESPONDING", ...
  std::string gres;                      // configured GRES, e.g. "gpu:a100:4"
  // GPUs Slurm counts in use on it (sinfo's `gres_used`, "gpu:a100:2(IDX:0-1)", summed over its
  // GPU entries); -1 when sinfo does not say.
  int gpus_used = -1;
  std::vector<std::string> features;     // active features
  std::vector<std::string> partitions;
  int cpus = 0;
  double real_memory_mb = 0;
  std::string reason;
  // Whether jobs can start on it now: not down/drained/failing/not responding.
  bool Usable() const;
};

// A job's GPU request or allocation: `count` GPUs of `type` (empty type: any type).
struct GpuGres {
  std::string type;
  int count = 0;
};

struct SlurmJob {
  long long id = 0;
  long long array_job_id = 0;            // 0 unless an array task
  std::string name;                      // free text: never parsed, never given to a shell
  std::string comment;                   // free text; hetsched reads key=value fields from it
  std::string state;                     // "PENDING", "RUNNING", "COMPLETED", "FAILED", ...
  std::string reason;                    // "JobHeldUser", "Resources", "BadConstraints", ...
  std::string partition;
  std::string user;
  std::vector<std::string> nodes;        // expanded host list (allocated, or empty)
  std::string tres_per_job;              // "gres:gpu:a100:6" or ""
  std::string tres_per_node;             // "gres:gpu:2" or ""
  int node_count = 0;                    // requested (pending) or allocated node count
  std::vector<std::string> gres_detail;  // per allocated node, "gpu:a100:3(IDX:0-2)"
  int restart_count = 0;
  int exit_code = 0;                     // as reported (a wait status; non-zero = failed)
  double submit_time_s = 0;              // epoch seconds
  double start_time_s = 0;
  double end_time_s = 0;
  long long priority = 0;

  // Held by its owner (`sbatch --hold`, `scontrol uhold`): how users hand a job to the agent.
  bool HeldByUser() const { return state == "PENDING" && reason == "JobHeldUser"; }
  // Held for any reason Slurm has (user or admin hold: `scontrol hold` as root gives JobHeldAdmin,
  // as does `requeuehold`; the requeue limit, JobHoldMaxRequeue; a requeue still under way,
  // REQUEUE_HOLD): Slurm will not start it until someone releases it.
  bool Held() const;
  bool Pending() const { return state == "PENDING" || state == "REQUEUED" || state == "REQUEUE_HOLD"; }
  // Holds nodes: RUNNING, CONFIGURING (nodes allocated, prolog or boot under way), or COMPLETING
  // (its script has ended; Slurm is cleaning up and will report how it ended).
  bool Active() const { return state == "RUNNING" || state == "COMPLETING" || state == "CONFIGURING"; }
  bool Completing() const { return state == "COMPLETING"; }
  // COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED.
  bool Terminal() const { return !Pending() && !Active() && state != "SUSPENDED"; }
};

// A job's exit as Slurm reports it (`exit_code`: a wait status, the exit code in its high byte,
// a terminating signal in its low bits) in words: "exit code 3", "signal 9".
std::string DescribeExit(int wait_status);

Result<std::vector<SlurmNode>> ParseSinfoJson(std::string_view text, const std::string& origin);
Result<std::vector<SlurmJob>> ParseSqueueJson(std::string_view text, const std::string& origin);

// "a100-[1-2,4],v100-3" -> {"a100-1","a100-2","a100-4","v100-3"}. Zero-padded ranges keep their
// width ("n[01-03]"). Errors on unbalanced brackets or bad ranges.
Result<std::vector<std::string>> ExpandHostlist(std::string_view expr);
// The GPU entry of a GRES or TRES string ("gpu:a100:4", "gres:gpu:6", "gpu:v100:8(S:0),shard:2",
// "gres/gpu:a100=2"); a string without a GPU entry gives count 0.
Result<GpuGres> ParseGpuGres(std::string_view gres);
// All GPUs a GRES string counts, over its GPU entries of any type ("gpu:a100:1(IDX:0),gpu:v100:3(IDX:0,2-3)"
// is 4); 0 without one.
Result<int> CountGpuGres(std::string_view gres);
// Allocated GPU indices of one node from a gres_detail entry: "gpu:a100:3(IDX:0-2)" -> {0,1,2};
// "gpu:v100:2(IDX:0,5)" -> {0,5}.
Result<std::vector<int>> ParseGresIndices(std::string_view detail);

}  // namespace hetsched::slurm
