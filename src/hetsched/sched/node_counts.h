// A job's GPUs as counts per node, and moving jobs to such counts: what the round policies that
// plan GPUs per node (Pollux's, Sia's and Sia's Gavel) share with whichever back end runs them.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "hetsched/sched/context.h"

namespace hetsched {

// GPUs per node, nodes in the order the devices first reach them (consecutive devices of one node
// counted together).
using NodeCounts = std::vector<std::pair<NodeId, int>>;

inline NodeCounts CountByNode(const Cluster& cluster, std::span<const DeviceId> devices) {
  NodeCounts out;
  for (DeviceId d : devices) {
    const NodeId n = cluster.device(d).node;
    if (out.empty() || out.back().first != n) out.emplace_back(n, 0);
    ++out.back().second;
  }
  return out;
}

// The devices for `want`: each node's first free ones, node after node. Empty when a node has
// fewer free than wanted: a back end that frees a preempted job's GPUs later (the Slurm agent:
// Slurm requeues it asynchronously) may not have them yet, and the job waits a round.
inline std::vector<DeviceId> FreeDevicesFor(const SchedContext& ctx, const NodeCounts& want) {
  std::vector<DeviceId> devices, on_node;
  for (const auto& [n, count] : want) {
    if (count <= 0) continue;
    on_node.clear();
    ctx.state().AppendFreeDevices(n, &on_node);
    if (static_cast<int>(on_node.size()) < count) return {};
    devices.insert(devices.end(), on_node.begin(), on_node.begin() + count);
  }
  return devices;
}

// Moves each job of `plan` to its GPUs per node (empty: none): a running job already so placed
// runs on; the others are stopped first, then started on their nodes' free devices, in the plan's
// order (one whose GPUs are not all free waits for the next round). Stops at a fault.
inline void MoveToNodeCounts(SchedContext& ctx, const std::vector<std::pair<JobId, NodeCounts>>& plan) {
  std::vector<size_t> to_start;
  for (size_t i = 0; i < plan.size(); ++i) {
    const auto& [id, want] = plan[i];
    const JobStatus& st = ctx.job(id);
    const bool running = st.state == JobState::kRunning;
    if (running && CountByNode(ctx.cluster(), st.devices) == want) continue;
    if (running) ctx.Preempt(id);
    if (!want.empty()) to_start.push_back(i);
  }
  for (size_t i : to_start) {
    const std::vector<DeviceId> devices = FreeDevicesFor(ctx, plan[i].second);
    if (!devices.empty()) ctx.StartOn(plan[i].first, devices);
    if (ctx.failed()) return;
  }
}

}  // namespace hetsched
