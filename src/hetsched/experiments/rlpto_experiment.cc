// Experiment "rlpto" (E2 of ALGORITHMS.md 3.6): RLPTO against FIFO, SRTF, Tiresias-LAS and a
// Gavel-style policy (gavel-las: heterogeneity-aware LAS on Gavel's measured throughputs), plus
// the multi-priority queues alone and RLPTO with its rule allocation instead of the agent, with
// and without shrinking, RLPTO's heuristic and agents with yielding (rows `*-yield`; option
// yield_rows=false drops them (not `yield`: a Python keyword, and experiment options are keyword
// arguments there); by default, train_yield=true, the agents have the yield action, are
// warm-started on the heuristic without yielding (teacher_yield=false; true: on the yielding
// heuristic) and learn to yield in fine-tuning, and the rows without the suffix run them with
// yielding off; train_yield=false trains agents of the earlier shape, without it;
// docs/rlpto.md), option agent=FILE compares a trained agent (rows RLPTO-agent*) instead of
// training any,
// and RLPTO with every job elastic (ablations; option elastic=false drops the elastic rows), on
// a real trace: the first `jobs` jobs of a Gavel msr trace
// (Philly-derived real arrival times and GPU counts; the gaps between arrivals multiplied by
// `arrival_scale`, default 0.1, since at the native rate the cluster is mostly idle and every
// policy gives the same result) on Gavel's heterogeneous cluster for these traces (36 V100,
// 36 P100, 36 K80, 4 per server). The trace has no priorities: each job gets user priority
// high/normal/low with probability 20/50/30% (ALGORITHMS.md 3.6), drawn from the seed. A job
// misses its deadline when its JCT exceeds `deadline_factor` x its ideal runtime (the
// simulator's, alone on the fastest allowed type). The agent is trained on episodes sampled from
// the first half of the jobs and evaluated with every baseline on the second half (held out).
// Two learners fine-tune the agent after the same imitation warm start (`learners`, default
// both): REINFORCE with the cluster's reward (session 8's method, the ablation) and PPO with
// per-job credit (docs/rlpto.md, "Training"). Options of PPO's training kept off by default after
// development runs (docs/experiments/rlpto.md, session 11): `validation=load` (validation windows
// at quantiles of offered load of the training half), `load_range=true` (load randomisation
// over the training half's range), `type_share` (credit for competition over GPU types).
// Truth: Gavel's measured throughputs where they apply. Outputs: rlpto.csv, rlpto.txt,
// rlpto_training_<learner>.csv, rlpto_agent_<learner>.bin (the trained agents). Discussion:
// docs/experiments/rlpto.md.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <memory>

#include "hetsched/experiments/experiment.h"
#include "hetsched/experiments/rlpto_training.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/model/cluster.h"
#include "hetsched/perf/validation.h"
#include "hetsched/policies/rlpto/rlpto.h"
#include "hetsched/sched/registry.h"
#include "hetsched/sim/runner.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/rng.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

// E2's options (`--opt`s), read and checked by ReadOptions; defaults in parentheses are --quick's.
struct E2Options {
  std::string trace_path, table_path;
  long long jobs = 0;                  // jobs read from the trace (>= 8)
  long long episodes = 0, ppo_episodes = 0, ppo_epochs = 0;  // fine-tuning episodes: REINFORCE, PPO
  double ppo_gamma = 0, gae_lambda = 0, ppo_lr = 0, ppo_entropy = 0, ppo_imitation = 0, ppo_entropy_final = 0;
  bool value_scaling = false;
  double load_spread = 1;
  long long validation_windows = 0, validation_jobs = 0;
  bool validation_by_load = false;     // option validation=load (PPO only), else even
  bool load_range = false;
  long long ppo_validation_windows = 0, critic_warmup = 0;
  std::vector<std::string> learners;   // "reinforce", "ppo"
  std::string agent_file;              // a trained agent to compare instead of training any
  double congestion_share = 0, type_share = 0;
  bool yield_rows = true, train_yield = true, teacher_yield = false;
  long long episode_jobs = 0, imitation_episodes = 0, imitation_steps = 0;
  bool imitation_balance = true;
  long long hidden = 0;
  bool rollout_baseline = false;
  double deadline_factor = 0, round_s = 0, arrival_scale = 0;
  bool elastic_rows = true;
};

