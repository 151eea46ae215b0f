// Space sharing in the simulator (docs/space_sharing.md): a job started on the devices of a running
// job, both at their co-located speeds (perf/space_sharing.h), and the busy-device counts that
// count a shared device once.
#include <algorithm>
#include <string>
#include <vector>

#include "hetsched/sim/simulator_impl.h"

namespace hetsched::sim_internal {

DeviceDemand Simulator::ShareDemand(JobId id, const Plan& plan, const IterationEstimate& alone) const {
  return DemandOf(*runs_[static_cast<size_t>(id)].model, plan.batch_per_device, cluster_, plan.devices, alone);
}

Status Simulator::StartSharedJob(JobId id, JobId host, const PlannedJob& planned) {
  const JobStatus& st = status_[static_cast<size_t>(id)];
  if (st.state != JobState::kPending || rejected_[static_cast<size_t>(id)] || host < 0 ||
      static_cast<size_t>(host) >= status_.size() || host == id) {
    return Status::Internal("shared start of job " + std::to_string(id) + " that is not pending, or with no host");
  }
  const JobStatus& other = status_[static_cast<size_t>(host)];
  const RunState& host_run = runs_[static_cast<size_t>(host)];
  const RunState& job = runs_[static_cast<size_t>(id)];
  const std::string who = "job " + std::to_string(id) + " cannot share job " + std::to_string(host) + "'s devices: ";
  if (other.state != JobState::kRunning || other.sharing_with >= 0) {
    return Status::Infeasible(who + "that job is not running alone");
  }
  if (job.goodput >= 0 || host_run.goodput >= 0 || st.spec->is_container_job() || other.spec->is_container_job()) {
    return Status::Infeasible(who + "goodput and container jobs do not share devices");
  }
  std::vector<DeviceId> mine(planned.plan.devices.begin(), planned.plan.devices.end());
  std::vector<DeviceId> theirs(other.devices.begin(), other.devices.end());
  std::sort(mine.begin(), mine.end());
  std::sort(theirs.begin(), theirs.end());
  if (mine != theirs || !planned.plan.containers.empty()) {
    return Status::Internal(who + "the plan is not on exactly that job's devices");
  }
  const Plan& host_plan = active(host_run).plan;
  const auto data_parallel = [](const Plan& p) {
    return p.parallelism == Parallelism::kSingle || p.parallelism == Parallelism::kDataRing ||
           p.parallelism == Parallelism::kDataPS;
  };
  if (!data_parallel(planned.plan) || !data_parallel(host_plan)) {
    return Status::Infeasible(who + "only single-device and data-parallel jobs share devices");
  }
  // Each job's factor while paired: Gavel's measured pair (--pair-throughputs) where both are
  // measured job types and the table has them on this type and count (it ran, or failed to, on
  // real GPUs: it decides, memory included); else the co-location model [REC].
  double guest_factor = 0, host_factor = 0;
  const MeasuredThroughputs* table = options_.measured_throughputs;
  if (table != nullptr && table->has_pairs() && job.measured_type >= 0 && host_run.measured_type >= 0) {
    const DeviceTypeId type = cluster_.device(planned.plan.devices.front()).type;
    const int count = static_cast<int>(planned.plan.devices.size());
    const auto pair = table->PairStepsPerSecond(job.measured_type, host_run.measured_type, type, count);
    const bool consolidated = options_.measured_always_consolidated || NicsUsed(cluster_, planned.plan).empty();
    const double guest_solo = table->StepsPerSecond(job.measured_type, type, count, consolidated);
    const double host_solo = table->StepsPerSecond(host_run.measured_type, type, count, consolidated);
    if (pair && guest_solo > 0 && host_solo > 0 && count == st.spec->num_gpus && count == other.spec->num_gpus) {
      if (!(pair->first > 0 && pair->second > 0)) return Status::Infeasible(who + "Gavel measured no co-location of the two");
      // Each is re-timed at its measured rate alone times this factor: its measured rate paired.
      guest_factor = std::min(1.0, pair->first / guest_solo);
      host_factor = std::min(1.0, pair->second / host_solo);
    }
  }
  if (guest_factor == 0) {
    const IterationEstimate guest_alone = EstimateIteration(*job.model, planned.plan, cluster_);
    const IterationEstimate host_alone = EstimateIteration(*host_run.model, host_plan, cluster_);
    if (!(guest_alone.iteration_s > 0) || !(host_alone.iteration_s > 0)) {
      return Status::Infeasible(who + "no estimate of a step alone");
    }
    const DeviceDemand guest_demand = ShareDemand(id, planned.plan, guest_alone);
    const DeviceDemand host_demand = ShareDemand(host, host_plan, host_alone);
    if (!FitsTogether(guest_demand, host_demand, cluster_, planned.plan.devices)) {
      return Status::Infeasible(who + "the two do not fit the devices' memory together");
    }
    guest_factor = host_factor = CoLocationFactor(guest_demand, host_demand);
  }
  HETSCHED_RETURN_IF_ERROR(BeginRun(id, planned, st.preemptions > 0 ? options_.restart_cost_s : 0.0, false, host));
  active(runs_[static_cast<size_t>(id)]).pair_factor = guest_factor;
  active(runs_[static_cast<size_t>(host)]).pair_factor = host_factor;
  ClockSharing(id);
  ClockSharing(host);
  Retime(id);
  if (!other.idle) Retime(host);
  return Status::Ok();
}

void Simulator::ClockSharing(JobId id) {
  const JobStatus& st = status_[static_cast<size_t>(id)];
  ActiveRun& run = active(runs_[static_cast<size_t>(id)]);
  const bool sharing = !run.idle && st.sharing_with >= 0 && !status_[static_cast<size_t>(st.sharing_with)].idle;
  if (sharing == (run.shared_from_s >= 0)) return;
  if (sharing) {
    run.shared_from_s = now_;
  } else {
    run.shared_s += now_ - run.shared_from_s;
    run.shared_from_s = -1;
  }
}

Status Simulator::AuditSharing() const {
  // Recounted from the running jobs through their run slots: the jobs on each device that run and
  // are not held (at most two: ClusterState takes no third), and the busy devices by type.
  std::vector<uint8_t> users(device_users_.size(), 0);
  std::vector<DeviceId> mine, theirs;
  for (const ActiveRun& run : active_) {
    if (run.job < 0) continue;
    const JobStatus& st = status_[static_cast<size_t>(run.job)];
    // An idle job has no completion event, unless held to its finish (HoldFinishUntil).
    const bool has_event = run.completion_s != EventQueue::kNever;
    if (run.idle && has_event != FinishHeld(runs_[static_cast<size_t>(run.job)])) {
      return Status::Internal("invariant: job " + std::to_string(run.job) + " is held idle with" +
                              (has_event ? "" : "out") + " a completion event, its finish " +
                              (has_event ? "not " : "") + "held, at t=" + std::to_string(now_));
    }
    for (DeviceId d : st.devices) {
      if (!state_.holds(run.job, d)) {
        return Status::Internal("invariant: job " + std::to_string(run.job) + " runs on device " + std::to_string(d) +
                                " that it does not hold, at t=" + std::to_string(now_));
      }
      if (!run.idle) ++users[static_cast<size_t>(d)];
    }
    if (st.sharing_with < 0) continue;
    const JobStatus& other = status_[static_cast<size_t>(st.sharing_with)];
    mine.assign(st.devices.begin(), st.devices.end());
    theirs.assign(other.devices.begin(), other.devices.end());
    std::sort(mine.begin(), mine.end());
    std::sort(theirs.begin(), theirs.end());
    if (other.state != JobState::kRunning || other.sharing_with != run.job || mine != theirs ||
        !(run.pair_factor > 0 && run.pair_factor <= 1)) {
      return Status::Internal("invariant: job " + std::to_string(run.job) + " and its partner " +
                              std::to_string(st.sharing_with) + " disagree on what they share, at t=" +
                              std::to_string(now_));
    }
  }
  std::vector<int> by_type(busy_by_type_.size(), 0);
  int busy = 0;
  for (size_t d = 0; d < users.size(); ++d) {
    if (users[d] == 0) continue;
    ++by_type[static_cast<size_t>(cluster_.device(static_cast<DeviceId>(d)).type)];
    ++busy;
  }
  if (users != device_users_ || by_type != busy_by_type_ || busy != busy_devices_) {
    return Status::Internal("invariant: busy-device counts disagree with the running jobs at t=" + std::to_string(now_));
  }
  return Status::Ok();
}

void Simulator::MarkBusy(std::span<const DeviceId> devices) {
  for (DeviceId d : devices) {
    if (device_users_[static_cast<size_t>(d)]++ > 0) continue;
    ++busy_by_type_[static_cast<size_t>(cluster_.device(d).type)];
    ++busy_devices_;
  }
}

void Simulator::MarkNotBusy(std::span<const DeviceId> devices) {
  for (DeviceId d : devices) {
    if (--device_users_[static_cast<size_t>(d)] > 0) continue;
    --busy_by_type_[static_cast<size_t>(cluster_.device(d).type)];
    --busy_devices_;
  }
}

}  // namespace hetsched::sim_internal
