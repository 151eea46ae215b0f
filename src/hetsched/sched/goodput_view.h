// What a goodput-adaptive job reports of itself to a scheduler (docs/goodput.md): adaptdl's agent
// in a job tells Pollux's scheduler its fitted throughput model and gradient statistics; Pollux's
// and Sia's simulators hand their policies the same (simulator.py:299-366). The application's
// profile comes with it: its limits (batch sizes, local batches, epochs) are what the user
// declares; its measured step times are an oracle that only an "+Oracle" baseline reads
// (Pollux's Optimus+Oracle).
#pragma once

#include <optional>
#include <vector>

#include "hetsched/perf/goodput.h"
#include "hetsched/perf/goodput_application.h"
#include "hetsched/perf/goodput_job.h"
#include "hetsched/util/status.h"
#include "hetsched/perf/goodput_split.h"

namespace hetsched {

// What a job knows of itself on one GPU type it was profiled on (Sia's per-type profiles and
// models: job.py:34-49, 216-238).
struct GoodputTypeView {
  DeviceTypeId type = kNoDeviceType;             // kNoDeviceType: a truth tied to no type (any)
  const GoodputApplication* application = nullptr;  // its limits on that type
  int max_profiled_replicas = 0;                 // the most GPUs it has measured itself on there
  std::optional<ThroughputParams> params;        // its fitted model there (when asked for)
};

struct GoodputJobView {
  // Its current type's (the one it runs on, or last ran on; the first before any): application,
  // max_profiled_replicas and params below; every type's in `types`.
  const GoodputApplication* application = nullptr;
  bool adaptive = false;        // it picks its batch size (JobSpec::adaptive_batch, under a policy that adapts)
  int target_batch = 0;         // the total batch its user tuned
  int epoch = 0;                // epochs it has completed
  std::vector<int> placement;   // GPUs on each node it runs on now; empty: none
  int atomic_bsz = 0, accum_steps = 0;
  int restarts = 0;             // placements after its first (0 before any)
  double delay_left_s = 0;      // what remains of its re-allocation delay (checkpoint-restore)
  int max_profiled_replicas = 0;  // the most GPUs it has measured itself on
  std::optional<ThroughputParams> params;  // its fitted model (when asked for); none before it measured itself
  std::optional<GradientStats> grad;       // its last measured gradient statistics (on any type)
  std::vector<GoodputTypeView> types;      // one per type it was profiled on
  // Split over two types [REC] (perf/goodput_split.h): the second type and its local batch there
  // (0: those GPUs idle; kNoDeviceType: not split), and what it last timed while split.
  DeviceTypeId second_type = kNoDeviceType;
  int second_atomic_bsz = 0;
  std::optional<SplitMeasurement> split_measured;
};

// What `job` reports of itself (both back ends build their views here): every field but
// delay_left_s (the back end's: 0 here). `with_model`: its models are (re)fitted where due, which
// is costly; an error when a fit fails.
Result<GoodputJobView> GoodputJobViewOf(GoodputJob& job, bool with_model);

}  // namespace hetsched