// The learners of option `learners`, in order. Errors: a name that is not reinforce or ppo, none.
Result<std::vector<std::string>> ParseLearners(const std::string& text) {
  std::vector<std::string> learners;
  for (std::string_view l : Split(text, ',')) {
    const std::string name(Trim(l));
    if (name != "reinforce" && name != "ppo") {
      return Status::InvalidArgument("experiment rlpto: option 'learners': '" + name + "' is not reinforce or ppo");
    }
    learners.push_back(name);
  }
  if (learners.empty()) return Status::InvalidArgument("experiment rlpto: option 'learners' names no learner");
  return learners;
}

// The experiment's options read and checked, in the order their errors are reported. The agent
// file, if any, is loaded as the compared runs will load it (checksum, shape).
Result<E2Options> ReadOptions(const ExperimentContext& ctx) {
  const Options& opt = ctx.options;
  const bool quick = ctx.quick;
  E2Options o;
  o.trace_path = opt.GetString("trace", "data/real/gavel/traces/msr_seed0_6c71a0.trace");
  o.table_path = opt.GetString("throughputs", "data/real/gavel/throughputs.csv");
  HETSCHED_ASSIGN_OR_RETURN(o.jobs, opt.GetInt("jobs", quick ? 80 : 1000));
  HETSCHED_ASSIGN_OR_RETURN(o.episodes, opt.GetInt("episodes", quick ? 2 : 20));
  HETSCHED_ASSIGN_OR_RETURN(o.ppo_episodes, opt.GetInt("ppo_episodes", quick ? 2 : 40));
  HETSCHED_ASSIGN_OR_RETURN(o.ppo_epochs, opt.GetInt("ppo_epochs", 4));
  HETSCHED_ASSIGN_OR_RETURN(o.ppo_gamma, opt.GetDouble("ppo_gamma", 0.995));
  HETSCHED_ASSIGN_OR_RETURN(o.gae_lambda, opt.GetDouble("gae_lambda", 0.95));
  HETSCHED_ASSIGN_OR_RETURN(o.ppo_lr, opt.GetDouble("ppo_lr", 3e-4));
  HETSCHED_ASSIGN_OR_RETURN(o.ppo_entropy, opt.GetDouble("ppo_entropy", 0.05));
  HETSCHED_ASSIGN_OR_RETURN(o.ppo_imitation, opt.GetDouble("ppo_imitation", 0));
  HETSCHED_ASSIGN_OR_RETURN(o.ppo_entropy_final, opt.GetDouble("ppo_entropy_final", 0));
  HETSCHED_ASSIGN_OR_RETURN(o.value_scaling, opt.GetBool("value_scaling", false));
  HETSCHED_ASSIGN_OR_RETURN(o.load_spread, opt.GetDouble("load_spread", 1));
  if (!(o.load_spread >= 1 && o.load_spread <= 100)) return Status::InvalidArgument("experiment rlpto: option 'load_spread' must be in [1, 100]");
  HETSCHED_ASSIGN_OR_RETURN(o.validation_windows, opt.GetInt("validation_windows", quick ? 1 : 2));
  HETSCHED_ASSIGN_OR_RETURN(o.validation_jobs, opt.GetInt("validation_jobs", 0));
  // PPO only (REINFORCE stays session 8's method): validation windows by offered load or evenly
  // spaced; load randomisation of the fine-tuning windows over the training half's range.
  const std::string validation = opt.GetString("validation", "even");
  if (validation != "even" && validation != "load") return Status::InvalidArgument("experiment rlpto: option 'validation' must be 'even' or 'load'");
  o.validation_by_load = validation == "load";
  HETSCHED_ASSIGN_OR_RETURN(o.load_range, opt.GetBool("load_range", false));
  HETSCHED_ASSIGN_OR_RETURN(o.ppo_validation_windows, opt.GetInt("ppo_validation_windows", o.validation_windows));
  HETSCHED_ASSIGN_OR_RETURN(o.critic_warmup, opt.GetInt("critic_warmup", quick ? 20 : 1000));
  const std::string learners = opt.GetString("learners", "reinforce,ppo");
  o.agent_file = opt.GetString("agent", "");
  HETSCHED_ASSIGN_OR_RETURN(o.congestion_share, opt.GetDouble("congestion_share", 0.5));
  HETSCHED_ASSIGN_OR_RETURN(o.type_share, opt.GetDouble("type_share", 0));
  HETSCHED_ASSIGN_OR_RETURN(o.yield_rows, opt.GetBool("yield_rows", true));
  HETSCHED_ASSIGN_OR_RETURN(o.train_yield, opt.GetBool("train_yield", true));
  HETSCHED_ASSIGN_OR_RETURN(o.teacher_yield, opt.GetBool("teacher_yield", false));
  if (!(o.type_share >= 0 && o.type_share <= 1)) return Status::InvalidArgument("experiment rlpto: option 'type_share' must be in [0, 1]");
  HETSCHED_ASSIGN_OR_RETURN(o.episode_jobs, opt.GetInt("episode_jobs", quick ? 30 : 200));
  HETSCHED_ASSIGN_OR_RETURN(o.imitation_episodes, opt.GetInt("imitation_episodes", quick ? 1 : 4));
  HETSCHED_ASSIGN_OR_RETURN(o.imitation_steps, opt.GetInt("imitation_steps", quick ? 20 : 3000));
  HETSCHED_ASSIGN_OR_RETURN(o.imitation_balance, opt.GetBool("imitation_balance", true));
  HETSCHED_ASSIGN_OR_RETURN(o.hidden, opt.GetInt("hidden", 32));
  HETSCHED_ASSIGN_OR_RETURN(o.rollout_baseline, opt.GetBool("rollout_baseline", false));
  HETSCHED_ASSIGN_OR_RETURN(o.deadline_factor, opt.GetDouble("deadline_factor", 3));
  HETSCHED_ASSIGN_OR_RETURN(o.round_s, opt.GetDouble("round", quick ? 1800 : 300));
  HETSCHED_ASSIGN_OR_RETURN(o.arrival_scale, opt.GetDouble("arrival_scale", 0.1));
  HETSCHED_ASSIGN_OR_RETURN(o.elastic_rows, opt.GetBool("elastic", true));
  if (o.jobs < 8) return Status::InvalidArgument("experiment rlpto: option 'jobs' must be >= 8");
  HETSCHED_ASSIGN_OR_RETURN(o.learners, ParseLearners(learners));
  if (!(o.deadline_factor >= 1)) return Status::InvalidArgument("experiment rlpto: option 'deadline_factor' must be >= 1");
  if (!(o.round_s > 0)) return Status::InvalidArgument("experiment rlpto: option 'round' must be > 0 seconds");
  if (!(o.arrival_scale > 0 && o.arrival_scale <= 1)) return Status::InvalidArgument("experiment rlpto: option 'arrival_scale' must be in (0, 1]");
  if (!o.agent_file.empty()) {
    Options probe;
    probe.Set("model", o.agent_file);
    HETSCHED_RETURN_IF_ERROR(
        Registry<JobScheduler>::Instance().Create("rlpto", probe).status().WithContext("experiment rlpto: option 'agent': "));
  }
  return o;
}

