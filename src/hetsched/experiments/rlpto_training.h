// Trains RLPTO's allocation agent in the simulator (REINFORCE with a normalised-return baseline):
// each episode simulates a window of consecutive jobs sampled from a workload, with the `rlpto`
// scheduler acting through the agent (sampling actions) and recording its decisions and the
// per-interval rewards (policies/rlpto.h); the agent then takes policy-gradient steps on the
// discounted returns. Deterministic for a given seed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hetsched/learn/allocation_agent.h"
#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/sched/options.h"
#include "hetsched/sim/simulator.h"
#include "hetsched/trace/trace.h"

namespace hetsched {

struct RlptoTrainingOptions {
  int episodes = 20;
  long long jobs_per_episode = 150;
  double discount_per_round = 0.95;  // gamma per scheduling round (the policy's `round`)
  double round_s = 300;
  int updates_per_episode = 2;
  unsigned long long seed = 1;
  Options policy_options;            // options of the rlpto scheduler (levels, age, ...)
};

struct RlptoTrainingLog {
  std::vector<double> episode_reward;   // sum of the interval rewards of each episode
  std::vector<long long> decisions;     // agent decisions per episode
  std::vector<double> episode_jct_h;    // mean JCT of each episode's finished jobs
};

// Trains `agent` in place. Errors: fewer jobs in `pool` than jobs_per_episode (>= 2 needed), a
// failed simulation, bad options.
Result<RlptoTrainingLog> TrainRlptoAgent(const Cluster& cluster, const ModelZoo& zoo, const Workload& pool,
                                         const RlptoTrainingOptions& options,
                                         const std::shared_ptr<learn::AllocationAgent>& agent, const SimOptions& sim,
                                         const std::function<void(const std::string&)>& print);

// Discounted return at each decision time: G(d) = sum over rewards (t, r) with t > d of
// gamma^((t - d) / round) r. Both lists in time order. Exposed for tests.
std::vector<double> DiscountedReturns(const std::vector<double>& decision_time_s,
                                      const std::vector<std::pair<double, double>>& rewards, double gamma,
                                      double round_s);

}  // namespace hetsched
