#include "hetsched/perf/goodput_job.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <tuple>

namespace hetsched {
namespace {

// What the application's shared history (GoodputSteps::ShareApplicationHistory) takes of a job's
// measurements on type knowledge `k`, in the simulator (ObserveIfRan) and the Slurm agent
// (Measure) alike: the first gradient statistics measured in a first epoch, and each
// configuration's first sample.
void HistoryTakesGrad(GoodputTypeKnowledge& k, int epoch, const std::optional<GradientStats>& grad) {
  if (grad && k.history != nullptr && epoch == 0 && !k.history->first_grad.has_value()) k.history->first_grad = grad;
}

void HistoryTakesSample(GoodputTypeKnowledge& k, const std::tuple<int, int, int>& key, const ThroughputSample& sample) {
  if (k.history != nullptr && k.history->seen.insert(key).second) k.history->samples.push_back(sample);
}

}  // namespace

int GoodputJob::nodes() const {
  return static_cast<int>(std::count_if(placement.begin(), placement.end(), [](int g) { return g > 0; }));
}

int GoodputJob::Second::replicas() const { return std::accumulate(placement.begin(), placement.end(), 0); }

int GoodputJob::replicas() const { return std::accumulate(placement.begin(), placement.end(), 0); }

GoodputJob GoodputSteps::New(const JobSpec& spec, const GoodputTruth& truth, bool adapts_batch_sizes, bool pooled) {
  GoodputJob g;
  for (const GoodputTruth::OnType& t : truth.by_type) {
    GoodputTypeKnowledge k;
    k.type = t.type;
    k.app = t.app.get();
    g.types.push_back(std::move(k));
  }
  g.app = g.types.front().app;
  g.adaptive = spec.adaptive_batch && adapts_batch_sizes;
  g.pooled = pooled;
  g.target_batch = spec.total_batch_size > 0 ? spec.total_batch_size : spec.num_gpus * std::max(spec.batch_size, 1);
  if (g.adaptive && g.app->pinned_batch_size() > 0) {  // it would adapt, but its application runs one batch
    g.adaptive = false;
    g.target_batch = g.app->pinned_batch_size();
  }
  return g;
}

void GoodputSteps::Deallocate(GoodputJob& job) {  // simulator.py:176-178
  job.placement.clear();
  job.second = GoodputJob::Second{};
  job.atomic_bsz = 0;
}

Status GoodputSteps::Place(GoodputJob& job, std::vector<int> placement, DeviceTypeId type) {
  if (placement.empty()) {
    Deallocate(job);
    return Status::Ok();
  }
  job.placement = std::move(placement);
  job.second = GoodputJob::Second{};
  size_t t = 0;
  while (t < job.types.size() && job.types[t].type != type && job.types[t].type != kNoDeviceType) ++t;
  if (t == job.types.size()) {
    return Status::InvalidArgument("application " + job.app->name() + " has no profile for the device type it was placed on");
  }
  job.on = static_cast<int>(t);
  job.app = job.types[t].app;
  ++job.restarts;
  return RepickBatch(job);
}

Status GoodputSteps::RepickBatch(GoodputJob& job) {
  const int replicas = job.replicas();
  if (replicas == 0) return Status::Ok();
  const GoodputApplication& app = *job.app;
  MergeHistory(job);
  const int nodes = job.nodes();
  // The largest local batch here: the application's, or (Sia) the placement's own.
  const int max_local = app.local_batch_per_placement() ? app.MaxLocalBszOn(job.placement) : app.max_local_bsz();
  double batch = job.adaptive ? 0.0 : static_cast<double>(job.target_batch);
  if (job.adaptive && job.learned(static_cast<size_t>(job.on)).samples.empty()) {  // no model on this type yet (Sia: job.py:347-350)
    batch = std::max<double>(app.init_batch_size(), static_cast<double>(app.min_local_bsz()) * replicas);
  }
  if (batch == 0) {  // adaptive, with a model: the best goodput it expects
    HETSCHED_ASSIGN_OR_RETURN(const auto params, Params(job));
    const GoodputModel model(*params, job.grad.value_or(GradientStats{}), app.init_batch_size());
    BatchLimits limits;
    limits.max_batch_size = app.max_batch_size();
    limits.min_atomic_bsz = app.min_local_bsz();
    limits.max_atomic_bsz = max_local;
    limits.accumulation = true;
    const BatchChoice choice = model.Optimize(nodes, replicas, limits);
    job.atomic_bsz = choice.atomic_bsz;
    job.accum_steps = choice.accum_steps;
  } else {
    const BatchSplit split = SplitBatch(app, batch, replicas, replicas == 1 && batch > app.init_batch_size(), max_local);
    job.atomic_bsz = split.atomic_bsz;
    job.accum_steps = split.accum_steps;
  }
  if (app.local_batch_per_placement()) {  // memory: no larger than measured on this many GPUs (job.py:375-382)
    const int measured = app.MaxLocalBszForReplicas(replicas);
    if (measured > 0) job.atomic_bsz = std::min(job.atomic_bsz, measured);
  }
  const int count = replicas * (job.accum_steps + 1);
  job.atomic_bsz = std::min(job.atomic_bsz, static_cast<int>(static_cast<double>(app.max_batch_size()) / count));
  return job.split() ? PickSplit(job) : Status::Ok();
}

Status GoodputSteps::Observe(GoodputJob& job) {
  if (job.replicas() == 0) return Status::Ok();
  if (job.split() && job.second.atomic_bsz > 0) {
    // Its gradient statistics at its joint batch, and what its workers time: each type's pass and
    // the joint step (a step of two types is no sample of either's throughput model).
    HETSCHED_ASSIGN_OR_RETURN(job.grad, job.app->GradStats(job.batch_size(), job.epoch));
    const GoodputApplication& b = *job.types[static_cast<size_t>(job.second.on)].app;
    HETSCHED_ASSIGN_OR_RETURN(const StepTimes t1, job.app->StepTime(job.placement, job.atomic_bsz));
    HETSCHED_ASSIGN_OR_RETURN(const StepTimes t2, b.StepTime(job.second.placement, job.second.atomic_bsz));
    HETSCHED_ASSIGN_OR_RETURN(const StepTimes joint, SplitStepTime(job));
    const int nodes2 = static_cast<int>(
        std::count_if(job.second.placement.begin(), job.second.placement.end(), [](int g) { return g > 0; }));
    job.split_measured = SplitMeasurement{job.types[static_cast<size_t>(job.second.on)].type,
                                          job.nodes(), job.replicas(), nodes2, job.second.replicas(),
                                          job.atomic_bsz, job.second.atomic_bsz,
                                          t1.step_s - t1.sync_s, t2.step_s - t2.sync_s, joint.step_s};
    return Status::Ok();
  }
  HETSCHED_ASSIGN_OR_RETURN(const StepTimes t, job.app->StepTime(job.placement, job.atomic_bsz));
  HETSCHED_ASSIGN_OR_RETURN(job.grad, job.app->GradStats(job.batch_size(), job.epoch));
  GoodputTypeKnowledge& k = job.learned(static_cast<size_t>(job.on));
  const auto key = std::make_tuple(job.nodes(), job.replicas(), job.atomic_bsz);
  HistoryTakesGrad(k, job.epoch, job.grad);
  if (!k.seen.insert(key).second) return Status::Ok();
  k.samples.push_back(ThroughputSample{job.nodes(), job.replicas(), job.atomic_bsz, t.step_s - t.sync_s, t.step_s});
  k.refit_due = true;
  HistoryTakesSample(k, key, k.samples.back());
  return Status::Ok();
}

void GoodputSteps::MergeHistory(GoodputJob& job) {
  for (GoodputTypeKnowledge& k : job.types) {
    if (k.history == nullptr) continue;
    if (!job.grad.has_value() && k.history->first_grad.has_value()) job.grad = k.history->first_grad;
    for (; k.history_merged < k.history->samples.size(); ++k.history_merged) {
      const ThroughputSample& s = k.history->samples[k.history_merged];
      if (!k.seen.insert(std::make_tuple(s.nodes, s.replicas, s.atomic_bsz)).second) continue;
      k.samples.push_back(s);
      k.refit_due = true;
    }
  }
}

Status GoodputSteps::ObserveIfRan(GoodputJob& job, double now_s, double progress_from_s) {
  if (!job.observe_due || !(now_s > std::max(job.boundary_s, progress_from_s))) return Status::Ok();
  HETSCHED_RETURN_IF_ERROR(Observe(job));
  job.observe_due = false;
  return Status::Ok();
}

void GoodputSteps::Measure(GoodputJob& job, size_t t, const ThroughputSample& sample, std::optional<GradientStats> grad) {
  if (grad) job.grad = grad;
  GoodputTypeKnowledge& k = job.learned(t);
  HistoryTakesGrad(k, job.epoch, grad);
  k.reports.resize(k.samples.size(), 1);
  const auto key = std::make_tuple(sample.nodes, sample.replicas, sample.atomic_bsz);
  if (k.seen.insert(key).second) {
    k.samples.push_back(sample);
    k.reports.push_back(1);
    k.refit_due = true;
    HistoryTakesSample(k, key, sample);
    return;
  }
  for (size_t i = 0; i < k.samples.size(); ++i) {
    ThroughputSample& s = k.samples[i];
    if (std::make_tuple(s.nodes, s.replicas, s.atomic_bsz) != key) continue;
    const double n = ++k.reports[i];
    const double accum = s.accum_step_s + (sample.accum_step_s - s.accum_step_s) / n;
    const double optim = s.optim_step_s + (sample.optim_step_s - s.optim_step_s) / n;
    if (accum != s.accum_step_s || optim != s.optim_step_s) k.refit_due = true;
    s.accum_step_s = accum;
    s.optim_step_s = optim;
    return;
  }
}

Result<std::optional<ThroughputParams>> GoodputSteps::Params(GoodputJob& job) {
  return Params(job, static_cast<size_t>(job.on));
}

Result<std::optional<ThroughputParams>> GoodputSteps::Params(GoodputJob& job, size_t t) {
  MergeHistory(job);
  GoodputTypeKnowledge& k = job.learned(t);
  if (k.samples.empty()) return std::optional<ThroughputParams>();
  if (k.refit_due) {
    auto fitted = FitThroughputParams(k.samples, k.app->fit_tolerance());
    if (!fitted.ok()) return fitted.status().WithContext("application " + k.app->name() + ": throughput fit");
    k.params = *fitted;
    k.refit_due = false;
  }
  return k.params;
}

Status GoodputSteps::BeginChunk(GoodputJob& job, double now_s) {
  HETSCHED_ASSIGN_OR_RETURN(job.rate, TrueGoodput(job));
  job.boundary_s = now_s;
  job.observe_due = true;
  return Status::Ok();
}

void GoodputSteps::ShareApplicationHistory(GoodputJob& job, Histories& histories) {
  if (job.pooled) return;
  for (GoodputTypeKnowledge& k : job.types) k.history = &histories[k.app];
}

double GoodputSteps::RestartDelayS(const GoodputJob& job, double configured_s) {
  if (configured_s >= 0) return configured_s;
  return job.app->restart_delay_s() > 0 ? job.app->restart_delay_s() : kDefaultRestartDelayS;
}

Result<double> GoodputSteps::TrueGoodput(const GoodputJob& job) {
  if (job.replicas() == 0 || job.atomic_bsz < 1) return 0.0;
  HETSCHED_ASSIGN_OR_RETURN(const StepTimes t, job.split() && job.second.atomic_bsz > 0
                                                   ? SplitStepTime(job)
                                                   : job.app->StepTime(job.placement, job.atomic_bsz));
  const double accum_time = t.step_s - t.sync_s;
  const double batch = job.batch_size();
  const double scale = batch / job.app->init_batch_size();
  HETSCHED_ASSIGN_OR_RETURN(const GradientStats g, job.app->GradStats(batch, job.epoch));
  const double gain = (g.var + g.sqr) / (g.var / scale + g.sqr);
  const double total = t.step_s + accum_time * job.accum_steps;
  return gain / total * job.app->progress_scale();
}

}  // namespace hetsched
