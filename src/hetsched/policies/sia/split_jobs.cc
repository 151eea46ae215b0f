#include "hetsched/policies/sia/split_jobs.h"

#include <algorithm>
#include <map>

#include "hetsched/perf/goodput_split.h"
#include "hetsched/perf/iteration_model.h"
#include "hetsched/perf/ring_model.h"

namespace hetsched::sia_internal {

std::vector<DeviceId> FirstTypeDevices(const Cluster& cluster, std::span<const DeviceId> devices) {
  std::vector<DeviceId> out;
  if (devices.empty()) return out;
  const DeviceTypeId first = cluster.device(devices.front()).type;
  for (DeviceId d : devices) {
    if (cluster.device(d).type == first) out.push_back(d);
  }
  return out;
}

bool MustGiveBack(const Cluster& cluster, std::span<const DeviceId> devices, std::vector<int>* left) {
  if (devices.empty()) return false;
  const DeviceTypeId first = cluster.device(devices.front()).type;
  std::map<NodeId, int> borrowed;
  for (DeviceId d : devices) {
    if (cluster.device(d).type != first) ++borrowed[cluster.device(d).node];
  }
  for (const auto& [node, gpus] : borrowed) {
    if ((*left)[static_cast<size_t>(node)] < gpus) return true;
  }
  for (const auto& [node, gpus] : borrowed) (*left)[static_cast<size_t>(node)] -= gpus;
  return false;
}

double RemainingS(const JobStatus& job, const GoodputJobView& view) {
  if (view.application == nullptr || !(job.iteration_rate > 0)) return 0;
  const double total = view.application->ProgressAt(view.application->max_epochs());
  return std::max(0.0, total - job.iterations_done) / job.iteration_rate;
}

std::vector<DeviceId> BorrowIdle(const Cluster& cluster, const ClusterState& state,
                                 const std::vector<NodeGroup>& groups, const JobSpec& spec,
                                 const GoodputJobView& view, std::span<const DeviceId> devices,
                                 double per_own) {
  if (devices.empty()) return {};
  const DeviceTypeId first = cluster.device(devices.front()).type;
  const NodeGroup* best = nullptr;
  int best_free = 0;
  for (const NodeGroup& g : groups) {
    if (g.type == first || !spec.AllowsType(g.type, cluster.device_catalog())) continue;
    if (std::none_of(view.types.begin(), view.types.end(),
                     [&](const GoodputTypeView& t) { return t.type == g.type; })) {
      continue;
    }
    int free = 0;
    for (NodeId n : g.nodes) free += state.free_on_node(n);
    if (free > best_free) best_free = free, best = &g;
  }
  const int cap = static_cast<int>(per_own * static_cast<double>(devices.size()));
  if (best == nullptr || cap < 1) return {};
  // Whole free nodes first, then the nodes with the most free GPUs (ties in the group's order).
  std::vector<NodeId> nodes = best->nodes;
  std::stable_sort(nodes.begin(), nodes.end(),
                   [&](NodeId a, NodeId b) { return state.free_on_node(a) > state.free_on_node(b); });
  std::vector<DeviceId> out(devices.begin(), devices.end()), free;
  int taken = 0;
  for (NodeId n : nodes) {
    free.clear();
    state.AppendFreeDevices(n, &free);
    for (DeviceId d : free) {
      if (taken == cap) break;
      out.push_back(d);
      ++taken;
    }
  }
  if (taken == 0) return {};
  return out;
}

namespace {

// GPUs per node of `devices` of `type`, in their order.
std::vector<int> PlacementOn(const Cluster& cluster, std::span<const DeviceId> devices, DeviceTypeId type) {
  std::vector<int> placement;
  NodeId last = -1;
  for (DeviceId d : devices) {
    if (cluster.device(d).type != type) continue;
    const NodeId n = cluster.device(d).node;
    if (placement.empty() || n != last) placement.push_back(0);
    ++placement.back();
    last = n;
  }
  return placement;
}

const GoodputTypeView* TypeView(const GoodputJobView& view, DeviceTypeId type) {
  for (const GoodputTypeView& t : view.types) {
    if (t.type == type || t.type == kNoDeviceType) return &t;
  }
  return nullptr;
}

}  // namespace

LoanPrediction PredictLoan(const Cluster& cluster, const GoodputJobView& view, const ModelProfile* model,
                           std::span<const DeviceId> joint) {
  LoanPrediction out;
  if (joint.empty() || !view.grad.has_value()) return out;
  const DeviceTypeId first = cluster.device(joint.front()).type;
  DeviceTypeId second = kNoDeviceType;
  for (DeviceId d : joint) {
    if (cluster.device(d).type != first) second = cluster.device(d).type;
  }
  const GoodputTypeView* t1 = TypeView(view, first);
  if (t1 == nullptr || t1->application == nullptr || !t1->params.has_value()) return out;
  const GoodputApplication& a = *t1->application;
  SplitKnowledge k;
  k.first = SplitSideOn(a, *t1->params, PlacementOn(cluster, joint, first));
  BatchLimits limits;
  limits.max_batch_size = a.max_batch_size();
  limits.min_atomic_bsz = k.first.min_bsz;
  limits.max_atomic_bsz = k.first.max_bsz;
  limits.accumulation = true;
  const GoodputModel alone(*t1->params, *view.grad, a.init_batch_size());
  out.alone = alone.Optimize(k.first.nodes, k.first.replicas, limits).goodput;
  const GoodputTypeView* t2 = second == kNoDeviceType ? nullptr : TypeView(view, second);
  if (t2 == nullptr || t2 == t1 || t2->application == nullptr) return out;
  const std::optional<ThroughputParams> p2 = SecondTypeParams(t2->params, *t1->params, a, *t2->application);
  if (!p2.has_value()) return out;
  k.second = SplitSideOn(*t2->application, *p2, PlacementOn(cluster, joint, second));
  if (model != nullptr) {
    const RingLinks hop = DescribeRing(cluster, joint).bottleneck;
    k.ring_s = RingAllReduceTime(static_cast<int>(joint.size()), model->total_param_bytes(), hop.bandwidth_Bps, hop.latency_s);
  }
  if (view.split_measured.has_value()) CorrectByMeasurement(*view.split_measured, second, &k);
  out.split = PickSplitBatches(k, *view.grad, a.init_batch_size(), a.max_batch_size()).goodput;
  return out;
}

bool SplitLost(const Cluster& cluster, const GoodputJobView& view, std::span<const DeviceId> devices) {
  if (view.second_type == kNoDeviceType || devices.empty()) return false;
  if (view.second_atomic_bsz < 1) return true;
  const std::optional<SplitMeasurement>& m = view.split_measured;
  if (!m.has_value() || !view.grad.has_value() || view.application == nullptr || m->second_type != view.second_type ||
      m->bsz1 != view.atomic_bsz || m->bsz2 != view.second_atomic_bsz) {
    return false;
  }
  const std::vector<DeviceId> own = FirstTypeDevices(cluster, devices);
  if (m->replicas1 != static_cast<int>(own.size()) || m->replicas1 + m->replicas2 != static_cast<int>(devices.size())) {
    return false;
  }
  const double alone = PredictLoan(cluster, view, nullptr, own).alone;
  return !(MeasuredSplitGoodput(*m, *view.grad, view.application->init_batch_size()) > alone);
}

}  // namespace hetsched::sia_internal
