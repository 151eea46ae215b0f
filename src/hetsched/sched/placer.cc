#include "hetsched/sched/placer.h"

namespace hetsched {

std::vector<DeviceTypeId> CandidateTypes(const PlacementRequest& request, const ClusterState& state) {
  std::vector<DeviceTypeId> out;
  CandidateTypes(request, state, &out);
  return out;
}

void CandidateTypes(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceTypeId>* out) {
  out->clear();
  const Cluster& cluster = state.cluster();
  if (request.type != kNoDeviceType) {
    if (request.job == nullptr || request.job->AllowsType(request.type, cluster.device_catalog())) out->push_back(request.type);
    return;
  }
  for (DeviceTypeId t : cluster.present_types()) {
    if (request.job == nullptr || request.job->AllowsType(t, cluster.device_catalog())) out->push_back(t);
  }
}

bool Placer::PlaceContainers(const PlacementRequest& /*request*/, const ClusterState& /*state*/,
                             std::vector<ContainerPlacement>* /*out*/, std::string* reason) {
  *reason = "placer '" + std::string(name()) + "' does not place parameter-server containers";
  return false;
}

}  // namespace hetsched
