#include "hetsched/sched/context.h"

#include <algorithm>
#include <limits>

namespace hetsched {

namespace {
const ModelProfile* ModelOf(const ModelZoo& zoo, const JobSpec& spec) { return zoo.Find(spec.model); }
}  // namespace

bool SchedContext::CanPlace(JobId id, int num_devices, DeviceTypeId type) {
  const JobStatus& status = job(id);
  if (num_devices < 1) return false;
  if (type != kNoDeviceType && state_.free_of_type(type) < num_devices) return false;
  if (type == kNoDeviceType && state_.total_free() < num_devices) return false;
  scratch_.clear();
  PlacementRequest request{status.spec, num_devices, type};
  return placer_.Place(request, state_, &scratch_);
}

bool SchedContext::TryStart(JobId id, int num_devices, DeviceTypeId type) {
  const JobStatus& status = job(id);
  if (status.state != JobState::kPending || num_devices < 1) return false;
  // Cheap rejections first: they are the common case in a full cluster.
  if (type != kNoDeviceType && state_.free_of_type(type) < num_devices) return false;
  if (type == kNoDeviceType && state_.total_free() < num_devices) return false;
  scratch_.clear();
  PlacementRequest request{status.spec, num_devices, type};
  if (!placer_.Place(request, state_, &scratch_)) {
    ++placements_failed_;
    return false;
  }
  if (StartOn(id, scratch_)) return true;
  if (type != kNoDeviceType) return false;
  // The placer's choice of type was rejected by the planner (e.g. the model does not fit in that
  // type's memory): try the job's other allowed types explicitly before giving up.
  const DeviceTypeId rejected = state_.cluster().device(scratch_.front()).type;
  for (DeviceTypeId t : CandidateTypes(request, state_)) {
    if (t == rejected || state_.free_of_type(t) < num_devices) continue;
    scratch_.clear();
    PlacementRequest typed{status.spec, num_devices, t};
    if (placer_.Place(typed, state_, &scratch_) && StartOn(id, scratch_)) return true;
  }
  return false;
}

bool SchedContext::StartOn(JobId id, std::span<const DeviceId> devices) {
  const JobStatus& status = job(id);
  if (status.state != JobState::kPending || devices.empty()) return false;
  for (DeviceId d : devices) {
    if (d < 0 || d >= cluster().num_devices() || !state_.is_free(d)) return false;
  }
  const ModelProfile* model = ModelOf(zoo_, *status.spec);
  if (model == nullptr) return false;
  auto planned = planner_.PlanJob(*status.spec, *model, devices, cluster());
  if (!planned.ok()) return false;
  return backend_.StartJob(id, *planned).ok();
}

void SchedContext::Preempt(JobId id) {
  if (job(id).state != JobState::kRunning) return;
  (void)backend_.PreemptJob(id);
}

double SchedContext::EstimateIterationS(JobId id, int num_devices, DeviceTypeId type) {
  const JobSpec& spec = *job(id).spec;
  const ModelProfile* model = ModelOf(zoo_, spec);
  const double kInf = std::numeric_limits<double>::infinity();
  if (model == nullptr || num_devices < 1 || type < 0) return kInf;
  const auto key = std::make_tuple(model, spec.batch_size, static_cast<int>(spec.parallelism), num_devices, type);
  auto it = estimate_cache_.find(key);
  if (it != estimate_cache_.end()) return it->second;
  // Packed layout on the cluster's own nodes of that type: fill the largest nodes first. This is
  // a what-if on the cluster's shape, independent of who holds the devices now.
  double estimate = kInf;
  std::vector<DeviceId> devices;
  std::vector<NodeId> nodes;
  for (NodeId n = 0; n < cluster().num_nodes(); ++n) {
    if (cluster().node(n).device_type == type) nodes.push_back(n);
  }
  std::stable_sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) {
    return cluster().node(a).num_devices > cluster().node(b).num_devices;
  });
  for (NodeId n : nodes) {
    const Node& node = cluster().node(n);
    for (int i = 0; i < node.num_devices && static_cast<int>(devices.size()) < num_devices; ++i) {
      devices.push_back(node.first_device + i);
    }
    if (static_cast<int>(devices.size()) == num_devices) break;
  }
  if (static_cast<int>(devices.size()) == num_devices) {
    auto planned = planner_.PlanJob(spec, *model, devices, cluster());
    if (planned.ok() && planned->estimate.fits_in_memory) estimate = planned->estimate.iteration_s;
  }
  estimate_cache_.emplace(key, estimate);
  return estimate;
}

}  // namespace hetsched
