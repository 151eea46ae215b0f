// `tiresias-count`: Tiresias' simulator's `count` placement scheme (SymbioticLab/Tiresias
// @ 959f9b0, simulator/cluster.py:1373-1380 none_placement; --scheme=count): a job starts when the
// cluster's free-GPU count holds it, and takes that many from the count, which its end gives back
// (cluster.py:1467-1472). Nothing is placed, so here a job takes the lowest-id free devices of the
// first of its types with enough free (the peer has one type). The peer's dlas family always
// counts like this (placement=count); this placer gives the same to fifo, fjf and lpjf.
// Cost: O(devices of the type) a call.
#include <memory>

#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class TiresiasCountPlacer : public Placer {
 public:
  std::string_view name() const override { return "tiresias-count"; }

  bool Place(const PlacementRequest& request, const ClusterState& state,
             std::vector<DeviceId>* out) override {
    const int n = request.num_devices;
    for (DeviceTypeId t : CandidateTypes(request, state)) {
      if (state.free_of_type(t) < n) continue;
      const size_t first = out->size();
      for (NodeId node : state.nodes_of_type(t)) {
        if (state.free_on_node(node) == 0) continue;
        state.AppendFreeDevices(node, out);
        if (out->size() - first >= static_cast<size_t>(n)) break;
      }
      out->resize(first + static_cast<size_t>(n));
      return true;
    }
    return false;
  }
};

Result<std::unique_ptr<Placer>> MakeTiresiasCount(const Options& /*options*/) {
  return std::unique_ptr<Placer>(std::make_unique<TiresiasCountPlacer>());
}

const MethodInfo kTiresiasCountInfo{
    "tiresias-count",
    "starts a job when enough devices of a type are free, on the lowest-id ones (counts, places nothing)",
    "[SRC] Tiresias' simulator, --scheme=count (SymbioticLab/Tiresias cluster.py none_placement)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kTiresiasCountRegistered, kTiresiasCountInfo, MakeTiresiasCount)

}  // namespace hetsched
