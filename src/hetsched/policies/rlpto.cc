#include "hetsched/policies/rlpto.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "hetsched/forecast/arima.h"
#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/priority_queues.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/registry.h"

namespace hetsched {

double ConvergenceModel::Accuracy(double f) const {
  f = std::clamp(f, 0.0, 1.0);
  const auto loss = [&](double x) { return std::pow(x + offset, -exponent); };  // a = 1, c = 0
  return (loss(0) - loss(f)) / (loss(0) - loss(1));
}

double ConvergenceModel::ConvergingFraction() const {
  // Solve (L0 - L(f)) / (L0 - L1) = 1 - eps for f: L(f) = L0 - (1 - eps)(L0 - L1).
  const double l0 = std::pow(offset, -exponent), l1 = std::pow(1 + offset, -exponent);
  const double target = l0 - (1 - epsilon) * (l0 - l1);
  return std::clamp(std::pow(target, -1 / exponent) - offset, 0.0, 1.0);
}

int MinimumGpus(int requested, double min_share) {
  return std::max(1, static_cast<int>(std::ceil(requested * min_share - 1e-9)));
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct RlptoConfig {
  PriorityClassConfig classes;
  double round_s = 300;
  double min_share = 0.25;
  bool shrink = true;
  ConvergenceModel convergence;
  double forecast_window_s = 3600;
  double reserve_fraction = 0.5;
  int window = 64;
  // Reward (ALGORITHMS.md 3.4): per interval dt, -w_time x sum(omega) x dt / t_ref over jobs in
  // the system, -w_res x busy GPUs x dt / (N t_ref), +w_acc x omega x accuracy gained by running
  // jobs, +w_done x omega per finished job; omega = 3, 2, 1 for user priority high/normal/low.
  double w_time = 0.5, w_res = 0.3, w_acc = 1, w_done = 1, t_ref_s = 3600;
};

class RlptoScheduler : public JobScheduler {
 public:
  RlptoScheduler(RlptoConfig config, std::shared_ptr<learn::AllocationAgent> agent, RlptoTraining training)
      : config_(config), queue_(config.classes), agent_(std::move(agent)), training_(std::move(training)),
        explore_(training_.explore_seed) {
    if (training_.agent) agent_ = training_.agent;
  }

  std::string_view name() const override { return "rlpto"; }
  double round_period_s() const override { return config_.round_s; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override {
    const JobId id = job.spec->id;
    JobInfo& info = jobs_[id];
    info.omega = job.spec->priority > 0 ? 3 : job.spec->priority == 0 ? 2 : 1;
    info.min = std::min(job.spec->num_gpus, MinimumGpus(job.spec->num_gpus, config_.min_share));
    omega_in_system_ += info.omega;
    RecordArrival(ctx.now(), job.spec->num_gpus);
    Enqueue(job, ctx);
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    const JobId id = job.spec->id;
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return;
    omega_in_system_ -= it->second.omega;
    pending_reward_ += config_.w_done * it->second.omega;
    if (Recording()) pending_reward_ += config_.w_acc * it->second.omega * (1 - it->second.accuracy);
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
    }
    if (config_.shrink && queue_.size() > 0) Shrink(ctx);
    Dispatch(ctx);
    double wake = std::min(queue_.NextPromotionS(), convergence_events_.empty() ? kInf : convergence_events_.begin()->first);
    if (std::isfinite(wake)) ctx.WakeUpAt(wake);
  }

 private:
  struct JobInfo {
    int omega = 2;
    int min = 1;
    bool running = false;
    double converge_s = kInf;
    double accuracy = 0;  // training only: accuracy credited so far
  };

  bool Recording() const { return training_.trajectory != nullptr; }

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
    const JobStatus& s = ctx.job(id);
    if (s.num_devices() <= info.min) return;  // nothing to give back
    const double f_star = config_.convergence.ConvergingFraction();
    const double f = Fraction(s, ctx.now());
    if (f >= f_star) {
      converging_.insert(id);
    } else if (s.iteration_rate > 0 && s.spec->iterations > 0) {
      info.converge_s = ctx.now() + (f_star - f) * static_cast<double>(s.spec->iterations) / s.iteration_rate;
      convergence_events_.insert({info.converge_s, id});
    }
  }
  void StopTracking(JobId id, JobInfo& info) {
    info.running = false;
    convergence_events_.erase({info.converge_s, id});
    info.converge_s = kInf;
    converging_.erase(id);
  }

  // Converging jobs above their minimum halve (never below the minimum) while jobs wait: the
  // back end cannot resize a running job, so the job is preempted and restarted on fewer
  // devices of the same type, paying the restart cost (docs/rlpto.md).
  void Shrink(SchedContext& ctx) {
    const std::vector<JobId> candidates(converging_.begin(), converging_.end());
    for (JobId id : candidates) {
      JobInfo& info = jobs_[id];
      const JobStatus& s = ctx.job(id);
      const int n = s.num_devices();
      const int target = std::max(info.min, (n + 1) / 2);
      converging_.erase(id);
      if (target >= n) continue;
      const DeviceTypeId type = s.device_type;
      StopTracking(id, info);
      ctx.Preempt(id);
      if (ctx.TryStart(id, target, type) || ctx.TryStart(id, target)) {
        StartTracking(ctx, id);  // still above its minimum: halves again at a later round
      } else {
        Enqueue(ctx.job(id), ctx);
      }
    }
  }

  void Dispatch(SchedContext& ctx) {
    const double now = ctx.now();
    std::vector<JobId> candidates;
    for (int level = 0; level < queue_.levels() && static_cast<int>(candidates.size()) < config_.window; ++level) {
      for (const auto& [enter_s, id] : queue_.queue(level)) {
        if (static_cast<int>(candidates.size()) >= config_.window) break;
        candidates.push_back(id);
      }
    }
    if (candidates.empty() || ctx.state().total_free() == 0) return;
    std::vector<int> actions;
    std::vector<float> states;
    if (agent_) {
      states.reserve(candidates.size() * kRlptoStateDim);
      for (JobId id : candidates) AppendState(ctx, id, states);
      actions = agent_->Act(states, static_cast<int>(candidates.size()), Recording() ? &explore_ : nullptr);
    }
    const int total = ctx.cluster().num_devices();
    const int reserve = static_cast<int>(std::lround(config_.reserve_fraction * forecast_gpus_));
    std::vector<JobId> started;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (ctx.state().total_free() == 0) break;
      const JobId id = candidates[i];
      const JobSpec& spec = *ctx.job(id).spec;
      const int min = jobs_[id].min;
      int n = spec.num_gpus;
      if (agent_) {
        const int a = actions[i];
        if (Recording()) {
          training_.trajectory->states.insert(training_.trajectory->states.end(), states.begin() + static_cast<long>(i * kRlptoStateDim),
                                              states.begin() + static_cast<long>((i + 1) * kRlptoStateDim));
          training_.trajectory->actions.push_back(a);
          training_.trajectory->decision_time_s.push_back(now);
        }
        if (a == 0 && !queue_.Starving(id, now)) continue;  // wait (a starving job may not wait)
        n = a <= 1 ? min : a == 2 ? std::max(min, (spec.num_gpus + 1) / 2) : a == 3 ? spec.num_gpus : 2 * spec.num_gpus;
        n = std::clamp(n, 1, total);
      } else if (queue_.LevelOf(id) > 0) {
        // The rule of ALGORITHMS.md 3.2: hold back part of the forecast demand for the next window
        // from all but the top queue.
        const int room = ctx.state().total_free() - reserve;
        if (room < spec.num_gpus) n = std::max(min, room);
      }
      // Cheap test before asking the placer: the most free devices of one usable type.
      int most_free = 0;
      for (DeviceTypeId t : ctx.cluster().present_types()) {
        if (spec.AllowsType(t, ctx.cluster().device_catalog())) most_free = std::max(most_free, ctx.state().free_of_type(t));
      }
      const bool fits = n <= most_free && ctx.TryStart(id, n);
      if (fits || (n != spec.num_gpus && spec.num_gpus <= most_free && ctx.TryStart(id, spec.num_gpus))) {
        started.push_back(id);
        queue_.Remove(id);
        StartTracking(ctx, id);
      } else if (queue_.Starving(id, now)) {
        break;  // head-of-line blocking for a starving job (priority_queues.h)
      }
    }
  }

