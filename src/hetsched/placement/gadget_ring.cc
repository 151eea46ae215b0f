// GADGET ring embedding (ALGORITHMS.md 5.3 step 2; docs/gadget.md): the job's workers form a
// ring, embedded on as few servers as possible, visiting each server's GPUs consecutively so the
// ring leaves each used server exactly once (one NIC flow per direction; perf-model.md §2).
// Per candidate type: the best-fit server (fewest free GPUs that still hold the job); else
// k = the fewest servers that hold it: the k - 1 most-free servers taken whole, then the
// remainder on the best-fitting other server (same span as `pack`, but the partial server is
// the tightest fit, leaving larger holes for later rings). Over types, the fewest servers wins
// (ties: CandidateTypes order). The same rule as gadget::EmbedOnServers (policies/gadget_core.h).
// Cost: O(log N + devices per node) for one server, O(n log N) otherwise; no cluster scan.
#include <algorithm>
#include <limits>

#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class GadgetRingPlacer : public Placer {
 public:
  std::string_view name() const override { return "gadget-ring"; }

  bool Place(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out) override {
    const int n = request.num_devices;
    int best_span = std::numeric_limits<int>::max();
    best_.clear();
    for (DeviceTypeId t : CandidateTypes(request, state)) {
      if (state.free_of_type(t) < n) continue;
      const NodeId single = state.BestFitNode(t, n);
      if (single >= 0) {
        best_.clear();
        state.AppendFreeDevices(single, &best_);
        best_.resize(static_cast<size_t>(n));
        break;  // one server is the least any type can do
      }
      nodes_.clear();
      state.AppendNodesByMostFree(t, n, &nodes_);
      int k = 0, sum = 0;
      while (k < static_cast<int>(nodes_.size()) && sum < n) sum += state.free_on_node(nodes_[static_cast<size_t>(k++)]);
      if (sum < n || k >= best_span) continue;
      devices_.clear();
      for (int i = 0; i + 1 < k; ++i) state.AppendFreeDevices(nodes_[static_cast<size_t>(i)], &devices_);
      const int left = n - static_cast<int>(devices_.size());
      NodeId last = state.BestFitNode(t, left);
      if (std::find(nodes_.begin(), nodes_.begin() + (k - 1), last) != nodes_.begin() + (k - 1)) {
        last = nodes_[static_cast<size_t>(k - 1)];  // a tie with a server already taken whole
      }
      const size_t before = devices_.size();
      state.AppendFreeDevices(last, &devices_);
      devices_.resize(before + static_cast<size_t>(left));
      best_.swap(devices_);
      best_span = k;
    }
    if (best_.empty()) return false;
    out->insert(out->end(), best_.begin(), best_.end());
    return true;
  }

 private:
  std::vector<NodeId> nodes_;  // scratch, reused between calls
  std::vector<DeviceId> devices_;
  std::vector<DeviceId> best_;
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
