#include "hetsched/perf/elastic_resize.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "hetsched/perf/ring_model.h"

namespace hetsched {

namespace {

// A pipelined ring broadcast of the model's state over `ring`: P over its slowest hop, one latency
// per hop; 0 on one device.
double BroadcastS(const ModelProfile& model, const Cluster& cluster, std::span<const DeviceId> ring) {
  if (ring.size() < 2) return 0;
  const RingLinks hop = DescribeRing(cluster, ring).bottleneck;
  const double bytes = model.total_param_bytes() + model.total_embedding_bytes();
  if (!(hop.bandwidth_Bps > 0) || !std::isfinite(hop.bandwidth_Bps)) return 0;
  return bytes / hop.bandwidth_Bps + static_cast<double>(ring.size() - 1) * hop.latency_s;
}

}  // namespace

ResizeCost ResizeCostOf(const ModelProfile& model, const Cluster& cluster, std::span<const DeviceId> from,
                        std::span<const DeviceId> to, bool job_elastic, const ElasticResizeModel& params) {
  std::vector<DeviceId> a(from.begin(), from.end()), b(to.begin(), to.end());
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  ResizeCost cost;
  if (a == b) return cost;
  const DeviceTypeId type = cluster.device(from.front()).type;
  const bool one_type = std::all_of(to.begin(), to.end(), [&](DeviceId d) { return cluster.device(d).type == type; });
  std::vector<DeviceId> kept;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(kept));
  const bool kept_first = !kept.empty() && std::all_of(kept.begin(), kept.end(), [&](DeviceId d) {
    return cluster.device(d).type == type;
  });
  if (!job_elastic || kept.empty() || !(one_type || (params.two_types && kept_first))) {
    cost.kind = ResizeKind::kRestart;
    cost.pause_s = params.restart_s;
    return cost;
  }
  cost.kind = ResizeKind::kElastic;
  cost.broadcast_s = BroadcastS(model, cluster, to);
  cost.pause_s = params.rendezvous_s + cost.broadcast_s;
  return cost;
}

ResizeCost HandOverCostOf(const ModelProfile& model, const Cluster& cluster, std::span<const DeviceId> from,
                          std::span<const DeviceId> to, const ElasticResizeModel& params) {
  std::vector<DeviceId> joint(from.begin(), from.end());
  joint.insert(joint.end(), to.begin(), to.end());
  ResizeCost cost;
  cost.kind = ResizeKind::kElastic;
  cost.broadcast_s = BroadcastS(model, cluster, joint);
  cost.release_s = params.rendezvous_s + cost.broadcast_s;
  cost.pause_s = cost.release_s + params.rendezvous_s;
  return cost;
}

}  // namespace hetsched
