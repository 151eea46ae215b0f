// Spread (a baseline, the opposite of pack): the candidate type with the most free devices
// (ties: CandidateTypes order), then one device at a time, round-robin over that type's nodes in
// most-free-first order. With at least n nodes with a free device, each device of the job lands
// on a different node. Cost: O(n log N + devices of the nodes touched).
#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class SpreadPlacer : public Placer {
 public:
  std::string_view name() const override { return "spread"; }

  bool Place(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out) override {
    const int n = request.num_devices;
    DeviceTypeId type = kNoDeviceType;
    for (DeviceTypeId t : CandidateTypes(request, state)) {
      if (state.free_of_type(t) >= n && (type == kNoDeviceType || state.free_of_type(t) > state.free_of_type(type))) {
        type = t;
      }
    }
    if (type == kNoDeviceType) return false;
    nodes_.clear();
    state.AppendNodesByMostFree(type, n, &nodes_);  // n nodes suffice: round r takes from all
    free_.assign(nodes_.size(), {});
    for (size_t i = 0; i < nodes_.size(); ++i) state.AppendFreeDevices(nodes_[i], &free_[i]);
    int taken = 0;
    for (size_t round = 0; taken < n; ++round) {
      for (size_t i = 0; i < nodes_.size() && taken < n; ++i) {
        if (round < free_[i].size()) {
          out->push_back(free_[i][round]);
          ++taken;
        }
      }
    }
    return true;
  }

 private:
  std::vector<NodeId> nodes_;                  // scratch, reused between calls
  std::vector<std::vector<DeviceId>> free_;    // free devices of each chosen node
};

Result<std::unique_ptr<Placer>> MakeSpread(const Options& /*options*/) {
  return std::unique_ptr<Placer>(std::make_unique<SpreadPlacer>());
}

const MethodInfo kSpreadInfo{"spread", "round-robin over the most-free nodes of the type with the most free devices",
                             "[CLASSIC] spread / load-balancing placement (e.g. Kubernetes' spreading priority)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kSpreadRegistered, kSpreadInfo, MakeSpread)

}  // namespace hetsched
