// EstimateIteration dispatches to the data-parallel or pipeline estimator; NicsUsed names the
// NICs a plan loads, which is what the simulator counts as flows (ALGORITHMS.md 1.4-6).
#include "hetsched/perf/iteration_model.h"

#include <algorithm>
#include <limits>

#include "hetsched/perf/perf_internal.h"

namespace hetsched {

IterationEstimate EstimateIteration(const ModelProfile& model, const Plan& plan,
                                    const Cluster& cluster, const LinkLoad& load,
                                    const PerfOptions& options) {
  if (plan.devices.empty() || plan.batch_per_device <= 0) {
    IterationEstimate impossible;
    impossible.iteration_s = std::numeric_limits<double>::infinity();
    impossible.fits_in_memory = false;
    return impossible;
  }
  if (!plan.containers.empty()) {
    return perf_internal::EstimateContainerPS(model, plan, cluster, load, options);
  }
  // A pipeline plan without stages is one stage over every device: plain data parallelism.
  if (plan.parallelism == Parallelism::kPipeline && !plan.stages.empty()) {
    return perf_internal::EstimatePipeline(model, plan, cluster, load, options);
  }
  return perf_internal::EstimateDataParallel(model, plan, cluster, load, options);
}

namespace {
// The plans EstimateIteration sends to EstimateDataParallel.
bool IsDataParallel(const Plan& plan) {
  return plan.containers.empty() && !(plan.parallelism == Parallelism::kPipeline && !plan.stages.empty());
}
}  // namespace

PreparedEstimate PrepareEstimate(const ModelProfile& model, const Plan& plan, const Cluster& cluster,
                                 const PerfOptions& options) {
  PreparedEstimate prepared;
  PrepareEstimate(model, plan, cluster, &prepared, options);
  return prepared;
}

void PrepareEstimate(const ModelProfile& model, const Plan& plan, const Cluster& cluster, PreparedEstimate* out,
                     const PerfOptions& options) {
  if (plan.devices.empty() || plan.batch_per_device <= 0 || !IsDataParallel(plan)) {
    *out = PreparedEstimate{};
    return;
  }
  perf_internal::PrepareDataParallel(model, plan, cluster, options, /*keep_nodes=*/true, out);
}

IterationEstimate EstimateUnderLoad(const PreparedEstimate& prepared, const ModelProfile& model,
                                    const Plan& plan, const Cluster& cluster, const LinkLoad& load,
                                    const PerfOptions& options) {
  if (!prepared.split) return EstimateIteration(model, plan, cluster, load, options);
  return perf_internal::FinishDataParallel(prepared, plan, cluster, load, options);
}

std::vector<NodeId> NicsUsed(const Cluster& cluster, const Plan& plan) {
  std::vector<NodeId> nodes;
  NicsUsed(cluster, plan, &nodes);
  return nodes;
}

void NicsUsed(const Cluster& cluster, const Plan& plan, std::vector<NodeId>* out) {
  std::vector<NodeId>& nodes = *out;
  if (!plan.containers.empty()) {
    nodes = perf_internal::ContainerNicsUsed(plan);
    return;
  }
  nodes.clear();
  auto add_all = [&](std::span<const DeviceId> devices) {
    for (DeviceId d : devices) nodes.push_back(cluster.device(d).node);
  };
  if (plan.parallelism == Parallelism::kPipeline && !plan.stages.empty()) {
    // A node's NIC is used by a stage whose data-parallel group spans nodes, and by a stage
    // boundary whose two sides are not on one node.
    const auto& stages = plan.stages;
    for (size_t i = 0; i < stages.size(); ++i) {
      const std::span<const DeviceId> here = stages[i].devices;
      if (!perf_internal::OnOneNode(cluster, here, {})) add_all(here);
      if (i + 1 < stages.size()) {
        const std::span<const DeviceId> next = stages[i + 1].devices;
        if (!perf_internal::OnOneNode(cluster, here, next)) {
          add_all(here);
          add_all(next);
        }
      }
    }
  } else if (!perf_internal::OnOneNode(cluster, plan.devices, {})) {
    // Ring: every used node has a ring edge leaving it. PS: every used node either hosts a
    // shard that remote workers reach or has workers that reach remote shards.
    add_all(plan.devices);
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
}

}  // namespace hetsched
