// Internal to policies/pollux/: what the policies of Pollux's simulator share.
//
// RoundGrid (sched/round_grid.h) is shared with Sia's simulator's Gavel mechanism.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "hetsched/perf/goodput.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/node_counts.h"
#include "hetsched/sched/round_grid.h"

namespace hetsched::pollux_internal {

using hetsched::RoundGrid;

// GPUs for a job of `need` GPUs as tiresias.py and optimus.py place it: from the node with the most
// free GPUs (Counter.most_common: ties to the lowest node id), as many as fit there, then the next.
// Only nodes of a type the job allows count, and all of one type (Pollux's clusters have one). The
// devices are the nodes' first free ones in the cluster state, node after node (the placement the
// job runs in: GPUs per node in that order). Empty when the free GPUs do not suffice.
inline std::vector<DeviceId> FreestNodesFirst(const SchedContext& ctx, JobId id, int need) {
  const Cluster& cluster = ctx.cluster();
  const JobSpec& spec = *ctx.job(id).spec;
  std::vector<int> free(static_cast<size_t>(cluster.num_nodes()));
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
    const bool allowed = spec.AllowsType(cluster.node(n).device_type, cluster.device_catalog());
    free[static_cast<size_t>(n)] = allowed ? ctx.state().free_on_node(n) : 0;
  }
  std::vector<DeviceId> devices;
  int got = 0;
  while (got < need) {
    const auto most = std::max_element(free.begin(), free.end());
    if (most == free.end() || *most <= 0) return {};
    const NodeId n = static_cast<NodeId>(most - free.begin());
    if (got == 0) {  // the first node's type for all
      for (NodeId m = 0; m < cluster.num_nodes(); ++m) {
        if (cluster.node(m).device_type != cluster.node(n).device_type) free[static_cast<size_t>(m)] = 0;
      }
    }
    const int take = std::min(*most, need - got);
    std::vector<DeviceId> on_node;
    ctx.state().AppendFreeDevices(n, &on_node);
    if (static_cast<int>(on_node.size()) < take) return {};
    devices.insert(devices.end(), on_node.begin(), on_node.begin() + take);
    *most -= take;
    got += take;
  }
  return devices;
}

// A goodput job's most GPUs in Pollux's and Sia's simulators (simulator.py:326-331, Sia's
// cluster.py:377-381): twice the most it has measured itself on (1 before any), at most 64
// ("simulator can't handle more") and its largest batch over its smallest local batch, and its
// application's own limit (Pollux's ncf: 1).
// Sia keeps it per GPU type: the most measured on that type, that type's limits.
inline int GoodputMaxReplicas(const GoodputApplication& app, int max_profiled_replicas) {
  int most = std::min({std::max(2 * max_profiled_replicas, 1), 64, app.max_batch_size() / app.min_local_bsz()});
  if (app.max_replicas() > 0) most = std::min(most, app.max_replicas());
  return most;
}
inline int GoodputMaxReplicas(const GoodputJobView& view) {
  return GoodputMaxReplicas(*view.application, view.max_profiled_replicas);
}

// The batch limits a goodput job's speedup is weighed under (speedup.py's SpeedupFunction with
// accumulation): its application's local batches, the largest total batch given.
inline BatchLimits GoodputBatchLimits(const GoodputApplication& app, double max_batch_size) {
  BatchLimits limits;
  limits.max_batch_size = max_batch_size;
  limits.min_atomic_bsz = app.min_local_bsz();
  limits.max_atomic_bsz = app.max_local_bsz();
  limits.accumulation = true;
  return limits;
}

// Each node's GPUs for a round that re-plans `jobs`: those free and those the jobs hold (in the
// simulator, all of them; in the Slurm agent, none of a node that is down).
inline std::vector<int> RoundNodeGpus(const SchedContext& ctx, const std::vector<JobId>& jobs) {
  const Cluster& cluster = ctx.cluster();
  std::vector<int> gpus(static_cast<size_t>(cluster.num_nodes()));
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) gpus[static_cast<size_t>(n)] = ctx.state().free_on_node(n);
  for (JobId id : jobs) {
    for (DeviceId d : ctx.job(id).devices) ++gpus[static_cast<size_t>(cluster.device(d).node)];
  }
  return gpus;
}

}  // namespace hetsched::pollux_internal
