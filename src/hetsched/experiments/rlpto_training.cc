#include "hetsched/experiments/rlpto_training.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <fmt/format.h>

#include "hetsched/experiments/rlpto_learner.h"
#include "hetsched/learn/advantages.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/policies/rlpto/rlpto.h"
#include "hetsched/sim/runner.h"
#include "hetsched/util/rng.h"

namespace hetsched {

namespace {

using rlpto_learner::EpisodeResult;
using rlpto_learner::PpoStep;
using rlpto_learner::ReinforceStep;
using rlpto_learner::RunEpisode;
using rlpto_learner::WarmUpCritic;

// Errors: the options TrainRlptoAgent refuses (rlpto_training.h), for a pool of `pool_size` jobs.
Status CheckTrainingOptions(const RlptoTrainingOptions& options, long long pool_size) {
  if (options.jobs_per_episode < 2 || options.jobs_per_episode > pool_size) {
    return Status::InvalidArgument(fmt::format("rlpto training: {} jobs per episode from a pool of {} (need 2..pool)",
                                               options.jobs_per_episode, pool_size));
  }
  if (options.episodes < 0 || options.imitation_episodes < 0 || options.validation_windows < 0 ||
      options.episodes + options.imitation_episodes < 1) {
    return Status::InvalidArgument("rlpto training: episodes and imitation episodes must be >= 0, and not both 0");
  }
  if (options.imitation_steps < 0 || options.imitation_batch < 1 || options.eval_every < 1 || options.max_update_decisions < 1) {
    return Status::InvalidArgument(
        "rlpto training: imitation steps must be >= 0, imitation batch, eval_every and max_update_decisions >= 1");
  }
  if (!(options.discount_per_round > 0 && options.discount_per_round <= 1)) {
    return Status::InvalidArgument("rlpto training: discount must be in (0, 1]");
  }
  if (!(options.ppo_gamma_per_round > 0 && options.ppo_gamma_per_round <= 1) || !(options.gae_lambda >= 0 && options.gae_lambda <= 1) ||
      options.ppo_epochs < 1 || options.ppo_minibatch < 1 || !(options.ppo_clip > 0 && options.ppo_clip < 1) ||
      !(options.ppo_learning_rate > 0) || !(options.ppo_value_coef >= 0) || options.critic_warmup_steps < 0) {
    return Status::InvalidArgument(
        "rlpto training: PPO gamma must be in (0, 1], lambda in [0, 1], epochs and minibatch >= 1, clip in (0, 1), "
        "learning rate > 0, value weight and critic warm-up steps >= 0");
  }
  return Status::Ok();
}

// The weight of each label in the imitation's cross-entropy: 1, or with `balance`
// 1 / sqrt(share of its label), so that the rare decisions that start or move a job weigh more
// than the many waits and keeps; scaled to mean 1 over the data. REQUIRES: labels not empty.
std::vector<double> LabelWeights(const std::vector<int>& labels, int actions, bool balance) {
  std::vector<double> label_weight(static_cast<size_t>(actions), 1.0);
  if (!balance) return label_weight;
  const size_t n = labels.size();
  std::vector<double> count(label_weight.size(), 0.0);
  for (int y : labels) count[static_cast<size_t>(y)] += 1;
  double mean = 0;
  for (size_t a = 0; a < count.size(); ++a) {
    label_weight[a] = count[a] > 0 ? std::sqrt(static_cast<double>(n) / count[a]) : 0.0;
    mean += count[a] * label_weight[a] / static_cast<double>(n);
  }
  for (double& w : label_weight) w /= mean;
  return label_weight;
}

// One training run of TrainRlptoAgent, phase by phase: Prepare (validation windows, load range,
// the heuristic's score), WarmStart (imitation), FineTune (the learner's episodes), KeepBest.
// Every draw comes from one Rng seeded with options.seed, in that order.
class RlptoTrainer {
 public:
  RlptoTrainer(const Cluster& cluster, const ModelZoo& zoo, const Workload& pool, const RlptoTrainingOptions& options,
          const std::shared_ptr<learn::AllocationAgent>& agent, const SimOptions& sim,
          const std::function<void(const std::string&)>& print)
      : cluster_(cluster), zoo_(zoo), pool_(pool), options_(options), agent_(agent), sim_(sim), print_(print),
        rng_(options.seed) {}

  Status Prepare();
  Status WarmStart();
  Status FineTune();
  Result<RlptoTrainingLog> KeepBest();

