#include "hetsched/experiments/rlpto_learner.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <fmt/format.h>

#include "hetsched/learn/advantages.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/policies/rlpto/rlpto.h"
#include "hetsched/sim/runner.h"

namespace hetsched::rlpto_learner {

namespace {

// GAE along each job's decisions (learn/advantages.h): the successor of a decision is the next
// decision about the same job; gaps in rounds.
Result<learn::Advantages> JobAdvantages(const RlptoTrajectory& t, std::span<const double> values, double gamma, double lambda,
                                        double round_s) {
  std::vector<double> gap(t.next_decision.size(), 0.0);
  for (size_t i = 0; i < gap.size(); ++i) {
    const int64_t j = t.next_decision[i];
    if (j >= 0) gap[i] = (t.decision_time_s[static_cast<size_t>(j)] - t.decision_time_s[i]) / round_s;
  }
  return learn::ChainAdvantages({t.job_reward, t.next_decision, gap, values}, gamma, lambda);
}

// A random order of 0..n-1.
std::vector<size_t> Shuffled(size_t n, Rng& rng) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  rng.Shuffle(order);
  return order;
}

// Shifts and scales `v` to mean 0 and standard deviation 1 (the sd plus 1e-8, so a constant
// vector becomes 0). REQUIRES: v not empty.
void Standardise(std::vector<double>& v) {
  double mean = 0, var = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  for (double x : v) var += (x - mean) * (x - mean);
  const double sd = std::sqrt(var / static_cast<double>(v.size())) + 1e-8;
  for (double& x : v) x = (x - mean) / sd;
}

}  // namespace

// Simulates `window` with the rlpto scheduler acting as `training` says (with a trajectory to
// record into unless `record` is false).
Result<EpisodeResult> RunEpisode(const Cluster& cluster, const ModelZoo& zoo, const Workload& window,
                                 const RlptoTrainingOptions& options, RlptoTraining training, bool record,
                                 const SimOptions& sim) {
  EpisodeResult out;
  MethodChoice choice;
  HETSCHED_ASSIGN_OR_RETURN(Methods methods, CreateMethods(choice, sim.seed));
  training.trajectory = record ? &out.trajectory : nullptr;
  training.teacher_yield = options.teacher_yield;
  Options policy_options = options.policy_options;
  policy_options.Set("round", fmt::format("{}", options.round_s));
  if (!training.agent && !training.act_by_teacher) policy_options.Set("allocation", "heuristic");
  HETSCHED_ASSIGN_OR_RETURN(methods.scheduler, MakeRlptoScheduler(policy_options, std::move(training)));
  HETSCHED_ASSIGN_OR_RETURN(out.record, Simulate(cluster, zoo, window, std::move(methods), sim));
  return out;
}

// REINFORCE on one episode (the cluster's discounted return after each decision, optionally
// minus the greedy agent's on the same window; normalised within the episode).
Status ReinforceStep(const Cluster& cluster, const ModelZoo& zoo, const Workload& w, const RlptoTrainingOptions& options,
                     const std::shared_ptr<learn::AllocationAgent>& agent, const SimOptions& sim,
                     const RlptoTrajectory& trajectory, Rng& rng) {
  if (trajectory.actions.empty()) return Status::Ok();
  // Rollout baseline: the greedy agent on the same window; its discounted reward after each of
  // the sampled run's decision times is that decision's baseline, which removes what the
  // window's load alone explains.
  std::vector<double> baseline;
  if (options.rollout_baseline) {
    RlptoTraining greedy;
    greedy.agent = agent;
    greedy.explore = false;
    HETSCHED_ASSIGN_OR_RETURN(const EpisodeResult ref, RunEpisode(cluster, zoo, w, options, std::move(greedy), true, sim));
    baseline = DiscountedReturns(trajectory.decision_time_s, ref.trajectory.rewards, options.discount_per_round, options.round_s);
  }
  std::vector<double> g = DiscountedReturns(trajectory.decision_time_s, trajectory.rewards, options.discount_per_round,
                                            options.round_s);
  for (size_t i = 0; i < baseline.size(); ++i) g[i] -= baseline[i];
  Standardise(g);  // within the episode
  // Each step on at most max_update_decisions decisions drawn from the episode (all if fewer).
  const size_t n = g.size(), dim = static_cast<size_t>(agent->config().state_dim);
  const size_t batch = std::min(n, static_cast<size_t>(options.max_update_decisions));
  std::vector<float> xs(batch * dim);
  std::vector<int> as(batch);
  std::vector<double> gs(batch);
  for (int u = 0; u < options.updates_per_episode; ++u) {
    for (size_t b = 0; b < batch; ++b) {
      const size_t i = batch == n ? b : static_cast<size_t>(rng.Below(n));
      std::copy_n(trajectory.states.begin() + static_cast<std::ptrdiff_t>(i * dim), dim, xs.begin() + static_cast<std::ptrdiff_t>(b * dim));
      as[b] = trajectory.actions[i];
      gs[b] = g[i];
    }
    HETSCHED_RETURN_IF_ERROR(agent->Update(xs, as, gs).status());
  }
  return Status::Ok();
}