  // The agent's view of a waiting job (ALGORITHMS.md 3.4 state), every entry roughly in [0, 2].
  void AppendState(SchedContext& ctx, JobId id, std::vector<float>& out) const {
    const double now = ctx.now();
    const JobStatus& s = ctx.job(id);
    const double total = std::max(1, ctx.cluster().num_devices());
    const double free = ctx.state().total_free();
    const double req = s.spec->num_gpus;
    const double remaining_s = RemainingOnFastestS(ctx, id);
    const int levels = queue_.levels();
    const double level = queue_.LevelOf(id);
    const double top = static_cast<double>(queue_.queue(0).size());
    const double aged_wait = levels * std::max(1.0, config_.classes.age_s);
    const float row[kRlptoStateDim] = {
        static_cast<float>(free / total),
        static_cast<float>(std::min(2.0, top / 100)),
        static_cast<float>(std::min(2.0, static_cast<double>(queue_.size() - queue_.queue(0).size()) / 100)),
        static_cast<float>(std::min(2.0, forecast_gpus_ / total)),
        static_cast<float>(levels > 1 ? level / (levels - 1) : 0),
        static_cast<float>(std::log2(req) / 6),
        static_cast<float>(std::isfinite(remaining_s) ? std::min(2.0, std::log10(remaining_s + 1) / 6) : 1.0),
        static_cast<float>(std::min(2.0, (now - s.queued_since_s) / aged_wait)),
        static_cast<float>(jobs_.at(id).min / req),
        static_cast<float>(std::min(1.0, free / req)),
        static_cast<float>(jobs_.at(id).omega / 3.0),
        1.0f};
    out.insert(out.end(), row, row + kRlptoStateDim);
  }

