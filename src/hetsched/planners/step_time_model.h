// The TAPP step-time model (ALGORITHMS.md 4.2) and its exact solvers. The layers are cut into k
// contiguous stages, stage i on its own device g_i (each device holds at most one stage; devices
// may stay unused). With m micro-batches of b = B/m samples, GPipe with a flush per step:
//   t_i   = t_comp(layers(i), d(g_i), b)                        roofline, perf/ ComputeTime
//   c_i   = 2 (alpha + a_cut(i) b / B(g_i, g_i+1))  for i < k    activations out, gradients back,
//                                                                on the slowest link between them
//   T     = (m + k - 1) max_i (t_i + c_i)
// the same numbers as perf/ EstimateIteration for a kPipeline plan with one device per stage
// (pipeline.cc; a test checks it). Memory: (params + tables) x 3 + B x activations of the stage.
// Communication on the critical path: (m + k - 1) c_i* of the slot-setting stage i*.
//
// Exact DP, backwards over layers so that a stage's outgoing transfer is known when it is
// added: G(i, S, g) = the least max-slot of layers i..L-1 when the stage starting at layer i runs
// on device g and S (containing g) is the set of devices of stages i.. onwards:
//   G(i, S, g) = min_j  slot(i, L-1, g)                                   if j = L-1 and S = {g}
//                       min_{h in S\{g}} max(slot(i, j, g -> h), G(j+1, S\{g}, h))   otherwise
//   T* = min_{S, g} (m + |S| - 1) G(0, S, g)
// O(L^2 2^M M^2) time, O(L 2^M M) memory; M <= 8 devices.
#pragma once

#include <span>
#include <vector>

#include "hetsched/planners/hetero_problem.h"

namespace hetsched {

class StepTimeModel {
 public:
  // REQUIRES: ValidateProblem(problem).ok(), objective kStepTime. `problem` outlives the model.
  static Result<StepTimeModel> Build(const PlanningProblem& problem);

  int num_layers() const { return num_layers_; }
  int num_devices() const { return num_devices_; }
  DeviceId device(int g) const { return ids_[static_cast<size_t>(g)]; }  // cluster id of device g
  int micro_batches() const { return m_; }
  int global_batch() const { return global_batch_; }

  // t_i + c_i of layers [first, last] on device g sending to device `next` (-1: last stage);
  // +infinity when the stage does not fit in g's memory.
  double Slot(int first, int last, int g, int next) const;
  double TransferS(int last, int g, int next) const;  // c_i alone
  double ComputeS(int first, int last, int g) const;  // t_i alone

  // Step time of a per-layer device assignment (runs of one device are stages; a device may not
  // come back after another), +infinity when infeasible.
  double AssignmentStepTime(std::span<const int> layer_devices) const;
  Result<HeteroPlan> EvaluateAssignment(std::span<const int> layer_devices, const std::string& planner) const;

 private:
  const PlanningProblem* problem_ = nullptr;
  std::vector<DeviceId> ids_;  // device g of the model = cluster device ids_[g]
  int num_layers_ = 0, num_devices_ = 0, m_ = 1, global_batch_ = 0, micro_ = 0;
  std::vector<std::vector<double>> prefix_;  // per device: roofline seconds of layers < l at b
  std::vector<double> overhead_s_, memory_bytes_;
  std::vector<double> bandwidth_, latency_;  // M x M
  std::vector<double> state_prefix_, act_prefix_;  // (params + tables) and activations, size L + 1
};

Result<HeteroPlan> SolveStepTimeDp(const StepTimeModel& model);
// Every contiguous partition and injective device map. REQUIRES: at most `max_plans` of them.
Result<HeteroPlan> SolveStepTimeBruteForce(const StepTimeModel& model, long long max_plans = 20'000'000);
// Data-parallel BSP on every device of the problem: the global batch split evenly, ring
// all-reduce of the gradients (perf/ EstimateIteration, kDataRing), the paper's comparator.
Result<HeteroPlan> SolveBsp(const PlanningProblem& problem);

}  // namespace hetsched
