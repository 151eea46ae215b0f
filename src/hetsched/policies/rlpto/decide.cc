// The `rlpto` scheduler's decisions through its decider (class in scheduler_impl.h; deciders in
// decider.h): the jobs up for a decision, the state they are decided on (ALGORITHMS.md 3.4), the
// actions carried out, and yielding. The trainer's observer sees each batch (observer.h).
#include <algorithm>
#include <array>
#include <cmath>

#include "hetsched/policies/rlpto/scheduler_impl.h"

namespace hetsched::rlpto_internal {

void RlptoScheduler::Decide(SchedContext& ctx, bool with_running) {
  size_t running = 0;
  const std::vector<JobId> jobs = JobsUp(ctx, with_running, running);
  if (jobs.empty()) return;
  states_.clear();
  states_.reserve(jobs.size() * kRlptoStateDim);
  for (JobId id : jobs) AppendState(ctx, id, states_);
  const RlptoDecisionState state{states_, static_cast<int>(jobs.size()), kRlptoStateDim};
  const RlptoDecisions decisions = decider_->Decide(state);
  if (observer_) observer_->OnDecided(jobs, state, decisions, ctx.now());
  int moves = 0;
  bool yielded = false;
  for (size_t i = 0; i < running; ++i) yielded |= ApplyToRunning(ctx, jobs[i], decisions.applied[i], moves);
  DeviceTypeId held = kNoDeviceType;  // the type a starving job that does not fit waits for
  for (size_t i = running; i < jobs.size(); ++i) {
    if (!ApplyToWaiting(ctx, jobs[i], decisions.applied[i], held)) break;
  }
  if (yielded) Decide(ctx, false);  // the waiting jobs, on the devices given back
}

std::vector<JobId> RlptoScheduler::JobsUp(SchedContext& ctx, bool with_running, size_t& running) {
  const double now = ctx.now();
  std::vector<JobId> jobs;
  if (with_running && !running_.empty()) {
    auto it = running_.lower_bound(running_cursor_);
    for (size_t k = 0; k < running_.size() && static_cast<int>(jobs.size()) < config_.window; ++k) {
      if (it == running_.end()) it = running_.begin();
      if (ctx.job(*it).last_start_s < now - 1e-9) jobs.push_back(*it);  // not one (re)started just now
      ++it;
    }
    running_cursor_ = it == running_.end() ? 0 : *it;
  }
  running = jobs.size();
  if (ctx.state().total_free() > 0) {
    const std::vector<JobId> waiting = WaitingWindow();
    jobs.insert(jobs.end(), waiting.begin(), waiting.end());
  }
  return jobs;
}

bool RlptoScheduler::ApplyToRunning(SchedContext& ctx, JobId id, int a, int& moves) {
  const RlptoJob& info = jobs_[id];
  const JobStatus& s = ctx.job(id);
  if (s.state != JobState::kRunning) return false;
  if (a == kRlptoYield) return config_.yield && Yield(ctx, id, moves);
  if (a == 0) return false;  // keep
  const int slot = (a - 1) / kRlptoCountChoices;
  const int want = std::min(ctx.cluster().num_devices(), RlptoCount((a - 1) % kRlptoCountChoices, s.spec->num_gpus, info.min));
  const DeviceTypeId type = info.slots == 0 ? s.device_type : info.type[static_cast<size_t>(std::min(slot, info.slots - 1))];
  if (want == s.num_devices() && type == s.device_type) return false;
  if (info.converging && want > s.num_devices()) return false;  // a converging job only shrinks
  if (ctx.state().free_of_type(type) + (type == s.device_type ? s.num_devices() : 0) < want) return false;
  if (moves++ >= config_.moves) return false;  // at most `moves` resizes or moves per round
  Restart(ctx, id, want, type);
  return false;
}

bool RlptoScheduler::ApplyToWaiting(SchedContext& ctx, JobId id, int a, DeviceTypeId& held) {
  if (ctx.state().total_free() == 0) return false;
  const RlptoJob& info = jobs_[id];
  const JobSpec& spec = *ctx.job(id).spec;
  const bool starving = queue_.Starving(id, ctx.now());
  if (a == kRlptoYield) a = 0;                        // "yield" for a waiting job: wait
  if (a == 0 && !starving) return true;              // wait
  if (a == 0) a = RlptoAction(0, 2);                  // a starving job may not wait: its request
  const int slot = (a - 1) / kRlptoCountChoices;
  const int want = std::min(ctx.cluster().num_devices(), RlptoCount((a - 1) % kRlptoCountChoices, spec.num_gpus, info.min));
  bool started = false;
  if (info.slots == 0) {
    started = want <= MostFree(ctx, spec, held) && TryStartAvoiding(ctx, id, want, held);
  } else {
    // The chosen type, else the next fastest with room for the same count.
    const int first = std::min(slot, info.slots - 1);
    for (int k = 0; k < info.slots && !started; ++k) {
      const DeviceTypeId t = info.type[static_cast<size_t>(k == 0 ? first : (k <= first ? k - 1 : k))];
      started = t != held && ctx.state().free_of_type(t) >= want && ctx.TryStart(id, want, t);
    }
  }
  if (started) {
    queue_.Remove(id);
    StartTracking(ctx, id);
  } else if (starving && held == kNoDeviceType) {
    // As in the rule's dispatch: the first starving job that does not fit holds one type.
    held = HeldType(ctx, id);
    if (held == kNoDeviceType) return false;
  }
  return true;
}

bool RlptoScheduler::HeadBlocked(SchedContext& ctx) const {
  return !queue_.queue(0).empty() && ctx.state().total_free() < ctx.job(queue_.queue(0).begin()->second).spec->num_gpus;
}

float RlptoScheduler::ThresholdShare(double value, double threshold) {
  // Below 1 exactly when the value is below the threshold (the float of a ratio just under 1
  // would round to 1): RlptoYieldRuleHolds's test on the feature is the test on the values.
  if (value < threshold) return std::min(static_cast<float>(value / threshold), std::nextafter(1.0f, 0.0f));
  return threshold > 0 ? static_cast<float>(std::min(2.0, value / threshold)) : 2.0f;
}

bool RlptoScheduler::Yield(SchedContext& ctx, JobId id, int& moves) {
  if (moves >= config_.moves || !HeadBlocked(ctx)) return false;
  ++moves;
  StopTracking(id, jobs_[id]);
  ctx.Preempt(id);
  Enqueue(ctx.job(id), ctx);
  return true;
}

void RlptoScheduler::AppendState(SchedContext& ctx, JobId id, std::vector<float>& out) const {
  const double now = ctx.now();
  const JobStatus& s = ctx.job(id);
  const RlptoJob& info = jobs_.at(id);
  const bool running = s.state == JobState::kRunning;
  const double total = std::max(1, ctx.cluster().num_devices());
  const double free = ctx.state().total_free();
  const double req = s.spec->num_gpus;
  const double remaining_s = RemainingS(s, info, now);
  const int levels = queue_.levels();
  const double level = running ? 0 : queue_.LevelOf(id);
  const double top = static_cast<double>(queue_.queue(0).size());
  const double aged_wait = levels * std::max(1.0, config_.classes.age_s);
  std::array<float, kRlptoStateDim> row{};
  const auto set = [&](RlptoFeature f, double v) { row[static_cast<size_t>(f)] = static_cast<float>(v); };
  set(RlptoFeature::kFree, free / total);
  set(RlptoFeature::kTopQueue, std::min(2.0, top / 100));
  set(RlptoFeature::kLowerQueues, std::min(2.0, static_cast<double>(queue_.size() - queue_.queue(0).size()) / 100));
  set(RlptoFeature::kForecast, std::min(2.0, forecast_.next_window_gpus() / total));
  set(RlptoFeature::kLevel, levels > 1 ? level / (levels - 1) : 0);
  set(RlptoFeature::kRequest, std::log2(req) / 6);
  set(RlptoFeature::kRemaining, std::isfinite(remaining_s) ? std::min(2.0, std::log10(remaining_s + 1) / 6) : 1.0);
  set(RlptoFeature::kWaited, running ? 0.0 : std::min(2.0, (now - s.queued_since_s) / aged_wait));
  set(RlptoFeature::kMinimum, info.min / req);
  set(RlptoFeature::kFreeOverRequest, std::min(1.0, free / req));
  set(RlptoFeature::kPriority, info.omega / 3.0);
  set(RlptoFeature::kBias, 1.0);
  set(RlptoFeature::kRunning, running ? 1.0 : 0.0);
  set(RlptoFeature::kHeldShare, running ? std::min(2.0, s.num_devices() / req) : 0.0);
  set(RlptoFeature::kHeldSpeed, running ? SpeedOf(info, s.device_type) : 0.0);
  set(RlptoFeature::kProgress, std::clamp(Fraction(s, now), 0.0, 1.0));
  set(RlptoFeature::kConverging, info.converging ? 1.0 : 0.0);
  set(RlptoFeature::kHeadBlocked, HeadBlocked(ctx) ? 1.0 : 0.0);
  if (running) {
    row[static_cast<size_t>(RlptoFeature::kServiceShare)] = ThresholdShare(s.AttainedServiceGpuS(now), config_.yield_service_gpu_s);
    row[static_cast<size_t>(RlptoFeature::kRunShare)] = ThresholdShare(now - s.last_start_s, config_.yield_after_s);
  }
  for (int k = 0; k < info.slots; ++k) {
    const DeviceTypeId t = info.type[static_cast<size_t>(k)];
    const double own = running && t == s.device_type ? s.num_devices() : 0.0;
    row[static_cast<size_t>(RlptoFeature::kSlotSpeed) + static_cast<size_t>(k)] = static_cast<float>(info.speed[static_cast<size_t>(k)]);
    row[static_cast<size_t>(RlptoFeature::kSlotFree) + static_cast<size_t>(k)] =
        static_cast<float>(std::min(2.0, (ctx.state().free_of_type(t) + own) / req));
  }
  out.insert(out.end(), row.begin(), row.end());
}

}  // namespace hetsched::rlpto_internal
