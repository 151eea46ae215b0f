// The `rlpto` scheduler (rlpto_scheduler.h): queues, shrinking, the rule's dispatch, the agent's
// (or heuristic's) decisions, the state it sees, and, while training, the rewards it records.
#include "hetsched/policies/rlpto_scheduler.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "hetsched/policies/gadget_realloc.h"
#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/rlpto_forecast.h"
#include "hetsched/sched/context.h"

namespace hetsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class RlptoScheduler : public JobScheduler {
 public:
  RlptoScheduler(RlptoConfig config, std::shared_ptr<learn::AllocationAgent> agent, RlptoTraining training)
      : config_(std::move(config)), queue_(config_.classes), forecast_(config_.forecast_window_s), agent_(std::move(agent)),
        training_(std::move(training)), explore_(training_.explore_seed) {
    if (training_.agent) agent_ = training_.agent;
    if (training_.act_by_teacher) agent_ = nullptr;
    learned_ = agent_ != nullptr || training_.act_by_teacher || config_.allocation == RlptoAllocation::kHeuristic;
  }

  std::string_view name() const override { return "rlpto"; }
  double round_period_s() const override { return config_.round_s; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override {
    Admit(job, ctx);
    forecast_.RecordArrival(ctx.now(), job.spec->num_gpus);
    Enqueue(job, ctx);
  }
  // In the system (its weight counts), tracked as running (it may converge, be shrunk or moved);
  // not an arrival of now for the forecast.
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override {
    Admit(job, ctx);
    StartTracking(ctx, job.spec->id);
  }
  void OnJobFinished(const JobStatus& job, SchedContext& ctx) override {
    const JobId id = job.spec->id;
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return;
    omega_in_system_ -= it->second.omega;
    pending_reward_ += config_.w_done * it->second.omega;
    if (Recording()) {
      JobInfo& info = it->second;
      pending_reward_ += config_.w_acc * info.omega * (1 - info.accuracy);
      // The job's own reward to its end: its weight's time and its GPUs since it was last
      // accounted, its accuracy still to come, the completion bonus.
      const double dt = ctx.now() - info.accounted_s;
      const double total = std::max(1, ctx.cluster().num_devices());
      CreditJob(info, -config_.w_time * info.omega * dt / config_.t_ref_s - config_.w_res * info.gpus * dt / (total * config_.t_ref_s) +
                          config_.w_acc * info.omega * (1 - info.accuracy) + config_.w_done * info.omega);
    }
    StopTracking(id, it->second);
    queue_.Remove(id);
    jobs_.erase(it);
  }
  void OnJobRequeued(const JobStatus& job, SchedContext& ctx) override {
    auto it = jobs_.find(job.spec->id);
    if (it == jobs_.end()) return;
    StopTracking(job.spec->id, it->second);
    Enqueue(job, ctx);
  }

  void Schedule(SchedContext& ctx) override {
    const double now = ctx.now();
    AccountReward(ctx, now);
    queue_.Age(now);
    while (!convergence_events_.empty() && convergence_events_.begin()->first <= now + 1e-9) {
      const JobId id = convergence_events_.begin()->second;
      convergence_events_.erase(convergence_events_.begin());
      jobs_[id].converge_s = kInf;
      converging_.insert(id);
      jobs_[id].converging = true;
    }
    if (config_.shrink && queue_.size() > 0) Shrink(ctx);
    if (learned_) {
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

 private:
  struct JobInfo {
    int omega = 2;
    int min = 1;
    bool running = false;
    bool converging = false;  // stays set once the job reached its converging fraction
    double converge_s = kInf;
    double accuracy = 0;  // training only: accuracy credited so far
    double accounted_s = -1;     // training only: the job's reward is accounted up to this time
    int64_t last_decision = -1;  // training only: index of the last decision about it (-1: none)
    int gpus = 0;                // GPUs held while tracked as running
    int slots = 0;        // usable types ranked (<= kRlptoTypeSlots)
    std::array<DeviceTypeId, kRlptoTypeSlots> type{};
    std::array<double, kRlptoTypeSlots> speed{};  // relative to the fastest
    double fastest_iteration_s = kInf;            // the visible model's, on its request
  };

  bool Recording() const { return training_.trajectory != nullptr; }

  void Admit(const JobStatus& job, SchedContext& ctx) {
    JobInfo& info = jobs_[job.spec->id];
    if (info.accounted_s < 0) info.accounted_s = ctx.now();
    info.omega = job.spec->priority > 0 ? 3 : job.spec->priority == 0 ? 2 : 1;
    info.min = std::min(job.spec->num_gpus, MinimumGpus(job.spec->num_gpus, config_.min_share));
    if (learned_) RankTypes(ctx, *job.spec, info);
    omega_in_system_ += info.omega;
  }

  // The job's usable types, fastest first (steps/s on its request: the profile's measurement
  // where it has one, else the visible model); ties by type id.
  void RankTypes(SchedContext& ctx, const JobSpec& spec, JobInfo& info) {
    if (!config_.profile.empty() && !profile_ && !profile_failed_) {
      auto table = MeasuredThroughputs::FromRows(config_.profile, ctx.cluster().device_catalog(), config_.profile_origin);
      if (table.ok()) profile_ = std::make_unique<MeasuredThroughputs>(std::move(table).value());
      profile_failed_ = !table.ok();
    }
    std::vector<std::pair<double, DeviceTypeId>> ranked;
    info.fastest_iteration_s = kInf;
    for (DeviceTypeId t : UsableTypes(spec, ctx.cluster())) {
      const double iteration_s = ctx.EstimateIterationS(spec.id, spec.num_gpus, t);
      info.fastest_iteration_s = std::min(info.fastest_iteration_s, iteration_s);
      double speed = 0;
      if (profile_) speed = profile_->StepsPerSecond(profile_->JobTypeIndex(spec.name), t, spec.num_gpus, true);
      if (!(speed > 0)) speed = std::isfinite(iteration_s) && iteration_s > 0 ? 1 / iteration_s : 0;
      if (speed > 0) ranked.push_back({-speed, t});
    }
    std::sort(ranked.begin(), ranked.end());
    info.slots = static_cast<int>(std::min<size_t>(ranked.size(), kRlptoTypeSlots));
    for (int k = 0; k < info.slots; ++k) {
      info.type[static_cast<size_t>(k)] = ranked[static_cast<size_t>(k)].second;
      info.speed[static_cast<size_t>(k)] = ranked[static_cast<size_t>(k)].first / ranked[0].first;
    }
  }
  // RemainingOnFastestS (job_estimates.h) with the fastest iteration time kept from submission
  // (the visible model's estimate does not change): the same value without the model lookups.
  static double RemainingS(const JobStatus& s, const JobInfo& info, double now) {
    const JobSpec& spec = *s.spec;
    if (spec.estimated_runtime_s > 0) return std::max(0.0, spec.estimated_runtime_s - s.ExecutedS(now));
    if (spec.iterations <= 0) return kInf;
    double done = s.iterations_done;
    if (s.state == JobState::kRunning) done += s.iteration_rate * (now - s.last_start_s);
    const double left = std::max(0.0, static_cast<double>(spec.iterations) - done);
    return left == 0 ? 0 : left * info.fastest_iteration_s;
  }
  // Speed of `type` relative to the job's fastest; 0 if not among its ranked types.
  static double SpeedOf(const JobInfo& info, DeviceTypeId type) {
    for (int k = 0; k < info.slots; ++k) {
      if (info.type[static_cast<size_t>(k)] == type) return info.speed[static_cast<size_t>(k)];
    }
    return 0;
  }

  void Enqueue(const JobStatus& job, SchedContext& ctx) {
    const JobId id = job.spec->id;
    const double estimate_s = RemainingOnFastestS(ctx, id);
    const double gpu_s = std::isfinite(estimate_s) ? estimate_s * job.spec->num_gpus : 0.0;
    queue_.Add(id, config_.classes.BaseLevel(*job.spec, gpu_s), job.queued_since_s, ctx.now());
  }

  // Progress as a fraction of the stated iterations, from what the job reports.
  static double Fraction(const JobStatus& s, double now) {
    const double done = s.iterations_done + (s.state == JobState::kRunning ? s.iteration_rate * (now - s.last_start_s) : 0.0);
    return s.spec->iterations > 0 ? done / static_cast<double>(s.spec->iterations) : 0.0;
  }

  void StartTracking(SchedContext& ctx, JobId id) {
    JobInfo& info = jobs_[id];
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
  void StopTracking(JobId id, JobInfo& info) {
    info.running = false;
    info.gpus = 0;
    running_.erase(id);
    convergence_events_.erase({info.converge_s, id});
    info.converge_s = kInf;
    converging_.erase(id);
  }

  // Runs `id` on `n` devices of `type` from now. An elastic job (JobSpec::elastic) that stays on
  // its type is resized in place where the back end can (ResizeInPlace: it pays an elastic
  // re-rendezvous, docs/elastic.md). Otherwise it is stopped and restarted (a preemption: it pays
  // the restart cost); if that fails, on its old devices' count and type; if that fails too, it
  // waits in its queue. Returns whether it runs.
  bool Restart(SchedContext& ctx, JobId id, int n, DeviceTypeId type) {
    JobInfo& info = jobs_[id];
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

  // Moves a running job onto `n` devices of its own type that keep as many of its devices as
  // possible, then span the fewest servers (gadget::RingCandidates: its own servers, own devices
  // first). False, with nothing changed, when no such ring keeps a worker (a move of the whole
  // ring is a restart anyway) or the back end cannot resize (the Slurm agent).
  static bool ResizeInPlace(SchedContext& ctx, JobId id, int n) {
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

  // Converging jobs above their minimum halve (never below the minimum) while jobs wait: an
  // elastic job is resized in place, any other is preempted and restarted on fewer devices of the
  // same type, paying the restart cost (Restart; docs/rlpto.md). Only on a type where the
  // devices given back can start a waiting job (UsefulShrinkTypes): a shrink that frees devices
  // no waiting job can use only slows the job down (and, behind a starving head, keeps its type
  // busy for longer).
  void Shrink(SchedContext& ctx) {
    if (converging_.empty()) return;
    const std::set<DeviceTypeId> useful = UsefulShrinkTypes(ctx);
    const std::vector<JobId> candidates(converging_.begin(), converging_.end());
    for (JobId id : candidates) {
      JobInfo& info = jobs_[id];
      const JobStatus& s = ctx.job(id);
      const int n = s.num_devices();
      const int target = std::max(info.min, (n + 1) / 2);
      if (target < n && !useful.contains(s.device_type)) continue;  // stays converging: may shrink later
      converging_.erase(id);
      if (target >= n) continue;
      Restart(ctx, id, target, s.device_type);  // still above its minimum: halves again later
    }
  }
  // Types on which shrinking the converging jobs to their minimum would let a waiting job start
  // that does not fit now (its request on one type, as the rule dispatches it): the jobs of the
  // dispatch window in queue order, up to the first starving one (nothing behind it may start).
  std::set<DeviceTypeId> UsefulShrinkTypes(SchedContext& ctx) {
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

  // Waiting jobs the dispatcher considers, in queue order: at most `window`.
  std::vector<JobId> WaitingWindow() const {
    std::vector<JobId> out;
    for (int level = 0; level < queue_.levels() && static_cast<int>(out.size()) < config_.window; ++level) {
      for (const auto& [enter_s, id] : queue_.queue(level)) {
        if (static_cast<int>(out.size()) >= config_.window) break;
        out.push_back(id);
      }
    }
    return out;
  }

  // The most free devices of one type the job may use, leaving out `held` (a type a starving job
  // waits for; kNoDeviceType: none).
  static int MostFree(SchedContext& ctx, const JobSpec& spec, DeviceTypeId held = kNoDeviceType) {
    int most_free = 0;
    for (DeviceTypeId t : ctx.cluster().present_types()) {
      if (t != held && spec.AllowsType(t, ctx.cluster().device_catalog())) {
        most_free = std::max(most_free, ctx.state().free_of_type(t));
      }
    }
    return most_free;
  }
  // Starts the job on `n` devices of any type it may use but `held` (the placer picks the type when
  // nothing is held).
  static bool TryStartAvoiding(SchedContext& ctx, JobId id, int n, DeviceTypeId held) {
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

  // Allocation by the rule of ALGORITHMS.md 3.2 (no agent): requested GPUs on the placer's type,
  // holding back part of the forecast demand from all but the top queue.
  void DispatchByRule(SchedContext& ctx) {
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
  DeviceTypeId HeldType(SchedContext& ctx, JobId id) {
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
  std::pair<JobId, DeviceTypeId> hold_{-1, kNoDeviceType};

  // One decision per job for up to `window` running jobs (round-robin, at round ticks) and the
  // `window` first waiting jobs: states built first, one forward pass of the agent (or the
  // heuristic), then the actions applied, running jobs first.
  void Decide(SchedContext& ctx, bool with_running) {
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
    states_.clear();
    states_.reserve(jobs.size() * kRlptoStateDim);
    for (JobId id : jobs) AppendState(ctx, id, states_);
    std::vector<int> actions, teacher(jobs.size(), 0);
    if (!agent_ || Recording()) {
      for (size_t i = 0; i < jobs.size(); ++i) {
        teacher[i] = RlptoHeuristicAction(std::span<const float>(states_).subspan(i * kRlptoStateDim, kRlptoStateDim));
      }
    }
    actions = agent_ ? agent_->Act(states_, n, Recording() && training_.explore ? &explore_ : nullptr) : teacher;
    if (Recording()) {
      RlptoTrajectory& t = *training_.trajectory;
      t.states.insert(t.states.end(), states_.begin(), states_.end());
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
    DeviceTypeId held = kNoDeviceType;  // the type a starving job that does not fit waits for
    for (size_t i = 0; i < jobs.size(); ++i) {
      const JobId id = jobs[i];
      const JobInfo& info = jobs_[id];
      const JobStatus& s = ctx.job(id);
      const JobSpec& spec = *s.spec;
      int a = actions[i];
      if (i < running) {
        if (a == 0 || s.state != JobState::kRunning) continue;  // keep
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
  }

  // The agent's view of one job (ALGORITHMS.md 3.4 state; RlptoFeature), every entry roughly in
  // [0, 2].
  void AppendState(SchedContext& ctx, JobId id, std::vector<float>& out) const {
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
    for (int k = 0; k < info.slots; ++k) {
      const DeviceTypeId t = info.type[static_cast<size_t>(k)];
      const double own = running && t == s.device_type ? s.num_devices() : 0.0;
      row[static_cast<size_t>(RlptoFeature::kSlotSpeed) + static_cast<size_t>(k)] = static_cast<float>(info.speed[static_cast<size_t>(k)]);
      row[static_cast<size_t>(RlptoFeature::kSlotFree) + static_cast<size_t>(k)] =
          static_cast<float>(std::min(2.0, (ctx.state().free_of_type(t) + own) / req));
    }
    out.insert(out.end(), row.begin(), row.end());
  }
  void AccountReward(SchedContext& ctx, double now) {
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
  // Adds `r` to the reward of the last decision about the job (none yet: not credited).
  void CreditJob(const JobInfo& info, double r) {
    if (info.last_decision >= 0) training_.trajectory->job_reward[static_cast<size_t>(info.last_decision)] += r;
  }

  RlptoConfig config_;
  MultiLevelQueue queue_;
  DemandForecast forecast_;
  std::shared_ptr<learn::AllocationAgent> agent_;
  RlptoTraining training_;
  Rng explore_;
  std::map<JobId, JobInfo> jobs_;
  std::set<std::pair<double, JobId>> convergence_events_;
  std::set<JobId> converging_;
  std::set<JobId> running_;
  JobId running_cursor_ = 0;  // round-robin over running jobs: the next to reconsider
  double next_round_s_ = 0;
  bool learned_ = false;      // the agent or the heuristic allocates (else the rule)
  std::unique_ptr<MeasuredThroughputs> profile_;
  bool profile_failed_ = false;
  std::vector<float> states_;
  double omega_in_system_ = 0;
  double pending_reward_ = 0;
  double last_reward_s_ = 0;
};

}  // namespace

std::unique_ptr<JobScheduler> NewRlptoScheduler(RlptoConfig config, std::shared_ptr<learn::AllocationAgent> agent,
                                                RlptoTraining training) {
  return std::make_unique<RlptoScheduler>(std::move(config), std::move(agent), std::move(training));
}

}  // namespace hetsched
