// Goodput-adaptive jobs: what such a job knows of itself, shared by both back ends, and the steps
// of Pollux's simulator that run it on its application's measured truth [SRC: petuum/adaptdl @
// osdi21-artifact, simulator/simulator.py:21-181 (Apache-2.0); docs/goodput.md]. A job's progress
// is counted in iterations at its application's initial batch size, efficiency-weighted; its speed
// in a placement (GPUs per node) is
//   goodput = gain / T,  gain = (var + sqr) / (var / scale + sqr),  scale = batch / init batch,
//   T = step + (step - sync) x accum_steps,
// with the true (step, sync) of the placement at its atomic batch and the true gradient
// statistics (sqr, var) of its current epoch at its batch. An epoch ends when the progress reaches
// the application's ProgressAt(epoch + 1); the job is complete when its last epoch ends.
//
// What the job itself knows (what adaptdl's agent in a job reports to the scheduler): the
// configurations it has run in with their measured times, the throughput model fitted to them
// (perf/goodput_fit.h, refitted on each new configuration, lazily: only when read), and the
// gradient statistics it last measured. With them it picks its batch size (an adaptive job under
// a policy that adapts batches) after each re-allocation, at each epoch's end and at each goodput
// interval (Pollux's round: its simulator re-picks at the end of every step() call); otherwise it
// keeps the batch its user tuned, split over its GPUs.
//
// The simulator (sim/goodput_run.cc) runs every step here; the Slurm agent (slurm/agent_goodput.cc)
// has no truth: a real job reports its measurements (GoodputSteps::Measure), and the agent places
// it (Place) and picks its batch (RepickBatch) from the same knowledge. SchedContext::goodput_job's
// view of it is built by GoodputJobViewOf (sched/goodput_view.h).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "hetsched/model/job.h"
#include "hetsched/perf/goodput.h"
#include "hetsched/perf/goodput_fit.h"
#include "hetsched/perf/goodput_split.h"
#include "hetsched/perf/goodput_application.h"
#include "hetsched/perf/goodput_fit.h"
#include "hetsched/util/status.h"

namespace hetsched {

// What a job knows of itself on one GPU type (Sia's job.py keeps a profile and a fitted model per
// type, the gradient statistics once: 34-49, 340-362).
// What the jobs of one application have measured on one GPU type, shared among them
// (JobScheduler::shares_application_history) [REC]: their samples in the order measured, and the
// first gradient statistics one of them measured (at its first epoch).
struct ApplicationHistory {
  std::vector<ThroughputSample> samples;
  std::set<std::tuple<int, int, int>> seen;
  std::optional<GradientStats> first_grad;
};

struct GoodputTypeKnowledge {
  DeviceTypeId type = kNoDeviceType;
  const GoodputApplication* app = nullptr;  // its truth on that type
  std::vector<ThroughputSample> samples;    // in the order it ran them
  std::set<std::tuple<int, int, int>> seen;  // (nodes, replicas, atomic batch) of samples
  std::optional<ThroughputParams> params;    // fitted to samples (stale while refit_due)
  bool refit_due = false;
  std::vector<int> reports;                  // Measure(): the reports averaged into each sample
  ApplicationHistory* history = nullptr;     // its application's on this type, where shared
  size_t history_merged = 0;                 // the history's samples already merged
};

struct GoodputJob {
  std::vector<GoodputTypeKnowledge> types;  // one per type it was profiled on
  int on = 0;                               // the type it runs on (types[on]); its last when idle
  const GoodputApplication* app = nullptr;  // types[on].app
  bool adaptive = false;   // picks its batch size; else keeps target_batch
  int target_batch = 0;    // the total batch its user tuned (num_gpus x per-device batch)
  int epoch = 0;
  std::vector<int> placement;  // GPUs on each node it spans, in the plan's node order; empty: none
  int atomic_bsz = 0, accum_steps = 0;
  int restarts = -1;           // placements after its first (Pollux's num_restarts); -1: never placed
  double rate = 0;             // its true goodput now (TrueGoodput), progress per second
  double boundary_s = 0;       // its last progress boundary: a start, an epoch's end, a tick
  bool observe_due = false;    // it has not measured its configuration since that boundary
  std::optional<GradientStats> grad;  // the last measured (on any type)
  // A second GPU type beside types[on] (a split job [REC], goodput_job_split.cc): data-parallel with the
  // first, at its own local batch, one all-reduce over the joint ring each step.
  struct Second {
    int on = -1;                 // types[on]; -1: none
    std::vector<int> placement;  // GPUs on each node it spans there
    int atomic_bsz = 0;          // its local batch there; 0: those GPUs idle
    // The joint ring's all-reduce of the job's parameters by hetsched's ring model over the
    // cluster's links [REC]: the truth the simulator runs, and the prior the job expects (a job
    // knows its links; it corrects the prior by what it times, split_measured).
    double ring_sync_s = 0;
    int replicas() const;
  } second;
  // What it last timed while split (each type's pass, the joint step): kept across placements,
  // it corrects the job's prediction of its next split (perf/goodput_split.h).
  std::optional<SplitMeasurement> split_measured;
  // Where it was when last stopped (SimOptions::goodput_free_moves): the time, its placement, type
  // and batch, and what was left of its delay.
  struct Left {
    double at_s = -1;
    std::vector<int> placement;
    int on = 0, atomic_bsz = 0, accum_steps = 0;
    double delay_left_s = 0;
    bool preempted = false;  // stopped by a preemption (counted as one until it moves freely)
    bool split = false;      // it ran on two types: no free move back
  } left;