  // Arrivals binned per forecast window; at each new window the next window's GPU demand is
  // forecast by ARIMA (order by AIC, refitted every 24 windows) once 48 windows are seen, by
  // the mean before.
  void RecordArrival(double now, int gpus) {
    const auto w = static_cast<size_t>(std::max(0.0, std::floor(now / config_.forecast_window_s)));
    if (demand_.empty()) first_window_ = w;
    const size_t index = w - std::min(w, first_window_);
    if (index >= demand_.size()) {
      const bool new_window = !demand_.empty();
      demand_.resize(index + 1, 0.0);
      if (new_window) UpdateForecast(index);
    }
    demand_[index] += gpus;
  }
  void UpdateForecast(size_t current) {
    const std::span<const double> past(demand_.data(), current);  // complete windows only
    if (past.empty()) return;
    if (past.size() >= 48) {
      if (!model_ || current >= fitted_at_ + 24) {
        auto fit = forecast::SelectArima(past, {.max_p = 2, .max_d = 1, .max_q = 1});
        if (fit.ok()) model_ = std::make_unique<forecast::ArimaModel>(*fit);
        fitted_at_ = current;
      }
      if (model_) {
        forecast_gpus_ = std::max(0.0, forecast::ForecastArima(*model_, past, 1)[0]);
        return;
      }
    }
    double sum = 0;
    for (double v : past) sum += v;
    forecast_gpus_ = sum / static_cast<double>(past.size());
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
    for (auto& [id, info] : jobs_) {  // training only: O(jobs in the system)
      if (!info.running) continue;
      const double acc = config_.convergence.Accuracy(Fraction(ctx.job(id), now));
      r += config_.w_acc * info.omega * (acc - info.accuracy);
      info.accuracy = acc;
    }
    if (dt > 0 || r != 0) training_.trajectory->rewards.push_back({now, r});
  }

  RlptoConfig config_;
  MultiLevelQueue queue_;
  std::shared_ptr<learn::AllocationAgent> agent_;
  RlptoTraining training_;
  Rng explore_;
  std::map<JobId, JobInfo> jobs_;
  std::set<std::pair<double, JobId>> convergence_events_;
  std::set<JobId> converging_;
  double omega_in_system_ = 0;
  double pending_reward_ = 0;
  double last_reward_s_ = 0;
  std::vector<double> demand_;
  size_t first_window_ = 0;
  size_t fitted_at_ = 0;
  std::unique_ptr<forecast::ArimaModel> model_;
  double forecast_gpus_ = 0;
};

}  // namespace

