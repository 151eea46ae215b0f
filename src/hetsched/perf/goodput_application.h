// One application's measured truth for goodput-adaptive runs: how long a step really takes in any
// placement and batch size, and how much progress a sample makes in each epoch. Built from a
// Pollux-format profile (read by trace/pollux_profile.h), as Pollux's simulator reads it [SRC:
// petuum/adaptdl @ osdi21-artifact, simulator/applications.py:23-227 (Apache-2.0); Sia's simulator
// (siasosp23/artifacts, sia-simulator/applications.py) does the same per GPU type]:
//  - init batch size: the smallest validated one; max batch size: the largest; local batch range:
//    the placements' smallest and largest (each may be set instead, as Pollux does for yolov3's
//    largest local batch, 8); max epochs: the fewest rows of any validation file, or as set.
//  - StepTime(placement, local_bsz): the placement without empty nodes, turned to its
//    lexicographically smallest rotation; if that placement was measured, linear in local_bsz over
//    its rows (interp1d); else linear over a Delaunay triangulation of (nodes, replicas, local_bsz)
//    -> (step, sync) of the placements' means per (nodes, replicas, local_bsz) followed by the
//    scalability rows, nodes capped at 16 (LinearNDInterpolator). Outside the measurements: an
//    error (the peer's simulator stops there too).
//  - GradStats(batch, epoch): the validation files' grad_sqr and grad_var in that epoch, linear in
//    the batch size between the two validated sizes around it.
//  - ProgressAt(epoch): the progress (iterations at the init batch size, efficiency-weighted) at
//    which `epoch` begins: 0 for epoch 0, else the smallest over the validation files of the
//    progress at the end of epoch - 1. EpochAt(progress): the largest count of epochs any file has
//    completed at that progress. A job is complete after completion_epoch() = max epochs - 1
//    epochs have begun and one more has ended (no target metric, as the peers run).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "hetsched/model/device.h"
#include "hetsched/perf/goodput.h"
#include "hetsched/perf/interpolate.h"
#include "hetsched/perf/measured_profile.h"
#include "hetsched/util/status.h"

namespace hetsched {

// What the peer sets per application instead of reading it from the files (0: from the files).
struct ApplicationSettings {
  int max_epochs = 0;
  int init_batch_size = 0, max_batch_size = 0;
  int min_local_bsz = 0, max_local_bsz = 0;
  // The most GPUs a policy gives it (0: no limit of its own), and the one batch it runs at where a
  // policy would adapt its batch (0: none: it adapts). Pollux's and Sia's simulators pin ncf to
  // one GPU and batch 32768 (simulator.py:271-274, 330-331, 349-350).
  int max_replicas = 0;
  int pinned_batch_size = 0;
  // Sia's simulator's job model beside the files [SRC: siasosp23/artifacts sia-simulator/]:
  //  - restart_delay_s: the seconds each placement holds the job's GPUs without progress, its
  //    first too (applications.py:56-69 rescale_time; 0: the simulator's, --goodput-delay);
  //  - progress_scale: a factor on the true progress rate (Sia's calibration to its physical
  //    cluster, 1 / SLOWDOWNS[model]: simulator_config.py:31-33, job.py:105, 485); the step
  //    times the job measures, and so the model it fits, do not see it;
  //  - local_batch_per_placement: the largest local batch a placement takes is the largest its
  //    measured rows reach there (MaxLocalBszOn), and the atomic batch is capped at the largest
  //    measured for that GPU count (MaxLocalBszForReplicas) (job.py:340, 375-385).
  //  - fit_tolerance: the tolerance of the job's throughput fit (perf/goodput_fit.h; 0: scipy's
  //    defaults, as Pollux's simulator fits; Sia's passes tol=1e-5: goodput.py:201-203).
  double restart_delay_s = 0;
  double progress_scale = 1;
  bool local_batch_per_placement = false;
  double fit_tolerance = 0;
};

struct StepTimes {
  double step_s = 0;  // one synchronised step (a pass plus the all-reduce)
  double sync_s = 0;  // the all-reduce's part of it (a pass alone: step - sync)
};

class GoodputApplication {
 public:
  // Errors: a profile without placements, a validation file with fewer rows than max_epochs, a
  // batch range the local batches cannot reach. (The triangulation is built, and fails, at its first
  // use by StepTime.)
  static Result<std::shared_ptr<const GoodputApplication>> Create(PolluxModelProfile profile,
                                                                  const ApplicationSettings& settings = {});

  const std::string& name() const { return profile_.model; }
  int init_batch_size() const { return init_batch_size_; }
  int max_batch_size() const { return max_batch_size_; }
  int min_local_bsz() const { return min_local_bsz_; }
  int max_local_bsz() const { return max_local_bsz_; }
  int max_epochs() const { return max_epochs_; }
  int completion_epoch() const { return max_epochs_ - 1; }
  int max_replicas() const { return max_replicas_; }          // 0: no limit of its own
  int pinned_batch_size() const { return pinned_batch_size_; }  // 0: it adapts its batch
  double restart_delay_s() const { return restart_delay_s_; }   // 0: the simulator's
  double progress_scale() const { return progress_scale_; }
  bool local_batch_per_placement() const { return local_batch_per_placement_; }
  double fit_tolerance() const { return fit_tolerance_; }