// PPO on one episode: per-job GAE with the critic, advantages normalised within the episode,
// `ppo_epochs` passes over shuffled minibatches.
// The critic estimates value / value_scale (1 unless options.ppo_value_scaling).
Status PpoStep(const RlptoTrainingOptions& options, double entropy_bonus, double value_scale, learn::AllocationAgent& agent,
               const RlptoTrajectory& t, Rng& rng) {
  const size_t n = t.actions.size();
  if (n == 0) return Status::Ok();
  std::vector<double> old_log_probs, values;
  agent.Evaluate(t.states, t.actions, &old_log_probs, &values);
  if (value_scale != 1) {
    for (double& v : values) v *= value_scale;
  }
  HETSCHED_ASSIGN_OR_RETURN(learn::Advantages adv,
                            JobAdvantages(t, values, options.ppo_gamma_per_round, options.gae_lambda, options.round_s));
  Standardise(adv.advantage);
  const learn::PpoConfig ppo{.learning_rate = options.ppo_learning_rate, .clip = options.ppo_clip,
                             .value_coef = options.ppo_value_coef, .entropy_bonus = entropy_bonus,
                             .imitation_coef = options.ppo_imitation_coef};
  const size_t dim = static_cast<size_t>(agent.config().state_dim);
  const size_t mb = std::min(n, static_cast<size_t>(options.ppo_minibatch));
  std::vector<float> xs;
  std::vector<int> as, ts;
  std::vector<double> lp, av, rt;
  for (int epoch = 0; epoch < options.ppo_epochs; ++epoch) {
    const std::vector<size_t> order = Shuffled(n, rng);
    for (size_t from = 0; from + mb <= n; from += mb) {  // whole minibatches only
      xs.resize(mb * dim);
      as.resize(mb);
      lp.resize(mb);
      av.resize(mb);
      rt.resize(mb);
      ts.resize(mb);
      for (size_t b = 0; b < mb; ++b) {
        const size_t i = order[from + b];
        std::copy_n(t.states.begin() + static_cast<std::ptrdiff_t>(i * dim), dim, xs.begin() + static_cast<std::ptrdiff_t>(b * dim));
        as[b] = t.actions[i];
        lp[b] = old_log_probs[i];
        av[b] = adv.advantage[i];
        rt[b] = adv.target[i] / value_scale;
        ts[b] = t.teacher_actions[i];
      }
      HETSCHED_RETURN_IF_ERROR(agent.PpoUpdate({xs, as, lp, av, rt, ts}, ppo).status());
    }
  }
  return Status::Ok();
}

// Fits the critic to the discounted per-job returns of the warm-start episodes (acted by the
// heuristic, which the warm-started policy imitates): minibatches drawn with `rng`. Returns the
// scale the critic works in: with options.ppo_value_scaling the returns' standard deviation
// (the critic learns return / scale: long jobs' undiscounted returns reach hundreds), else 1.
Result<double> WarmUpCritic(const RlptoTrainingOptions& options, learn::AllocationAgent& agent,
                            const std::vector<RlptoTrajectory>& episodes, Rng& rng) {
  std::vector<float> states;
  std::vector<double> returns;
  for (const RlptoTrajectory& t : episodes) {
    const std::vector<double> zero(t.actions.size(), 0.0);
    HETSCHED_ASSIGN_OR_RETURN(const learn::Advantages mc, JobAdvantages(t, zero, options.ppo_gamma_per_round, 1.0, options.round_s));
    states.insert(states.end(), t.states.begin(), t.states.end());
    returns.insert(returns.end(), mc.target.begin(), mc.target.end());
  }
  const size_t n = returns.size(), dim = static_cast<size_t>(agent.config().state_dim);
  if (n == 0) return 1.0;
  double scale = 1;
  if (options.ppo_value_scaling) {
    double mean = 0, var = 0;
    for (double r : returns) mean += r / static_cast<double>(n);
    for (double r : returns) var += (r - mean) * (r - mean) / static_cast<double>(n);
    if (var > 1e-12) scale = std::sqrt(var);
  }
  const size_t mb = std::min(n, static_cast<size_t>(options.ppo_minibatch));
  std::vector<float> xs(mb * dim);
  std::vector<double> ys(mb);
  for (int step = 0; step < options.critic_warmup_steps; ++step) {
    for (size_t b = 0; b < mb; ++b) {
      const auto i = static_cast<size_t>(rng.Below(n));
      std::copy_n(states.begin() + static_cast<std::ptrdiff_t>(i * dim), dim, xs.begin() + static_cast<std::ptrdiff_t>(b * dim));
      ys[b] = returns[i] / scale;
    }
    HETSCHED_RETURN_IF_ERROR(agent.FitValue(xs, ys, options.ppo_learning_rate * 3).status());
  }
  return scale;
}

}  // namespace hetsched::rlpto_learner
