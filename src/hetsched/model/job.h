// Jobs. JobSpec is what a scheduler may see (what a user submits to Slurm or Gavel); JobTruth is
// what only the simulator knows (how much work the job really is). Policies receive JobSpec
// only, so a policy cannot cheat by accident and runs unchanged against a real cluster.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/model/container.h"
#include "hetsched/model/device.h"

namespace hetsched {

using JobId = int64_t;
inline constexpr double kNoDeadline = std::numeric_limits<double>::infinity();

enum class Parallelism {
  kSingle,        // one device
  kDataRing,      // data parallel, ring all-reduce (the default for multi-GPU jobs)
  kDataPS,        // data parallel with parameter servers
  kPipeline,      // pipeline parallel over stages
};
std::string_view ParallelismName(Parallelism p);
// Parses "single", "ring", "ps", "pipeline" (case-insensitive).
std::optional<Parallelism> ParseParallelism(std::string_view name);

struct JobSpec {
  JobId id = 0;
  std::string name;            // free text from the trace: never parsed, never sent to a shell
  std::string user;
  std::string model;           // zoo key
  int batch_size = 0;          // per device; 0 = the model's default
  int64_t iterations = 0;      // the user's stated iteration count (an estimate)
  int num_gpus = 1;            // requested devices
  std::vector<DeviceTypeId> allowed_types;  // empty = any accelerator type
  Parallelism parallelism = Parallelism::kDataRing;
  int priority = 0;            // higher = more important
  double submit_time_s = 0;
  double deadline_s = kNoDeadline;  // absolute time, or none
  double estimated_runtime_s = 0;   // the user's runtime estimate (Slurm --time); 0 = none
  // The job tolerates a change of its workers while it runs (Horovod Elastic / TorchElastic
  // style): a scheduler's resize then costs a re-rendezvous and a state broadcast instead of a
  // checkpoint and restart (perf/elastic_resize.h). Trace column `elastic` (native format).
  bool elastic = false;

  // ---- Goodput-adaptive jobs (Pollux's and Sia's workloads, docs/goodput.md) ----
  // The application whose measured profile is the job's truth (Workload::applications); the
  // name is visible (a user states what they train), its measurements are not. Empty: none.
  std::string application;
  // The job lets the system pick its batch size (and its GPU count: `elastic`) for its goodput
  // (Pollux's and Sia's "adaptive" jobs); otherwise it keeps num_gpus x batch_size, the batch
  // its user tuned.
  bool adaptive_batch = false;
  // The total batch its user tuned (num_gpus x batch_size, before a split rounded it up); 0: that
  // product.
  int total_batch_size = 0;

  // ---- Parameter-server container jobs (DLTAP, ALGORITHMS.md 6) ----
  // num_ps > 0 makes this a container job: num_ps parameter-server containers and num_workers
  // worker containers, each placed whole on one node (a node may hold containers of several
  // jobs). Then parallelism = kDataPS and num_gpus = num_workers * worker.gpus + num_ps * ps.gpus
  // (the trace readers enforce both). num_ps == 0: a plain device job, the fields below unused.
  int num_ps = 0;
  int num_workers = 0;
  ContainerRequest ps_request;
  ContainerRequest worker_request;
  bool is_container_job() const { return num_ps > 0; }

  // --- Intra-job planning (planners/hetero_problem.h, issue 6) ---
  // A heterogeneous planner ("dp", "brute-force", "tapp") that lays the job out as a pipeline of
  // stages over the devices it is given, minimising the step time; the job then runs at that
  // plan's throughput. Empty: the default data-parallel layout.
  std::string intra_job_planner;

  // Whether the job may run on type `t`: one of allowed_types, or, when that list is empty, any
  // accelerator type (not a CPU node: a GPU job never lands on a CPU node by default).
  bool AllowsType(DeviceTypeId t, const DeviceCatalog& catalog) const;
};

struct JobTruth {
  // The work the job really is, in iterations of `batch_size` per device on `num_gpus` devices.
  double total_iterations = 0;
  // The trace's measured job type ("ResNet-50 (batch size 32)" in Gavel's traces), the key into a
  // table of measured throughputs (perf/validation.h MeasuredThroughputs); empty if none.
  std::string measured_job_type;
  // The job's run time as the trace reports it (Tiresias `duration`), in seconds, measured on
  // spec.num_gpus devices of the workload's reference type (Workload::runtime_device). When > 0
  // it is the truth on that type and count, whatever the layout: the job progresses at
  // total_iterations / runtime_s iterations per second there, and on other types or counts at
  // that rate scaled by the performance model (docs/formats-trace.md, "Run times as the truth").
  // 0: none (the performance model's speed is the truth).
  double runtime_s = 0;
  // The run time the source trace reported, if any (native column `reference_runtime_s`):
  // informational, kept with the truth because it is the job's real duration, which a policy
  // must not see (it was a JobSpec field until issue 45). 0: none.
  double reference_runtime_s = 0;
};

struct Job {
  JobSpec spec;
  JobTruth truth;
};

}  // namespace hetsched
