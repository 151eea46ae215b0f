// Internal to the agent: its book of the nodes as sinfo shows them. A node that is down or
// drained has its free GPUs held by kNodeDownOwner (and those its jobs free later); GPUs Slurm
// counts in use beyond the agent's running jobs there (another user's job, a job being cancelled,
// Slurm's own miscount after a GRES underflow: docs/slurm.md) are held by kSlurmBusyOwner, at
// once on a node sinfo calls idle and after kSlurmBusyPersistS elsewhere (a run the agent
// preempted holds its GPUs in Slurm until it stops, and those must go to the job it was preempted
// for). What a released job of the agent holds cannot be taken: the node is then short, and such
// a job is taken back by the agent. The book keeps the held GPUs' counts per type for the
// timeline.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "hetsched/sched/cluster_state.h"
#include "hetsched/slurm/clock.h"
#include "hetsched/slurm/cluster_translate.h"
#include "hetsched/slurm/slurm_json.h"
#include "hetsched/util/function_ref.h"

namespace hetsched::slurm {

// The book's sentinel owner for the devices of a node that is down or drained.
inline constexpr JobId kNodeDownOwner = -2;
// ... and for GPUs that Slurm counts in use on a node that is up and that no running job of the
// agent holds there.
inline constexpr JobId kSlurmBusyOwner = -3;
// GPUs that Slurm counts in use on a node that is not idle, beyond those of the agent's running
// jobs there, are kept out of placements once Slurm has counted them this long: longer than a run
// the agent preempted takes to stop (Slurm's KillWait, 30 s by default), so that the GPUs it frees
// are not kept from the job the policy preempted it for.
inline constexpr double kSlurmBusyPersistS = 60;

class NodeBook {
 public:
  // `state` is the agent's, whose devices the book holds and gives back; `report` tells the
  // operator.
  NodeBook(const SlurmCluster& cluster, ClusterState& state, Clock& clock,
           std::function<void(const std::string&)> report);

  // Books sinfo's view of node `sn` (ignored when not one of the cluster's). `running(owner)`:
  // whether a device owner is a running job of the agent. `*changed` is set when devices were
  // held or given back (the policy's view changed).
  Status Refresh(const SlurmNode& sn, FunctionRef<bool(JobId)> running, bool* changed);
  // Devices a job gave back: those of a node that is down stay out of service.
  void HoldIfDown(const std::vector<DeviceId>& devices);

  bool idle(NodeId n) const { return idle_[static_cast<size_t>(n)]; }
  // Whether one of `nodes` (Slurm names) is down, or short of GPUs Slurm counts busy.
  bool AnyDown(const std::vector<std::string>& nodes) const;
  bool AnyShort(const std::vector<std::string>& nodes) const;
  // Devices held out of service (down or kept out), in all and of a catalog type.
  int held_devices() const { return held_; }
  int held_of_type(DeviceTypeId t) const { return held_by_type_[static_cast<size_t>(t)]; }

 private:
  void Book(const std::vector<DeviceId>& devices, int sign);
  Status SetDown(NodeId n, const SlurmNode& sn, bool down);
  Status KeepOutSlurmBusy(NodeId n, int slurm_used, FunctionRef<bool(JobId)> running, bool* changed);
  bool Any(const std::vector<std::string>& nodes, const std::vector<char>& flag) const;

  const SlurmCluster& cluster_;
  ClusterState& state_;
  Clock& clock_;
  std::function<void(const std::string&)> report_;
  std::vector<char> down_;
  std::vector<char> idle_;  // sinfo's state "idle" at the last refresh
  // Per node: since when Slurm has counted more than k GPUs in use beyond the agent's running jobs
  // (-1: not now), for each k; what is kept out now; whether its free GPUs could not give it all.
  std::vector<std::vector<double>> busy_since_;
  std::vector<int> keep_out_;
  std::vector<char> short_;
  int held_ = 0;
  std::vector<int> held_by_type_;  // indexed by DeviceTypeId
};

}  // namespace hetsched::slurm
