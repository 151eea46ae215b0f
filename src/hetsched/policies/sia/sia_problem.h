// Internal to policies/sia/: one round of Sia's optimisation as its simulator poses it
// [SRC: Jayaram Subramanya et al., "Sia: Heterogeneity-aware, goodput-optimized ML-cluster
// scheduling", SOSP 2023, sec. 3-4; siasosp23/artifacts, sia-simulator/sia.py (no licence: read,
// not copied; what follows is written from its behaviour, with file:line references)].
//
// The cluster is cut into node groups (Sia's "clusters": the nodes of one GPU type, all of one
// size in Sia's; here [REC] a type's nodes may differ in size: its configurations follow its
// largest node, and the placer packs the GPUs each node has). Each group offers configurations (sia.py:13-17, 100-144): on a node
// of g GPUs, 1, 2, 4, ... GPUs up to g on one node, then k x g GPUs on k whole nodes, up to the
// group's nodes and 64 GPUs. A job's row holds its goodput in every configuration, normalised so
// that its smallest positive entry is 1 (sia.py:656-725); every entry but the job's last
// configuration is multiplied by its re-allocation factor (sia.py:860-873). The integer program
// (sia.py:844-1010): one binary x per job and configuration,
//     minimise  sum x * round(G^p, 2)  +  lambda_n * (jobs - sum x)      (p < 0; G^p capped at 3000)
// with at most one configuration per job, each group's GPUs within its capacity, and a job in
// the middle of a checkpoint-restore held to its configuration. Placement (sia.py:155-204, the
// simulator's "fast" placer): per group, jobs by GPUs (most first; ties in job order), whole free
// nodes first for a job of a node or more, then any free GPUs, from a node pointer that moves on
// past the last node each job touched.
#pragma once

#include <string>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/sched/goodput_view.h"
#include "hetsched/util/status.h"