// E2's cluster and jobs: the first `jobs` of the trace with priorities drawn from the seed and
// arrival gaps scaled, halved into the training jobs and the held-out ones; Gavel's table.
struct E2Inputs {
  Cluster cluster;
  size_t jobs = 0;
  Workload train, test;
  MeasuredThroughputs table;
};

Result<E2Inputs> LoadInputs(const E2Options& o, unsigned long long seed) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  const ModelZoo& zoo = ModelZoo::BuiltIn();
  HETSCHED_ASSIGN_OR_RETURN(Cluster cluster,
                            MakeShorthandCluster({{"v100", 36}, {"p100", 36}, {"k80", 36}}, 4, devices, LinkCatalog::BuiltIn()));
  TraceReadOptions read;
  read.max_jobs = o.jobs;
  HETSCHED_ASSIGN_OR_RETURN(Workload all, ReadTrace(o.trace_path, "gavel", read, devices, zoo));
  if (all.jobs.size() < 8) return Status::InvalidArgument("experiment rlpto: " + o.trace_path + " has fewer than 8 jobs");
  Rng priorities(seed);
  for (Job& j : all.jobs) {
    const double u = priorities.Uniform();
    j.spec.priority = u < 0.2 ? 1 : u < 0.7 ? 0 : -1;
    j.spec.submit_time_s *= o.arrival_scale;
  }
  HETSCHED_ASSIGN_OR_RETURN(MeasuredThroughputs table, MeasuredThroughputs::Load(o.table_path, devices));
  const size_t half = all.jobs.size() / 2;
  return E2Inputs{std::move(cluster), all.jobs.size(), TraceWindow(all, 0, half), TraceWindow(all, half, all.jobs.size()),
                  std::move(table)};
}

