// The `rlpto` scheduler's learned allocation (class in rlpto_scheduler_impl.h): one decision per
// job from the agent or the heuristic, the state the agent sees (ALGORITHMS.md 3.4) and, while
// training, the rewards credited to each decision (docs/rlpto.md, "Per-job credit").
#include <algorithm>
#include <array>
#include <cmath>

#include "hetsched/policies/rlpto/scheduler_impl.h"

namespace hetsched::rlpto_internal {

void RlptoScheduler::Decide(SchedContext& ctx, bool with_running) {
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
  const size_t running = jobs.size();
  if (ctx.state().total_free() > 0) {
    const std::vector<JobId> waiting = WaitingWindow();
    jobs.insert(jobs.end(), waiting.begin(), waiting.end());
  }
  if (jobs.empty()) return;
  const int n = static_cast<int>(jobs.size());
  full_states_.clear();
  full_states_.reserve(jobs.size() * kRlptoStateDim);
  for (JobId id : jobs) AppendState(ctx, id, full_states_);
  // The agent's view: every feature, or the first kRlptoLegacyStateDim for an agent of that shape
  // (copied into states_ only then).
  const size_t dim = static_cast<size_t>(AgentStateDim());
  const bool full = dim == static_cast<size_t>(kRlptoStateDim);  // the agent (or no agent) sees every feature
  // The heuristic's yield rule is on (yield=true, and not switched off for the teacher): as the
  // teacher's action where the decider has the yield action, else on what the decider keeps.
  const bool rule_yields = config_.yield && training_.teacher_yield;
  const auto full_row = [&](size_t i) { return std::span<const float>(full_states_).subspan(i * kRlptoStateDim, kRlptoStateDim); };
  if (!full) {
    states_.clear();
    for (size_t i = 0; i < jobs.size(); ++i) states_.insert(states_.end(), full_row(i).begin(), full_row(i).begin() + static_cast<std::ptrdiff_t>(dim));
  }
  const std::vector<float>& view = full ? full_states_ : states_;
  std::vector<int> actions, teacher(jobs.size(), 0);
  if (!agent_ || Recording()) {
    // The teacher yields only where the agent could (an agent of the legacy shape has no yield).
    for (size_t i = 0; i < jobs.size(); ++i) teacher[i] = RlptoHeuristicAction(full_row(i), rule_yields && full);
  }
  actions = agent_ ? agent_->Act(view, n, Recording() && training_.explore ? &explore_ : nullptr) : teacher;
  if (Recording()) {
    RlptoTrajectory& t = *training_.trajectory;
    t.states.insert(t.states.end(), view.begin(), view.end());
    t.actions.insert(t.actions.end(), actions.begin(), actions.end());
    t.teacher_actions.insert(t.teacher_actions.end(), teacher.begin(), teacher.end());
    t.decision_time_s.insert(t.decision_time_s.end(), jobs.size(), now);
    for (JobId id : jobs) {  // each decision starts the job's next reward interval
      const auto k = static_cast<int64_t>(t.job.size());
      JobInfo& info = jobs_[id];
      if (info.last_decision >= 0) t.next_decision[static_cast<size_t>(info.last_decision)] = k;
      info.last_decision = k;
      t.job.push_back(id);
      t.job_reward.push_back(0);
      t.next_decision.push_back(-1);
    }
  }
  const int total = ctx.cluster().num_devices();
  int moves = 0;
  bool yielded = false;
  DeviceTypeId held = kNoDeviceType;  // the type a starving job that does not fit waits for
  for (size_t i = 0; i < jobs.size(); ++i) {
    const JobId id = jobs[i];
    const JobInfo& info = jobs_[id];
    const JobStatus& s = ctx.job(id);
    const JobSpec& spec = *s.spec;
    int a = actions[i];
    if (i < running) {
      if (s.state != JobState::kRunning) continue;
      if (a == kRlptoYield) {
        if (config_.yield) yielded |= Yield(ctx, id, moves);
        continue;
      }
      // Where the decider has no yield action (an agent of the legacy shape, or the heuristic
      // recording decisions for one), the rule yields what it keeps (unless teacher_yield is off:
      // then only an agent's own yield action yields). Queue 0's head is tested by Yield, as the
      // devices stand when the job comes up (the decider's own moves before it may have blocked it).
      if (a == 0 && rule_yields && !full && RlptoYieldThresholdsMet(full_row(i))) yielded |= Yield(ctx, id, moves);
      if (a == 0) continue;  // keep
      const int slot = (a - 1) / kRlptoCountChoices;
      const int want = std::min(total, RlptoCount((a - 1) % kRlptoCountChoices, spec.num_gpus, info.min));
      const DeviceTypeId type = info.slots == 0 ? s.device_type : info.type[static_cast<size_t>(std::min(slot, info.slots - 1))];
      if (want == s.num_devices() && type == s.device_type) continue;
      if (info.converging && want > s.num_devices()) continue;  // a converging job only shrinks
      if (ctx.state().free_of_type(type) + (type == s.device_type ? s.num_devices() : 0) < want) continue;
      if (moves++ >= config_.moves) continue;  // at most `moves` resizes or moves per round
      Restart(ctx, id, want, type);
      continue;
    }
    if (ctx.state().total_free() == 0) break;
    const bool starving = queue_.Starving(id, now);
    if (a == kRlptoYield) a = 0;                        // "yield" for a waiting job: wait
    if (a == 0 && !starving) continue;                 // wait
    if (a == 0) a = RlptoAction(0, 2);                  // a starving job may not wait: its request
    const int slot = (a - 1) / kRlptoCountChoices;
    const int want = std::min(total, RlptoCount((a - 1) % kRlptoCountChoices, spec.num_gpus, info.min));
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
      if (held == kNoDeviceType) break;
    }
  }
  if (yielded) Decide(ctx, false);  // the waiting jobs, on the devices given back
}

