#include "hetsched/placement/container_draft.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace hetsched::placement_internal {

namespace {
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double Fraction(int64_t amount, int64_t capacity) {
  return capacity > 0 ? static_cast<double>(amount) / static_cast<double>(capacity) : 1.0;
}
}  // namespace

void ContainerDraft::Reset(const ClusterState& state, const JobSpec& job, DeviceTypeId gpu_type) {
  state_ = &state;
  job_ = &job;
  gpu_type_ = gpu_type;
  gpu_types_ = gpu_type == kNoDeviceType ? 0 : DeviceTypeBit(gpu_type);
  if (slot_.size() != static_cast<size_t>(state.cluster().num_nodes())) {
    slot_.assign(static_cast<size_t>(state.cluster().num_nodes()), -1);
  }
  for (NodeId n : touched_) slot_[static_cast<size_t>(n)] = -1;
  touched_.clear();
  use_.clear();
  placed_.clear();
  num_ps_ = num_workers_ = 0;
}

bool ContainerDraft::Fits(NodeId n, ContainerRole role) const {
  const ContainerRequest& r = request(role);
  if (r.gpus > 0 && state_->cluster().node(n).device_type != gpu_type_) return false;
  return cpu_free(n) >= r.cpu_millicores && memory_free(n) >= r.memory_bytes && gpus_free(n) >= r.gpus;
}

void ContainerDraft::Place(NodeId n, ContainerRole role) {
  int& s = slot_[static_cast<size_t>(n)];
  if (s < 0) {
    s = static_cast<int>(use_.size());
    use_.emplace_back();
    touched_.push_back(n);
  }
  const ContainerRequest& r = request(role);
  Use& u = use_[static_cast<size_t>(s)];
  ContainerPlacement c;
  c.role = role;
  c.node = n;
  c.request = r;
  if (r.gpus > 0) {
    // The node's free accelerators in order, after those this draft already took there.
    scratch_.clear();
    state_->AppendFreeDevices(n, &scratch_);
    c.devices.assign(scratch_.begin() + u.gpus, scratch_.begin() + u.gpus + r.gpus);
  }
  u.cpu += r.cpu_millicores;
  u.memory += r.memory_bytes;
  u.gpus += r.gpus;
  if (role == ContainerRole::kParameterServer) {
    c.index = num_ps_++;
    ++u.ps;
  } else {
    c.index = num_workers_++;
    ++u.workers;
  }
  placed_.push_back(std::move(c));
}

std::vector<ContainerPlacement> ContainerDraft::Finish() const {
  std::vector<ContainerPlacement> out = placed_;
  std::stable_sort(out.begin(), out.end(), [](const ContainerPlacement& a, const ContainerPlacement& b) {
    if (a.role != b.role) return a.role == ContainerRole::kParameterServer;
    return a.index < b.index;
  });
  return out;
}

double LeastAllocated(const ContainerDraft& d, NodeId n, const ContainerRequest& r) {
  const ClusterState& s = d.state();
  return 0.5 * (Fraction(d.cpu_free(n) - r.cpu_millicores, s.cpu_capacity(n)) * (s.cpu_capacity(n) > 0) +
                Fraction(d.memory_free(n) - r.memory_bytes, s.memory_capacity(n)) * (s.memory_capacity(n) > 0));
}

double MostAllocated(const ContainerDraft& d, NodeId n, const ContainerRequest& r) {
  const ClusterState& s = d.state();
  return 0.5 * (Fraction(s.cpu_capacity(n) - d.cpu_free(n) + r.cpu_millicores, s.cpu_capacity(n)) +
                Fraction(s.memory_capacity(n) - d.memory_free(n) + r.memory_bytes, s.memory_capacity(n)));
}

double Balanced(const ContainerDraft& d, NodeId n, const ContainerRequest& r) {
  const ClusterState& s = d.state();
  const double cpu = Fraction(s.cpu_capacity(n) - d.cpu_free(n) + r.cpu_millicores, s.cpu_capacity(n));
  const double memory = Fraction(s.memory_capacity(n) - d.memory_free(n) + r.memory_bytes, s.memory_capacity(n));
  return 1.0 - std::abs(cpu - memory) / 2.0;
}

double LeastAllocatedBound(const NodeSummary& s, const ContainerRequest& r) {
  // Per node: free/cap - r/cap <= max(free/cap) - r * min(1/cap); a zero capacity scores 0.
  const double cpu = s.max_free_cpu_frac - static_cast<double>(r.cpu_millicores) * s.min_inv_cpu;
  const double memory = s.max_free_memory_frac - static_cast<double>(r.memory_bytes) * s.min_inv_memory;
  return 0.5 * (std::max(cpu, 0.0) + std::max(memory, 0.0));
}