 private:
  void Say(const std::string& text) const {
    if (print_) print_(text);
  }
  long long pool_size() const { return static_cast<long long>(pool_.jobs.size()); }
  // A window of jobs_per_episode jobs at a start drawn from the pool (set in `start`).
  Workload SampleWindow(size_t* start);
  // Validation windows of validation_jobs jobs (0: episode length), evenly spaced over the pool or
  // by offered load (the same for every scoring).
  void ChooseValidationWindows();
  // The greedy agent's (or the heuristic's) mean JCT on the validation windows, in hours.
  Result<double> Score(bool heuristic);
  // Scores the agent after `after` episodes and keeps its weights when it is the best so far.
  Status Consider(int after);
  // The imitation fit on the recorded (state, heuristic action) pairs; sets imitation_accuracy.
  Status FitImitation(const std::vector<float>& states, const std::vector<int>& labels);
  // The fine-tuning window's arrival gaps scaled (load randomisation), drawing from the Rng.
  void ScaleLoad(Workload& w);
  Status Episode(int episode, double value_scale);

  const Cluster& cluster_;
  const ModelZoo& zoo_;
  const Workload& pool_;
  const RlptoTrainingOptions& options_;
  const std::shared_ptr<learn::AllocationAgent>& agent_;
  const SimOptions& sim_;
  const std::function<void(const std::string&)>& print_;
  Rng rng_;
  size_t validation_jobs_ = 0;
  std::vector<Workload> validation_;
  std::pair<double, double> load_range_{0, 0};  // load randomisation by target (episode_load_range)
  RlptoTrainingLog log_;
  std::optional<learn::AllocationAgent> best_;  // the weights of the best agent scored
  double best_jct_ = std::numeric_limits<double>::infinity();
  std::vector<RlptoTrajectory> teacher_episodes_;  // kept for the critic's warm-up (PPO)
};

Workload RlptoTrainer::SampleWindow(size_t* start) {
  *start = static_cast<size_t>(rng_.Below(static_cast<uint64_t>(pool_size() - options_.jobs_per_episode + 1)));
  return TraceWindow(pool_, *start, *start + static_cast<size_t>(options_.jobs_per_episode));
}

void RlptoTrainer::ChooseValidationWindows() {
  validation_jobs_ = static_cast<size_t>(
      options_.validation_jobs > 0 ? std::min(options_.validation_jobs, pool_size()) : options_.jobs_per_episode);
  std::vector<size_t> starts;
  if (options_.validation_by_load && options_.validation_windows > 0) {
    // By offered load: the pool's windows (starts every validation_jobs / 10 jobs) at evenly
    // spaced quantiles of load, so that light and heavy load are both scored.
    const std::vector<PoolWindowLoad> loads =
        PoolWindowLoads(pool_, validation_jobs_, std::max<size_t>(1, validation_jobs_ / 10), cluster_, sim_.measured_throughputs);
    starts = WindowsByLoadQuantile(loads, std::min<int>(options_.validation_windows, static_cast<int>(loads.size())));
    std::string text;
    for (size_t begin : starts) {
      const auto it = std::find_if(loads.begin(), loads.end(), [&](const PoolWindowLoad& l) { return l.start == begin; });
      text += fmt::format(" #{} (load {:.2f})", begin, it->load);
    }
    Say(fmt::format("  validation windows by offered load:{}\n", text));
  } else {
    for (int k = 0; k < options_.validation_windows; ++k) {
      const size_t span = static_cast<size_t>(pool_size()) - validation_jobs_;
      starts.push_back(options_.validation_windows > 1 ? span * static_cast<size_t>(k) / static_cast<size_t>(options_.validation_windows - 1) : 0);
    }
  }
  for (size_t begin : starts) validation_.push_back(TraceWindow(pool_, begin, begin + validation_jobs_));
}

Status RlptoTrainer::Prepare() {
  ChooseValidationWindows();
  if (options_.episode_load_range) {  // the range from the pool's own windows
    const auto jobs = static_cast<size_t>(options_.jobs_per_episode);
    load_range_ = LoadRange(PoolWindowLoads(pool_, jobs, std::max<size_t>(1, jobs / 10), cluster_, sim_.measured_throughputs));
    Say(fmt::format("  load randomisation: each episode's offered load drawn in [{:.2f}, {:.2f}]\n", load_range_.first,
                    load_range_.second));
  }
  HETSCHED_ASSIGN_OR_RETURN(best_, learn::AllocationAgent::Create(agent_->config()));
  if (!validation_.empty()) {
    HETSCHED_ASSIGN_OR_RETURN(log_.heuristic_validation_jct_h, Score(true));
    Say(fmt::format("  validation windows: {} of {} jobs; the heuristic's mean JCT {:.2f} h\n", validation_.size(),
                    validation_jobs_, log_.heuristic_validation_jct_h));
  }
  return Status::Ok();
}

Result<double> RlptoTrainer::Score(bool heuristic) {
  double sum = 0;
  for (const Workload& w : validation_) {
    RlptoTraining t;
    if (!heuristic) t.agent = agent_;
    t.explore = false;
    HETSCHED_ASSIGN_OR_RETURN(const EpisodeResult e, RunEpisode(cluster_, zoo_, w, options_, std::move(t), false, sim_));
    sum += Summarize(e.record).jct_s.mean / 3600;
  }
  return sum / static_cast<double>(validation_.size());
}

Status RlptoTrainer::Consider(int after) {
  if (validation_.empty()) return Status::Ok();
  HETSCHED_ASSIGN_OR_RETURN(const double jct, Score(false));
  log_.validation_jct_h.push_back(jct);
  log_.validation_after.push_back(after);
  Say(fmt::format("  validation after {} episodes: mean JCT {:.2f} h{}\n", after, jct, jct < best_jct_ ? " (best)" : ""));
  if (jct < best_jct_) {
    best_jct_ = jct;
    log_.best_after = after;
    HETSCHED_RETURN_IF_ERROR(best_->CopyWeightsFrom(*agent_));
  }
  return Status::Ok();
}

// 1. Imitation warm start: episodes acted by the heuristic, recorded in the agent's shape.
Status RlptoTrainer::WarmStart() {
  if (options_.imitation_episodes <= 0) return Status::Ok();
  std::vector<float> states;
  std::vector<int> labels;
  for (int e = 0; e < options_.imitation_episodes; ++e) {
    size_t start = 0;
    const Workload w = SampleWindow(&start);
    RlptoTraining t;
    t.agent = agent_;  // not acting: it sets the shape of the states recorded for it
    t.act_by_teacher = true;
    HETSCHED_ASSIGN_OR_RETURN(EpisodeResult r, RunEpisode(cluster_, zoo_, w, options_, std::move(t), true, sim_));
    states.insert(states.end(), r.trajectory.states.begin(), r.trajectory.states.end());
    labels.insert(labels.end(), r.trajectory.teacher_actions.begin(), r.trajectory.teacher_actions.end());
    if (options_.learner == RlptoLearner::kPpo) teacher_episodes_.push_back(std::move(r.trajectory));
  }
  if (!labels.empty()) HETSCHED_RETURN_IF_ERROR(FitImitation(states, labels));
  Say(fmt::format("  imitation: {} decisions from {} episodes, {} steps; the agent agrees with the heuristic on {:.1f}%\n",
                  labels.size(), options_.imitation_episodes, options_.imitation_steps, 100 * log_.imitation_accuracy));
  return Consider(0);
}

Status RlptoTrainer::FitImitation(const std::vector<float>& states, const std::vector<int>& labels) {
  learn::AllocationAgent& agent = *agent_;
  const size_t n = labels.size();
  const auto dim = static_cast<size_t>(agent.config().state_dim);
  const size_t batch = std::min(n, static_cast<size_t>(options_.imitation_batch));
  std::vector<float> xs(batch * dim);
  std::vector<int> ys(batch);
  // The "advantage" of a sample is its weight in the cross-entropy (LabelWeights).
  const std::vector<double> label_weight = LabelWeights(labels, agent.config().actions, options_.imitation_balance);
  std::vector<double> ws(batch);
  for (int step = 0; step < options_.imitation_steps; ++step) {
    for (size_t b = 0; b < batch; ++b) {
      const auto i = static_cast<size_t>(rng_.Below(n));
      std::copy_n(states.begin() + static_cast<std::ptrdiff_t>(i * dim), dim, xs.begin() + static_cast<std::ptrdiff_t>(b * dim));
      ys[b] = labels[i];
      ws[b] = label_weight[static_cast<size_t>(labels[i])];
    }
    HETSCHED_RETURN_IF_ERROR(agent.Update(xs, ys, ws).status());
  }
  const std::vector<int> chosen = agent.Act(states, static_cast<int>(n), nullptr);
  size_t same = 0;
  for (size_t i = 0; i < n; ++i) same += chosen[i] == labels[i] ? 1 : 0;
  log_.imitation_accuracy = static_cast<double>(same) / static_cast<double>(n);
  return Status::Ok();
}

// 2. Fine-tuning: PPO's critic fitted first to the warm-start episodes, then the episodes.
Status RlptoTrainer::FineTune() {
  double value_scale = 1;
  if (options_.learner == RlptoLearner::kPpo && options_.episodes > 0) {
    HETSCHED_ASSIGN_OR_RETURN(value_scale, WarmUpCritic(options_, *agent_, teacher_episodes_, rng_));
    teacher_episodes_.clear();
  }
  for (int episode = 0; episode < options_.episodes; ++episode) HETSCHED_RETURN_IF_ERROR(Episode(episode, value_scale));
  return Status::Ok();
}

// The arrival gaps (and deadlines) of `w` scaled by `factor`.
void ScaleArrivals(Workload& w, double factor) {
  for (Job& j : w.jobs) {
    j.spec.submit_time_s *= factor;
    if (j.spec.deadline_s != kNoDeadline) j.spec.deadline_s *= factor;
  }
}

void RlptoTrainer::ScaleLoad(Workload& w) {
  if (options_.episode_load_range && load_range_.first > 0) {
    // The window's arrival gaps scaled so that its offered load is a target drawn
    // log-uniformly in load_range (load is inversely proportional to the arrival span).
    const double target = load_range_.first * std::pow(load_range_.second / load_range_.first, rng_.Uniform());
    const double own = OfferedLoad(w, cluster_, sim_.measured_throughputs);
    if (own > 0) ScaleArrivals(w, own / target);
  } else if (options_.episode_load_spread > 1) {
    // Load randomisation: the window's arrival gaps stretched or squeezed by a factor drawn
    // log-uniformly in [1 / spread, spread], so that the agent sees lighter and heavier load
    // than the training half has (the windows it is selected on are not scaled).
    ScaleArrivals(w, std::pow(options_.episode_load_spread, 2 * rng_.Uniform() - 1));
  }
}

Status RlptoTrainer::Episode(int episode, double value_scale) {
  size_t start = 0;
  Workload w = SampleWindow(&start);
  ScaleLoad(w);
  RlptoTraining t;
  t.agent = agent_;
  t.explore_seed = rng_.NextU64();
  HETSCHED_ASSIGN_OR_RETURN(const EpisodeResult r, RunEpisode(cluster_, zoo_, w, options_, std::move(t), true, sim_));
  const RlptoTrajectory& trajectory = r.trajectory;
  double total = 0;
  for (const auto& [time, reward] : trajectory.rewards) total += reward;
  log_.episode_reward.push_back(total);
  log_.decisions.push_back(static_cast<long long>(trajectory.actions.size()));
  log_.episode_jct_h.push_back(Summarize(r.record).jct_s.mean / 3600);
  size_t same = 0;
  for (size_t i = 0; i < trajectory.actions.size(); ++i) same += trajectory.actions[i] == trajectory.teacher_actions[i] ? 1 : 0;
  log_.episode_agreement.push_back(trajectory.actions.empty() ? 1.0 : static_cast<double>(same) / static_cast<double>(trajectory.actions.size()));
  if (options_.learner == RlptoLearner::kPpo) {
    double entropy = options_.ppo_entropy_bonus;
    if (options_.ppo_entropy_final >= 0 && options_.episodes > 1) {
      entropy += (options_.ppo_entropy_final - options_.ppo_entropy_bonus) * episode / (options_.episodes - 1);
    }
    HETSCHED_RETURN_IF_ERROR(PpoStep(options_, entropy, value_scale, *agent_, trajectory, rng_));
  } else {
    HETSCHED_RETURN_IF_ERROR(ReinforceStep(cluster_, zoo_, w, options_, agent_, sim_, trajectory, rng_));
  }
  Say(fmt::format("  episode {:>3}: {} jobs from #{}, {} decisions ({:.2f}% as the heuristic), reward {:.1f}, mean JCT {:.2f} h\n",
                  episode + 1, options_.jobs_per_episode, start, log_.decisions.back(), 100 * log_.episode_agreement.back(), total,
                  log_.episode_jct_h.back()));
  if ((episode + 1) % options_.eval_every == 0 || episode + 1 == options_.episodes) return Consider(episode + 1);
  return Status::Ok();
}

// 3. Selection: the best agent scored is the one trained.
Result<RlptoTrainingLog> RlptoTrainer::KeepBest() {
  if (log_.best_after >= 0) {
    HETSCHED_RETURN_IF_ERROR(agent_->CopyWeightsFrom(*best_));
    Say(fmt::format("  kept the agent scored after {} episodes (validation mean JCT {:.2f} h)\n", log_.best_after, best_jct_));
  }
  return std::move(log_);
}

}  // namespace

Result<RlptoTrainingLog> TrainRlptoAgent(const Cluster& cluster, const ModelZoo& zoo, const Workload& pool,
                                         const RlptoTrainingOptions& options,
                                         const std::shared_ptr<learn::AllocationAgent>& agent, const SimOptions& sim,
                                         const std::function<void(const std::string&)>& print) {
  HETSCHED_RETURN_IF_ERROR(CheckTrainingOptions(options, static_cast<long long>(pool.jobs.size())));
  RlptoTrainer trainer(cluster, zoo, pool, options, agent, sim, print);
  HETSCHED_RETURN_IF_ERROR(trainer.Prepare());
  HETSCHED_RETURN_IF_ERROR(trainer.WarmStart());
  HETSCHED_RETURN_IF_ERROR(trainer.FineTune());
  return trainer.KeepBest();
}

}  // namespace hetsched
