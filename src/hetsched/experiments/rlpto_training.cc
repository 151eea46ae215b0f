#include "hetsched/experiments/rlpto_training.h"

#include <cmath>
#include <fmt/format.h>

#include "hetsched/metrics/summary.h"
#include "hetsched/policies/rlpto.h"
#include "hetsched/sim/runner.h"
#include "hetsched/util/rng.h"

namespace hetsched {

std::vector<double> DiscountedReturns(const std::vector<double>& decision_time_s,
                                      const std::vector<std::pair<double, double>>& rewards, double gamma,
                                      double round_s) {
  // tail[k] = sum over k' >= k of gamma^((t_k' - t_k) / round) r_k'.
  std::vector<double> tail(rewards.size() + 1, 0.0);
  for (size_t k = rewards.size(); k-- > 0;) {
    const double next = k + 1 < rewards.size()
                            ? std::pow(gamma, (rewards[k + 1].first - rewards[k].first) / round_s) * tail[k + 1]
                            : 0.0;
    tail[k] = rewards[k].second + next;
  }
  std::vector<double> out(decision_time_s.size(), 0.0);
  size_t k = rewards.size();
  for (size_t i = decision_time_s.size(); i-- > 0;) {
    // First reward strictly after the decision (k only moves left as decisions go back in time).
    while (k > 0 && rewards[k - 1].first > decision_time_s[i]) --k;
    if (k < rewards.size()) out[i] = std::pow(gamma, (rewards[k].first - decision_time_s[i]) / round_s) * tail[k];
  }
  return out;
}

Result<RlptoTrainingLog> TrainRlptoAgent(const Cluster& cluster, const ModelZoo& zoo, const Workload& pool,
                                         const RlptoTrainingOptions& options,
                                         const std::shared_ptr<learn::AllocationAgent>& agent, const SimOptions& sim,
                                         const std::function<void(const std::string&)>& print) {
  const auto pool_size = static_cast<long long>(pool.jobs.size());
  if (options.jobs_per_episode < 2 || options.jobs_per_episode > pool_size) {
    return Status::InvalidArgument(fmt::format("rlpto training: {} jobs per episode from a pool of {} (need 2..pool)",
                                               options.jobs_per_episode, pool_size));
  }
  if (options.episodes < 1) return Status::InvalidArgument("rlpto training: episodes must be >= 1");
  if (!(options.discount_per_round > 0 && options.discount_per_round <= 1)) {
    return Status::InvalidArgument("rlpto training: discount must be in (0, 1]");
  }
  Rng rng(options.seed);
  RlptoTrainingLog log;
  for (int episode = 0; episode < options.episodes; ++episode) {
    const auto start = static_cast<size_t>(rng.Below(static_cast<uint64_t>(pool_size - options.jobs_per_episode + 1)));
    Workload w;
    w.source = fmt::format("{} jobs {}..{}", pool.source, start, start + static_cast<size_t>(options.jobs_per_episode) - 1);
    const double t0 = pool.jobs[start].spec.submit_time_s;
    for (long long i = 0; i < options.jobs_per_episode; ++i) {
      Job j = pool.jobs[start + static_cast<size_t>(i)];
      j.spec.id = i;
      j.spec.submit_time_s -= t0;
      if (j.spec.deadline_s != kNoDeadline) j.spec.deadline_s -= t0;
      w.jobs.push_back(std::move(j));
    }
    MethodChoice choice;
    HETSCHED_ASSIGN_OR_RETURN(SimMethods methods, CreateMethods(choice, sim.seed));
    RlptoTrajectory trajectory;
    RlptoTraining training{agent, &trajectory, rng.NextU64()};
    Options policy_options = options.policy_options;
    policy_options.Set("round", fmt::format("{}", options.round_s));
    HETSCHED_ASSIGN_OR_RETURN(methods.scheduler, MakeRlptoScheduler(policy_options, training));
    HETSCHED_ASSIGN_OR_RETURN(const RunRecord record, Simulate(cluster, zoo, w, std::move(methods), sim));
    double total = 0;
    for (const auto& [t, r] : trajectory.rewards) total += r;
    log.episode_reward.push_back(total);
    log.decisions.push_back(static_cast<long long>(trajectory.actions.size()));
    log.episode_jct_h.push_back(Summarize(record).jct_s.mean / 3600);
    if (!trajectory.actions.empty()) {
      std::vector<double> g = DiscountedReturns(trajectory.decision_time_s, trajectory.rewards, options.discount_per_round,
                                                options.round_s);
      double mean = 0, var = 0;
      for (double v : g) mean += v;
      mean /= static_cast<double>(g.size());
      for (double v : g) var += (v - mean) * (v - mean);
      const double sd = std::sqrt(var / static_cast<double>(g.size())) + 1e-8;
      for (double& v : g) v = (v - mean) / sd;  // baseline: the episode's mean return
      for (int u = 0; u < options.updates_per_episode; ++u) {
        HETSCHED_ASSIGN_OR_RETURN(const double loss, agent->Update(trajectory.states, trajectory.actions, g));
        (void)loss;
      }
    }
    if (print) {
      print(fmt::format("  episode {:>3}: {} jobs from #{}, {} decisions, reward {:.1f}, mean JCT {:.2f} h\n", episode + 1,
                        options.jobs_per_episode, start, log.decisions.back(), total, log.episode_jct_h.back()));
    }
  }
  return log;
}

}  // namespace hetsched