namespace hetsched::sia_internal {

inline constexpr double kZeroAllocGain = 1e-4;  // sia.py:19, ZERO_ALLOC_GAIN
inline constexpr double kGoodputClip = 3000;    // simulator_config.py: sia_goodput_clip_val
inline constexpr int kMaxConfigGpus = 64;       // the largest configuration, sia.py:13-17

// The nodes of one GPU type, in the cluster's order.
struct NodeGroup {
  DeviceTypeId type = kNoDeviceType;
  int gpus_per_node = 0;  // its largest node's
  std::vector<NodeId> nodes;
};

// The cluster's node groups, ordered by their first node.
std::vector<NodeGroup> GroupNodes(const Cluster& cluster);

struct SiaConfig {
  int group = 0;
  int nodes = 0;
  int gpus = 0;
};

// Every group's configurations, group after group.
std::vector<SiaConfig> Configurations(const std::vector<NodeGroup>& groups);

// One job's raw goodputs for each configuration (0 where not valid) and, per group, whether the
// job has a model there (Sia computes goodputs only where it has one). Normalised as sia.py does:
// divided by the smallest entry above kZeroAllocGain among the groups with a model (1 when there
// is none); a group without a model, or without a valid configuration, gets 1 at its one-GPU
// configuration; every entry at or below kZeroAllocGain becomes kZeroAllocGain.
std::vector<double> NormaliseGoodputs(const std::vector<SiaConfig>& configs, std::vector<double> raw,
                                      const std::vector<bool>& group_has_model);

// Sia's re-allocation factor: max(age - restarts x penalty, 0) / (age + penalty), 1 for a job
// younger than its penalty (sia.py:728-744).
double ReallocFactor(double age_s, int restarts, double penalty_s);

// Sia's restart penalty by application, measured on its physical cluster (sia.py:22-34).
double RestartPenalty(const std::string& application);

// sia-plus's re-allocation factor [REC]: Sia's form with the change's own price `pause_s` (the
// back end's elastic pause, or the application's re-allocation delay), a young job not exempt:
// max(age - restarts x pause, 0) / (age + pause).
double PricedFactor(double age_s, int restarts, double pause_s);

// A configuration a job may be given, with its normalised goodput there.
struct SiaOption {
  int group = 0;
  int gpus = 0;
  double goodput = 0;
};

// How an adaptive job's goodputs are weighed.
struct GoodputRowSettings {
  bool batch_from_job = true;  // the largest batch they assume: the user's (Sia, job.py:253-255), else the application's
  bool project = true;         // project a model onto types without one (Sia's experiments: --project_throughputs)
};

// An adaptive goodput job's options: every configuration of each group it may use (`allowed`, and
// a type it was profiled on), with its normalised goodput there. A group's goodputs come from the
// job's model on the group's type (Sia: one per type, sia.py:610-668); a type it has no model on
// yet offers one GPU only (as does every type before it has measured itself anywhere), unless
// `project`: then its goodputs are those of its first type with a model (in the job's type order)
// at the same GPU count on that type's nodes, times the ratio of the two types' one-GPU
// throughputs (sia.py:423-507, cluster.py:233-270), and every type shares the largest of the
// job's per-type GPU limits (--share_max_replicas, which projection implies).
std::vector<SiaOption> GoodputOptions(const GoodputJobView& view, const std::vector<NodeGroup>& groups,
                                      const std::vector<SiaConfig>& configs, const std::vector<bool>& allowed,
                                      const GoodputRowSettings& settings);

// sia-plus's options for an adaptive job that has not measured itself yet [REC] (Sia offers it one
// GPU): every configuration of each group it may use up to its user's GPU count `requested`, worth
// its GPUs times its application's one-GPU throughput on the group's type (the ratio Sia's
// projection uses), normalised so that the smallest is 1.
std::vector<SiaOption> PriorOptions(const GoodputJobView& view, const std::vector<NodeGroup>& groups,
                                    const std::vector<SiaConfig>& configs, const std::vector<bool>& allowed,
                                    int requested);

// A job's row of the integer program: an adaptive job's options are its GPU types'
// configurations; a rigid one's, its GPU count on each of its types (sia.py:587-600, 747-761).
struct SiaJobRow {
  std::vector<SiaOption> options;
  int previous = -1;            // its option last round; -1: none
  double realloc_factor = 1;
  bool hold = false;            // in a checkpoint-restore: keeps `previous`
  // sia-plus [REC]: the options of this group (the job's own, where it can resize elastically)
  // other than `previous` are weighed with `elastic_factor` instead of `realloc_factor`.
  int elastic_group = -1;
  double elastic_factor = 1;
  // sia-plus [REC]: a move off its nodes hands it over (SchedContext::HandOver).
  bool hand_over = false;
  // sia-plus [REC]: the time it has left by its own report (0: none yet), and the weight of its
  // terms in the program (WeighByRemaining; 1: Sia's).
  double remaining_s = 0;
  double weight = 1;
};

// sia-plus's lean toward the jobs with the least time left [REC] (heSRPT, Berg et al. 2020: with
// sublinear speedups the jobs nearest their end get the larger shares; Optimus, Peng et al. 2018:
// a job's allocation from the time it has left): each row's weight is (remaining / median)^-k,
// the median over the rows that report a remaining time (the lower middle one of an even count),
// held within [1, 4]: a job with more time left than the median keeps Sia's weight (leaning
// against the long jobs too lengthened the tail: docs/goodput.md, "Remaining time"); a row
// without a report keeps 1. k = 0: every weight 1.
void WeighByRemaining(std::vector<SiaJobRow>& rows, double k);

struct SiaSettings {
  double p = -0.5;         // simulator_config.py: sia_default_p_val
  double lambda_n = 1.1;   // sia_default_lambda_n
  double relative_gap = 1e-4;  // sia_solver_thresh
  // CBC stops by nodes, not by a time limit, so that where it stops (and the incumbent it returns)
  // does not depend on the machine's speed [REC: Sia's cvxpy call has neither]. Sia's own
  // workloads take at most 266 nodes a round (saturn/workload-1, philly/workload-3; the demo's 41).
  long long max_nodes = 20000;
};

// The integer program's coefficient of x[j][c]: round(G'^p, 2), capped (sia.py:887-902), where G'
// is the goodput after the re-allocation factor.
double PoweredCoefficient(double goodput, double p);

// Solves one round: for each job, the index of its option (-1: none). Errors: the solver's
// failure, or no solution (a held job whose option no longer fits).
Result<std::vector<int>> SolveRound(const std::vector<int>& group_capacity, const std::vector<SiaJobRow>& jobs,
                                    const SiaSettings& settings);

// Sia's fast placer for one group: `gpus[k]` GPUs for each of the group's jobs (in job order);
// `free[n]` the GPUs on the group's n-th node. Returns, per job, the node (index into the group)
// of each GPU, in the order taken.
std::vector<std::vector<int>> PlaceFast(const std::vector<int>& gpus, std::vector<int> free);

// sia-plus's elastic change of a job inside its group [REC]: `held[n]` its GPUs on the group's n-th
// node, `room[n]` the free GPUs there. Returns its GPUs per node for `gpus` GPUs on at most
// `max_nodes` nodes, keeping as many of its own as it can (at least one): the nodes where it holds
// most first, then the nodes with the most room; empty when no such change exists.
std::vector<int> ResizeWithin(const std::vector<int>& held, const std::vector<int>& room, int gpus, int max_nodes);

}  // namespace hetsched::sia_internal
