// Plug point 2: the placer chooses which devices a job gets.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/model/job.h"
#include "hetsched/sched/cluster_state.h"
#include "hetsched/util/status.h"

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

  // Parameter-server container jobs (request.job->is_container_job()): appends one placement
  // per container, servers 0..P-1 then workers 0..M-1, each with the job's request for its role
  // and, for GPU requests, free accelerators of its node of type request.type (kNoDeviceType:
  // any one type the job allows, the same for all), and returns true; or returns false, leaves
  // `out` unchanged and says in `reason` why the job stays queued. No node may end up
  // over-committed in CPU, memory or GPUs counting all containers placed in the call. Must not
  // change `state`. The default refuses: placers of device jobs do not place containers.
  virtual bool PlaceContainers(const PlacementRequest& request, const ClusterState& state,
                               std::vector<ContainerPlacement>* out, std::string* reason);
  // Whether PlaceContainers is implemented (the simulator refuses container jobs otherwise).
  virtual bool places_containers() const { return false; }
  // Whether SchedContext::TryStart asks this placer even when fewer devices are free than the
  // request needs (it refuses such a request itself otherwise, without asking). A placer that
  // reproduces a peer whose failed attempts draw random numbers says yes, so that it is asked, and
  // draws, exactly when the peer's placement is called (placement/tiresias/random.cc).
  virtual bool asked_when_short() const { return false; }
  // A fault of the placer itself (one written in Python raised, or returned devices it may not
  // use), then Ok. SchedContext takes it after every Place call and keeps it like a back-end
  // fault, so the run ends with it instead of reading it as "does not fit".
  virtual Status TakeError() { return Status::Ok(); }
};

// Types a placer may use for `request`, in the order it should try them: the requested type if
// set, else the job's allowed types present in the cluster (catalog order). The second form
// writes them into `out` (cleared first, its storage reused: placers call it at every attempt).
std::vector<DeviceTypeId> CandidateTypes(const PlacementRequest& request, const ClusterState& state);
void CandidateTypes(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceTypeId>* out);

}  // namespace hetsched
