// The re-plan of count_replan.h. SymbioticLab/Tiresias @ 959f9b0, simulator/run_sim.py.
#include "hetsched/policies/tiresias/count_replan.h"

#include <algorithm>

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
  Begin(ctx);
  for (JobId id : order) Offer(ctx, id);
  Finish(ctx);
}

void TiresiasCountReplan::Begin(const SchedContext& ctx) {
  free_ = ctx.cluster().devices_per_type();
  max_free_ = free_.empty() ? 0 : *std::max_element(free_.begin(), free_.end());
  stop_.clear();
  start_.clear();
  runs_.clear();
}

bool TiresiasCountReplan::Offer(const SchedContext& ctx, JobId id) {
  const JobStatus& job = ctx.job(id);
  int* f = nullptr;
  int n = 0;
  if (job.state == JobState::kRunning) {
    f = &free_[static_cast<size_t>(job.device_type)];
    n = job.num_devices();
    if (*f < n) {
      stop_.push_back(id);
      return false;
    }
    runs_.insert(id);
  } else {
    const DeviceTypeId t = CountRoomFor(*job.spec, ctx.cluster(), free_);
    if (t == kNoDeviceType) return false;
    f = &free_[static_cast<size_t>(t)];
    n = job.spec->num_gpus;
    start_.emplace_back(id, t);
  }
  const bool was_max = *f == max_free_;
  *f -= n;
  if (was_max && n > 0) max_free_ = *std::max_element(free_.begin(), free_.end());
  return true;
}

bool TiresiasCountReplan::KeepAll(const std::vector<int>& need) {
  for (size_t t = 0; t < need.size(); ++t) {
    if (need[t] > free_[t]) return false;
  }
  bool changed = false;
  for (size_t t = 0; t < need.size(); ++t) {
    free_[t] -= need[t];
    changed = changed || need[t] > 0;
  }
  if (changed) max_free_ = *std::max_element(free_.begin(), free_.end());
  return true;
}

void TiresiasCountReplan::Finish(SchedContext& ctx) {
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
