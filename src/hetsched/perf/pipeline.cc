// Pipeline-parallel iterations, GPipe schedule (Huang et al., NeurIPS 2019): the mini-batch is
// split into m micro-batches that flow through k stages; with a flush per iteration the time is
// (m + k - 1) slots of the slowest stage, then each stage synchronises its gradients among its
// data-parallel devices. Formulas and their sources: docs/perf-model.md.
#include <algorithm>
#include <span>
#include <vector>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/perf/perf_internal.h"
#include "hetsched/util/units.h"

namespace hetsched::perf_internal {

namespace {

size_t WidestStage(const std::vector<PipelineStage>& stages) {
  size_t widest = 0;
  for (const PipelineStage& s : stages) widest = std::max(widest, s.devices.size());
  return widest;
}

}  // namespace

IterationEstimate EstimatePipeline(const ModelProfile& model, const Plan& plan,
                                   const Cluster& cluster, const LinkLoad& load,
                                   const PerfOptions& options) {
  IterationEstimate est;
  const auto& stages = plan.stages;
  const int k = static_cast<int>(stages.size());
  const double m = std::max(1, plan.micro_batches);
  // The pipeline's mini-batch: batch_per_device samples on each device of the widest stage;
  // narrower stages process the same mini-batch on fewer devices.
  const double mini_batch = plan.batch_per_device * static_cast<double>(WidestStage(stages));
  const double micro_batch = mini_batch / m;

  thread_local std::vector<NodeCount> groups;
  GroupByNode(cluster, plan.devices, &groups);
  est.span_nodes = static_cast<int>(groups.size());

  double slot_s = 0;           // max_i (t_i + (1 - o) p2p_i), the slot the schedule repeats
  double slot_compute_s = 0;   // t_i of the stage that sets the slot
  double slot_transfer_s = 0;  // p2p_i of that stage
  double sync_s = 0;           // slowest stage gradient synchronisation
  for (int i = 0; i < k; ++i) {
    const PipelineStage& stage = stages[static_cast<size_t>(i)];
    const int width = static_cast<int>(stage.devices.size());
    int first = stage.first_layer;
    int last = stage.last_layer;
    if (width == 0 || !ClampLayerRange(model, &first, &last)) {
      // A stage without devices or layers cannot run: report an impossible plan.
      est.iteration_s = kInf;
      est.fits_in_memory = false;
      return est;
    }
    const LayerSums sums = SumLayers(model, first, last);
    const double per_device_micro = micro_batch / width;
    const double t_s = SlowestComputeTime(model, first, last, per_device_micro, cluster, stage.devices);

    // Forward activations to the next stage and their gradients back: 2 (alpha + a b_mu / B).
    // The micro-batch's rows move in parallel between the devices of the two stages, so the
    // narrower side carries a_cut * b_mu / min(w_i, w_i+1) each.
    double p2p_s = 0;
    if (i + 1 < k) {
      const PipelineStage& next = stages[static_cast<size_t>(i + 1)];
      const double cut_bytes = model.layers[static_cast<size_t>(last)].activation_bytes_per_sample;
      const double narrow = static_cast<double>(std::max<size_t>(1, std::min(stage.devices.size(), next.devices.size())));
      const PathCapacity path = PathBetween(cluster, stage.devices, next.devices, load);
      p2p_s = 2.0 * PointToPointTime(cut_bytes * micro_batch / narrow, path.bandwidth_Bps, path.latency_s);
      if (!OnOneNode(cluster, stage.devices, next.devices)) {
        est.cross_node_bytes += 2.0 * cut_bytes * mini_batch;  // all m micro-batches, both ways
      }
    }
    const double candidate_s = t_s + (1.0 - options.overlap) * p2p_s;
    if (candidate_s > slot_s) {
      slot_s = candidate_s;
      slot_compute_s = t_s;
      slot_transfer_s = p2p_s;
    }

    // Gradient sync of the stage's data-parallel group: ring all-reduce of its dense weights,
    // all-gather of its sparse rows (each device's share of the mini-batch).
    const double per_device_batch = mini_batch / width;
    const double sparse_per_member = per_device_batch * sums.sparse_bytes_per_sample;
    if (width > 1) {
      const PathCapacity ring = BottleneckOf(cluster, stage.devices, load);
      sync_s = std::max(sync_s, RingAllReduceTime(width, sums.param_bytes, ring.bandwidth_Bps, ring.latency_s) +
                                    RingAllGatherTime(width, sparse_per_member, ring.bandwidth_Bps, ring.latency_s));
      thread_local std::vector<NodeCount> stage_groups;
      GroupByNode(cluster, stage.devices, &stage_groups);
      const int stage_nodes = static_cast<int>(stage_groups.size());
      if (stage_nodes >= 2) {
        est.cross_node_bytes += stage_nodes * (2.0 * (width - 1) / width * sums.param_bytes +
                                               (width - 1) * sparse_per_member);
      }
    }

    // GPipe without re-materialisation keeps the activations of all m micro-batches.
    const double memory = (sums.param_bytes + sums.embedding_table_bytes) * (1.0 + options.optimizer_state_factor) +
                          per_device_batch * sums.activation_bytes_per_sample;
    est.memory_per_device_bytes = std::max(est.memory_per_device_bytes, memory);
    if (memory > MinDeviceMemory(cluster, stage.devices)) est.fits_in_memory = false;
  }

  const double slots = m + k - 1;
  est.compute_s = slots * slot_compute_s;
  est.communication_s = slots * slot_transfer_s + sync_s;
  est.iteration_s = slots * slot_s + (1.0 - options.overlap) * sync_s;
  est.samples_per_s = est.iteration_s > 0 ? mini_batch / est.iteration_s : 0.0;
  return est;
}

}  // namespace hetsched::perf_internal
