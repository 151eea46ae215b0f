// Shared by the container placers (dltap, k8s-*, ps-optimal): a draft of one job's placement on
// top of ClusterState (what each node has left after the containers placed so far in this
// call), the Kubernetes resource scores, and the greedy one-container-at-a-time driver that
// asks the resource index for the best untouched node and scans the few touched ones.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/sched/cluster_state.h"
#include "hetsched/sched/placer.h"

namespace hetsched::placement_internal {

class ContainerDraft {
 public:
  // Starts an empty draft for `job`'s containers, with worker/server GPUs of type `gpu_type`.
  void Reset(const ClusterState& state, const JobSpec& job, DeviceTypeId gpu_type);

  const ClusterState& state() const { return *state_; }
  const JobSpec& job() const { return *job_; }
  const ContainerRequest& request(ContainerRole role) const {
    return role == ContainerRole::kParameterServer ? job_->ps_request : job_->worker_request;
  }
  uint64_t gpu_types() const { return gpu_types_; }
  DeviceTypeId gpu_type() const { return gpu_type_; }
  int64_t cpu_free(NodeId n) const { return state_->cpu_free(n) - Slot(n).cpu; }
  int64_t memory_free(NodeId n) const { return state_->memory_free(n) - Slot(n).memory; }
  int gpus_free(NodeId n) const { return state_->gpus_free(n) - Slot(n).gpus; }
  int ps_on(NodeId n) const { return Slot(n).ps; }
  int workers_on(NodeId n) const { return Slot(n).workers; }
  bool touched(NodeId n) const { return slot_[static_cast<size_t>(n)] >= 0; }
  const std::vector<NodeId>& touched_nodes() const { return touched_; }
  // Whether node n can take one more container of `role` now.
  bool Fits(NodeId n, ContainerRole role) const;
  // Adds the next container of `role` on node n (its index: the count of that role so far).
  // REQUIRES: Fits(n, role).
  void Place(NodeId n, ContainerRole role);
  int placed(ContainerRole role) const { return role == ContainerRole::kParameterServer ? num_ps_ : num_workers_; }
  // The placements, servers first then workers, each in index order.
  std::vector<ContainerPlacement> Finish() const;

 private:
  struct Use {
    int64_t cpu = 0, memory = 0;
    int gpus = 0, ps = 0, workers = 0;
  };
  const Use& Slot(NodeId n) const {
    static const Use kNone;
    const int s = slot_[static_cast<size_t>(n)];
    return s < 0 ? kNone : use_[static_cast<size_t>(s)];
  }
  const ClusterState* state_ = nullptr;
  const JobSpec* job_ = nullptr;
  uint64_t gpu_types_ = 0;
  DeviceTypeId gpu_type_ = kNoDeviceType;
  std::vector<int> slot_;       // by node: index in use_/touched_, or -1
  std::vector<Use> use_;
  std::vector<NodeId> touched_;
  std::vector<ContainerPlacement> placed_;
  std::vector<DeviceId> scratch_;
  int num_ps_ = 0, num_workers_ = 0;
};

// Kubernetes' default node scores, normalised to [0, 1], over CPU and memory with equal
// weights (the default resources of NodeResourcesFit), counting the container being placed:
// LeastAllocated = mean of free/capacity, MostAllocated = mean of requested/capacity,
// Balanced = 1 - |cpu fraction - memory fraction| / 2 (one minus the standard deviation of the
// two fractions, NodeResourcesBalancedAllocation). A zero capacity counts as fully used.
double LeastAllocated(const ContainerDraft& d, NodeId n, const ContainerRequest& r);
double MostAllocated(const ContainerDraft& d, NodeId n, const ContainerRequest& r);
double Balanced(const ContainerDraft& d, NodeId n, const ContainerRequest& r);
// Upper bounds of the same over a subtree of the resource index, counting the request (tight
// for identical nodes, so that the search prunes on an empty homogeneous cluster).
double LeastAllocatedBound(const NodeSummary& s, const ContainerRequest& r);
double MostAllocatedBound(const NodeSummary& s, const ContainerRequest& r);
double BalancedBound(const NodeSummary& s, const ContainerRequest& r);

// A greedy placer's score of node n for the next container of `role`, on the draft.
class DraftScorer {
 public:
  virtual ~DraftScorer() = default;
  virtual double Score(const ContainerDraft& d, ContainerRole role, NodeId n) const = 0;
  // Upper bound over untouched nodes of a subtree (they have no container of this job yet).
  virtual double Bound(const ContainerDraft& d, ContainerRole role, const NodeSummary& s) const = 0;
};

// The node that fits the next container of `role` with the highest score (ties: lowest id):
// the index's branch-and-bound search over untouched nodes, then a scan of the touched ones.
// -1 if none fits.
NodeId ChooseNode(const ContainerDraft& d, ContainerRole role, const DraftScorer& scorer);

// Places every server then every worker with ChooseNode. False (with `reason`) if some
// container fits nowhere.
bool PlaceGreedily(ContainerDraft& d, const DraftScorer& scorer, std::string* reason);

// "no node has 4 cores, 16 GiB and 1 free v100 left for worker 3 of 8 (2 of 2 servers placed)"
std::string NoRoomReason(const ContainerDraft& d, ContainerRole role);

// The GPU type a container placer uses for `request`: request.type, else the first allowed
// type present; kNoDeviceType if none.
DeviceTypeId ContainerGpuType(const PlacementRequest& request, const ClusterState& state);

// Device jobs on container placers: the most-free nodes of the first candidate type with room
// (like the `spread` placer).
bool PlaceDevicesSpread(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out);

// Base of the container placers: they place containers, and device jobs with PlaceDevicesSpread.
class ContainerPlacer : public Placer {
 public:
  bool places_containers() const override { return true; }
  bool Place(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out) override {
    return PlaceDevicesSpread(request, state, out);
  }
};

// A container placer that places greedily with one DraftScorer (the k8s-spread and k8s-binpack
// placers).
class ScoringContainerPlacer : public ContainerPlacer {
 public:
  ScoringContainerPlacer(std::string_view name, std::unique_ptr<DraftScorer> scorer)
      : name_(name), scorer_(std::move(scorer)) {}
  std::string_view name() const override { return name_; }
  bool PlaceContainers(const PlacementRequest& request, const ClusterState& state,
                       std::vector<ContainerPlacement>* out, std::string* reason) override;

 private:
  std::string_view name_;
  std::unique_ptr<DraftScorer> scorer_;
  ContainerDraft draft_;
};

}  // namespace hetsched::placement_internal
