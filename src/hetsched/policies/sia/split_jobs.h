// Internal to policies/sia/: sia-plus's split jobs [REC] (docs/goodput.md, "Split jobs"). After a
// round's placements, a running job whose configuration stayed borrows the GPUs of another type
// that no job holds, and trains on both (the simulator's truth: perf/goodput_job_split.cc); it gives
// them back, in an elastic shrink onto its own type, as soon as a later round places another job
// there. Sia's integer program never sees them: it counts a job's GPUs of its configuration only,
// and the borrowed ones as free. Every decision is the job's own prediction (perf/goodput_split.h:
// its models per type, Sia's projection where it never ran, what it timed split, hetsched's ring
// model as the joint ring's prior), never the simulator's truth: a job borrows only where it
// predicts a gain of at least a margin, and gives back, never to borrow again, once what it timed
// split is no better than what it predicts alone (or it left the borrowed GPUs idle).
#pragma once

#include <span>
#include <vector>

#include "hetsched/model/model_zoo.h"
#include "hetsched/policies/sia/sia_problem.h"
#include "hetsched/sched/cluster_state.h"
#include "hetsched/sched/goodput_view.h"
#include "hetsched/sched/job_status.h"

namespace hetsched::sia_internal {

// The devices of `devices` of the first one's type (a split job's own; all of an unsplit job's).
std::vector<DeviceId> FirstTypeDevices(const Cluster& cluster, std::span<const DeviceId> devices);

// Whether a job holding `devices` must give back those of its second type: `left[n]` is what the
// round's node lists leave free on node n, counting every active job's GPUs as free. Where it may
// keep them, they are taken from `left`. False for a job on one type.
bool MustGiveBack(const Cluster& cluster, std::span<const DeviceId> devices, std::vector<int>* left);

// A running goodput job's time to its end as it reports it: the progress left to its last epoch
// over its progress rate now; 0 where it does not progress.
double RemainingS(const JobStatus& job, const GoodputJobView& view);

// What a job on `devices` (one type) may borrow: GPUs no job holds, of the type in `groups` with
// the most of them among those the job allows and was profiled on (`view`), at most
// `per_own` x its own GPUs, whole free nodes first. Returns its devices followed by those; empty
// where there are none.
std::vector<DeviceId> BorrowIdle(const Cluster& cluster, const ClusterState& state,
                                 const std::vector<NodeGroup>& groups, const JobSpec& spec,
                                 const GoodputJobView& view, std::span<const DeviceId> devices,
                                 double per_own);

// A job's own prediction of running on `joint` (its devices of one type, then borrowed ones of
// another), in GoodputModel::Goodput's unit: `alone`, the best its first type's model expects of
// its own GPUs (RepickBatch's choice); `split`, the best pair of local batches on both
// (PickSplitBatches), its second type's model being its own or Sia's projection, corrected by what
// it last timed split in that shape; the joint ring's all-reduce by hetsched's ring model over the
// cluster's links for `model`'s parameters (none without a model: 0 s). Both 0 where the job has
// no model on its first type or no gradient statistics; `split` 0 where no pair exists.
struct LoanPrediction {
  double alone = 0;
  double split = 0;
};
LoanPrediction PredictLoan(const Cluster& cluster, const GoodputJobView& view, const ModelProfile* model,
                           std::span<const DeviceId> joint);

// Whether a split job on `devices` should give its second type back: it left those GPUs idle, or
// what it timed in its present split (view.split_measured at its present local batches) is no
// better than what it predicts of its own GPUs alone. False for a job on one type, or one that has
// not timed its present split yet.
bool SplitLost(const Cluster& cluster, const GoodputJobView& view, std::span<const DeviceId> devices);

}  // namespace hetsched::sia_internal