double BalancedBound(const NodeSummary& s, const ContainerRequest& r) {
  // The gap after placing r, (u_c + r_c i_c) - (u_m + r_m i_m), lies in [lo, hi]; the score is
  // 1 - |gap| / 2, so its bound is 1 when the range holds 0, else set by the end nearer 0.
  const double rc = static_cast<double>(r.cpu_millicores), rm = static_cast<double>(r.memory_bytes);
  const double lo = s.min_used_diff + rc * s.min_inv_cpu - rm * s.max_inv_memory;
  const double hi = s.max_used_diff + rc * s.max_inv_cpu - rm * s.min_inv_memory;
  if (lo <= 0 && hi >= 0) return 1.0;
  return 1.0 - std::min(std::abs(lo), std::abs(hi)) / 2.0;
}

double MostAllocatedBound(const NodeSummary& s, const ContainerRequest& r) {
  return 0.5 * (s.max_used_cpu_frac + static_cast<double>(r.cpu_millicores) * s.max_inv_cpu +
                s.max_used_memory_frac + static_cast<double>(r.memory_bytes) * s.max_inv_memory);
}

namespace {
class UntouchedScorer : public NodeScorer {
 public:
  UntouchedScorer(const ContainerDraft& d, ContainerRole role, const DraftScorer& scorer)
      : d_(d), role_(role), scorer_(scorer) {}
  double Bound(const NodeSummary& s) const override { return scorer_.Bound(d_, role_, s); }
  double Score(NodeId n) const override { return d_.touched(n) ? kNegInf : scorer_.Score(d_, role_, n); }

 private:
  const ContainerDraft& d_;
  ContainerRole role_;
  const DraftScorer& scorer_;
};
}  // namespace

NodeId ChooseNode(const ContainerDraft& d, ContainerRole role, const DraftScorer& scorer) {
  const ContainerRequest& r = d.request(role);
  NodeId best = d.state().resource_index().Best(r, d.gpu_types(), UntouchedScorer(d, role, scorer));
  double best_score = best >= 0 ? scorer.Score(d, role, best) : kNegInf;
  for (NodeId n : d.touched_nodes()) {
    if (!d.Fits(n, role)) continue;
    const double score = scorer.Score(d, role, n);
    if (score > best_score || (score == best_score && (best < 0 || n < best))) {
      best_score = score;
      best = n;
    }
  }
  return best_score > kNegInf ? best : -1;
}

bool PlaceGreedily(ContainerDraft& d, const DraftScorer& scorer, std::string* reason) {
  for (ContainerRole role : {ContainerRole::kParameterServer, ContainerRole::kWorker}) {
    const int count = role == ContainerRole::kParameterServer ? d.job().num_ps : d.job().num_workers;
    while (d.placed(role) < count) {
      const NodeId n = ChooseNode(d, role, scorer);
      if (n < 0) {
        *reason = NoRoomReason(d, role);
        return false;
      }
      d.Place(n, role);
    }
  }
  return true;
}

std::string NoRoomReason(const ContainerDraft& d, ContainerRole role) {
  const ContainerRequest& r = d.request(role);
  const bool ps = role == ContainerRole::kParameterServer;
  std::string gpus;
  if (r.gpus > 0) {
    gpus = fmt::format(" and {} free {}", r.gpus,
                       d.gpu_type() == kNoDeviceType ? std::string("accelerators")
                                                          : d.state().cluster().device_catalog().type(d.gpu_type()).name);
  }
  return fmt::format("no node has {:g} cores, {:g} GiB{} left for {} {} of {} ({} of {} servers, {} of {} workers placed)",
                     static_cast<double>(r.cpu_millicores) / 1000.0, static_cast<double>(r.memory_bytes) / 1073741824.0,
                     gpus, ps ? "server" : "worker", d.placed(role), ps ? d.job().num_ps : d.job().num_workers,
                     d.placed(ContainerRole::kParameterServer), d.job().num_ps,
                     d.placed(ContainerRole::kWorker), d.job().num_workers);
}

DeviceTypeId ContainerGpuType(const PlacementRequest& request, const ClusterState& state) {
  const std::vector<DeviceTypeId> types = CandidateTypes(request, state);
  return types.empty() ? kNoDeviceType : types.front();
}

bool PlaceDevicesSpread(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out) {
  const int n = request.num_devices;
  for (DeviceTypeId t : CandidateTypes(request, state)) {
    if (state.free_of_type(t) < n) continue;
    std::vector<NodeId> nodes;
    state.AppendNodesByMostFree(t, n, &nodes);
    std::vector<DeviceId> devices;
    for (NodeId node : nodes) {
      if (static_cast<int>(devices.size()) >= n) break;
      state.AppendFreeDevices(node, &devices);
    }
    devices.resize(static_cast<size_t>(n));
    out->insert(out->end(), devices.begin(), devices.end());
    return true;
  }
  return false;
}

bool ScoringContainerPlacer::PlaceContainers(const PlacementRequest& request, const ClusterState& state,
                                             std::vector<ContainerPlacement>* out, std::string* reason) {
  draft_.Reset(state, *request.job, ContainerGpuType(request, state));
  if (!PlaceGreedily(draft_, *scorer_, reason)) return false;
  const auto placed = draft_.Finish();
  out->insert(out->end(), placed.begin(), placed.end());
  return true;
}

}  // namespace hetsched::placement_internal
