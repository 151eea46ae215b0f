// Random: a feasible candidate type (enough free devices) chosen uniformly, then free devices of
// that type chosen uniformly at random, seeded (option `seed`, default 1) so that runs repeat.
//
// Sampling without a scan: a device of the type is drawn uniformly (binary search on the
// per-type prefix sums of node sizes, built once per cluster) and kept if it is free and not
// drawn yet; this is exactly uniform over the free devices and costs O(log N) per draw. When
// the type is nearly full, rejections grow; after a bounded number of them the remaining
// devices come from a walk over the nodes with free devices starting at a random node
// (FirstNodeWithFree, O(log N) per node), which is random but no longer exactly uniform.
#include <algorithm>
#include <cstdint>
#include <set>

#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/rng.h"

namespace hetsched {
namespace {

class RandomPlacer : public Placer {
 public:
  explicit RandomPlacer(uint64_t seed) : rng_(seed) {}

  std::string_view name() const override { return "random"; }

  bool Place(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out) override {
    const int n = request.num_devices;
    feasible_.clear();
    for (DeviceTypeId t : CandidateTypes(request, state)) {
      if (state.free_of_type(t) >= n) feasible_.push_back(t);
    }
    if (feasible_.empty()) return false;
    const DeviceTypeId type = feasible_[rng_.Below(feasible_.size())];
    if (cluster_ != &state.cluster() || num_nodes_ != state.cluster().num_nodes()) BuildPrefixSums(state);
    const std::vector<NodeId>& nodes = state.nodes_of_type(type);
    const std::vector<int>& prefix = prefix_[static_cast<size_t>(type)];  // prefix[i]: devices before node i
    const int total = prefix.back();

    chosen_.clear();
    int rejections = 0;
    const int max_rejections = 8 * n + 64;
    while (static_cast<int>(chosen_.size()) < n && rejections < max_rejections) {
      const int k = static_cast<int>(rng_.Below(static_cast<uint64_t>(total)));
      const size_t i = static_cast<size_t>(std::upper_bound(prefix.begin(), prefix.end(), k) - prefix.begin()) - 1;
      const DeviceId d = state.cluster().node(nodes[i]).first_device + (k - prefix[i]);
      if (!state.is_free(d) || chosen_.count(d) > 0) {
        ++rejections;
        continue;
      }
      chosen_.insert(d);
      order_.push_back(d);
    }
    if (static_cast<int>(chosen_.size()) < n) {
      // Nearly full: walk the nodes with free devices from a random start, wrapping around.
      const int start = static_cast<int>(rng_.Below(nodes.size()));
      int pos = start;
      bool wrapped = false;
      while (static_cast<int>(chosen_.size()) < n) {
        NodeId node = state.FirstNodeWithFree(type, 1, pos);
        if (node < 0 || (wrapped && node >= nodes[static_cast<size_t>(start)])) {
          if (wrapped) break;  // unreachable while free_of_type >= n
          wrapped = true;
          pos = 0;
          continue;
        }
        scratch_.clear();
        state.AppendFreeDevices(node, &scratch_);
        for (DeviceId d : scratch_) {
          if (static_cast<int>(chosen_.size()) < n && chosen_.insert(d).second) order_.push_back(d);
        }
        pos = static_cast<int>(std::lower_bound(nodes.begin(), nodes.end(), node) - nodes.begin()) + 1;
      }
    }
    const bool ok = static_cast<int>(order_.size()) == n;
    if (ok) out->insert(out->end(), order_.begin(), order_.end());
    order_.clear();
    return ok;
  }

 private:
  void BuildPrefixSums(const ClusterState& state) {
    cluster_ = &state.cluster();
    num_nodes_ = cluster_->num_nodes();
    prefix_.assign(static_cast<size_t>(cluster_->device_catalog().size()), {0});
    for (size_t t = 0; t < prefix_.size(); ++t) {
      for (NodeId node : state.nodes_of_type(static_cast<DeviceTypeId>(t))) {
        prefix_[t].push_back(prefix_[t].back() + cluster_->node(node).num_devices);
      }
    }
  }

  Rng rng_;
  const Cluster* cluster_ = nullptr;
  int num_nodes_ = 0;
  std::vector<std::vector<int>> prefix_;  // per type: node-size prefix sums, built once per cluster
  std::vector<DeviceTypeId> feasible_;    // scratch below, reused between calls
  std::set<DeviceId> chosen_;
  std::vector<DeviceId> order_;
  std::vector<DeviceId> scratch_;
};

Result<std::unique_ptr<Placer>> MakeRandom(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const long long seed, options.GetInt("seed", 1));
  return std::unique_ptr<Placer>(std::make_unique<RandomPlacer>(static_cast<uint64_t>(seed)));
}

const MethodInfo kRandomInfo{"random", "uniformly random free devices of a random feasible type (option seed, default 1)",
                             "[CLASSIC] random placement baseline"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kRandomRegistered, kRandomInfo, MakeRandom)

}  // namespace hetsched