// The training options shared by the learners (each learner from the same seed: the same warm
// start, the same windows, the same initial weights).
RlptoTrainingOptions BaseTrainingOptions(const E2Options& o, size_t train_jobs, unsigned long long seed) {
  RlptoTrainingOptions training;
  training.episodes = static_cast<int>(o.episodes);
  training.jobs_per_episode = std::min<long long>(o.episode_jobs, static_cast<long long>(train_jobs));
  training.round_s = o.round_s;
  training.seed = seed;
  training.policy_options.Set("profile", o.table_path);
  training.policy_options.Set("congestion_share", fmt::format("{}", o.congestion_share));
  training.policy_options.Set("type_share", fmt::format("{}", o.type_share));
  if (o.train_yield) training.policy_options.Set("yield", "true");  // episodes with yielding on
  training.teacher_yield = o.teacher_yield;
  training.imitation_episodes = static_cast<int>(std::clamp<long long>(o.imitation_episodes, 0, 1000));
  training.imitation_steps = static_cast<int>(std::clamp<long long>(o.imitation_steps, 0, 1000000));
  training.rollout_baseline = o.rollout_baseline;
  training.imitation_balance = o.imitation_balance;
  training.ppo_epochs = static_cast<int>(std::clamp<long long>(o.ppo_epochs, 1, 1000));
  training.ppo_gamma_per_round = o.ppo_gamma;
  training.gae_lambda = o.gae_lambda;
  training.ppo_learning_rate = o.ppo_lr;
  training.ppo_entropy_bonus = o.ppo_entropy;
  training.ppo_imitation_coef = o.ppo_imitation;
  training.ppo_entropy_final = o.ppo_entropy_final;
  training.ppo_value_scaling = o.value_scaling;
  training.episode_load_spread = o.load_spread;
  training.validation_windows = static_cast<int>(std::clamp<long long>(o.validation_windows, 0, 100));
  training.validation_jobs = std::max<long long>(0, o.validation_jobs);
  training.critic_warmup_steps = static_cast<int>(std::clamp<long long>(o.critic_warmup, 0, 1000000));
  return training;
}

// One learner's training options: the base, with PPO's own episodes and options.
RlptoTrainingOptions LearnerOptions(const E2Options& o, RlptoTrainingOptions options, const std::string& learner) {
  options.learner = learner == "ppo" ? RlptoLearner::kPpo : RlptoLearner::kReinforce;
  if (learner == "ppo") {
    options.episodes = static_cast<int>(o.ppo_episodes);
    options.validation_by_load = o.validation_by_load;
    options.episode_load_range = o.load_range;
    options.validation_windows = static_cast<int>(std::clamp<long long>(o.ppo_validation_windows, 0, 100));
  }
  return options;
}

using AgentFiles = std::vector<std::pair<std::string, std::string>>;  // (label, agent file)