  // One model over every type (JobScheduler::pools_goodput_models: a heterogeneity-unaware job,
  // Sia's h_unaware jobs, job.py:39-49, 216-245): its samples, their configurations and its fitted
  // model are kept once (in types[0]), whatever type it measured them on; a configuration measured
  // on one type is not measured again on another.
  bool pooled = false;

  GoodputTypeKnowledge& here() { return types[static_cast<size_t>(on)]; }
  const GoodputTypeKnowledge& here() const { return types[static_cast<size_t>(on)]; }
  // What it has learned on types[t] (its samples and model there): its own, or the pooled ones.
  GoodputTypeKnowledge& learned(size_t t) { return types[pooled ? 0 : t]; }
  bool split() const { return second.on >= 0; }
  int nodes() const;
  int replicas() const;  // on its first type
  // Its total batch: both types' local batches, over the accumulated passes.
  double batch_size() const {
    return (static_cast<double>(replicas()) * atomic_bsz + static_cast<double>(second.replicas()) * second.atomic_bsz) *
           (accum_steps + 1);
  }
};

// Pollux's job steps (simulator.py), as functions of the job and its truth.
class GoodputSteps {
 public:
  // A job of `spec` that has run nowhere yet, on `truth` (its application on each type; REQUIRES:
  // at least one type, each with its application): it adapts its batch when it asks to and
  // `adapts_batch_sizes` (the policy's JobScheduler::adapts_batch_sizes) unless its application
  // pins one; `pooled`: JobScheduler::pools_goodput_models.
  static GoodputJob New(const JobSpec& spec, const GoodputTruth& truth, bool adapts_batch_sizes, bool pooled);
  // Points each of the job's types at its application's history there, kept in `histories`
  // (whose entries must outlive the job), for a scheduler that shares them
  // (JobScheduler::shares_application_history): the simulator and the Slurm agent alike. Nothing
  // for a pooled job.
  using Histories = std::map<const GoodputApplication*, ApplicationHistory>;
  static void ShareApplicationHistory(GoodputJob& job, Histories& histories);
  // A new placement (empty: none) on GPUs of type `type` (ignored for none): Pollux's and Sia's
  // reallocate() / migrate(), which re-pick the batch. An error if the job has no truth there. It
  // ends any split (a second type is added after, with PlaceSecond).
  static Status Place(GoodputJob& job, std::vector<int> placement, DeviceTypeId type = kNoDeviceType);
  // Place with no placement: the job holds no GPUs (preempted, requeued, ended); never fails.
  static void Deallocate(GoodputJob& job);
  // A split job [REC] (goodput_job_split.cc): `placement` on `type` beside its first type, one
  // all-reduce of `ring_sync_s` over the joint ring; the batch re-picked. An error if the job has
  // no truth on `type`. REQUIRES: placed on its first type, `type` another.
  static Status PlaceSecond(GoodputJob& job, std::vector<int> placement, DeviceTypeId type, double ring_sync_s);
  // update_local_bsz(): the batch for the current placement from what the job knows (a split
  // job: PickSplit after).
  static Status RepickBatch(GoodputJob& job);
  // A split job's local batches from what it knows (goodput_job_split.cc): its models per type (a
  // prior where it has none), what it timed while split, the ring's prior; REQUIRES: job.atomic_bsz
  // and accum_steps as RepickBatch chose them alone.
  static Status PickSplit(GoodputJob& job);
  // The sides of a split as the job knows them (perf/goodput_split.h); false where it has no model
  // on its first type.
  static Result<bool> KnownSplitSides(GoodputJob& job, SplitSide* first, SplitSide* second);
  // A split job's true step: each type's pass at its local batch, one all-reduce over the joint
  // ring (goodput_job_split.cc). REQUIRES: job.split() and job.second.atomic_bsz > 0.
  static Result<StepTimes> SplitStepTime(const GoodputJob& job);
  // A job under a policy that shares its application's history takes in what the other jobs of
  // its application measured since it last looked (samples it has not, each type; their first
  // gradient statistics if it has none), and adds its own to the history (Observe).
  static void MergeHistory(GoodputJob& job);
  // update_params(): the job measures its current configuration (its true step and sync times,
  // its epoch's true gradient statistics at its batch); a new configuration makes a refit due.
  static Status Observe(GoodputJob& job);
  // Observe, where a measurement is due (GoodputJob::observe_due) and the job has progressed
  // since its last boundary (it measures itself as it begins to: simulator.py:117-121).
  static Status ObserveIfRan(GoodputJob& job, double now_s, double progress_from_s);
  // A measurement the job reported of itself (a real job: the Slurm agent reads it from the job's
  // metrics file): `sample`'s configuration measured on types[t], averaged with the earlier
  // reports of the same configuration (nodes, replicas, atomic batch), and its gradient statistics
  // (none: kept as they were). A new configuration or a changed average makes a refit due.
  // REQUIRES: t < job.types.size(); the sample's times finite and positive.
  static void Measure(GoodputJob& job, size_t t, const ThroughputSample& sample, std::optional<GradientStats> grad);
  // The fitted model on its current type (or types[t]), refitted first if due; nullopt before any
  // observation there.
  static Result<std::optional<ThroughputParams>> Params(GoodputJob& job);
  static Result<std::optional<ThroughputParams>> Params(GoodputJob& job, size_t t);
  // The job's true goodput (progress per second) in its current configuration.
  static Result<double> TrueGoodput(const GoodputJob& job);
  // A progress boundary at `now_s` (a placement, an epoch's end, a tick): its rate from now, and
  // the chunk that begins measures itself when it progresses.
  static Status BeginChunk(GoodputJob& job, double now_s);
  // The seconds each placement of the job holds its GPUs without progress (its checkpoint-restore):
  // `configured_s` where >= 0 (`--goodput-delay`), else its application's own (Sia's settings),
  // else kDefaultRestartDelayS. Both back ends charge or show this (sim/goodput_run.cc,
  // slurm/agent_goodput.cc).
  static double RestartDelayS(const GoodputJob& job, double configured_s);
  static constexpr double kDefaultRestartDelayS = 30;  // Pollux's (simulator.py:174)
};

}  // namespace hetsched
