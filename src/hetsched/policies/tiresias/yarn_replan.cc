// The re-plan of yarn_replan.h. SymbioticLab/Tiresias @ 959f9b0, simulator/.
#include "hetsched/policies/tiresias/yarn_replan.h"

#include <algorithm>
#include <string>

namespace hetsched {

void TiresiasYarnReplan::Apply(SchedContext& ctx, const std::vector<JobId>& order) {
  const Cluster& cluster = ctx.cluster();
  free_.assign(static_cast<size_t>(cluster.num_nodes()), 0);
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
    free_[static_cast<size_t>(n)] = cluster.node(n).num_devices;
  }
  chosen_.clear();
  for (JobId id : order) {
    // A running job is planned on its own type, so that the plan's counts hold on the devices.
    const JobStatus& job = ctx.job(id);
    const DeviceTypeId type =
        PlanYarn(*job.spec, cluster, job.state == JobState::kRunning ? job.device_type : kNoDeviceType);
    if (type != kNoDeviceType) chosen_[id] = type;
  }
  for (JobId id : order) {
    if (ctx.job(id).state == JobState::kRunning && chosen_.count(id) == 0) ctx.Preempt(id);
  }
  for (JobId id : order) {
    auto it = chosen_.find(id);
    if (it == chosen_.end() || ctx.job(id).state == JobState::kRunning) continue;
    const int n = ctx.job(id).spec->num_gpus;
    if (ctx.state().free_of_type(it->second) < n) {  // a bug: the plan's counts fit the cluster
      ctx.Fail(Status::Internal("tiresias re-plan: fewer than " + std::to_string(n) +
                                " free devices for job " + std::to_string(id)));
      return;
    }
    // A job the planner refuses on these devices stays pending, as in `dlas`.
    StartOnLowestFree(ctx, id, n, it->second, &devices_);
  }
}

// try_single_node_alloc and try_cross_node_alloc (switch.py:46-195), counting GPUs only.
DeviceTypeId TiresiasYarnReplan::PlanYarn(const JobSpec& spec, const Cluster& cluster, DeviceTypeId only) {
  const int need = spec.num_gpus;
  for (DeviceTypeId t : cluster.present_types()) {
    if (only != kNoDeviceType ? t != only : !spec.AllowsType(t, cluster.device_catalog())) continue;
    picked_.clear();
    int per_node = 0;
    for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
      if (cluster.node(n).device_type == t) per_node = std::max(per_node, cluster.node(n).num_devices);
    }
    if (per_node == 0) continue;
    if (need <= per_node) {  // try_single_node_alloc: the first node with room
      for (NodeId n = 0; n < cluster.num_nodes() && picked_.empty(); ++n) {
        if (cluster.node(n).device_type == t && free_[static_cast<size_t>(n)] >= need) picked_.push_back(n);
      }
      if (picked_.empty()) continue;
      free_[static_cast<size_t>(picked_[0])] -= need;
      return t;
    }
    // try_cross_node_alloc: the first floor(need / g) wholly free nodes of the full size g (the
    // peer's nodes are all alike), then the first other node with the rest.
    const int full = need / per_node, rest = need % per_node;
    for (NodeId n = 0; n < cluster.num_nodes() && static_cast<int>(picked_.size()) < full; ++n) {
      const Node& node = cluster.node(n);
      if (node.device_type == t && node.num_devices == per_node &&
          free_[static_cast<size_t>(n)] == per_node) {
        picked_.push_back(n);
      }
    }
    if (static_cast<int>(picked_.size()) < full) continue;
    NodeId last = -1;
    for (NodeId n = 0; n < cluster.num_nodes() && rest > 0 && last < 0; ++n) {
      if (cluster.node(n).device_type == t && free_[static_cast<size_t>(n)] >= rest &&
          std::find(picked_.begin(), picked_.end(), n) == picked_.end()) {
        last = n;
      }
    }
    if (rest > 0 && last < 0) continue;
    for (NodeId n : picked_) free_[static_cast<size_t>(n)] = 0;
    if (last >= 0) free_[static_cast<size_t>(last)] -= rest;
    return t;
  }
  return kNoDeviceType;
}

bool StartOnLowestFree(SchedContext& ctx, JobId id, int n, DeviceTypeId type,
                       std::vector<DeviceId>* scratch) {
  scratch->clear();
  for (NodeId node : ctx.state().nodes_of_type(type)) {
    if (static_cast<int>(scratch->size()) >= n) break;
    if (ctx.state().free_on_node(node) > 0) ctx.state().AppendFreeDevices(node, scratch);
  }
  if (static_cast<int>(scratch->size()) < n) return false;
  scratch->resize(static_cast<size_t>(n));
  return ctx.StartOn(id, *scratch);
}

}  // namespace hetsched