// The agents compared: the given one (option `agent`), or one trained per learner on the training
// jobs, saved as rlpto_agent_<learner>.bin with its log rlpto_training_<learner>.csv.
Result<AgentFiles> TrainAgents(ExperimentContext& ctx, const E2Options& o, const E2Inputs& in, const SimOptions& sim) {
  learn::AllocationAgentConfig agent_config;
  // With train_yield the agents have the yield action and see its features; otherwise they keep
  // the shape they had before yielding existed (the same agents, the same results).
  agent_config.state_dim = o.train_yield ? kRlptoStateDim : kRlptoLegacyStateDim;
  agent_config.actions = o.train_yield ? kRlptoActions : kRlptoLegacyActions;
  agent_config.seed = ctx.seed;
  agent_config.hidden = static_cast<int>(o.hidden);
  HETSCHED_RETURN_IF_ERROR(agent_config.Validate().WithContext("experiment rlpto: option 'hidden': "));
  if (!o.agent_file.empty()) return AgentFiles{{"RLPTO-agent", o.agent_file}};  // nothing to train
  const RlptoTrainingOptions base = BaseTrainingOptions(o, in.train.jobs.size(), ctx.seed);
  AgentFiles agents;
  for (const std::string& learner : o.learners) {
    HETSCHED_ASSIGN_OR_RETURN(learn::AllocationAgent created, learn::AllocationAgent::Create(agent_config));
    auto agent = std::make_shared<learn::AllocationAgent>(std::move(created));
    ctx.print(fmt::format("training the agent, learner {}:\n", learner));
    HETSCHED_ASSIGN_OR_RETURN(const RlptoTrainingLog log, TrainRlptoAgent(in.cluster, ModelZoo::BuiltIn(), in.train,
                                                                          LearnerOptions(o, base, learner), agent, sim, ctx.print));
    const std::string agent_path = ctx.out_dir + "/rlpto_agent_" + learner + ".bin";
    HETSCHED_RETURN_IF_ERROR(agent->Save(agent_path));
    std::string training_csv = "episode,reward,decisions,mean_jct_h\n";
    for (size_t e = 0; e < log.episode_reward.size(); ++e) {
      training_csv += fmt::format("{},{:.4f},{},{:.4f}\n", e + 1, log.episode_reward[e], log.decisions[e], log.episode_jct_h[e]);
    }
    HETSCHED_RETURN_IF_ERROR(WriteFileAtomic(ctx.out_dir + "/rlpto_training_" + learner + ".csv", training_csv));
    agents.emplace_back(learner == "ppo" ? "RLPTO-PPO" : "RLPTO-REINFORCE", agent_path);
  }
  return agents;
}

struct ComparedMethod {
  std::string label, policy;
  std::vector<std::pair<std::string, std::string>> options;
  bool elastic = false;  // run on the held-out jobs declared elastic
};

