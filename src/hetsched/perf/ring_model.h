// The GADGET analytical model of ring-all-reduce jobs (ALGORITHMS.md 5.2; docs/gadget.md):
// per-iteration time tau(w, embedding, load) of a job whose w workers form a ring embedded in
// the cluster graph, and the utilities the GADGET scheduler maximises (completion time,
// excessive-training avoidance, energy, alpha-fairness) with their marginal gains.
//
// Built on the shared formulas (perf-model.md): RingAllReduceTime (Patarasuk & Yuan), the sparse
// all-gather and the NIC/uplink fair sharing of BottleneckOf. For a ring that visits each server's
// workers consecutively, tau equals EstimateIteration's kDataRing iteration time exactly (tested);
// this file adds what GADGET reasons about on top: the ring's hops (intra- vs inter-server), a ring
// that crosses a server's NIC more than once, and closed forms in (w, span) for the scheduler.
// Pure functions: no state, no randomness.
#pragma once

#include <span>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/iteration_model.h"

namespace hetsched {

// What the ring model needs from one job on one device type: visible information only (the
// model profile and the batch the job asked for).
struct RingJob {
  double compute_s = 0;                // t_comp: one worker's compute per iteration (roofline + kappa)
  double dense_bytes = 0;              // S: dense gradient bytes all-reduced per iteration
  double sparse_bytes_per_worker = 0;  // b s: embedding rows each worker all-gathers
  int batch_per_worker = 0;            // b
  double overlap = 0;                  // o: fraction of communication hidden behind compute
};
// REQUIRES: batch_per_worker > 0 (0: the model's default batch).
RingJob MakeRingJob(const ModelProfile& model, int batch_per_worker, const DeviceType& type,
                    const PerfOptions& options = {});

// The slowest hop of a ring: bandwidth per ring edge (bytes/s, after efficiency and sharing) and
// the largest latency among the hops. Infinite bandwidth: no hop (one worker).
struct RingLinks {
  double bandwidth_Bps = 0;
  double latency_s = 0;
};

// How a ring (devices in ring order; the last one sends to the first) lies on the cluster.
struct RingEmbeddingInfo {
  int workers = 0;
  int servers = 0;            // distinct nodes
  int intra_hops = 0;         // ring edges between two devices of one node
  int inter_hops = 0;         // ring edges between nodes (each crosses two NICs)
  int max_nic_crossings = 0;  // most ring edges leaving one node (1 when the ring is node-contiguous)
  RingLinks bottleneck;       // slowest hop under `load`
};

// Describes the ring `ring` under `load`. Contention [REC, ALGORITHMS.md 1.4-6]: `load` counts
// flows per NIC including this job's one flow (as the simulator counts them); a ring that leaves
// node h through c_h edges puts c_h flows on its NIC, so each gets B_nic / (flows_h - 1 + c_h).
// Rack uplinks are shared as in BottleneckOf (one flow per job). A ring spanning nodes is limited
// by the NICs only (intra-node hops are faster with every link of the catalogue; BottleneckOf
// makes the same choice), so node-contiguous rings get exactly BottleneckOf's capacity.
RingEmbeddingInfo DescribeRing(const Cluster& cluster, std::span<const DeviceId> ring, const LinkLoad& load = {});

// tau(w, links) = t_comp + (1 - o) [T_ring(w, S) + T_ag(w, b s)] over the ring's slowest hop:
//   T_ring = 2 (w - 1) alpha + 2 (w - 1)/w S / B,  T_ag = (w - 1) alpha + (w - 1) b s / B.
// w <= 1: t_comp. Infinite when B = 0 (a node without a NIC).
double RingIterationTime(const RingJob& job, int workers, const RingLinks& links);
// tau(w, embedding, load): the same over DescribeRing(ring, load).
double RingIterationTime(const RingJob& job, const Cluster& cluster, std::span<const DeviceId> ring,
                         const LinkLoad& load = {});

// Progress rate in iterations of the job *as submitted* (submitted_workers x b samples each) per
// second when it runs on `workers`: w b / tau(w) / (W0 b) = w / (W0 tau(w)). This is how the
// simulator counts an elastic job's progress (sim/simulator.cc).
double RingProgressRate(const RingJob& job, int workers, const RingLinks& links, int submitted_workers);

// The objective family of the GADGET model (paper abstract [SRC]; the functions are our
// reconstruction [REC], ALGORITHMS.md 5.2). Each job's utility rate V(w) >= 0, V(0) = 0,
// non-decreasing in w is what the greedy allocation maximises summed over jobs.
enum class RingObjective {
  kCompletionTime,  // V = x(w) / R: the job's completion rate; favours short jobs (SRPT-like)
  kTarget,          // excessive-training avoidance: V = x(w) / R_need, 0 once the need is met
  kEnergy,          // V = (x(w) - e (w - 1) x(1)) / R for w >= 1: an extra worker must earn e workers' worth
  kFairness,        // V = phi_alpha(x(w)/x_ref) - phi_alpha(y_floor): alpha-fair in normalised rates
};

struct RingUtility {
  RingObjective objective = RingObjective::kCompletionTime;
  double remaining_iterations = 1;  // R: iterations of the job as submitted still to do (>= 1 used)
  double need_iterations = 1;       // R_need (kTarget): iterations still needed to reach the target (0: met)
  double energy_weight = 0;         // e (kEnergy), in [0, 1]
  double alpha = 1;                 // alpha (kFairness), >= 0
  double reference_rate = 1;        // x_ref (kFairness): the rate on the workers the job asked for
  double single_rate = 1;           // x(1): the rate on one worker
};

// alpha-fair transform: log y (alpha = 1), y^(1-alpha)/(1-alpha) otherwise (Mo & Walrand 2000).
double AlphaFair(double y, double alpha);

// V(w) for a job whose rate on w workers is `rate` (from RingProgressRate). V(0) = 0.
double UtilityOf(const RingUtility& utility, int workers, double rate);

// Marginal gain of going from w to w + dw workers: V(w + dw) - V(w).
double MarginalGain(const RingUtility& utility, int from_workers, double from_rate, int to_workers, double to_rate);

}  // namespace hetsched
