// Per-iteration time of a job on a placement (ALGORITHMS.md 1.4; formulas and sources in
// docs/perf-model.md). Pure functions of the model profile, the plan and the link load: no
// state, no randomness. Both planners (estimates) and the simulator (with contention) use them.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/container.h"
#include "hetsched/model/job.h"
#include "hetsched/model/model_zoo.h"

namespace hetsched {

// How a job is laid out on its devices. Produced by a planner (planners/), consumed by perf/.
struct PipelineStage {
  int first_layer = 0;  // inclusive
  int last_layer = 0;   // inclusive
  std::vector<DeviceId> devices;  // data parallel inside the stage
};

// The part of the model one parameter-server shard holds: a fraction of the dense parameters
// and a fraction of the embedding rows (ShardParameters).
struct ParameterShard {
  double dense_fraction = 0;
  double sparse_fraction = 0;
};

struct Plan {
  Parallelism parallelism = Parallelism::kDataRing;
  int batch_per_device = 0;           // samples per device per iteration (> 0)
  std::vector<DeviceId> devices;      // every device the job holds
  std::vector<PipelineStage> stages;  // kPipeline only, in layer order
  int micro_batches = 1;              // kPipeline only
  int num_parameter_servers = 0;      // kDataPS only: shards, co-located one per used node (0 = one per node)
  // Container jobs (JobSpec::is_container_job) only: where every PS and worker container runs
  // (devices = all of their devices) and, per PS container in index order, its shard. Workers
  // compute on their devices; servers only exchange. Empty for every other plan.
  std::vector<ContainerPlacement> containers;
  std::vector<ParameterShard> shards;
};

// The figures of each node's NIC and each rack's uplink that the communication model reads,
// taken out of the cluster once (a simulator re-times jobs millions of times, and reading them
// through Node and Rack cost a cache miss each). Computed by the same expressions as from the
// cluster itself, so an estimate is bit-identical with or without the table.
struct LinkCapacities {
  std::vector<RackId> rack_of_node;           // by NodeId
  std::vector<double> nic_Bps;                // by NodeId: effective bandwidth; < 0: no NIC
  std::vector<double> nic_latency_s;          // by NodeId
  std::vector<double> uplink_Bps;             // by RackId: effective x uplinks / oversubscription; < 0: none
  std::vector<double> uplink_latency_s;       // by RackId
  static LinkCapacities Of(const Cluster& cluster);
};

// One flow's share of a link of `capacity_Bps` carrying `flows` flows (the job's own counted;
// fewer than one counts as one). The communication model's paths and the simulator's bookkeeping
// of which links are a job's slowest use this one formula, so their figures compare exactly.
inline double PerFlowShare(double capacity_Bps, int flows) { return capacity_Bps / (flows > 1 ? flows : 1); }

// Concurrent cross-node flows per NIC and per rack uplink, counting the job being estimated.
// Null vectors mean no other traffic (the job alone gets each link). `capacities`, when set,
// must be LinkCapacities::Of the cluster being estimated on.
struct LinkLoad {
  const std::vector<int>* nic_flows = nullptr;     // indexed by NodeId
  const std::vector<int>* uplink_flows = nullptr;  // indexed by RackId
  const LinkCapacities* capacities = nullptr;
};

struct IterationEstimate {
  double compute_s = 0;            // slowest device's compute for one iteration
  double communication_s = 0;      // synchronisation / transfers not overlapped
  double iteration_s = 0;          // compute + (1 - overlap) * communication (pipeline: per batch)
  double samples_per_s = 0;        // global throughput
  double cross_node_bytes = 0;     // bytes per iteration that leave a node (all NICs summed)
  int span_nodes = 0;              // distinct nodes used
  double memory_per_device_bytes = 0;  // params + optimizer state + activations on the fullest device
  bool fits_in_memory = true;
  // Ring data parallelism: the bandwidth one flow of the job gets on the slowest link of its
  // ring (BottleneckOf under the load), the only figure above that the load changes. 0 for
  // other plans.
  double ring_path_Bps = 0;
};

struct PerfOptions {
  double overlap = 0.0;            // o in ALGORITHMS.md 1.4-5
  double optimizer_state_factor = 2.0;  // Adam: 2x params of extra state
};

// Compute time of layers [first, last] of `model` for `batch` samples on one device of `type`
// (roofline, ALGORITHMS.md 1.4-1), including the per-iteration overhead kappa and, when the
// range starts at layer 0, the model's host_seconds_per_iteration.
double ComputeTime(const ModelProfile& model, int first_layer, int last_layer, int batch,
                   const DeviceType& type);

// Ring all-reduce of `bytes` over `n` members whose slowest link has `bandwidth_Bps` and
// `latency_s` (Patarasuk & Yuan): 2(n-1) alpha + 2 (n-1)/n S / B. Zero for n <= 1.
double RingAllReduceTime(int n, double bytes, double bandwidth_Bps, double latency_s);

// Synchronous parameter-server push+pull: max of the worker side and the server side
// (ALGORITHMS.md 1.4-3).
double ParameterServerTime(int workers, int servers, double bytes, double worker_bandwidth_Bps,
                           double server_bandwidth_Bps, double latency_s);

// Point-to-point transfer of `bytes` over one link.
double PointToPointTime(double bytes, double bandwidth_Bps, double latency_s);

// The bandwidth (bytes/s, after efficiency and fair sharing) and latency of the slowest link a
// transfer between the given devices crosses: the intra-node link if they share a node, else
// the NICs (divided by their flows) and, across racks, the uplinks (with oversubscription).
struct PathCapacity {
  double bandwidth_Bps = 0;
  double latency_s = 0;
};
PathCapacity BottleneckOf(const Cluster& cluster, std::span<const DeviceId> devices, const LinkLoad& load);

// Iteration time of `plan` for `model`. REQUIRES: plan.devices non-empty, batch > 0.
IterationEstimate EstimateIteration(const ModelProfile& model, const Plan& plan,
                                    const Cluster& cluster, const LinkLoad& load = {},
                                    const PerfOptions& options = {});

// EstimateIteration in two steps, for a simulator that re-times a running job whenever the load
// on its links changes: PrepareEstimate computes, once per allocation, what does not depend on
// the load (compute time, memory, the bytes to synchronise); EstimateUnderLoad finishes it for
// a load with the same operations in the same order as EstimateIteration, so the result is
// identical to EstimateIteration(model, plan, cluster, load, options) bit for bit. Only
// data-parallel plans (ring, PS) are split; for other plans EstimateUnderLoad computes the whole
// estimate. REQUIRES: the same model, plan, cluster and options in both calls.
struct PreparedEstimate {
  IterationEstimate base;         // all but communication_s, cross_node_bytes, iteration_s, samples_per_s
  double dense_bytes = 0;         // gradients synchronised per iteration
  double sparse_bytes_per_worker = 0;
  // The plan's distinct nodes in first-use order, and whether they span racks: the ring's path
  // is found from them under each load. Empty: found from plan.devices (the same result).
  std::vector<NodeId> nodes;
  bool crosses_racks = false;
  bool split = false;             // false: EstimateUnderLoad runs EstimateIteration
};
PreparedEstimate PrepareEstimate(const ModelProfile& model, const Plan& plan, const Cluster& cluster,
                                 const PerfOptions& options = {});
// The same into `out`: every field afresh, the nodes' storage reused where the plan keeps them.
void PrepareEstimate(const ModelProfile& model, const Plan& plan, const Cluster& cluster, PreparedEstimate* out,
                     const PerfOptions& options = {});
IterationEstimate EstimateUnderLoad(const PreparedEstimate& prepared, const ModelProfile& model,
                                    const Plan& plan, const Cluster& cluster, const LinkLoad& load = {},
                                    const PerfOptions& options = {});

// Nodes whose NIC the plan's traffic crosses (empty when the plan stays on one node), sorted.
// The second form writes them into `out` (its storage reused).
std::vector<NodeId> NicsUsed(const Cluster& cluster, const Plan& plan);
void NicsUsed(const Cluster& cluster, const Plan& plan, std::vector<NodeId>* out);

// How TensorFlow-style training splits a model over `num_ps` parameter servers [REC]: dense
// layers go round-robin, one layer at a time, in layer order (replica_device_setter's default
// round-robin over variables, here at layer granularity), so shards are uneven when layers are;
// embedding tables are partitioned evenly over all servers (a partitioned variable).
// Fractions of each kind sum to 1 (an all-zero kind gives zeros). REQUIRES: num_ps >= 1.
std::vector<ParameterShard> ShardParameters(const ModelProfile& model, int num_ps);

// Bytes per iteration a plan sends out of and into one link (a node's NIC, or a rack's uplink).
struct LinkBytes {
  int link = 0;          // NodeId for NICs, RackId for uplinks
  double out_bytes = 0;
  double in_bytes = 0;
};
struct PlanTraffic {
  std::vector<LinkBytes> nics;     // nodes with traffic, by node id
  std::vector<LinkBytes> uplinks;  // racks with traffic, by rack id (only when racks are crossed)
};
// The plan's cross-node traffic per link and iteration. Exact for container plans (per worker
// and shard pair, ALGORITHMS.md 6.1); for ring and plain PS plans the IterationEstimate's
// cross_node_bytes split evenly over the NICs used (exact for a ring), and one ring edge per
// rack boundary. `estimate` is the plan's estimate (for its cross_node_bytes).
PlanTraffic TrafficOf(const ModelProfile& model, const Plan& plan, const Cluster& cluster,
                      const IterationEstimate& estimate);
// The distinct racks of `nodes`, in rack order, into `out` (its storage reused).
void RacksOf(const Cluster& cluster, std::span<const NodeId> nodes, std::vector<RackId>* out);
// TrafficOf for a ring or plain PS plan (no containers), from its NicsUsed and their RacksOf
// (`racks`: their uplinks carry traffic when there are two or more): `out`'s storage is reused,
// as a simulator does at every start.
void EvenTrafficOf(std::span<const NodeId> nics, std::span<const RackId> racks, double cross_node_bytes,
                   PlanTraffic* out);

}  // namespace hetsched
