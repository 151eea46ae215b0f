#include "hetsched/sched/context.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hetsched/perf/space_sharing.h"
#include "hetsched/sched/container_plan.h"
#include "hetsched/util/units.h"

namespace hetsched {

const ModelProfile* SchedContext::ModelOf(JobId id, const JobSpec& spec) const {
  if (const ModelProfile* known = backend_.job_model(id)) return known;
  return zoo_.Find(spec.model);
}

bool SchedContext::Accept(Status status) {
  if (status.ok()) return true;
  if (status.code() != StatusCode::kInfeasible) KeepError(std::move(status));
  return false;
}

bool SchedContext::AcceptPlan(const Status& status) {
  const bool outcome = status.ok() || status.code() == StatusCode::kInfeasible;
  return Accept(outcome ? status : Status::Internal("planner: " + status.message()));
}

Status SchedContext::TakeError() {
  Status error = std::move(error_);
  error_ = Status::Ok();
  return error;
}

bool SchedContext::PlaceContainerJob(JobId id, DeviceTypeId type) {
  const JobSpec& spec = *job(id).spec;
  PlacementRequest request{&spec, spec.num_gpus, type};
  reason_.clear();
  for (DeviceTypeId t : CandidateTypes(request, state_)) {
    // A type whose devices cannot hold the model is no option (the estimate is infinite then).
    if (spec.worker_request.gpus > 0 && !std::isfinite(EstimateIterationS(id, spec.num_gpus, t))) {
      reason_ = "the model does not fit the memory of " + cluster().device_catalog().type(t).name;
      continue;
    }
    containers_.clear();
    std::string why;
    PlacementRequest typed{&spec, spec.num_gpus, t};
    if (placer_.PlaceContainers(typed, state_, &containers_, &why)) return true;
    reason_ = why;
  }
  if (reason_.empty()) reason_ = "no device type the job allows is in the cluster";
  return false;
}

bool SchedContext::StartContainers(JobId id, std::span<const ContainerPlacement> containers) {
  const JobStatus& status = job(id);
  if (status.state != JobState::kPending || !status.spec->is_container_job()) return false;
  const ModelProfile* model = ModelOf(id, *status.spec);
  if (model == nullptr) return false;
  auto planned = PlanContainerJob(*status.spec, *model, containers, cluster());
  if (!AcceptPlan(planned.status()) || failed()) return false;
  return Accept(backend_.StartJob(id, *planned));
}

bool SchedContext::CanPlace(JobId id, int num_devices, DeviceTypeId type) {
  const JobStatus& status = job(id);
  if (num_devices < 1) return false;
  if (status.spec->is_container_job()) return num_devices == status.spec->num_gpus && PlaceContainerJob(id, type);
  if (type != kNoDeviceType && state_.free_of_type(type) < num_devices) return false;
  if (type == kNoDeviceType && state_.total_free() < num_devices) return false;
  scratch_.clear();
  PlacementRequest request{status.spec, num_devices, type};
  return PlaceDevices(request);
}

bool SchedContext::PlaceDevices(const PlacementRequest& request) {
  const bool placed = placer_.Place(request, state_, &scratch_);
  KeepError(placer_.TakeError());
  return placed && !failed();
}

bool SchedContext::TryStart(JobId id, int num_devices, DeviceTypeId type) {
  const JobStatus& status = job(id);
  if (status.state != JobState::kPending || num_devices < 1) return false;
  if (status.spec->is_container_job()) {
    if (num_devices != status.spec->num_gpus) return false;  // containers are not elastic
    if (PlaceContainerJob(id, type) && StartContainers(id, containers_)) return true;
    ++placements_failed_;
    backend_.NoteUnplaced(id, reason_.empty() ? "the job's plan was rejected" : reason_);
    return false;
  }
  // Cheap rejections first: they are the common case in a full cluster (unless the placer asks
  // to see every attempt: Placer::asked_when_short).
  if (!placer_.asked_when_short()) {
    if (type != kNoDeviceType && state_.free_of_type(type) < num_devices) return false;
    if (type == kNoDeviceType && state_.total_free() < num_devices) return false;
  }
  scratch_.clear();
  PlacementRequest request{status.spec, num_devices, type};
  if (!PlaceDevices(request)) {
    ++placements_failed_;
    return false;
  }
  if (StartOn(id, scratch_)) return true;
  if (type != kNoDeviceType) return false;
  // The placer's choice of type was rejected by the planner (e.g. the model does not fit in that
  // type's memory): try the job's other allowed types explicitly before giving up.
  const DeviceTypeId rejected = state_.cluster().device(scratch_.front()).type;
  CandidateTypes(request, state_, &types_);
  for (DeviceTypeId t : types_) {
    if (t == rejected || state_.free_of_type(t) < num_devices) continue;
    scratch_.clear();
    PlacementRequest typed{status.spec, num_devices, t};
    if (PlaceDevices(typed) && StartOn(id, scratch_)) return true;
  }
  return false;
}

bool SchedContext::StartOn(JobId id, std::span<const DeviceId> devices) {
  const JobStatus& status = job(id);
  if (status.state != JobState::kPending || devices.empty()) return false;
  for (DeviceId d : devices) {
    if (d < 0 || d >= cluster().num_devices() || !state_.is_free(d)) return false;
  }
  const ModelProfile* model = ModelOf(id, *status.spec);
  if (model == nullptr) return false;
  const PlannedJob* planned = nullptr;
  if (!AcceptPlan(PlanStart(*status.spec, *model, devices, &planned)) || failed()) return false;
  return Accept(backend_.StartJob(id, *planned));
}

Status SchedContext::PlanStart(const JobSpec& spec, const ModelProfile& model,
                               std::span<const DeviceId> devices, const PlannedJob** planned) {
  *planned = &planned_;
  const std::optional<uint64_t> key = planner_.PlanKey(spec, model, devices.size());
  if (!key) return planner_.PlanJobInto(spec, model, devices, cluster(), &planned_);
  uint64_t h = reinterpret_cast<uintptr_t>(&model) * 0x9E3779B97F4A7C15ull ^ *key;
  for (DeviceId d : devices) h = (h ^ static_cast<uint64_t>(d)) * 0x100000001B3ull;
  if (plan_memo_.empty()) plan_memo_.resize(kPlanMemoSlots);
  PlanMemo& memo = plan_memo_[(h ^ (h >> 29)) % kPlanMemoSlots];
  // The devices compared in a loop: std::equal's memcmp call cost more than the few ids (2% of a
  // time-slicing run, tiresias-gandiva, that starts a job from here millions of times).
  const std::vector<DeviceId>& kept = memo.planned.plan.devices;
  bool same = memo.model == &model && memo.key == *key && kept.size() == devices.size();
  for (size_t i = 0; same && i < devices.size(); ++i) same = kept[i] == devices[i];
  if (same) {
    *planned = &memo.planned;
    return Status::Ok();
  }
  Status status = planner_.PlanJobInto(spec, model, devices, cluster(), &planned_);
  if (!status.ok()) return status;  // errors (memory) are not memoised: they name the job
  memo.model = &model;
  memo.key = *key;
  memo.planned = planned_;
  return status;
}

bool SchedContext::StartSharing(JobId id, JobId host) {
  const JobStatus& status = job(id);
  if (status.state != JobState::kPending || id == host || failed()) return false;
  const JobStatus& other = job(host);
  if (other.state != JobState::kRunning || other.sharing_with != kNoJob || other.devices.empty() ||
      other.spec->is_container_job() || status.spec->is_container_job()) {
    return false;
  }
  const ModelProfile* model = ModelOf(id, *status.spec);
  if (model == nullptr) return false;
  if (!AcceptPlan(planner_.PlanJobInto(*status.spec, *model, other.devices, cluster(), &planned_)) || failed()) return false;
  return Accept(backend_.StartSharedJob(id, host, planned_));
}

void SchedContext::Preempt(JobId id) {
  if (job(id).state != JobState::kRunning || failed()) return;
  KeepError(backend_.PreemptJob(id));
}

void SchedContext::RunUntil(JobId id, double iterations) {
  if (job(id).state != JobState::kRunning || failed()) return;
  // kInfeasible: this back end cannot hold a job at a mark (a real cluster): the job runs on.
  Accept(backend_.RunUntil(id, iterations));
}

void SchedContext::HoldFinishUntil(JobId id, double time_s) {
  if (job(id).state != JobState::kRunning || failed()) return;
  Accept(backend_.HoldFinishUntil(id, time_s));
}

void SchedContext::HoldFinishesUntil(std::span<const JobId> ids, double time_s) {
  if (failed()) return;
  Accept(backend_.HoldFinishesUntil(ids, time_s));
}

Status SchedBackend::HoldFinishesUntil(std::span<const JobId> ids, double time_s) {
  for (JobId id : ids) {
    if (job_status(id).state != JobState::kRunning) continue;
    Status status = HoldFinishUntil(id, time_s);
    if (!status.ok() && status.code() != StatusCode::kInfeasible) return status;
  }
  return Status::Ok();
}

bool SchedContext::ResizeOn(JobId id, std::span<const DeviceId> devices) { return Change(id, devices, false); }

bool SchedContext::HandOver(JobId id, std::span<const DeviceId> devices) { return Change(id, devices, true); }

bool SchedContext::Change(JobId id, std::span<const DeviceId> devices, bool hand_over) {
  const JobStatus& status = job(id);
  if (status.state != JobState::kRunning || status.spec->is_container_job() || status.sharing_with != kNoJob ||
      devices.empty() || failed()) {
    return false;
  }
  for (DeviceId d : devices) {
    if (d < 0 || d >= cluster().num_devices()) return false;
    const JobId holder = state_.owner(d);
    // A hand-over moves the job to devices it does not hold.
    if (holder != kNoJob && (holder != id || hand_over)) return false;
  }
  const ModelProfile* model = ModelOf(id, *status.spec);
  if (model == nullptr) return false;
  auto planned = planner_.PlanJob(*status.spec, *model, devices, cluster());
  if (!AcceptPlan(planned.status())) return false;
  return Accept(hand_over ? backend_.HandOverJob(id, *planned) : backend_.ResizeJob(id, *planned));
}

double SchedContext::ResizePauseS(JobId id, std::span<const DeviceId> devices) const {
  if (job(id).state != JobState::kRunning || devices.empty()) return std::numeric_limits<double>::infinity();
  return backend_.ResizePauseS(id, devices);
}

double SchedContext::HandOverPauseS(JobId id, std::span<const DeviceId> devices) const {
  if (job(id).state != JobState::kRunning || devices.empty()) return std::numeric_limits<double>::infinity();
  return backend_.HandOverPauseS(id, devices);
}

double SchedContext::EstimateIterationS(JobId id, int num_devices, DeviceTypeId type) {
  const JobSpec& spec = *job(id).spec;
  const ModelProfile* model = ModelOf(id, spec);
  if (model == nullptr || num_devices < 1 || type < 0) return kInf;
  const EstimateKey key{model, spec.batch_size, static_cast<int>(spec.parallelism), num_devices, type,
                       spec.num_ps, spec.is_container_job() ? spec.worker_request.gpus : 0, !spec.application.empty()};
  if (const double* known = estimate_cache_.Find(key)) return *known;
  // Packed layout on the cluster's own nodes of that type: fill the largest nodes first. This is
  // a what-if on the cluster's shape, independent of who holds the devices now.
  double estimate = kInf;
  if (spec.is_container_job()) {
    const std::vector<ContainerPlacement> layout = PackedContainerLayout(spec, type, cluster());
    if (!layout.empty()) {
      const IterationEstimate est = EstimateIteration(*model, MakeContainerPlan(spec, *model, layout), cluster());
      if (est.fits_in_memory) estimate = est.iteration_s;
    }
    estimate_cache_.Emplace(key, estimate);
    return estimate;
  }
  const std::vector<DeviceId> devices = PackedDevices(num_devices, type);
  if (static_cast<int>(devices.size()) == num_devices) {
    auto planned = planner_.PlanJob(spec, *model, devices, cluster());
    if (AcceptPlan(planned.status()) && planned->estimate.fits_in_memory) estimate = planned->estimate.iteration_s;
  }
  estimate_cache_.Emplace(key, estimate);
  return estimate;
}

std::vector<DeviceId> SchedContext::PackedDevices(int num_devices, DeviceTypeId type) const {
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
  return devices;
}

double SchedContext::CoLocationFactorOf(JobId a, JobId b, int num_devices, DeviceTypeId type) {
  const JobSpec& spec_a = *job(a).spec;
  const JobSpec& spec_b = *job(b).spec;
  const ModelProfile* model_a = ModelOf(a, spec_a);
  const ModelProfile* model_b = ModelOf(b, spec_b);
  if (model_a == nullptr || model_b == nullptr || num_devices < 1 || type < 0 || spec_a.is_container_job() ||
      spec_b.is_container_job()) {
    return 0.0;
  }
  const auto key = std::make_tuple(model_a, spec_a.batch_size, model_b, spec_b.batch_size, num_devices, type);
  if (auto it = co_location_cache_.find(key); it != co_location_cache_.end()) return it->second;
  double factor = 0;
  const std::vector<DeviceId> devices = PackedDevices(num_devices, type);
  if (static_cast<int>(devices.size()) == num_devices) {
    auto plan_a = planner_.PlanJob(spec_a, *model_a, devices, cluster());
    auto plan_b = planner_.PlanJob(spec_b, *model_b, devices, cluster());
    if (AcceptPlan(plan_a.status()) && AcceptPlan(plan_b.status()) && plan_a->estimate.iteration_s > 0 &&
        plan_b->estimate.iteration_s > 0) {
      const DeviceDemand da = DemandOf(*model_a, plan_a->plan.batch_per_device, cluster(), devices, plan_a->estimate);
      const DeviceDemand db = DemandOf(*model_b, plan_b->plan.batch_per_device, cluster(), devices, plan_b->estimate);
      if (FitsTogether(da, db, cluster(), devices)) factor = CoLocationFactor(da, db);
    }
  }
  co_location_cache_.emplace(key, factor);
  return factor;
}

}  // namespace hetsched
