// Tiresias' discretised LAS as its own simulator runs it (dlas_sim_jobs; dlas.cc has the rules),
// for the policies built on it: dlas, dlas-gpu and its -N and -pack variants (dlas.cc),
// dlas-gpu-gittins (gittins.cc).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/options.h"
#include "hetsched/util/status.h"

namespace hetsched {

// Orders one queue in place just before the re-plan walks it. `service(id)` is the job's
// attained service as the peer counts it for its queue (GPU-seconds or seconds).
using TiresiasQueueOrder = std::function<void(
    const SchedContext& ctx, const std::function<double(JobId)>& service, std::vector<JobId>* queue)>;

struct TiresiasDlasConfig {
  std::string name;
  bool gpu_time = false;       // service = GPUs x executed time (dlas-gpu) or executed time
  std::vector<double> limits;  // service at which a job leaves queue i (the last queue has none)
  bool count_only = false;     // placement=count
  double starvation = 0;       // solve_starvation: waiting executed x this promotes; 0: none
  TiresiasQueueOrder order;    // empty: each queue keeps its list order
  // Without `order`: re-plan incrementally (dlas.cc, "Incremental re-plan"), the same plans as
  // the whole walk; false walks every runnable job at every event (the reference, for tests).
  bool incremental = true;
};

// The options every dlas-family policy takes: thresholds (default 3250;7200, jobs.py:102-104),
// placement (placer | count), starvation (>= 0, default `starvation`) and replan (incremental |
// whole: the same plans, whole walks every job at every event). Errors name the policy and the
// option.
Result<TiresiasDlasConfig> ParseTiresiasDlasOptions(const std::string& name, bool gpu_time,
                                                    const Options& options, double starvation = 0);

std::unique_ptr<JobScheduler> MakeTiresiasDlas(TiresiasDlasConfig config);

}  // namespace hetsched
