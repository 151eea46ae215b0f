// Goodput jobs in the simulator (perf/goodput_job.h, docs/goodput.md): their placement, their epochs
// as events, and the goodput interval at which adaptive jobs measure themselves and re-pick their
// batch. Their speed is their application's truth alone: Pollux's simulator models no link
// contention (its `interference` is 0 unless set) and Sia's turns it off, so a goodput job puts
// no traffic on the links.
#include <algorithm>
#include <cmath>
#include <string>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/perf/ring_model.h"
#include "hetsched/sim/simulator_impl.h"

namespace hetsched::sim_internal {

namespace {

// GPUs per node, a new entry whenever the node changes (Pollux's allocation list to placement).
std::vector<int> PlacementOf(const Cluster& cluster, std::span<const DeviceId> devices) {
  std::vector<int> placement;
  NodeId last = -1;
  for (DeviceId d : devices) {
    const NodeId n = cluster.device(d).node;
    if (placement.empty() || n != last) placement.push_back(0);
    ++placement.back();
    last = n;
  }
  return placement;
}

}  // namespace

bool Simulator::GoodputSameShape(const GoodputJob& g, const std::vector<int>& placement, int on,
                                 std::span<const DeviceId> devices) const {
  if (!options_.goodput_free_moves || devices.empty() || placement.empty()) return false;
  const DeviceTypeId was = g.types[static_cast<size_t>(on)].type;
  return (was == kNoDeviceType || was == cluster_.device(devices.front()).type) &&
         PlacementOf(cluster_, devices) == placement;
}

bool Simulator::GoodputFreeMove(const GoodputJob& g, const Plan& plan) const {
  // A job that left two types does not continue on one as it was.
  return g.left.at_s == now_ && !g.left.split && GoodputSameShape(g, g.left.placement, g.left.on, plan.devices);
}

Status Simulator::GoodputPlace(JobId id, const Plan& plan, bool free_move) {
  RunState& job = runs_[static_cast<size_t>(id)];
  GoodputJob& g = goodput(job);
  if (free_move) {  // as it was: its placement, type and batch, no restart
    g.placement = g.left.placement;
    g.on = g.left.on;
    g.app = g.types[static_cast<size_t>(g.on)].app;
    g.atomic_bsz = g.left.atomic_bsz;
    g.accum_steps = g.left.accum_steps;
  } else {
    // Its first type is its first device's; devices of one other type make it a split job
    // (perf/goodput_job_split.cc), whose all-reduce crosses the joint ring's slowest hop.
    const DeviceTypeId type = plan.devices.empty() ? kNoDeviceType : cluster_.device(plan.devices.front()).type;
    std::vector<DeviceId> first, second;
    DeviceTypeId other = kNoDeviceType;
    for (DeviceId d : plan.devices) {
      const DeviceTypeId t = cluster_.device(d).type;
      if (t != type && other != kNoDeviceType && t != other) {
        return Status::InvalidArgument("job " + std::to_string(id) + ": a goodput job on more than two GPU types");
      }
      if (t != type) other = t;
      (t == type ? first : second).push_back(d);
    }
    const std::string who = "job " + std::to_string(id);
    HETSCHED_RETURN_IF_ERROR(GoodputSteps::Place(g, PlacementOf(cluster_, first), type).WithContext(who));
    if (!second.empty()) {
      const RingLinks hop = DescribeRing(cluster_, plan.devices).bottleneck;
      const double ring_s = RingAllReduceTime(static_cast<int>(plan.devices.size()), job.model->total_param_bytes(),
                                              hop.bandwidth_Bps, hop.latency_s);
      HETSCHED_RETURN_IF_ERROR(GoodputSteps::PlaceSecond(g, PlacementOf(cluster_, second), other, ring_s).WithContext(who));
    }
  }
  return GoodputSteps::BeginChunk(g, now_).WithContext("job " + std::to_string(id) + " (" + g.app->name() + ")");
}

double Simulator::GoodputBoundary(const RunState& job) const {
  const GoodputJob& g = goodput(job);
  return std::min(job.total_iterations, g.app->ProgressAt(g.epoch + 1));
}

double Simulator::GoodputDelayS(const GoodputJob& g) const {
  return GoodputSteps::RestartDelayS(g, options_.goodput_restart_delay_s);
}

Status Simulator::GoodputBoundaryStep(JobId id, bool repick) {
  RunState& job = runs_[static_cast<size_t>(id)];
  GoodputJob& g = goodput(job);
  const ActiveRun& run = active(job);
  const std::string who = "job " + std::to_string(id) + " (" + g.app->name() + ")";
  HETSCHED_RETURN_IF_ERROR(GoodputSteps::ObserveIfRan(g, now_, run.progress_from_s).WithContext(who));
  if (repick) HETSCHED_RETURN_IF_ERROR(GoodputSteps::RepickBatch(g).WithContext(who));
  HETSCHED_RETURN_IF_ERROR(GoodputSteps::BeginChunk(g, now_).WithContext(who));
  Retime(id);
  return Status::Ok();
}

Status Simulator::GoodputEpochEnds(JobId id, bool* decide) {
  RunState& job = runs_[static_cast<size_t>(id)];
  GoodputJob& g = goodput(job);
  ActiveRun& run = active(job);
  const double boundary = GoodputBoundary(job);
  // Progress conservation: the boundary is reached now (to within Pollux's rounding of the time
  // to a whole second when SimOptions::goodput_round_epochs: half a second of progress).
  const double done = ProgressAt(job, now_);
  const double slack = (options_.goodput_round_epochs ? 0.5 * run.rate : 0.0) + 1e-6 * boundary + 1e-6;
  if (std::abs(done - boundary) > slack) {
    return Status::Internal("invariant: goodput job " + std::to_string(id) + " ends epoch " + std::to_string(g.epoch) +
                            " at t=" + std::to_string(now_) + " with progress " + std::to_string(done) + ", not " +
                            std::to_string(boundary));
  }
  // Measured in the epoch that ends (its gradient statistics), then the next begins.
  HETSCHED_RETURN_IF_ERROR(GoodputSteps::ObserveIfRan(g, now_, run.progress_from_s)
                               .WithContext("job " + std::to_string(id) + " (" + g.app->name() + ")"));
  ++g.epoch;
  job.done_at_update = boundary;
  run.update_s = now_;
  status_[static_cast<size_t>(id)].iterations_done = boundary;
  if (g.epoch > g.app->completion_epoch()) {
    *decide = true;
    return Complete(id);
  }
  return GoodputBoundaryStep(id, /*repick=*/true);
}

Result<std::optional<GoodputJobView>> Simulator::goodput_job(JobId id, bool with_model) const {
  if (id < 0 || static_cast<size_t>(id) >= runs_.size() || runs_[static_cast<size_t>(id)].goodput < 0) {
    return std::optional<GoodputJobView>();
  }
  const RunState& job = runs_[static_cast<size_t>(id)];
  // What it measured since its last boundary counts once it has progressed; its model is
  // refitted on demand.
  GoodputJob& g = const_cast<Simulator*>(this)->goodput_[static_cast<size_t>(job.goodput)];
  if (job.active >= 0 && !active(job).idle) {
    HETSCHED_RETURN_IF_ERROR(
        GoodputSteps::ObserveIfRan(g, now_, active(job).progress_from_s).WithContext("job " + std::to_string(id)));
  }
  GoodputSteps::MergeHistory(g);
  HETSCHED_ASSIGN_OR_RETURN(GoodputJobView v, GoodputJobViewOf(g, with_model));
  if (job.active >= 0 && !active(job).idle) v.delay_left_s = std::max(0.0, active(job).progress_from_s - now_);
  return std::optional<GoodputJobView>(std::move(v));
}

Status Simulator::GoodputTick() {
  const double now = now_;
  bool adaptive_running = false;
  for (size_t slot = 0; slot < active_.size(); ++slot) {
    const ActiveRun& run = active_[slot];
    if (run.job < 0 || run.idle) continue;
    const RunState& job = runs_[static_cast<size_t>(run.job)];
    if (job.goodput < 0 || !goodput(job).adaptive) continue;
    adaptive_running = true;
    HETSCHED_RETURN_IF_ERROR(GoodputBoundaryStep(run.job, /*repick=*/true));
  }
  goodput_tick_s_ = adaptive_running ? now + options_.goodput_interval_s : kInf;
  return Status::Ok();
}

}  // namespace hetsched::sim_internal
