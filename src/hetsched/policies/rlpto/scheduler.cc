// The `rlpto` scheduler (scheduler.h, class in scheduler_impl.h): its hooks, the priority queues,
// convergence tracking, shrinking and the rule's dispatch. The decisions of its decider are
// carried out in decide.cc; the trainer's rewards are recorded by its observer (reward_recorder.cc).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "hetsched/policies/gadget/realloc.h"
#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/rlpto/scheduler_impl.h"

namespace hetsched {
namespace rlpto_internal {

void RlptoScheduler::OnJobSubmitted(const JobStatus& job, SchedContext& ctx) {
  Admit(job, ctx);
  forecast_.RecordArrival(ctx.now(), job.spec->num_gpus);
  Enqueue(job, ctx);
}

void RlptoScheduler::OnJobRunning(const JobStatus& job, SchedContext& ctx) {
  Admit(job, ctx);
  StartTracking(ctx, job.spec->id);
}

void RlptoScheduler::OnJobFinished(const JobStatus& job, SchedContext& ctx) {
  const JobId id = job.spec->id;
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  if (observer_) observer_->OnFinished(id, it->second, ctx);
  StopTracking(id, it->second);
  queue_.Remove(id);
  jobs_.erase(it);
}

void RlptoScheduler::OnJobRequeued(const JobStatus& job, SchedContext& ctx) {
  auto it = jobs_.find(job.spec->id);
  if (it == jobs_.end()) return;
  StopTracking(job.spec->id, it->second);
  Enqueue(job, ctx);
}

void RlptoScheduler::Schedule(SchedContext& ctx) {
  const double now = ctx.now();
  if (observer_) observer_->OnCall(ctx, jobs_);
  queue_.Age(now);
  while (!convergence_events_.empty() && convergence_events_.begin()->first <= now + 1e-9) {
    const JobId id = convergence_events_.begin()->second;
    convergence_events_.erase(convergence_events_.begin());
    jobs_[id].converge_s = kInf;
    converging_.insert(id);
    jobs_[id].converging = true;
  }
  if (config_.shrink && queue_.size() > 0) Shrink(ctx);
  if (decider_) {
    // Running jobs are reconsidered once per round, waiting jobs at every call.
    const bool round_tick = now >= next_round_s_ - 1e-9;
    if (round_tick) next_round_s_ = now + config_.round_s;
    Decide(ctx, round_tick);
  } else {
    DispatchByRule(ctx);
  }
  double wake = std::min(queue_.NextPromotionS(), convergence_events_.empty() ? kInf : convergence_events_.begin()->first);
  if (std::isfinite(wake)) ctx.WakeUpAt(wake);
}

void RlptoScheduler::Admit(const JobStatus& job, SchedContext& ctx) {
  RlptoJob& info = jobs_[job.spec->id];
  info.omega = job.spec->priority > 0 ? 3 : job.spec->priority == 0 ? 2 : 1;
  info.min = std::min(job.spec->num_gpus, MinimumGpus(job.spec->num_gpus, config_.min_share));
  if (decider_) RankTypes(ctx, *job.spec, info);  // only the decider's state reads the types
  if (observer_) observer_->OnAdmitted(job.spec->id, info, ctx.now());
}

void RlptoScheduler::RankTypes(SchedContext& ctx, const JobSpec& spec, RlptoJob& info) {
  if (!config_.profile.empty() && !profile_) {
    auto table = MeasuredThroughputs::FromRows(config_.profile, ctx.cluster().device_catalog(), config_.profile_origin);
    if (!table.ok()) {
      ctx.Fail(table.status().WithContext("rlpto: option 'profile'"));  // ends the run
      return;
    }
    profile_ = std::make_unique<MeasuredThroughputs>(std::move(table).value());
  }
  const std::vector<DeviceTypeId> types = UsableTypes(spec, ctx.cluster());
  std::vector<double> speed;
  info.fastest_iteration_s = kInf;
  for (DeviceTypeId t : types) {
    const double iteration_s = ctx.EstimateIterationS(spec.id, spec.num_gpus, t);
    info.fastest_iteration_s = std::min(info.fastest_iteration_s, iteration_s);
    speed.push_back(std::isfinite(iteration_s) && iteration_s > 0 ? 1 / iteration_s : 0);
  }
  // Measured steps/s where the profile has the job's configuration, the model's speed scaled into
  // the profile's units elsewhere (one rule with the gavel-* policies and fifo-perf).
  if (profile_) speed = ProfiledSpeeds(*profile_, profile_->JobTypeIndex(spec.name), spec.num_gpus, types, speed, false);
  std::vector<std::pair<double, DeviceTypeId>> ranked;
  for (size_t k = 0; k < types.size(); ++k) {
    if (speed[k] > 0) ranked.push_back({-speed[k], types[k]});
  }
  std::sort(ranked.begin(), ranked.end());
  info.slots = static_cast<int>(std::min<size_t>(ranked.size(), kRlptoTypeSlots));
  for (int k = 0; k < info.slots; ++k) {
    info.type[static_cast<size_t>(k)] = ranked[static_cast<size_t>(k)].second;
    info.speed[static_cast<size_t>(k)] = ranked[static_cast<size_t>(k)].first / ranked[0].first;
  }
}

double RlptoScheduler::RemainingS(const JobStatus& s, const RlptoJob& info, double now) {
  const JobSpec& spec = *s.spec;
  if (spec.estimated_runtime_s > 0) return std::max(0.0, spec.estimated_runtime_s - s.ExecutedS(now));
  if (spec.iterations <= 0) return kInf;
  double done = s.iterations_done;
  if (s.state == JobState::kRunning) done += s.iteration_rate * (now - s.last_start_s);
  const double left = std::max(0.0, static_cast<double>(spec.iterations) - done);
  return left == 0 ? 0 : left * info.fastest_iteration_s;
}

void RlptoScheduler::Enqueue(const JobStatus& job, SchedContext& ctx) {
  const JobId id = job.spec->id;
  const double estimate_s = RemainingOnFastestS(ctx, id);
  const double gpu_s = std::isfinite(estimate_s) ? estimate_s * job.spec->num_gpus : 0.0;
  queue_.Add(id, config_.classes.BaseLevel(*job.spec, gpu_s), job.queued_since_s, ctx.now());
}

void RlptoScheduler::StartTracking(SchedContext& ctx, JobId id) {
  RlptoJob& info = jobs_[id];
  info.running = true;
  running_.insert(id);
  const JobStatus& s = ctx.job(id);
  info.gpus = s.num_devices();
  if (s.num_devices() <= info.min) return;  // nothing to give back
  const double f_star = config_.convergence.ConvergingFraction();
  const double f = Fraction(s, ctx.now());
  if (f >= f_star) {
    converging_.insert(id);
    info.converging = true;
  } else if (s.iteration_rate > 0 && s.spec->iterations > 0) {
    info.converge_s = ctx.now() + (f_star - f) * static_cast<double>(s.spec->iterations) / s.iteration_rate;
    convergence_events_.insert({info.converge_s, id});
  }
}

void RlptoScheduler::StopTracking(JobId id, RlptoJob& info) {
  info.running = false;
  info.gpus = 0;
  running_.erase(id);
  convergence_events_.erase({info.converge_s, id});
  info.converge_s = kInf;
  converging_.erase(id);
}

bool RlptoScheduler::Restart(SchedContext& ctx, JobId id, int n, DeviceTypeId type) {
  RlptoJob& info = jobs_[id];
  const JobStatus& s = ctx.job(id);
  const int old_n = s.num_devices();
  const DeviceTypeId old_type = s.device_type;
  StopTracking(id, info);
  if (type == old_type && s.spec->elastic && ResizeInPlace(ctx, id, n)) {
    StartTracking(ctx, id);
    return true;
  }
  ctx.Preempt(id);
  if (ctx.TryStart(id, n, type) || ctx.TryStart(id, old_n, old_type) || ctx.TryStart(id, n)) {
    StartTracking(ctx, id);
    return true;
  }
  Enqueue(ctx.job(id), ctx);
  return false;
}

bool RlptoScheduler::ResizeInPlace(SchedContext& ctx, JobId id, int n) {
  const JobStatus& s = ctx.job(id);
  if (s.state != JobState::kRunning || s.devices.empty()) return false;
  std::vector<gadget::RingCandidate> candidates;
  gadget::RingCandidates(ctx.state(), s.devices, n, &candidates);
  const gadget::RingCandidate* best = nullptr;
  for (const gadget::RingCandidate& c : candidates) {
    if (c.kept > 0 && (best == nullptr || c.kept > best->kept || (c.kept == best->kept && c.span < best->span))) best = &c;
  }
  if (best == nullptr || !std::isfinite(ctx.ResizePauseS(id, best->devices))) return false;
  return ctx.ResizeOn(id, best->devices);
}

void RlptoScheduler::Shrink(SchedContext& ctx) {
  if (converging_.empty()) return;
  const std::set<DeviceTypeId> useful = UsefulShrinkTypes(ctx);
  const std::vector<JobId> candidates(converging_.begin(), converging_.end());
  for (JobId id : candidates) {
    RlptoJob& info = jobs_[id];
    const JobStatus& s = ctx.job(id);
    const int n = s.num_devices();
    const int target = std::max(info.min, (n + 1) / 2);
    if (target < n && !useful.contains(s.device_type)) continue;  // stays converging: may shrink later
    converging_.erase(id);
    if (target >= n) continue;
    Restart(ctx, id, target, s.device_type);  // still above its minimum: halves again later
  }
}

std::set<DeviceTypeId> RlptoScheduler::UsefulShrinkTypes(SchedContext& ctx) {
  std::map<DeviceTypeId, int> releasable;
  for (JobId id : converging_) {
    const JobStatus& s = ctx.job(id);
    if (s.num_devices() > jobs_[id].min) releasable[s.device_type] += s.num_devices() - jobs_[id].min;
  }
  std::set<DeviceTypeId> useful;
  if (releasable.empty()) return useful;
  const double now = ctx.now();
  for (JobId w : WaitingWindow()) {
    const JobSpec& spec = *ctx.job(w).spec;
    if (spec.num_gpus > MostFree(ctx, spec)) {
      for (const auto& [type, gpus] : releasable) {
        if (spec.AllowsType(type, ctx.cluster().device_catalog()) &&
            ctx.state().free_of_type(type) + gpus >= spec.num_gpus) {
          useful.insert(type);
        }
      }
    }
    if (queue_.Starving(w, now) || useful.size() == releasable.size()) break;
  }
  return useful;
}

std::vector<JobId> RlptoScheduler::WaitingWindow() const {
  std::vector<JobId> out;
  for (int level = 0; level < queue_.levels() && static_cast<int>(out.size()) < config_.window; ++level) {
    for (const auto& [enter_s, id] : queue_.queue(level)) {
      if (static_cast<int>(out.size()) >= config_.window) break;
      out.push_back(id);
    }
  }
  return out;
}

int RlptoScheduler::MostFree(SchedContext& ctx, const JobSpec& spec, DeviceTypeId held) {
  int most_free = 0;
  for (DeviceTypeId t : ctx.cluster().present_types()) {
    if (t != held && spec.AllowsType(t, ctx.cluster().device_catalog())) {
      most_free = std::max(most_free, ctx.state().free_of_type(t));
    }
  }
  return most_free;
}

bool RlptoScheduler::TryStartAvoiding(SchedContext& ctx, JobId id, int n, DeviceTypeId held) {
  if (held == kNoDeviceType) return ctx.TryStart(id, n);
  const JobSpec& spec = *ctx.job(id).spec;
  for (DeviceTypeId t : ctx.cluster().present_types()) {
    if (t != held && spec.AllowsType(t, ctx.cluster().device_catalog()) && ctx.state().free_of_type(t) >= n &&
        ctx.TryStart(id, n, t)) {
      return true;
    }
  }
  return false;
}

void RlptoScheduler::DispatchByRule(SchedContext& ctx) {
  const double now = ctx.now();
  const std::vector<JobId> candidates = WaitingWindow();
  if (candidates.empty() || ctx.state().total_free() == 0) return;
  const int reserve = static_cast<int>(std::lround(config_.reserve_fraction * forecast_.next_window_gpus()));
  DeviceTypeId held = kNoDeviceType;  // the type a starving job that does not fit waits for
  for (JobId id : candidates) {
    if (ctx.state().total_free() == 0) break;
    const JobSpec& spec = *ctx.job(id).spec;
    int n = spec.num_gpus;
    if (queue_.LevelOf(id) > 0) {
      const int room = ctx.state().total_free() - reserve;
      if (room < spec.num_gpus) n = std::max(jobs_[id].min, room);
    }
    const int free_most = MostFree(ctx, spec, held);
    const bool fits = n <= free_most && TryStartAvoiding(ctx, id, n, held);
    if (fits || (n != spec.num_gpus && spec.num_gpus <= free_most && TryStartAvoiding(ctx, id, spec.num_gpus, held))) {
      queue_.Remove(id);
      StartTracking(ctx, id);
    } else if (held == kNoDeviceType && queue_.Starving(id, now)) {
      // A starving job that does not fit holds one type (where it can run, the most free; kept
      // until it starts): nothing else starts there, so that type drains and it starts. Jobs
      // behind it may use the other types (priority_queues.h blocks the whole queue).
      held = HeldType(ctx, id);
      if (held == kNoDeviceType) break;
    }
  }
}

DeviceTypeId RlptoScheduler::HeldType(SchedContext& ctx, JobId id) {
  if (hold_.first == id) return hold_.second;
  const JobSpec& spec = *ctx.job(id).spec;
  DeviceTypeId best = kNoDeviceType;
  for (DeviceTypeId t : ctx.cluster().present_types()) {
    if (!spec.AllowsType(t, ctx.cluster().device_catalog()) ||
        ctx.cluster().devices_per_type()[static_cast<size_t>(t)] < spec.num_gpus) continue;
    if (best == kNoDeviceType || ctx.state().free_of_type(t) > ctx.state().free_of_type(best)) best = t;
  }
  hold_ = {id, best};
  return best;
}

}  // namespace rlpto_internal

std::unique_ptr<JobScheduler> NewRlptoScheduler(RlptoConfig config, std::unique_ptr<rlpto_internal::RlptoDecider> decider,
                                                std::unique_ptr<rlpto_internal::RlptoObserver> observer) {
  return std::make_unique<rlpto_internal::RlptoScheduler>(std::move(config), std::move(decider), std::move(observer));
}

}  // namespace hetsched
