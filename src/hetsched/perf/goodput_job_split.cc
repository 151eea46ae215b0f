// Goodput jobs split over two GPU types [REC] (docs/goodput.md, "Split jobs"; sia-plus's `split`):
// a job on GPUs of its first type trains data-parallel on GPUs of a second type too, each type at
// its own local batch, sized so that both types' passes end together (load balancing by local
// batch over heterogeneous GPUs, as Whale, Jia et al., USENIX ATC 2022, and LB-BSP, Chen et al.,
// SoCC 2020, do), then one all-reduce over the joint ring.
//
// Its truth (SplitStepTime): each type's step and pass (step - sync) in its own placement at its
// own local batch, from that type's profile, and the all-reduce of the job's parameters over the
// joint ring's slowest hop (GoodputJob::Second::ring_sync_s, from the cluster's links):
//   step = max(step_1, step_2, max(pass_1, pass_2) + ring_sync).
// Optimistic: each type's own all-reduce overlaps its pass as its profile measured it; the joint
// ring's is not hidden at all, and no step is faster than either type's own.
//
// What the job picks (PickSplit) [REC]: from what it knows, never from the truth
// (perf/goodput_split.h): its fitted throughput model on each type (Sia's projection of its first
// type's model, the one-GPU throughput ratio, on a type it never ran on), corrected by what it timed
// the last time it ran split in this shape (each type's pass and the joint step, as load balancing
// from measured iteration times does: LB-BSP), and the joint ring's all-reduce by hetsched's ring
// model. For 24 local batches b1 of its first type (geometric over its range) the second type's
// largest b2 whose predicted pass is no longer, no accumulation; it keeps the pair with the most
// predicted goodput where that beats its prediction alone on its first type (RepickBatch's choice),
// else the second type's GPUs idle. A job that keeps its user's batch (not adaptive), or has no
// gradient statistics or model on its first type yet, leaves them idle; so does a pair the
// simulator has no truth for (outside the second type's profile: the simulator could not run it).
// Session 39 measured a job choosing on the truth itself (the optimistic bound of this choice).
#include <optional>
#include <string>

#include "hetsched/perf/goodput_job.h"

namespace hetsched {

Status GoodputSteps::PlaceSecond(GoodputJob& job, std::vector<int> placement, DeviceTypeId type,
                                 double ring_sync_s) {
  size_t t = 0;
  while (t < job.types.size() && job.types[t].type != type) ++t;
  if (t == job.types.size() || static_cast<int>(t) == job.on) {
    return Status::InvalidArgument("application " + job.app->name() +
                                   " has no profile for the second device type it was placed on");
  }
  job.second = GoodputJob::Second{static_cast<int>(t), std::move(placement), 0, ring_sync_s};
  return RepickBatch(job);
}

Result<bool> GoodputSteps::KnownSplitSides(GoodputJob& job, SplitSide* first, SplitSide* second) {
  const auto t2 = static_cast<size_t>(job.second.on);
  HETSCHED_ASSIGN_OR_RETURN(const std::optional<ThroughputParams> p1, Params(job));
  if (!p1.has_value()) return false;
  HETSCHED_ASSIGN_OR_RETURN(const std::optional<ThroughputParams> own2, Params(job, t2));
  const GoodputApplication& b = *job.types[t2].app;
  const std::optional<ThroughputParams> p2 = SecondTypeParams(own2, *p1, *job.app, b);
  if (!p2.has_value()) return false;
  *first = SplitSideOn(*job.app, *p1, job.placement);
  *second = SplitSideOn(b, *p2, job.second.placement);
  return true;
}

Status GoodputSteps::PickSplit(GoodputJob& job) {
  job.second.atomic_bsz = 0;
  if (!job.adaptive || !job.grad.has_value() || job.replicas() == 0 || job.atomic_bsz < 1) return Status::Ok();
  SplitKnowledge k;
  HETSCHED_ASSIGN_OR_RETURN(const bool known, KnownSplitSides(job, &k.first, &k.second));
  if (!known) return Status::Ok();
  k.ring_s = job.second.ring_sync_s;
  if (job.split_measured.has_value()) CorrectByMeasurement(*job.split_measured, job.types[static_cast<size_t>(job.second.on)].type, &k);
  // What it expects alone: RepickBatch's choice, on its model.
  const GoodputApplication& a = *job.app;
  const GoodputModel alone(k.first.params, *job.grad, a.init_batch_size());
  const double alone_goodput =
      alone.Goodput(GoodputConfig{job.nodes(), job.replicas(), job.atomic_bsz, job.accum_steps});
  const SplitChoice c = PickSplitBatches(k, *job.grad, a.init_batch_size(), a.max_batch_size());
  if (c.bsz2 < 1 || !(c.goodput > alone_goodput)) return Status::Ok();
  const int alone_bsz = job.atomic_bsz, alone_accum = job.accum_steps;
  job.atomic_bsz = c.bsz1;
  job.accum_steps = 0;
  job.second.atomic_bsz = c.bsz2;
  if (!SplitStepTime(job).ok() || !a.GradStats(job.batch_size(), job.epoch).ok()) {  // the simulator cannot run it
    job.atomic_bsz = alone_bsz;
    job.accum_steps = alone_accum;
    job.second.atomic_bsz = 0;
  }
  return Status::Ok();
}

Result<StepTimes> GoodputSteps::SplitStepTime(const GoodputJob& job) {
  HETSCHED_ASSIGN_OR_RETURN(const StepTimes t1, job.app->StepTime(job.placement, job.atomic_bsz));
  const GoodputApplication& b = *job.types[static_cast<size_t>(job.second.on)].app;
  HETSCHED_ASSIGN_OR_RETURN(const StepTimes t2, b.StepTime(job.second.placement, job.second.atomic_bsz));
  const double pass_s = std::max(t1.step_s - t1.sync_s, t2.step_s - t2.sync_s);
  const double step_s = std::max({t1.step_s, t2.step_s, pass_s + job.second.ring_sync_s});
  return StepTimes{step_s, step_s - pass_s};
}

}  // namespace hetsched
