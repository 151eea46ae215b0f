#include "hetsched/policies/gadget/realloc.h"

#include <algorithm>
#include <map>

namespace hetsched::gadget {

double EffectiveRate(double x0, double x1, double pause_s, double remaining_iterations, double horizon_s) {
  double h = horizon_s;
  if (x0 > 0) h = std::min(h, remaining_iterations / x0);
  if (!(h > 0)) return 0.0;
  return x1 * std::max(0.0, h - pause_s) / h;
}

namespace {

// Appends up to `limit` devices of node n: the job's own first (in `own` order), then free ones.
int TakeOnNode(const ClusterState& state, NodeId n, std::span<const DeviceId> own, int limit,
               std::vector<DeviceId>* out) {
  int taken = 0;
  const Cluster& cluster = state.cluster();
  for (DeviceId d : own) {
    if (taken == limit) return taken;
    if (cluster.device(d).node == n) {
      out->push_back(d);
      ++taken;
    }
  }
  if (taken == limit) return taken;
  std::vector<DeviceId> free;
  state.AppendFreeDevices(n, &free);
  for (DeviceId d : free) {
    if (taken == limit) break;
    out->push_back(d);
    ++taken;
  }
  return taken;
}

}  // namespace

void RingCandidates(const ClusterState& state, std::span<const DeviceId> own, int workers,
                    std::vector<RingCandidate>* out) {
  if (own.empty() || workers < 1) return;
  const Cluster& cluster = state.cluster();
  const DeviceTypeId type = cluster.device(own.front()).type;
  // The job's servers, the most own devices first (ties: lowest node id).
  std::map<NodeId, int> per_node;
  for (DeviceId d : own) ++per_node[cluster.device(d).node];
  std::vector<std::pair<NodeId, int>> servers(per_node.begin(), per_node.end());
  std::stable_sort(servers.begin(), servers.end(), [](const auto& a, const auto& b) { return a.second > b.second; });

  // 1. One of its own servers.
  for (const auto& [node, mine] : servers) {
    if (mine + state.free_on_node(node) < workers) continue;
    RingCandidate c;
    TakeOnNode(state, node, own, workers, &c.devices);
    c.span = 1;
    c.kept = std::min(mine, workers);
    out->push_back(std::move(c));
    break;
  }
  // 2. The best-fit other server.
  const NodeId best = state.BestFitNode(type, workers);
  if (best >= 0 && per_node.count(best) == 0) {
    RingCandidate c;
    TakeOnNode(state, best, {}, workers, &c.devices);
    c.span = 1;
    out->push_back(std::move(c));
  }
  // 3. Its own servers together.
  {
    int room = 0;
    for (const auto& [node, mine] : servers) room += mine + state.free_on_node(node);
    const bool one_holds = std::any_of(servers.begin(), servers.end(), [&](const auto& s) {
      return s.second + state.free_on_node(s.first) >= workers;
    });
    if (room >= workers && !one_holds) {
      RingCandidate c;
      for (const auto& [node, mine] : servers) {
        const int left = workers - static_cast<int>(c.devices.size());
        if (left == 0) break;
        TakeOnNode(state, node, own, left, &c.devices);
        ++c.span;
      }
      c.kept = 0;
      for (DeviceId d : c.devices) c.kept += std::find(own.begin(), own.end(), d) != own.end() ? 1 : 0;
      out->push_back(std::move(c));
    }
  }
}

}  // namespace hetsched::gadget
