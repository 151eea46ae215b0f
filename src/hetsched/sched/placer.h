// Plug point 2: the placer chooses which devices a job gets.
#pragma once

#include <string_view>
#include <vector>

#include "hetsched/model/job.h"
#include "hetsched/sched/cluster_state.h"

namespace hetsched {

struct PlacementRequest {
  const JobSpec* job = nullptr;
  int num_devices = 1;
  // The type the job scheduler chose; kNoDeviceType lets the placer pick any type the job allows
  // (all devices of one job are of one type).
  DeviceTypeId type = kNoDeviceType;
};

class Placer {
 public:
  static constexpr std::string_view kKind = "placer";
  virtual ~Placer() = default;
  virtual std::string_view name() const = 0;
  // Appends the chosen devices to `out` and returns true, or returns false (and leaves `out`
  // unchanged) when the request cannot be met now. Must not change `state`.
  // REQUIRES: request.num_devices >= 1.
  virtual bool Place(const PlacementRequest& request, const ClusterState& state,
                     std::vector<DeviceId>* out) = 0;
};

// Types a placer may use for `request`, in the order it should try them: the requested type if
// set, else the job's allowed types present in the cluster (catalog order).
std::vector<DeviceTypeId> CandidateTypes(const PlacementRequest& request, const ClusterState& state);

}  // namespace hetsched
