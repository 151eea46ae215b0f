// The HeterPS cost model (ALGORITHMS.md 2.2-2.3, data-parallel reading): the time, throughput and
// hourly cost of one pipeline stage on `k` units of one resource type, and the provisioning step
// (the fewest units that sustain the throughput limit). Per-layer quantities are precomputed per
// type as prefix sums, so a stage is evaluated in O(1) and a whole per-layer assignment in O(L).
//
// For a stage s = layers [i, j] on type d with k units and per-unit batch b [REC]:
//   ET_s      = t_comp(i..j, d, b)                                  roofline, perf/ ComputeTime
//   X_s       = 2 (alpha + a_j b / B_net)           if s is not the last stage (activations out,
//                                                   their gradients back)
//   SP_s      = 2 (alpha_ps + b sparse(i..j) / B_ps) embedding rows pulled from / pushed to the
//                                                   parameter servers that hold the sparse tables
//                                                   (on the CPU nodes: B_ps = loopback when d is
//                                                   a CPU node, the network otherwise)
//   SYNC_s(k) = T_PS(k workers, k shards, dense(i..j)) over the network, 0 for k = 1
//   Theta_s(k)= k b / (ET_s + X_s + SP_s + SYNC_s(k))
// Theta_s is non-decreasing in k (SYNC_s is the same for every k >= 2), so the provisioning step
// k_s = min{k : Theta_s(k) >= limit} has a closed form. Memory per unit: dense params x 3 (Adam)
// + b x activations <= device memory; sparse tables live on the parameter servers.
// The objective is the hourly cost sum_s k_s p_{d_s} of a provisioning that sustains the limit
// (the job is paced at the limit, so training N samples costs cost/hour x N / (3600 limit)).
// Because a stage's cost depends only on its layers, its type and whether it is last, this cost
// is additive over stages, which is what makes the DP of cost_dp.cc exact.
#pragma once

#include <limits>
#include <span>
#include <string>
#include <vector>

#include "hetsched/planners/hetero_problem.h"
#include "hetsched/util/status.h"

namespace hetsched {

class StageCostModel {
 public:
  static constexpr double kInfeasible = std::numeric_limits<double>::infinity();

  // REQUIRES: ValidateProblem(problem).ok() and problem.objective == kCostUnderThroughput.
  // `problem` must outlive the model.
  static Result<StageCostModel> Build(const PlanningProblem& problem);

  int num_layers() const { return num_layers_; }
  int num_types() const { return static_cast<int>(types_.size()); }
  int batch() const { return batch_; }
  const DeviceType& type(int pool_index) const { return *types_[static_cast<size_t>(pool_index)].type; }
  double throughput_limit() const { return limit_; }

  // Stage [first, last] on pool type `t`, provisioned for the limit (per-type cap applied).
  // feasible = false (with `why`) when it does not fit in memory or needs more units than the cap.
  PlannedStage EvaluateStage(int first, int last, int t, bool* feasible, std::string* why) const;
  // Hourly cost of the stage, or kInfeasible. The hot path of DP and RL.
  double StageCost(int first, int last, int t) const;
  // Units the stage needs to meet the limit, or 0 when it does not fit in memory (the cap is
  // not applied: the caller compares with max_units).
  int StageUnits(int first, int last, int t) const;
  // The units the stage needs as a real number: limit x iteration time / batch, the iteration
  // with the dense sync once one unit is not enough. StageUnits is its ceiling (up to the 1e-9
  // tolerance); +infinity when the stage does not fit in memory.
  double StageLoad(int first, int last, int t) const;
  int max_units(int t) const { return types_[static_cast<size_t>(t)].max_units; }  // 0 = unlimited

  // $/hour of a per-layer assignment (pool index per layer; runs of one type form a stage), or
  // kInfeasible (out of memory, a per-type cap exceeded, summed over the type's stages).
  double AssignmentCost(std::span<const int> layer_types) const;
  // The same assignment as a full plan; errors say why it is infeasible.
  Result<HeteroPlan> EvaluateAssignment(std::span<const int> layer_types, const std::string& planner) const;

  // Compute time of layers [first, last] on one unit of type t (ET_s above).
  double ComputeS(int first, int last, int t) const;

 private:
  struct TypeData {
    const DeviceType* type = nullptr;
    int max_units = 0;
    std::vector<double> layer_s_prefix;  // size L + 1: roofline seconds of layers < l, no kappa
    double ps_bandwidth_Bps = 0;         // to the parameter servers holding the sparse tables
    double ps_latency_s = 0;
  };
  struct StageTimes {
    double compute_s = 0, transfer_s = 0, sparse_s = 0, dense_sync_s = 0;
    bool fits = true;
  };
  StageTimes Times(int first, int last, int t) const;
  int UnitsFor(const StageTimes& times) const;  // smallest k meeting the limit (k >= 1)

  const PlanningProblem* problem_ = nullptr;
  int num_layers_ = 0;
  int batch_ = 0;
  double limit_ = 0;
  double net_bandwidth_Bps_ = 0;
  double net_latency_s_ = 0;
  std::vector<TypeData> types_;
  std::vector<double> param_prefix_, act_prefix_, sparse_prefix_;  // size L + 1
};

}  // namespace hetsched