int RlptoScheduler::AgentStateDim() const {
  const learn::AllocationAgent* agent = training_.agent ? training_.agent.get() : agent_.get();
  return agent != nullptr ? agent->config().state_dim : kRlptoStateDim;
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
  const JobInfo& info = jobs_.at(id);
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

void RlptoScheduler::AccountReward(SchedContext& ctx, double now) {
  if (!Recording()) return;
  const double dt = now - last_reward_s_;
  last_reward_s_ = now;
  const double total = std::max(1, ctx.cluster().num_devices());
  const double busy = total - ctx.state().total_free();
  double r = pending_reward_;
  pending_reward_ = 0;
  r -= config_.w_time * omega_in_system_ * dt / config_.t_ref_s;
  r -= config_.w_res * busy * dt / (total * config_.t_ref_s);
  // Each job's own share (docs/rlpto.md, "Per-job credit"): its GPUs and its accuracy gained;
  // a running job pays its weight's time, a waiting job (1 - congestion_share) of it, and the
  // rest of the waiting jobs' time is charged to the running jobs by GPUs held: the jobs
  // holding the GPUs are what the waiting ones wait for. The shares add up to the cluster's
  // reward (except before a job's first decision, which nothing is credited with).
  // With type_share > 0, a running job off its fastest type, which has no room for it, is
  // displaced: type_share of its lost time (its time term x (1 - its relative speed)) is
  // charged to the jobs holding that type, by GPUs held there (displaced_cost, held_of_type).
  double waiting_cost = 0, held = 0;  // training only: O(jobs in the system)
  std::map<DeviceTypeId, std::pair<double, double>> type_cost;  // type -> (displaced_cost, held_of_type)
  // The share of a running job's time lost by not being on its fastest type, when that type
  // could hold it but has no room now (0: not displaced).
  // A job's weighted time since it was last accounted, in reward units.
  const auto time_cost = [&](const JobInfo& info) {
    return config_.w_time * info.omega * (now - info.accounted_s) / config_.t_ref_s;
  };
  const auto displaced = [&](JobId id, const JobInfo& info) {
    const DeviceTypeId on = ctx.job(id).device_type, fastest = info.type[0];
    if (on == fastest || ctx.state().free_of_type(fastest) >= info.gpus ||
        ctx.cluster().devices_per_type()[static_cast<size_t>(fastest)] < info.gpus) {
      return 0.0;
    }
    return 1 - SpeedOf(info, on);
  };
  for (const auto& [id, info] : jobs_) {
    if (info.running) {
      held += info.gpus;
      if (config_.type_share > 0 && info.slots > 0) {
        type_cost[ctx.job(id).device_type].second += info.gpus;
        const double lost = displaced(id, info);
        if (lost > 0) type_cost[info.type[0]].first += time_cost(info) * lost;
      }
    } else {
      waiting_cost += time_cost(info);
    }
  }
  const double share = held > 0 ? config_.congestion_share : 0.0;
  for (auto& [id, info] : jobs_) {
    const double job_dt = now - info.accounted_s;
    double own = -time_cost(info);
    info.accounted_s = now;
    if (!info.running) {
      CreditJob(info, (1 - share) * own);
      continue;
    }
    if (config_.type_share > 0 && info.slots > 0) {
      // Its lost time moves to the holders of its fastest type (when it is displaced and that
      // type has holders), and it pays its share of what the jobs it holds GPUs from lose.
      const double lost = displaced(id, info);
      const auto it = type_cost.find(info.type[0]);
      if (lost > 0 && it != type_cost.end() && it->second.second > 0) own -= config_.type_share * own * lost;
      const auto mine = type_cost.find(ctx.job(id).device_type);
      if (mine != type_cost.end() && mine->second.second > 0) {
        own -= config_.type_share * mine->second.first * info.gpus / mine->second.second;
      }
    }
    own -= config_.w_res * info.gpus * job_dt / (total * config_.t_ref_s);
    if (share > 0) own -= share * waiting_cost * info.gpus / held;
    const double acc = config_.convergence.Accuracy(Fraction(ctx.job(id), now));
    r += config_.w_acc * info.omega * (acc - info.accuracy);
    own += config_.w_acc * info.omega * (acc - info.accuracy);
    info.accuracy = acc;
    CreditJob(info, own);
  }
  if (dt > 0 || r != 0) training_.trajectory->rewards.push_back({now, r});
}

void RlptoScheduler::CreditJob(const JobInfo& info, double r) {
  if (info.last_decision >= 0) training_.trajectory->job_reward[static_cast<size_t>(info.last_decision)] += r;
}

}  // namespace hetsched::rlpto_internal
