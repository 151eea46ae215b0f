// A goodput job split over two GPU types, as the job itself predicts it [REC] (docs/goodput.md,
// "goodput jobs split over two GPU types"): data-parallel on GPUs of its first type and of a
// second, each type at its own local batch, one all-reduce over the joint ring a step. The
// prediction reads only what a job knows of itself: its throughput model per type (fitted to what
// it measured there, or a prior where it never ran there), its gradient statistics, what it
// measured while split (SplitMeasurement), and a prior of the joint ring's all-reduce (hetsched's
// ring model over the cluster's links). Shared by the job's batch choice in the simulator
// (perf/goodput_job_split.cc) and by the policy's decision to lend (policies/sia/split_jobs.h), so that
// both decide on the same figures and neither on the simulator's truth.
//
// Predicted step at local batches (b1, b2), with pass_t = s_t x T_acc,t(b_t) (the model's pass,
// times the ratio the job measured while split, s_t; 1 before) and step_t the model's synchronised
// step of that type alone in its own placement at that pass:
//   step = max(step_1, step_2, max(pass_1, pass_2) + ring)
// (the form of the simulator's truth: no step is faster than either type's own), times the ratio
// of the measured joint step to the one predicted at the measured batches (`step_scale`; 1 before).
#pragma once

#include <optional>
#include <vector>

#include "hetsched/model/device.h"
#include "hetsched/perf/goodput.h"
#include "hetsched/perf/goodput_application.h"

namespace hetsched {

// What a job timed in one split configuration (each type's pass, the joint step), at the local
// batches it ran: what its workers measure of themselves.
struct SplitMeasurement {
  DeviceTypeId second_type = kNoDeviceType;
  int nodes1 = 0, replicas1 = 0, nodes2 = 0, replicas2 = 0;
  int bsz1 = 0, bsz2 = 0;
  double pass1_s = 0, pass2_s = 0, step_s = 0;
};

// One type's side of the split as the job knows it.
struct SplitSide {
  ThroughputParams params;  // its model there (fitted, or a prior)
  int nodes = 1, replicas = 1;
  int min_bsz = 1, max_bsz = 1;  // the local batches it may take there
  double pass_scale = 1;         // measured pass / the model's, from a SplitMeasurement
};

struct SplitChoice {
  int bsz1 = 0, bsz2 = 0;  // bsz2 == 0: no split pays
  double step_s = 0;
  double goodput = 0;      // predicted, GoodputModel::Goodput's unit (samples of progress per second)
};

// What the job knows of a split: both sides, the ring's prior, the step's correction.
struct SplitKnowledge {
  SplitSide first, second;
  double ring_s = 0;
  double step_scale = 1;
};

// The predicted step of the split at (b1, b2) (the formula above).
double PredictSplitStepS(const SplitKnowledge& k, int b1, int b2);

// Corrects `k` by a measurement of the same shape (nodes and GPUs on each side): each side's pass
// scale, then the step's. Does nothing for a measurement of another shape or type.
void CorrectByMeasurement(const SplitMeasurement& m, DeviceTypeId second_type, SplitKnowledge* k);

// The job's choice: for 24 local batches b1 of its first type (geometric over [min, max]), the
// largest b2 whose predicted pass is no longer, no accumulation, the total batch within
// [init_batch, max_batch]; the pair with the most predicted goodput. bsz2 = 0 where none exists.
SplitChoice PickSplitBatches(const SplitKnowledge& k, const GradientStats& grad, double init_batch, double max_batch);

// One side of a split on `placement` (GPUs per node) of `app`'s type with model `params`: the local
// batches the placement takes (what the user declares: RepickBatch's limits).
SplitSide SplitSideOn(const GoodputApplication& app, const ThroughputParams& params, const std::vector<int>& placement);

// The job's model of its second type: its own there, else Sia's projection of its first type's
// (ProjectedParams by the applications' one-GPU throughputs); nullopt where neither exists.
std::optional<ThroughputParams> SecondTypeParams(const std::optional<ThroughputParams>& own,
                                                 const ThroughputParams& first, const GoodputApplication& first_app,
                                                 const GoodputApplication& second_app);

// Sia's projection of a model onto a type the job never ran on (its one-GPU throughput ratio,
// `to_over_from` = the target type's one-GPU throughput over the model's type's): the passes
// scaled by 1 / to_over_from, the synchronisation as measured on the model's type.
ThroughputParams ProjectedParams(const ThroughputParams& from, double to_over_from);

// The ratio s of a measured pass to a model's at that local batch (1 where either is not positive).
double PassScale(const ThroughputParams& params, int bsz, double measured_pass_s);

// The goodput a measured split step gives at its batches (GoodputModel::Goodput's unit).
double MeasuredSplitGoodput(const SplitMeasurement& m, const GradientStats& grad, double init_batch);

}  // namespace hetsched
