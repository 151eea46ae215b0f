// k8s-random: each container on a uniformly random node that fits it (ALGORITHMS.md 6.4),
// seeded (option `seed`, default 1). Up to 64 uniform draws, then a scan of every node (only
// when few nodes fit). Device jobs: the most-free nodes of the type.
#include <limits>

#include "hetsched/placement/container_draft.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/rng.h"

namespace hetsched {
namespace {

using placement_internal::ContainerDraft;

// Uniform over the nodes that fit: up to 64 uniform draws, then a scan of every node (only
// when few nodes fit), seeded so that runs repeat.
class RandomContainerPlacer : public placement_internal::ContainerPlacer {
 public:
  explicit RandomContainerPlacer(uint64_t seed) : rng_(seed) {}
  std::string_view name() const override { return "k8s-random"; }
  bool PlaceContainers(const PlacementRequest& request, const ClusterState& state,
                       std::vector<ContainerPlacement>* out, std::string* reason) override {
    draft_.Reset(state, *request.job, placement_internal::ContainerGpuType(request, state));
    const int num_nodes = state.cluster().num_nodes();
    for (ContainerRole role : {ContainerRole::kParameterServer, ContainerRole::kWorker}) {
      const int count = role == ContainerRole::kParameterServer ? request.job->num_ps : request.job->num_workers;
      while (draft_.placed(role) < count) {
        NodeId chosen = -1;
        for (int tries = 0; tries < 64 && chosen < 0; ++tries) {
          const NodeId n = static_cast<NodeId>(rng_.Below(static_cast<uint64_t>(num_nodes)));
          if (draft_.Fits(n, role)) chosen = n;
        }
        if (chosen < 0) {
          fits_.clear();
          for (NodeId n = 0; n < num_nodes; ++n) {
            if (draft_.Fits(n, role)) fits_.push_back(n);
          }
          if (fits_.empty()) {
            *reason = placement_internal::NoRoomReason(draft_, role);
            return false;
          }
          chosen = fits_[rng_.Below(fits_.size())];
        }
        draft_.Place(chosen, role);
      }
    }
    const auto placed = draft_.Finish();
    out->insert(out->end(), placed.begin(), placed.end());
    return true;
  }

 private:
  Rng rng_;
  ContainerDraft draft_;
  std::vector<NodeId> fits_;
};

Result<std::unique_ptr<Placer>> MakeK8sRandom(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(long long seed, options.GetInt("seed", 1));
  return std::unique_ptr<Placer>(std::make_unique<RandomContainerPlacer>(static_cast<uint64_t>(seed)));
}

const MethodInfo kK8sRandomInfo{"k8s-random", "containers: a uniformly random node that fits each container (option seed)",
                             "[CLASSIC] random feasible node; baseline of DLTAP (ALGORITHMS.md 6.4)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kK8sRandomRegistered, kK8sRandomInfo, MakeK8sRandom)

}  // namespace hetsched