  // Sia's largest local batch in a placement (applications.py:310-324, get_max_local_bsz): the
  // largest measured in that placement (keyed as StepTime keys it), else the largest of the
  // scalability rows on at least as many nodes and GPUs; max_local_bsz() where neither has one
  // (where Sia's simulator would stop on a missing value).
  int MaxLocalBszOn(std::span<const int> gpus_per_node) const;
  // The largest local batch measured on `replicas` GPUs in any placement; 0 where none was.
  int MaxLocalBszForReplicas(int replicas) const;

  // Sia's throughput of one GPU of this type, samples per second, for comparing types: the largest
  // local batch over the largest step time among the one-GPU placements (each taken on its own, as
  // Sia's cluster.py:249-262 takes them); 0 without a one-GPU placement.
  double single_gpu_throughput() const { return single_gpu_throughput_; }

  // `gpus_per_node`: the GPUs the job uses on each node it spans (zeros allowed, ignored).
  Result<StepTimes> StepTime(std::span<const int> gpus_per_node, double local_bsz) const;
  // `batch_size` within [init, max] batch size; epoch in [0, max_epochs).
  Result<GradientStats> GradStats(double batch_size, int epoch) const;
  double ProgressAt(int epoch) const;
  int EpochAt(double progress) const;
  // Iterations at `batch_size` done when `epoch` ends: the validation files' `iteration`, linear
  // in the batch size between the validated sizes around it (applications.py get_iteration).
  Result<double> IterationsAt(double batch_size, int epoch) const;

 private:
  GoodputApplication() = default;
  // The validated sizes around `batch_size` (equal when it is one) and the weight of the upper.
  Result<std::pair<int, int>> Bracket(double batch_size) const;

  PolluxModelProfile profile_;
  int init_batch_size_ = 0, max_batch_size_ = 0, min_local_bsz_ = 0, max_local_bsz_ = 0, max_epochs_ = 0;
  int max_replicas_ = 0, pinned_batch_size_ = 0;
  double restart_delay_s_ = 0, progress_scale_ = 1;
  bool local_batch_per_placement_ = false;
  double fit_tolerance_ = 0;
  double single_gpu_throughput_ = 0;
  std::map<std::string, int> max_local_by_placement_;
  std::map<int, int> max_local_by_replicas_;
  std::map<std::string, Interp1d> by_placement_;  // measured placements, by their digits
  // The triangulation of the unmeasured placements, built at its first use (many runs need none;
  // a run's policies may ask from several threads).
  Result<const DelaunayInterpolator*> Scattered() const;
  mutable std::once_flag scattered_once_;
  mutable std::unique_ptr<DelaunayInterpolator> scattered_;
  mutable Status scattered_error_;
  std::vector<double> progress_at_;  // ProgressAt(e) for e in [0, max_epochs]
};

// One application's truth on each GPU type it was profiled on (Sia's profiles: one set per type,
// `placements-<type>.csv`; Pollux's: one type). The types share the application's validation runs,
// so its epochs, progress and gradient statistics are the same on each; its step times and local
// batch range are the type's. A type of kNoDeviceType stands for any type (a profile not tied to
// one: the hand-made applications of tests).
struct GoodputTruth {
  struct OnType {
    DeviceTypeId type = kNoDeviceType;
    std::shared_ptr<const GoodputApplication> app;
  };
  std::vector<OnType> by_type;

  static GoodputTruth Untyped(std::shared_ptr<const GoodputApplication> app) {
    GoodputTruth t;
    t.by_type.push_back({kNoDeviceType, std::move(app)});
    return t;
  }
  // Its truth on `type`; null where it was not profiled there.
  const GoodputApplication* On(DeviceTypeId type) const {
    for (const OnType& t : by_type) {
      if (t.type == type || t.type == kNoDeviceType) return t.app.get();
    }
    return nullptr;
  }
  // The types it was profiled on (none for an untyped truth).
  std::vector<DeviceTypeId> types() const {
    std::vector<DeviceTypeId> out;
    for (const OnType& t : by_type) {
      if (t.type != kNoDeviceType) out.push_back(t.type);
    }
    return out;
  }
  // The first type's: its epochs and progress, which every type shares.
  const GoodputApplication& reference() const { return *by_type.front().app; }
};

// A total batch split over `replicas` GPUs as Pollux's simulator splits a tuned one
// (simulator.py:75-83; optimus.py:68-75): the local batch ceil(batch / replicas), accumulated in
// as few passes as the application's largest local batch allows, at least two when
// `accumulate_alone` (the job: one GPU above the initial batch; Optimus's prediction: any single
// GPU), the atomic batch capped so that the total stays within the largest batch.
struct BatchSplit {
  int atomic_bsz = 0;
  int accum_steps = 0;
};
// `max_local_bsz`: the largest local batch the split may take (0: the application's).
BatchSplit SplitBatch(const GoodputApplication& app, double batch, int replicas, bool accumulate_alone,
                      int max_local_bsz = 0);

}  // namespace hetsched
