// The dlas family's names and options (dlas.h): `dlas`, `dlas-gpu`, the peer's dlas-gpu-N,
// dlas-gpu-gittins-N and dlas-gpu-pack, each a TiresiasDlasScheduler (dlas.cc) with its settings.
#include <cmath>
#include <string>
#include <utility>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/tiresias/dlas.h"
#include "hetsched/sched/registry.h"

namespace hetsched {

Result<TiresiasDlasConfig> ParseTiresiasDlasOptions(const std::string& name, bool gpu_time,
                                                    const Options& options, double starvation) {
  TiresiasDlasConfig config;
  config.name = name;
  config.gpu_time = gpu_time;
  // jobs.py:102-104 (queue_limit = [3250, 7200, 18000] with num_queue = 3: only the first two
  // limits are ever compared, run_sim.py:1049).
  HETSCHED_ASSIGN_OR_RETURN(config.limits, ParseIncreasingList(options.GetString("thresholds", "3250;7200"),
                                                               "policy '" + name + "': option 'thresholds'"));
  const std::string placement = options.GetString("placement", "placer");
  if (placement != "placer" && placement != "count") {
    return Status::InvalidArgument("policy '" + name +
                                   "': option 'placement' must be placer or count, got '" + placement + "'");
  }
  config.count_only = placement == "count";
  const std::string replan = options.GetString("replan", "incremental");
  if (replan != "incremental" && replan != "whole") {
    return Status::InvalidArgument("policy '" + name + "': option 'replan' must be incremental or whole, got '" +
                                   replan + "'");
  }
  config.incremental = replan == "incremental";
  HETSCHED_ASSIGN_OR_RETURN(config.starvation, options.GetDouble("starvation", starvation));
  if (!(config.starvation >= 0) || !std::isfinite(config.starvation)) {
    return Status::InvalidArgument("policy '" + name + "': option 'starvation' must be a finite number >= 0");
  }
  return config;
}

namespace {

Result<std::unique_ptr<JobScheduler>> MakeDlas(const std::string& name, bool gpu_time, const Options& options,
                                               double starvation = 0) {
  HETSCHED_ASSIGN_OR_RETURN(TiresiasDlasConfig config,
                            ParseTiresiasDlasOptions(name, gpu_time, options, starvation));
  return MakeTiresiasDlas(std::move(config));
}

const MethodInfo kDlasInfo{
    "dlas",
    "Tiresias' discretised LAS on executed time, whole-cluster re-plan at every event (thresholds=3250;7200)",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py dlas_sim_jobs, gputime=False)"};
const MethodInfo kDlasGpuInfo{
    "dlas-gpu", "Tiresias' discretised 2D-LAS on GPUs x executed time, whole-cluster re-plan at every event",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py dlas_sim_jobs, gputime=True)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kDlasRegistered, kDlasInfo,
                       [](const Options& o) { return MakeDlas("dlas", false, o); })
HETSCHED_REGISTER_IMPL(JobScheduler, kDlasGpuRegistered, kDlasGpuInfo,
                       [](const Options& o) { return MakeDlas("dlas-gpu", true, o); })

namespace {

// The peer's dlas-gpu-N (run_sim.py:2077-2092): dlas-gpu with solve_starvation = N (05: 0.5). Its
// dlas-gpu-gittins-N (run_sim.py:2053-2064) are the same policies: the Gittins ordering tests for
// the exact name dlas-gpu-gittins (run_sim.py:1056, 1076, 1104), so they only add starvation.
struct DlasGpuStarvationVariant {
  const char* name;
  double starvation;
};
constexpr DlasGpuStarvationVariant kDlasGpuStarvationVariants[] = {
    {"dlas-gpu-05", 0.5},      {"dlas-gpu-1", 1},         {"dlas-gpu-2", 2},
    {"dlas-gpu-4", 4},         {"dlas-gpu-8", 8},         {"dlas-gpu-10", 10},
    {"dlas-gpu-100", 100},     {"dlas-gpu-1000", 1000},   {"dlas-gpu-gittins-1", 1},
    {"dlas-gpu-gittins-2", 2}, {"dlas-gpu-gittins-4", 4}, {"dlas-gpu-gittins-8", 8},
};

// The peer's dlas-gpu-pack (run_sim.py:2065-2067, dlas_pack_sim_jobs 1503-1770) counts a GPU as
// free while its share left is at least the job's model's `mem_util` (cluster.py:131-154), so
// that jobs could share GPUs; but the published models.py:22 sets every mem_util to 1 (the
// per-model values are commented out), so a GPU holds one job and the policy is dlas-gpu.
const MethodInfo kDlasGpuPackInfo{
    "dlas-gpu-pack",
    "Tiresias' dlas-gpu-pack as published: dlas-gpu (every model's GPU share is 1, so nothing packs)",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py dlas_pack_sim_jobs; models.py m_mem all 1)"};

const bool kDlasGpuVariantsRegistered = [] {
  for (const DlasGpuStarvationVariant& v : kDlasGpuStarvationVariants) {
    const std::string name = v.name;
    const std::string factor = name == "dlas-gpu-05" ? "0.5" : name.substr(name.rfind('-') + 1);
    Registry<JobScheduler>::Instance().Register(
        MethodInfo{name,
                   "Tiresias' dlas-gpu with starvation promotion: a job waiting " + factor +
                       " x its executed time returns to queue 0 (starvation=" + factor + ")",
                   "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py dlas_sim_jobs, gputime=True, "
                   "solve_starvation=" +
                       factor +
                       (name.find("gittins") != std::string::npos
                            ? "; no Gittins ordering: the peer tests the exact "
                              "name dlas-gpu-gittins)"
                            : ")")},
        [name, starvation = v.starvation](const Options& o) { return MakeDlas(name, true, o, starvation); });
  }
  Registry<JobScheduler>::Instance().Register(
      kDlasGpuPackInfo, [](const Options& o) { return MakeDlas("dlas-gpu-pack", true, o); });
  return true;
}();

}  // namespace

}  // namespace hetsched
