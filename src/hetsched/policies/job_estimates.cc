#include "hetsched/policies/job_estimates.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hetsched/util/text.h"
#include "hetsched/util/units.h"

namespace hetsched {

std::vector<DeviceTypeId> UsableTypes(const JobSpec& spec, const Cluster& cluster) {
  std::vector<DeviceTypeId> out;
  for (DeviceTypeId t : cluster.present_types()) {
    if (spec.AllowsType(t, cluster.device_catalog())) out.push_back(t);
  }
  return out;
}

double RemainingEstimateS(SchedContext& ctx, JobId id, DeviceTypeId type) {
  const JobStatus& status = ctx.job(id);
  const JobSpec& spec = *status.spec;
  const double now = ctx.now();
  if (spec.estimated_runtime_s > 0) return std::max(0.0, spec.estimated_runtime_s - status.ExecutedS(now));
  if (spec.iterations <= 0) return kInf;
  // Progress of the current run is not reported until the allocation changes; extrapolate it
  // with the rate the job's own logs show (iteration_rate), which any back end can observe.
  double done = status.iterations_done;
  if (status.state == JobState::kRunning) done += status.iteration_rate * (now - status.last_start_s);
  const double left = std::max(0.0, static_cast<double>(spec.iterations) - done);
  if (left == 0) return 0;
  return left * ctx.EstimateIterationS(id, spec.num_gpus, type);
}

double RemainingOnFastestS(SchedContext& ctx, JobId id) {
  const JobSpec& spec = *ctx.job(id).spec;
  if (spec.estimated_runtime_s > 0 || spec.iterations <= 0) return RemainingEstimateS(ctx, id, kNoDeviceType);
  double best_s = kInf;
  for (DeviceTypeId t : UsableTypes(spec, ctx.cluster())) best_s = std::min(best_s, RemainingEstimateS(ctx, id, t));
  return best_s;
}

void ChooseVictims(SchedContext& ctx, JobId job, VictimWalk walk, VictimChoice* out) {
  const JobSpec& spec = *ctx.job(job).spec;
  const int need = spec.num_gpus;
  VictimChoice& best = *out;
  best.type = kNoDeviceType;
  best.victims.clear();
  int best_freed = std::numeric_limits<int>::max();
  std::vector<JobId>& victims = best.trial;  // this type's; swapped into `best.victims` when it wins
  const Cluster& cluster = ctx.cluster();
  for (DeviceTypeId t : cluster.present_types()) {  // UsableTypes, without a vector per call
    if (!spec.AllowsType(t, cluster.device_catalog())) continue;
    int avail = ctx.state().free_of_type(t);
    if (avail >= need) continue;  // not a device shortage on this type: preemption cannot help
    int freed = 0;
    victims.clear();
    walk(t, [&](JobId v) {
      const int held = ctx.job(v).num_devices();
      victims.push_back(v);
      freed += held;
      avail += held;
      return avail < need && freed < best_freed;
    });
    if (avail >= need && freed < best_freed) {
      best_freed = freed;
      best.type = t;
      best.victims.swap(victims);
    }
  }
}

Result<std::vector<double>> ParseIncreasingList(const std::string& text, const std::string& what) {
  std::vector<double> out;
  if (Trim(text).empty()) return out;
  for (std::string_view item : Split(text, ';')) {
    const Result<double> parsed = ParseDouble(Trim(item), what);
    if (!parsed.ok()) return Status::InvalidArgument(parsed.status().message());  // an option's value
    const double v = *parsed;
    if (!(v > 0) || !std::isfinite(v)) {
      return Status::InvalidArgument(what + ": values must be positive and finite, got '" + std::string(Trim(item)) + "'");
    }
    if (!out.empty() && v <= out.back()) {
      return Status::InvalidArgument(what + ": values must be strictly increasing ('" + text + "')");
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace hetsched
