// The re-plan of count_replan.h. SymbioticLab/Tiresias @ 959f9b0, simulator/run_sim.py.
#include "hetsched/policies/tiresias/count_replan.h"

#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/tiresias/yarn_replan.h"

namespace hetsched {
namespace {

// The type a pending job would be counted against: its usable type with the most devices still
// free in this pass (ties: catalog order), or kNoDeviceType when none has room.
DeviceTypeId CountRoomFor(const JobSpec& spec, const Cluster& cluster, const std::vector<int>& free) {
  DeviceTypeId best = kNoDeviceType;
  for (DeviceTypeId t : UsableTypes(spec, cluster)) {
    const int f = free[static_cast<size_t>(t)];
    if (f >= spec.num_gpus && (best == kNoDeviceType || f > free[static_cast<size_t>(best)])) best = t;
  }
  return best;
}

}  // namespace

void TiresiasCountReplan::Apply(SchedContext& ctx, const std::vector<JobId>& order) {
  const Cluster& cluster = ctx.cluster();
  std::vector<int> free = cluster.devices_per_type();
  stop_.clear();
  start_.clear();
  runs_.clear();
  for (JobId id : order) {
    const JobStatus& job = ctx.job(id);
    if (job.state == JobState::kRunning) {
      int& f = free[static_cast<size_t>(job.device_type)];
      if (f >= job.num_devices()) {
        f -= job.num_devices();
        runs_.insert(id);
      } else {
        stop_.push_back(id);
      }
      continue;
    }
    const DeviceTypeId t = CountRoomFor(*job.spec, cluster, free);
    if (t == kNoDeviceType) continue;
    free[static_cast<size_t>(t)] -= job.spec->num_gpus;
    start_.emplace_back(id, t);
  }
  for (JobId id : stop_) ctx.Preempt(id);
  for (const auto& [id, type] : start_) {
    const int n = ctx.job(id).spec->num_gpus;
    // placement=count: whichever `n` free devices of `type` come first in id order (the peer only
    // counts them); false if the planner refuses them.
    const bool started =
        count_only_ ? StartOnLowestFree(ctx, id, n, type, &devices_) : ctx.TryStart(id, n, type);
    if (started) runs_.insert(id);
  }
}

}  // namespace hetsched
