// GADGET ring model: see ring_model.h and docs/gadget.md for the formulas and their sources.
#include "hetsched/perf/ring_model.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "hetsched/perf/perf_internal.h"
#include "hetsched/util/units.h"

namespace hetsched {

namespace {

// The fairness utility starts from this fraction of a job's one-worker normalised rate, so that
// V(0) = 0 stays finite while the first worker of every job is worth far more than any later one
// (log(1000) ~ 6.9 against at most log 2 for doubling a ring): every job gets a worker first.
constexpr double kFairFloorFraction = 1e-3;

int FlowsOn(const LinkLoad& load, NodeId node) {
  if (load.nic_flows == nullptr || node < 0 || node >= static_cast<int>(load.nic_flows->size())) return 1;
  return std::max(1, (*load.nic_flows)[static_cast<size_t>(node)]);
}

}  // namespace

RingJob MakeRingJob(const ModelProfile& model, int batch_per_worker, const DeviceType& type,
                    const PerfOptions& options) {
  RingJob job;
  const int batch = batch_per_worker > 0 ? batch_per_worker : std::max(1, model.default_batch_size);
  int first = 0;
  int last = static_cast<int>(model.layers.size()) - 1;
  job.batch_per_worker = batch;
  job.overlap = options.overlap;
  if (!perf_internal::ClampLayerRange(model, &first, &last)) {
    job.compute_s = type.iteration_overhead_s;
    return job;
  }
  const perf_internal::LayerSums sums = perf_internal::SumLayers(model, first, last);
  job.compute_s = ComputeTime(model, first, last, batch, type);
  job.dense_bytes = sums.param_bytes;
  job.sparse_bytes_per_worker = batch * sums.sparse_bytes_per_sample;
  return job;
}

RingEmbeddingInfo DescribeRing(const Cluster& cluster, std::span<const DeviceId> ring, const LinkLoad& load) {
  RingEmbeddingInfo info;
  info.workers = static_cast<int>(ring.size());
  info.bottleneck = RingLinks{kInf, 0.0};
  if (ring.size() <= 1) {
    info.servers = ring.empty() ? 0 : 1;
    return info;
  }
  // Edges leaving each node, in order of first appearance. Rings are small (tens of workers),
  // so a linear lookup beats any index over the cluster's nodes.
  thread_local std::vector<std::pair<NodeId, int>> leaving;
  leaving.clear();
  auto slot_of = [&](NodeId node) -> int& {
    for (auto& [n, count] : leaving) {
      if (n == node) return count;
    }
    leaving.emplace_back(node, 0);
    return leaving.back().second;
  };
  const RackId first_rack = cluster.node(cluster.device(ring.front()).node).rack;
  bool crosses_racks = false;
  for (size_t i = 0; i < ring.size(); ++i) {
    const NodeId from = cluster.device(ring[i]).node;
    const NodeId to = cluster.device(ring[(i + 1) % ring.size()]).node;
    crosses_racks |= cluster.node(from).rack != first_rack;
    int& out = slot_of(from);
    if (from == to) {
      ++info.intra_hops;
      continue;
    }
    ++info.inter_hops;
    ++out;
  }
  info.servers = static_cast<int>(leaving.size());
  if (info.servers == 1) {
    // One node: every hop is the node's intra link (none declared: not limiting, as in BottleneckOf).
    const Node& n = cluster.node(leaving.front().first);
    if (n.intra_link != kNoLinkClass) {
      const LinkClass& intra = cluster.link_catalog().link(n.intra_link);
      info.bottleneck = RingLinks{intra.effective_bandwidth_Bps(), intra.latency_s};
    }
    info.max_nic_crossings = 0;
    return info;
  }
  // Several nodes: the NICs bind (intra-node links are faster than any NIC of the catalogue and
  // BottleneckOf ignores them too, so both models agree on node-contiguous rings).
  for (const auto& [node, out] : leaving) {
    info.max_nic_crossings = std::max(info.max_nic_crossings, out);
    if (out == 0) continue;
    const Node& n = cluster.node(node);
    // NIC (and, across racks, uplink) share for one flow of this job, as BottleneckOf has it...
    const PathCapacity path = perf_internal::NicPath(cluster, node, crosses_racks, load);
    double bandwidth = path.bandwidth_Bps;
    // ...then the NIC divided among this ring's `out` flows and the other jobs' flows.
    if (out > 1 && n.nic != kNoLinkClass) {
      const double nic = cluster.link_catalog().link(n.nic).effective_bandwidth_Bps();
      bandwidth = std::min(bandwidth, nic / (FlowsOn(load, node) - 1 + out));
    }
    info.bottleneck.bandwidth_Bps = std::min(info.bottleneck.bandwidth_Bps, bandwidth);
    info.bottleneck.latency_s = std::max(info.bottleneck.latency_s, path.latency_s);
  }
  return info;
}

double RingIterationTime(const RingJob& job, int workers, const RingLinks& links) {
  if (workers <= 1) return job.compute_s;
  const double comm_s = RingAllReduceTime(workers, job.dense_bytes, links.bandwidth_Bps, links.latency_s) +
                        perf_internal::RingAllGatherTime(workers, job.sparse_bytes_per_worker, links.bandwidth_Bps,
                                                         links.latency_s);
  return job.compute_s + (1.0 - job.overlap) * comm_s;
}

double RingIterationTime(const RingJob& job, const Cluster& cluster, std::span<const DeviceId> ring,
                         const LinkLoad& load) {
  const RingEmbeddingInfo info = DescribeRing(cluster, ring, load);
  return RingIterationTime(job, info.workers, info.bottleneck);
}

double RingProgressRate(const RingJob& job, int workers, const RingLinks& links, int submitted_workers) {
  if (workers <= 0 || submitted_workers <= 0) return 0.0;
  const double tau = RingIterationTime(job, workers, links);
  if (!(tau > 0) || !std::isfinite(tau)) return 0.0;
  return static_cast<double>(workers) / (static_cast<double>(submitted_workers) * tau);
}

double AlphaFair(double y, double alpha) {
  if (!(y > 0)) return -kInf;
  if (std::abs(alpha - 1.0) < 1e-12) return std::log(y);
  return std::pow(y, 1.0 - alpha) / (1.0 - alpha);
}

double UtilityOf(const RingUtility& u, int workers, double rate) {
  if (workers <= 0 || !(rate > 0)) return 0.0;
  const double remaining = std::max(1.0, u.remaining_iterations);
  switch (u.objective) {
    case RingObjective::kCompletionTime:
      return rate / remaining;
    case RingObjective::kTarget:
      // No value beyond the job's need: a job that has met its target is worth nothing more.
      return u.need_iterations > 0 ? rate / std::max(1.0, u.need_iterations) : 0.0;
    case RingObjective::kEnergy:
      return (rate - u.energy_weight * (workers - 1) * u.single_rate) / remaining;
    case RingObjective::kFairness: {
      const double ref = u.reference_rate > 0 ? u.reference_rate : rate;
      const double floor_y = kFairFloorFraction * (u.single_rate > 0 ? u.single_rate : rate) / ref;
      return AlphaFair(rate / ref, u.alpha) - AlphaFair(floor_y, u.alpha);
    }
  }
  return 0.0;
}

double MarginalGain(const RingUtility& utility, int from_workers, double from_rate, int to_workers, double to_rate) {
  return UtilityOf(utility, to_workers, to_rate) - UtilityOf(utility, from_workers, from_rate);
}

}  // namespace hetsched