Result<std::unique_ptr<JobScheduler>> MakeRlptoScheduler(const Options& options, RlptoTraining training) {
  const std::string who = "policy 'rlpto'";
  RlptoConfig c;
  HETSCHED_ASSIGN_OR_RETURN(c.classes, ParsePriorityClassOptions(options, who));
  HETSCHED_ASSIGN_OR_RETURN(c.round_s, options.GetDouble("round", c.round_s));
  HETSCHED_ASSIGN_OR_RETURN(c.min_share, options.GetDouble("min_share", c.min_share));
  HETSCHED_ASSIGN_OR_RETURN(c.shrink, options.GetBool("shrink", c.shrink));
  HETSCHED_ASSIGN_OR_RETURN(c.convergence.epsilon, options.GetDouble("epsilon", c.convergence.epsilon));
  HETSCHED_ASSIGN_OR_RETURN(c.convergence.exponent, options.GetDouble("loss_exponent", c.convergence.exponent));
  HETSCHED_ASSIGN_OR_RETURN(c.forecast_window_s, options.GetDouble("forecast_window", c.forecast_window_s));
  HETSCHED_ASSIGN_OR_RETURN(c.reserve_fraction, options.GetDouble("reserve", c.reserve_fraction));
  HETSCHED_ASSIGN_OR_RETURN(const long long window, options.GetInt("window", c.window));
  const std::string model = options.GetString("model", "");
  if (!(c.round_s > 0)) return Status::InvalidArgument(who + ": option 'round' must be > 0 seconds");
  if (!(c.min_share > 0 && c.min_share <= 1)) return Status::InvalidArgument(who + ": option 'min_share' must be in (0, 1]");
  if (!(c.convergence.epsilon > 0 && c.convergence.epsilon < 1)) return Status::InvalidArgument(who + ": option 'epsilon' must be in (0, 1)");
  if (!(c.convergence.exponent > 0 && c.convergence.exponent <= 10)) {
    return Status::InvalidArgument(who + ": option 'loss_exponent' must be in (0, 10]");
  }
  if (!(c.forecast_window_s > 0)) return Status::InvalidArgument(who + ": option 'forecast_window' must be > 0 seconds");
  if (!(c.reserve_fraction >= 0 && c.reserve_fraction <= 1)) return Status::InvalidArgument(who + ": option 'reserve' must be in [0, 1]");
  if (window < 1 || window > 100000) return Status::InvalidArgument(who + ": option 'window' must be in 1..100000");
  c.window = static_cast<int>(window);
  std::shared_ptr<learn::AllocationAgent> agent;
  if (!model.empty() && !training.agent) {
    auto loaded = learn::AllocationAgent::Load(model);
    if (!loaded.ok()) return loaded.status().WithContext(who + ": option 'model': ");
    if (loaded->config().state_dim != kRlptoStateDim || loaded->config().actions != kRlptoActions) {
      return Status::InvalidArgument(who + ": model " + model + " was not trained for rlpto (state or action size differs)");
    }
    agent = std::make_shared<learn::AllocationAgent>(std::move(loaded).value());
  }
  return std::unique_ptr<JobScheduler>(std::make_unique<RlptoScheduler>(c, std::move(agent), std::move(training)));
}

namespace {
const MethodInfo kRlptoInfo{
    "rlpto",
    "multi-priority queues + convergence shrinking + forecast-aware allocation (model=AGENT: RL agent; none: rule)",
    "[SRC] RLPTO (Lu et al., IEEE TPDS 2023): ARIMA+GRU forecast, priority queues, RL allocation, shrinking; "
    "state, actions, reward weights, convergence rule and forecast use [REC]"};
}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kRlptoRegistered, kRlptoInfo,
                       [](const Options& options) { return MakeRlptoScheduler(options); })

}  // namespace hetsched
