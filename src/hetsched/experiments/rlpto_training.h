// Trains RLPTO's allocation agent in the simulator (docs/rlpto.md, "Training"), in three steps:
//  1. imitation warm start: episodes acted by the type-aware heuristic (RlptoHeuristicAction)
//     record (state, heuristic action) pairs, and the agent is fitted to them by cross-entropy
//     (minibatches drawn with hetsched::Rng; labels weighted by 1 / sqrt(their share));
//  2. fine-tuning, by one of two learners (`learner`); each episode simulates a window of
//     consecutive jobs sampled from the workload with the agent sampling actions:
//     - REINFORCE (session 8's method, kept as the ablation): the advantage of a decision is the
//       cluster's return after it (discounted per round), optionally minus the greedy agent's
//       return after the same time on the same window (`rollout_baseline`, self-critical:
//       Rennie et al. 2017; Kool et al. 2019), normalised per episode (mean 0, sd 1), and the
//       agent takes policy-gradient steps, each on at most `max_update_decisions` decisions drawn
//       from the episode. Every decision of one call sees the same return;
//     - PPO with per-job credit: each decision is credited with the reward of the job it
//       concerns until the next decision about that job (RlptoTrajectory::job_reward), and its
//       advantage is GAE along that job's decisions with the agent's critic as baseline
//       (learn/advantages.h); the critic is first fitted to the warm-start episodes' returns;
//       then `ppo_epochs` passes of clipped PPO steps (Schulman et al. 2017) on minibatches;
//  3. selection: after the warm start and every `eval_every` episodes, the greedy agent is
//     scored on fixed validation windows of the same workload (mean JCT); the best agent seen
//     is kept. Deterministic for a given seed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/learn/allocation_agent.h"
#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/validation.h"
#include "hetsched/sched/options.h"
#include "hetsched/sim/simulator.h"
#include "hetsched/trace/trace.h"

