// YARN-style consolidated placement as Tiresias' simulator does it (SymbioticLab/Tiresias
// @ 959f9b0, simulator/switch.py:197-214 ms_yarn_alloc_res, cluster.py:894-904):
// - a job that fits in one node goes on the first node, in id order, with enough free devices
//   (switch.py:160-189);
// - a larger job takes floor(n / node size) wholly free nodes (the first ones in id order) plus,
//   for the remainder, the first other node with that many free devices, all under one rack
//   switch, racks in order (switch.py:44-87); otherwise it waits (all or nothing).
// The peer also checks CPU cores and memory per node (6 cores per GPU of a multi-GPU job); with
// the cluster files it ships (n32g4: 40 cores for 4 GPUs; n160g8, n256g8: 128 and 64 for 8) they
// never bind, and they are not modelled (with 40 cores for 8 GPUs its FIFO never starts an
// 8-GPU job: docs/validation.md).
// Nodes of mixed sizes: wholly free nodes are taken while the remainder is at least their size.
// Cost: O(log N) for a one-node job, O(nodes of the type) for a larger one.
#include <algorithm>

#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class YarnPlacer : public Placer {
 public:
  std::string_view name() const override { return "yarn"; }

  bool Place(const PlacementRequest& request, const ClusterState& state,
             std::vector<DeviceId>* out) override {
    const int n = request.num_devices;
    for (DeviceTypeId t : CandidateTypes(request, state)) {
      if (state.free_of_type(t) < n) continue;
      const NodeId single = state.FirstNodeWithFree(t, n);
      if (single >= 0) {
        Take(state, single, n, out);
        return true;
      }
      if (PlaceAcrossNodes(state, t, n, out)) return true;
    }
    return false;
  }

 private:
  static void Take(const ClusterState& state, NodeId node, int count, std::vector<DeviceId>* out) {
    const size_t first = out->size();
    state.AppendFreeDevices(node, out);
    out->resize(first + static_cast<size_t>(count));
  }

  // Whole free nodes plus one node for the remainder, all in one rack; racks in id order.
  bool PlaceAcrossNodes(const ClusterState& state, DeviceTypeId t, int n, std::vector<DeviceId>* out) {
    const Cluster& cluster = state.cluster();
    const std::vector<NodeId>& nodes = state.nodes_of_type(t);
    for (size_t begin = 0; begin < nodes.size();) {
      const RackId rack = cluster.node(nodes[begin]).rack;
      size_t end = begin;
      while (end < nodes.size() && cluster.node(nodes[end]).rack == rack) ++end;
      whole_.clear();
      int left = n;
      for (size_t i = begin; i < end && left > 0; ++i) {
        const Node& node = cluster.node(nodes[i]);
        if (state.free_on_node(nodes[i]) == node.num_devices && node.num_devices <= left) {
          whole_.push_back(nodes[i]);
          left -= node.num_devices;
        }
      }
      NodeId last = -1;
      for (size_t i = begin; i < end && left > 0 && last < 0; ++i) {
        if (state.free_on_node(nodes[i]) >= left &&
            std::find(whole_.begin(), whole_.end(), nodes[i]) == whole_.end()) {
          last = nodes[i];
        }
      }
      if (left == 0 || last >= 0) {
        for (NodeId node : whole_) Take(state, node, cluster.node(node).num_devices, out);
        if (last >= 0) Take(state, last, left, out);
        return true;
      }
      begin = end;
    }
    return false;
  }

  std::vector<NodeId> whole_;  // scratch
};

Result<std::unique_ptr<Placer>> MakeYarn(const Options& /*options*/) {
  return std::unique_ptr<Placer>(std::make_unique<YarnPlacer>());
}

const MethodInfo kYarnInfo{
    "yarn", "first node with room; a larger job takes whole free nodes + one for the rest, in one rack",
    "[SRC] Tiresias' simulator, YARN placement (SymbioticLab/Tiresias switch.py ms_yarn_alloc_res)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kYarnRegistered, kYarnInfo, MakeYarn)

}  // namespace hetsched