// The compared methods: the baselines, RLPTO's rule (with and without shrinking), its heuristic
// and the agents; with `yield_rows` the heuristic and the agents yielding; with `elastic_rows`
// the rule, the heuristic and the agents on elastic jobs (listed last).
std::vector<ComparedMethod> ComparedMethods(const E2Options& o, const AgentFiles& agents) {
  const std::string round = fmt::format("{}", o.round_s);
  const std::string& table = o.table_path;
  std::vector<ComparedMethod> methods = {
      {"FIFO", "fifo", {}},
      {"SRTF", "srtf", {}},
      {"Tiresias-LAS", "tiresias-las", {}},
      {"Gavel-LAS", "gavel-las", {{"round", round}, {"profile", table}}},
      {"multi-priority", "multi-priority", {}},
      {"RLPTO-rule", "rlpto", {{"round", round}}},
      {"RLPTO-rule-no-shrink", "rlpto", {{"round", round}, {"shrink", "false"}}},
      {"RLPTO-heuristic", "rlpto", {{"round", round}, {"allocation", "heuristic"}, {"profile", table}}},
  };
  for (const auto& [label, path] : agents) methods.push_back({label, "rlpto", {{"round", round}, {"model", path}, {"profile", table}}});
  // Yielding (docs/rlpto.md, "Yielding"): the heuristic and the same agents, with running jobs
  // that have had a large job's service giving their devices back to the head of queue 0.
  if (o.yield_rows) {
    methods.push_back({"RLPTO-heuristic-yield", "rlpto", {{"round", round}, {"allocation", "heuristic"}, {"profile", table}, {"yield", "true"}}});
    for (const auto& [label, path] : agents) {
      methods.push_back({label + "-yield", "rlpto", {{"round", round}, {"model", path}, {"profile", table}, {"yield", "true"}}});
    }
  }
  // Ablation (#21 item 3): the same held-out jobs declared elastic (JobSpec::elastic), so that
  // RLPTO's shrinks and the agents' resizes on a job's own type are elastic re-rendezvous
  // (docs/elastic.md) instead of preemptions and restarts. The other methods never resize.
  if (o.elastic_rows) {
    methods.push_back({"RLPTO-rule-elastic", "rlpto", {{"round", round}}, true});
    methods.push_back({"RLPTO-heuristic-elastic", "rlpto", {{"round", round}, {"allocation", "heuristic"}, {"profile", table}}, true});
    for (const auto& [label, path] : agents) {
      methods.push_back({label + "-elastic", "rlpto", {{"round", round}, {"model", path}, {"profile", table}}, true});
    }
  }
  return methods;
}

// Runs every method on the held-out jobs (the elastic ones on those jobs declared elastic), in
// the order of `methods`.
std::vector<Result<RunRecord>> RunMethods(ExperimentContext& ctx, const E2Inputs& in, const std::vector<ComparedMethod>& methods,
                                          SimOptions sim) {
  std::vector<MethodChoice> rigid, elastic;
  for (const ComparedMethod& m : methods) {
    MethodChoice c;
    c.policy = m.policy;
    for (const auto& [k, v] : m.options) c.policy_options.Set(k, v);
    (m.elastic ? elastic : rigid).push_back(std::move(c));
  }
  const ModelZoo& zoo = ModelZoo::BuiltIn();
  sim.progress = PartProgress(ctx, 0, 2);  // the compared runs (training prints its own lines)
  auto results = RunMany(in.cluster, zoo, in.test, rigid, sim, ctx.threads);
  sim.progress = PartProgress(ctx, 1, 2);
  if (!elastic.empty()) {
    Workload test_elastic = in.test;
    for (Job& job : test_elastic.jobs) job.spec.elastic = !job.spec.is_container_job();
    for (auto& r : RunMany(in.cluster, zoo, test_elastic, elastic, sim, ctx.threads)) results.push_back(std::move(r));
  }
  return results;
}

struct RlptoRow {
  std::string method;
  Summary summary;
  double high_jct_h = 0;
  long long misses = 0;
  long long resizes = 0;  // in-place changes of running jobs (elastic rows)
  double resize_pause_h = 0;  // the time without progress they cost, summed over jobs
};

// One method's row: its summary, the mean JCT of its high-priority jobs, its deadline misses
// (JCT > deadline_factor x the ideal run time) and its resizes.
RlptoRow MethodRow(const std::string& label, const RunRecord& record, double deadline_factor) {
  RlptoRow row{label, Summarize(record), 0, 0, 0, 0};
  double high = 0;
  long long n_high = 0;
  for (const JobRecord& j : record.jobs) {
    if (j.finish_s < 0) continue;
    if (j.priority > 0) {
      high += j.jct_s();
      ++n_high;
    }
    if (j.jct_s() > deadline_factor * j.ideal_runtime_s) ++row.misses;
    row.resizes += j.resizes;
    row.resize_pause_h += j.resize_pause_s / 3600;
  }
  row.high_jct_h = n_high > 0 ? high / static_cast<double>(n_high) / 3600 : 0;
  return row;
}