namespace hetsched {

enum class RlptoLearner { kReinforce, kPpo };

struct RlptoTrainingOptions {
  RlptoLearner learner = RlptoLearner::kReinforce;
  int episodes = 20;                 // fine-tuning episodes (0: imitation only)
  long long jobs_per_episode = 150;
  int imitation_episodes = 4;        // windows acted by the heuristic (0: no warm start)
  int imitation_steps = 300;         // minibatch steps of the cross-entropy fit
  int imitation_batch = 512;
  bool imitation_balance = true;     // weight labels by 1 / sqrt(their share)
  int validation_windows = 2;        // windows scoring the greedy agent (0: keep the last agent)
  // How the validation windows are chosen: evenly spaced over the pool (false), or by offered
  // load (OfferedLoad): among the pool's windows (starts every validation_jobs / 10 jobs), those
  // at evenly spaced quantiles of load, the lightest to the heaviest (true).
  bool validation_by_load = false;
  long long validation_jobs = 0;     // jobs per validation window (0: jobs_per_episode; at most the pool)
  int eval_every = 5;                // episodes between scorings
  double discount_per_round = 0.95;  // gamma per scheduling round (the policy's `round`)
  double round_s = 300;
  int updates_per_episode = 2;
  long long max_update_decisions = 16384;  // decisions per policy-gradient step (sampled when more)
  bool rollout_baseline = false;     // REINFORCE: subtract the greedy agent's return on the same window
  // PPO (learner kPpo): discount per round of a job's own rewards (discount_per_round above is
  // REINFORCE's), GAE's lambda per decision, passes over each episode, minibatch size, clip,
  // Adam step, critic weight, and the critic's warm-up steps on the imitation episodes.
  double ppo_gamma_per_round = 0.995;
  double gae_lambda = 0.95;
  int ppo_epochs = 4;
  long long ppo_minibatch = 2048;
  double ppo_clip = 0.2;
  double ppo_learning_rate = 3e-4;
  double ppo_value_coef = 0.5;
  double ppo_entropy_bonus = 0.01;   // at the first episode; falls linearly to ppo_entropy_final at the last
  double ppo_entropy_final = -1;     // < 0: constant ppo_entropy_bonus
  double ppo_imitation_coef = 0;     // cross-entropy towards the heuristic's action in each state (anchor)
  int critic_warmup_steps = 1000;
  bool ppo_value_scaling = false;    // the critic learns returns / their sd on the warm-up episodes
  double episode_load_spread = 1;    // > 1: fine-tuning windows' arrival gaps x a factor in [1/spread, spread]
  // Load randomisation by target (when true; episode_load_spread is then unused): each
  // fine-tuning window's arrival gaps are scaled so that its offered load is a target drawn
  // log-uniformly in [lo / sqrt(R), hi x sqrt(R)], lo and hi the lightest and heaviest offered load
  // of the pool's windows of jobs_per_episode jobs, R = hi / lo (LoadRange).
  bool episode_load_range = false;
  unsigned long long seed = 1;
  Options policy_options;            // options of the rlpto scheduler (levels, age, profile, ...)
  // With the scheduler's option yield=true: whether the heuristic (the imitation teacher, and the
  // validation's reference) yields too (RlptoTraining::teacher_yield).
  bool teacher_yield = true;
};

struct RlptoTrainingLog {
  std::vector<double> episode_reward;   // sum of the interval rewards of each fine-tuning episode
  std::vector<long long> decisions;     // agent decisions per episode
  std::vector<double> episode_jct_h;    // mean JCT of each episode's finished jobs
  std::vector<double> episode_agreement;  // share of each episode's decisions equal to the heuristic's
  std::vector<double> validation_jct_h; // per scoring: the greedy agent's mean JCT on the validation windows
  std::vector<int> validation_after;    // per scoring: fine-tuning episodes done before it (0: after the warm start)
  double heuristic_validation_jct_h = 0;  // the heuristic on the same windows
  double imitation_accuracy = 0;        // share of recorded states where the agent picks the heuristic's action
  int best_after = -1;                  // validation_after of the agent kept (-1: no scoring)
};

// Trains `agent` in place. Errors: fewer jobs in `pool` than jobs_per_episode (>= 2 needed), a
// failed simulation, bad options.
Result<RlptoTrainingLog> TrainRlptoAgent(const Cluster& cluster, const ModelZoo& zoo, const Workload& pool,
                                         const RlptoTrainingOptions& options,
                                         const std::shared_ptr<learn::AllocationAgent>& agent, const SimOptions& sim,
                                         const std::function<void(const std::string&)>& print);

// Jobs [begin, end) of `all` as a workload of their own: ids from 0, submit times (and
// deadlines) shifted so that the first job arrives at 0. REQUIRES: begin < end <= all.jobs.size().
Workload TraceWindow(const Workload& all, size_t begin, size_t end);

// Offered load of a workload on `cluster`: the GPU-seconds its jobs demand (each job's requested
// GPUs x its ideal run time: its iterations at the measured steps/s of its fastest allowed type
// present, consolidated, when `table` has the job; else its trace run time, else its estimated
// run time, else nothing) over the GPU-seconds the cluster offers between the first and the last
// arrival (at least 1 s). Computed from the trace alone: nothing is simulated.
double OfferedLoad(const Workload& w, const Cluster& cluster, const MeasuredThroughputs* table);

// Offered load of each window of `jobs` consecutive jobs of `pool` starting at 0, stride,
// 2 x stride, ... (the last start: pool size - jobs). REQUIRES: 1 <= jobs <= pool size, stride >= 1.
struct PoolWindowLoad {
  size_t start = 0;
  double load = 0;
};
std::vector<PoolWindowLoad> PoolWindowLoads(const Workload& pool, size_t jobs, size_t stride, const Cluster& cluster,
                                            const MeasuredThroughputs* table);

// Starts of `k` windows at evenly spaced quantiles of load (the lightest, ..., the heaviest; for
// k = 1 the median), distinct; ties by start. REQUIRES: k <= loads.size().
std::vector<size_t> WindowsByLoadQuantile(std::vector<PoolWindowLoad> loads, int k);

// The range of target loads for load randomisation: [lo / sqrt(R), hi x sqrt(R)] with lo, hi the
// lightest and heaviest of `loads`, R = hi / lo: the spread of the pool's own windows, widened by
// half of it on each side (in log scale). REQUIRES: loads not empty, all > 0.
std::pair<double, double> LoadRange(const std::vector<PoolWindowLoad>& loads);

// Discounted return at each decision time: G(d) = sum over rewards (t, r) with t > d of
// gamma^((t - d) / round) r. Both lists in time order. Exposed for tests.
std::vector<double> DiscountedReturns(const std::vector<double>& decision_time_s,
                                      const std::vector<std::pair<double, double>>& rewards, double gamma,
                                      double round_s);

}  // namespace hetsched
