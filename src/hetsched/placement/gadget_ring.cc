// GADGET ring embedding (ALGORITHMS.md 5.3 step 2; docs/gadget.md): the job's workers form a
// ring, embedded on as few servers as possible, visiting each server's GPUs consecutively so the
// ring leaves each used server exactly once (one NIC flow per direction; perf-model.md §2).
// Per candidate type: the best-fit server (fewest free GPUs that still hold the job); else
// k = the fewest servers that hold it: the k - 1 most-free servers taken whole, then the
// remainder on the best-fitting other server (same span as `pack`, but the partial server is
// the tightest fit, leaving larger holes for later rings). Over types, the fewest servers wins
// (ties: CandidateTypes order). The same rule as gadget::EmbedOnServers (policies/gadget/core.h).
// Cost: O(log N + devices per node) for one server, O(n log N) otherwise; no cluster scan.
#include <algorithm>

#include "hetsched/placement/fewest_nodes.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class GadgetRingPlacer : public FewestNodesPlacer {
 public:
  std::string_view name() const override { return "gadget-ring"; }

 protected:
  // k = the fewest most-free servers that hold n; the first k - 1 taken whole, the remainder on
  // the best-fitting server not already taken.
  int Spread(DeviceTypeId t, int n, int best_span, const ClusterState& state, std::vector<NodeId>* nodes,
             std::vector<DeviceId>* devices) override {
    nodes->clear();
    state.AppendNodesByMostFree(t, n, nodes);
    int k = 0, sum = 0;
    while (k < static_cast<int>(nodes->size()) && sum < n) sum += state.free_on_node((*nodes)[static_cast<size_t>(k++)]);
    if (sum < n || k >= best_span) return 0;
    for (int i = 0; i + 1 < k; ++i) state.AppendFreeDevices((*nodes)[static_cast<size_t>(i)], devices);
    const int left = n - static_cast<int>(devices->size());
    NodeId last = state.BestFitNode(t, left);
    const auto taken_end = nodes->begin() + (k - 1);
    if (std::find(nodes->begin(), taken_end, last) != taken_end) {
      last = (*nodes)[static_cast<size_t>(k - 1)];  // a tie with a server already taken whole
    }
    const size_t before = devices->size();
    state.AppendFreeDevices(last, devices);
    devices->resize(before + static_cast<size_t>(left));
    return k;
  }
};

Result<std::unique_ptr<Placer>> MakeGadgetRing(const Options& /*options*/) {
  return std::unique_ptr<Placer>(std::make_unique<GadgetRingPlacer>());
}

const MethodInfo kGadgetRingInfo{
    "gadget-ring", "ring embedding: best-fit server, else fewest servers with a best-fit remainder, node-contiguous ring",
    "[REC] GADGET greedy ring embedding (Yu et al., INFOCOM 2022; details reconstructed, docs/gadget.md)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kGadgetRingRegistered, kGadgetRingInfo, MakeGadgetRing)

}  // namespace hetsched