// The table (printed, rlpto.txt) and rlpto.csv, then the outputs line.
Status WriteTables(ExperimentContext& ctx, const E2Options& o, const std::vector<RlptoRow>& rows) {
  std::string text = fmt::format(
      "method                   avg JCT (h)  high-prio JCT (h)  makespan (h)  util %  deadline misses (JCT > {:g}x ideal)  preemptions  resizes  pause (h)\n",
      o.deadline_factor);
  std::string csv = "method,jobs_finished,avg_jct_h,high_priority_jct_h,makespan_h,utilisation,deadline_misses,preemptions,resizes,resize_pause_h\n";
  for (const RlptoRow& r : rows) {
    const Summary& s = r.summary;
    text += fmt::format("{:<23}  {:>11.2f}  {:>17.2f}  {:>12.1f}  {:>6.1f}  {:>35}  {:>11}  {:>7}  {:>9.3f}\n", r.method,
                        s.jct_s.mean / 3600, r.high_jct_h, s.makespan_s / 3600, 100 * s.utilisation, r.misses, s.preemptions,
                        r.resizes, r.resize_pause_h);
    csv += fmt::format("{},{},{:.4f},{:.4f},{:.4f},{:.4f},{},{},{},{:.4f}\n", r.method, s.jobs_finished, s.jct_s.mean / 3600,
                       r.high_jct_h, s.makespan_s / 3600, s.utilisation, r.misses, s.preemptions, r.resizes, r.resize_pause_h);
  }
  ctx.print(text);
  return WriteExperimentOutputs(
      ctx, {{"rlpto.csv", csv}, {"rlpto.txt", text}},
      o.agent_file.empty() ? std::vector<std::string>{"rlpto_training_<learner>.csv", "rlpto_agent_<learner>.bin"}
                           : std::vector<std::string>{});
}

}  // namespace

class RlptoExperiment final : public Experiment {
 public:
  std::string_view name() const override { return "rlpto"; }

  Status Run(ExperimentContext& ctx) override {
    HETSCHED_ASSIGN_OR_RETURN(const E2Options o, ReadOptions(ctx));
    if (ctx.check_only) return Status::Ok();  // options read and checked: nothing run
    HETSCHED_ASSIGN_OR_RETURN(const E2Inputs in, LoadInputs(o, ctx.seed));
    SimOptions sim;
    sim.seed = ctx.seed;
    sim.measured_throughputs = &in.table;
    ctx.print(fmt::format("rlpto (E2): {}; {} jobs of {} (arrival gaps x {:g}): {} to train the agent{}, {} held out to compare\n",
                          in.cluster.Summary(), in.jobs, o.trace_path, o.arrival_scale, in.train.jobs.size(),
                          o.agent_file.empty() ? "" : fmt::format(" (not used: agent {})", o.agent_file), in.test.jobs.size()));
    HETSCHED_ASSIGN_OR_RETURN(const AgentFiles agents, TrainAgents(ctx, o, in, sim));
    const std::vector<ComparedMethod> methods = ComparedMethods(o, agents);
    std::vector<Result<RunRecord>> results = RunMethods(ctx, in, methods, sim);
    std::vector<RlptoRow> rows;
    for (size_t i = 0; i < results.size(); ++i) {
      if (!results[i].ok()) return results[i].status().WithContext("experiment rlpto: " + methods[i].label);
      HETSCHED_RETURN_IF_ERROR(WriteExperimentRun(ctx, "held-out", methods[i].label, *results[i]));
      rows.push_back(MethodRow(methods[i].label, *results[i], o.deadline_factor));
    }
    return WriteTables(ctx, o, rows);
  }
};

HETSCHED_REGISTER_IMPL(Experiment, kRlptoExperimentRegistered,
                       (MethodInfo{"rlpto", "E2: RLPTO (agent + shrinking + queues) vs FIFO, SRTF, Tiresias-LAS, Gavel-LAS (108 GPUs)",
                                   "[REC] RLPTO (Lu et al., IEEE TPDS 2023) experiment reconstructed on a Philly-derived trace"}),
                       [](const Options&) -> Result<std::unique_ptr<Experiment>> {
                         return std::unique_ptr<Experiment>(std::make_unique<RlptoExperiment>());
                       })

}  // namespace hetsched
