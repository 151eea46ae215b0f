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

struct Row {
  std::string method;
  Summary summary;
  double high_jct_h = 0;
  long long misses = 0;
  long long resizes = 0;  // in-place changes of running jobs (elastic rows)
  double resize_pause_h = 0;  // the time without progress they cost, summed over jobs
};

}  // namespace

class RlptoExperiment final : public Experiment {
 public:
  std::string_view name() const override { return "rlpto"; }

  Status Run(ExperimentContext& ctx) override {
    const std::string trace_path = ctx.options.GetString("trace", "data/real/gavel/traces/msr_seed0_6c71a0.trace");
    const std::string table_path = ctx.options.GetString("throughputs", "data/real/gavel/throughputs.csv");
    HETSCHED_ASSIGN_OR_RETURN(const long long jobs, ctx.options.GetInt("jobs", ctx.quick ? 80 : 1000));
    HETSCHED_ASSIGN_OR_RETURN(const long long episodes, ctx.options.GetInt("episodes", ctx.quick ? 2 : 20));
    HETSCHED_ASSIGN_OR_RETURN(const long long ppo_episodes, ctx.options.GetInt("ppo_episodes", ctx.quick ? 2 : 40));
    HETSCHED_ASSIGN_OR_RETURN(const long long ppo_epochs, ctx.options.GetInt("ppo_epochs", 4));
    HETSCHED_ASSIGN_OR_RETURN(const double ppo_gamma, ctx.options.GetDouble("ppo_gamma", 0.995));
    HETSCHED_ASSIGN_OR_RETURN(const double gae_lambda, ctx.options.GetDouble("gae_lambda", 0.95));
    HETSCHED_ASSIGN_OR_RETURN(const double ppo_lr, ctx.options.GetDouble("ppo_lr", 3e-4));
    HETSCHED_ASSIGN_OR_RETURN(const double ppo_entropy, ctx.options.GetDouble("ppo_entropy", 0.05));
    HETSCHED_ASSIGN_OR_RETURN(const double ppo_imitation, ctx.options.GetDouble("ppo_imitation", 0));
    HETSCHED_ASSIGN_OR_RETURN(const double ppo_entropy_final, ctx.options.GetDouble("ppo_entropy_final", 0));
    HETSCHED_ASSIGN_OR_RETURN(const bool value_scaling, ctx.options.GetBool("value_scaling", false));
    HETSCHED_ASSIGN_OR_RETURN(const double load_spread, ctx.options.GetDouble("load_spread", 1));
    if (!(load_spread >= 1 && load_spread <= 100)) return Status::InvalidArgument("experiment rlpto: option 'load_spread' must be in [1, 100]");
    HETSCHED_ASSIGN_OR_RETURN(const long long validation_windows, ctx.options.GetInt("validation_windows", ctx.quick ? 1 : 2));
    HETSCHED_ASSIGN_OR_RETURN(const long long validation_jobs, ctx.options.GetInt("validation_jobs", 0));
    // PPO only (REINFORCE stays session 8's method): validation windows by offered load or evenly
    // spaced; load randomisation of the fine-tuning windows over the training half's range.
    const std::string validation_text = ctx.options.GetString("validation", "even");
    if (validation_text != "even" && validation_text != "load") {
      return Status::InvalidArgument("experiment rlpto: option 'validation' must be 'even' or 'load'");
    }
    HETSCHED_ASSIGN_OR_RETURN(const bool load_range, ctx.options.GetBool("load_range", false));
    HETSCHED_ASSIGN_OR_RETURN(const long long ppo_validation_windows,
                              ctx.options.GetInt("ppo_validation_windows", validation_windows));
    HETSCHED_ASSIGN_OR_RETURN(const long long critic_warmup, ctx.options.GetInt("critic_warmup", ctx.quick ? 20 : 1000));
    const std::string learners_text = ctx.options.GetString("learners", "reinforce,ppo");
    // A trained agent to compare instead of training any (rows RLPTO-agent*), e.g. the shipped one.
    const std::string agent_file = ctx.options.GetString("agent", "");
    HETSCHED_ASSIGN_OR_RETURN(const double congestion_share, ctx.options.GetDouble("congestion_share", 0.5));
    HETSCHED_ASSIGN_OR_RETURN(const double type_share, ctx.options.GetDouble("type_share", 0));
    HETSCHED_ASSIGN_OR_RETURN(const bool yield_rows, ctx.options.GetBool("yield_rows", true));
    HETSCHED_ASSIGN_OR_RETURN(const bool train_yield, ctx.options.GetBool("train_yield", true));
    HETSCHED_ASSIGN_OR_RETURN(const bool teacher_yield, ctx.options.GetBool("teacher_yield", false));
    if (!(type_share >= 0 && type_share <= 1)) return Status::InvalidArgument("experiment rlpto: option 'type_share' must be in [0, 1]");
    HETSCHED_ASSIGN_OR_RETURN(const long long episode_jobs, ctx.options.GetInt("episode_jobs", ctx.quick ? 30 : 200));
    HETSCHED_ASSIGN_OR_RETURN(const long long imitation_episodes, ctx.options.GetInt("imitation_episodes", ctx.quick ? 1 : 4));
    HETSCHED_ASSIGN_OR_RETURN(const long long imitation_steps, ctx.options.GetInt("imitation_steps", ctx.quick ? 20 : 3000));
    HETSCHED_ASSIGN_OR_RETURN(const bool imitation_balance, ctx.options.GetBool("imitation_balance", true));
    HETSCHED_ASSIGN_OR_RETURN(const long long hidden, ctx.options.GetInt("hidden", 32));
    HETSCHED_ASSIGN_OR_RETURN(const bool rollout_baseline, ctx.options.GetBool("rollout_baseline", false));
    HETSCHED_ASSIGN_OR_RETURN(const double deadline_factor, ctx.options.GetDouble("deadline_factor", 3));
    HETSCHED_ASSIGN_OR_RETURN(const double round_s, ctx.options.GetDouble("round", ctx.quick ? 1800 : 300));
    HETSCHED_ASSIGN_OR_RETURN(const double arrival_scale, ctx.options.GetDouble("arrival_scale", 0.1));
    HETSCHED_ASSIGN_OR_RETURN(const bool elastic_rows, ctx.options.GetBool("elastic", true));
    if (jobs < 8) return Status::InvalidArgument("experiment rlpto: option 'jobs' must be >= 8");
    std::vector<std::string> learners;
    for (std::string_view l : Split(learners_text, ',')) {
      const std::string name(Trim(l));
      if (name != "reinforce" && name != "ppo") {
        return Status::InvalidArgument("experiment rlpto: option 'learners': '" + name + "' is not reinforce or ppo");
      }
      learners.push_back(name);
    }
    if (learners.empty()) return Status::InvalidArgument("experiment rlpto: option 'learners' names no learner");
    if (!(deadline_factor >= 1)) return Status::InvalidArgument("experiment rlpto: option 'deadline_factor' must be >= 1");
    if (!(round_s > 0)) return Status::InvalidArgument("experiment rlpto: option 'round' must be > 0 seconds");
    if (!(arrival_scale > 0 && arrival_scale <= 1)) {
      return Status::InvalidArgument("experiment rlpto: option 'arrival_scale' must be in (0, 1]");
    }
    if (!agent_file.empty()) {  // loaded as the compared runs will load it: checksum, shape
      Options probe;
      probe.Set("model", agent_file);
      HETSCHED_RETURN_IF_ERROR(
          Registry<JobScheduler>::Instance().Create("rlpto", probe).status().WithContext("experiment rlpto: option 'agent': "));
    }
    if (ctx.check_only) return Status::Ok();  // options read and checked: nothing run

    const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
    const ModelZoo& zoo = ModelZoo::BuiltIn();
    HETSCHED_ASSIGN_OR_RETURN(const Cluster cluster,
                              MakeShorthandCluster({{"v100", 36}, {"p100", 36}, {"k80", 36}}, 4, devices, LinkCatalog::BuiltIn()));
    TraceReadOptions read;
    read.max_jobs = jobs;
    HETSCHED_ASSIGN_OR_RETURN(Workload all, ReadTrace(trace_path, "gavel", read, devices, zoo));
    if (all.jobs.size() < 8) return Status::InvalidArgument("experiment rlpto: " + trace_path + " has fewer than 8 jobs");
    Rng priorities(ctx.seed);
    for (Job& j : all.jobs) {
      const double u = priorities.Uniform();
      j.spec.priority = u < 0.2 ? 1 : u < 0.7 ? 0 : -1;
      j.spec.submit_time_s *= arrival_scale;
    }
    HETSCHED_ASSIGN_OR_RETURN(const MeasuredThroughputs table, MeasuredThroughputs::Load(table_path, devices));
    SimOptions sim;
    sim.seed = ctx.seed;
    sim.measured_throughputs = &table;

    const size_t half = all.jobs.size() / 2;
    const Workload train = TraceWindow(all, 0, half);
    const Workload test = TraceWindow(all, half, all.jobs.size());
    ctx.print(fmt::format("rlpto (E2): {}; {} jobs of {} (arrival gaps x {:g}): {} to train the agent{}, {} held out to compare\n",
                          cluster.Summary(), all.jobs.size(), trace_path, arrival_scale, train.jobs.size(),
                          agent_file.empty() ? "" : fmt::format(" (not used: agent {})", agent_file), test.jobs.size()));

    learn::AllocationAgentConfig agent_config;
    // With train_yield the agents have the yield action and see its features; otherwise they keep
    // the shape they had before yielding existed (the same agents, the same results).
    agent_config.state_dim = train_yield ? kRlptoStateDim : kRlptoLegacyStateDim;
    agent_config.actions = train_yield ? kRlptoActions : kRlptoLegacyActions;
    agent_config.seed = ctx.seed;
    agent_config.hidden = static_cast<int>(hidden);
    HETSCHED_RETURN_IF_ERROR(agent_config.Validate().WithContext("experiment rlpto: option 'hidden': "));
    RlptoTrainingOptions training;
    training.episodes = static_cast<int>(episodes);
    training.jobs_per_episode = std::min<long long>(episode_jobs, static_cast<long long>(train.jobs.size()));
    training.round_s = round_s;
    training.seed = ctx.seed;
    training.policy_options.Set("profile", table_path);
    training.policy_options.Set("congestion_share", fmt::format("{}", congestion_share));
    training.policy_options.Set("type_share", fmt::format("{}", type_share));
    if (train_yield) training.policy_options.Set("yield", "true");  // episodes with yielding on
    training.teacher_yield = teacher_yield;
    training.imitation_episodes = static_cast<int>(std::clamp<long long>(imitation_episodes, 0, 1000));
    training.imitation_steps = static_cast<int>(std::clamp<long long>(imitation_steps, 0, 1000000));
    training.rollout_baseline = rollout_baseline;
    training.imitation_balance = imitation_balance;
    training.ppo_epochs = static_cast<int>(std::clamp<long long>(ppo_epochs, 1, 1000));
    training.ppo_gamma_per_round = ppo_gamma;
    training.gae_lambda = gae_lambda;
    training.ppo_learning_rate = ppo_lr;
    training.ppo_entropy_bonus = ppo_entropy;
    training.ppo_imitation_coef = ppo_imitation;
    training.ppo_entropy_final = ppo_entropy_final;
    training.ppo_value_scaling = value_scaling;
    training.episode_load_spread = load_spread;
    training.validation_windows = static_cast<int>(std::clamp<long long>(validation_windows, 0, 100));
    training.validation_jobs = std::max<long long>(0, validation_jobs);
    training.critic_warmup_steps = static_cast<int>(std::clamp<long long>(critic_warmup, 0, 1000000));
    // Each learner from the same seed: the same warm start (same windows, same initial weights).
    std::vector<std::pair<std::string, std::string>> agents;  // (label, file)
    if (!agent_file.empty()) {
      agents.emplace_back("RLPTO-agent", agent_file);
      learners.clear();  // nothing to train
    }
    for (const std::string& learner : learners) {
      HETSCHED_ASSIGN_OR_RETURN(learn::AllocationAgent created, learn::AllocationAgent::Create(agent_config));
      auto agent = std::make_shared<learn::AllocationAgent>(std::move(created));
      RlptoTrainingOptions options = training;
      options.learner = learner == "ppo" ? RlptoLearner::kPpo : RlptoLearner::kReinforce;
      if (learner == "ppo") {
        options.episodes = static_cast<int>(ppo_episodes);
        options.validation_by_load = validation_text == "load";
        options.episode_load_range = load_range;
        options.validation_windows = static_cast<int>(std::clamp<long long>(ppo_validation_windows, 0, 100));
      }
      ctx.print(fmt::format("training the agent, learner {}:\n", learner));
      HETSCHED_ASSIGN_OR_RETURN(const RlptoTrainingLog log, TrainRlptoAgent(cluster, zoo, train, options, agent, sim, ctx.print));
      const std::string agent_path = ctx.out_dir + "/rlpto_agent_" + learner + ".bin";
      HETSCHED_RETURN_IF_ERROR(agent->Save(agent_path));
      std::string training_csv = "episode,reward,decisions,mean_jct_h\n";
      for (size_t e = 0; e < log.episode_reward.size(); ++e) {
        training_csv += fmt::format("{},{:.4f},{},{:.4f}\n", e + 1, log.episode_reward[e], log.decisions[e], log.episode_jct_h[e]);
      }
      HETSCHED_RETURN_IF_ERROR(WriteFileAtomic(ctx.out_dir + "/rlpto_training_" + learner + ".csv", training_csv));
      agents.emplace_back(learner == "ppo" ? "RLPTO-PPO" : "RLPTO-REINFORCE", agent_path);
    }

    struct Method {
      std::string label, policy;
      std::vector<std::pair<std::string, std::string>> options;
    };
    const std::string round = fmt::format("{}", round_s);
    std::vector<Method> methods = {
        {"FIFO", "fifo", {}},
        {"SRTF", "srtf", {}},
        {"Tiresias-LAS", "tiresias-las", {}},
        {"Gavel-LAS", "gavel-las", {{"round", round}, {"profile", table_path}}},
        {"multi-priority", "multi-priority", {}},
        {"RLPTO-rule", "rlpto", {{"round", round}}},
        {"RLPTO-rule-no-shrink", "rlpto", {{"round", round}, {"shrink", "false"}}},
        {"RLPTO-heuristic", "rlpto", {{"round", round}, {"allocation", "heuristic"}, {"profile", table_path}}},
    };
    for (const auto& [label, path] : agents) {
      methods.push_back({label, "rlpto", {{"round", round}, {"model", path}, {"profile", table_path}}});
    }
    // Yielding (docs/rlpto.md, "Yielding"): the heuristic and the same agents, with running jobs
    // that have had a large job's service giving their devices back to the head of queue 0.
    if (yield_rows) {
      methods.push_back({"RLPTO-heuristic-yield", "rlpto",
                         {{"round", round}, {"allocation", "heuristic"}, {"profile", table_path}, {"yield", "true"}}});
      for (const auto& [label, path] : agents) {
        methods.push_back({label + "-yield", "rlpto", {{"round", round}, {"model", path}, {"profile", table_path}, {"yield", "true"}}});
      }
    }
    // Ablation (#21 item 3): the same held-out jobs declared elastic (JobSpec::elastic), so that
    // RLPTO's shrinks and the agents' resizes on a job's own type are elastic re-rendezvous
    // (docs/elastic.md) instead of preemptions and restarts. The other methods never resize.
    const size_t rigid_methods = methods.size();
    if (elastic_rows) {
      methods.push_back({"RLPTO-rule-elastic", "rlpto", {{"round", round}}});
      methods.push_back({"RLPTO-heuristic-elastic", "rlpto", {{"round", round}, {"allocation", "heuristic"}, {"profile", table_path}}});
      for (const auto& [label, path] : agents) {
        methods.push_back({label + "-elastic", "rlpto", {{"round", round}, {"model", path}, {"profile", table_path}}});
      }
    }
    std::vector<MethodChoice> choices;
    for (const Method& m : methods) {
      MethodChoice c;
      c.policy = m.policy;
      for (const auto& [k, v] : m.options) c.policy_options.Set(k, v);
      choices.push_back(std::move(c));
    }
    sim.progress = PartProgress(ctx, 0, 2);  // the compared runs (training prints its own lines)
    const std::vector<MethodChoice> rigid_choices(choices.begin(), choices.begin() + static_cast<long>(rigid_methods));
    const std::vector<MethodChoice> elastic_choices(choices.begin() + static_cast<long>(rigid_methods), choices.end());
    auto results = RunMany(cluster, zoo, test, rigid_choices, sim, ctx.threads);
    sim.progress = PartProgress(ctx, 1, 2);
    if (!elastic_choices.empty()) {
      Workload test_elastic = test;
      for (Job& job : test_elastic.jobs) job.spec.elastic = !job.spec.is_container_job();
      for (auto& r : RunMany(cluster, zoo, test_elastic, elastic_choices, sim, ctx.threads)) results.push_back(std::move(r));
    }
    std::vector<Row> rows;
    for (size_t i = 0; i < results.size(); ++i) {
      if (!results[i].ok()) return results[i].status().WithContext("experiment rlpto: " + methods[i].label);
      HETSCHED_RETURN_IF_ERROR(WriteExperimentRun(ctx, "held-out", methods[i].label, *results[i]));
      Row row{methods[i].label, Summarize(*results[i]), 0, 0, 0, 0};
      double high = 0;
      long long n_high = 0;
      for (const JobRecord& j : results[i]->jobs) {
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
      rows.push_back(std::move(row));
    }
    std::string text = fmt::format(
        "method                   avg JCT (h)  high-prio JCT (h)  makespan (h)  util %  deadline misses (JCT > {:g}x ideal)  preemptions  resizes  pause (h)\n",
        deadline_factor);
    std::string csv = "method,jobs_finished,avg_jct_h,high_priority_jct_h,makespan_h,utilisation,deadline_misses,preemptions,resizes,resize_pause_h\n";
    for (const Row& r : rows) {
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
        agent_file.empty() ? std::vector<std::string>{"rlpto_training_<learner>.csv", "rlpto_agent_<learner>.bin"}
                           : std::vector<std::string>{});
  }
};

HETSCHED_REGISTER_IMPL(Experiment, kRlptoExperimentRegistered,
                       (MethodInfo{"rlpto", "E2: RLPTO (agent + shrinking + queues) vs FIFO, SRTF, Tiresias-LAS, Gavel-LAS (108 GPUs)",
                                   "[REC] RLPTO (Lu et al., IEEE TPDS 2023) experiment reconstructed on a Philly-derived trace"}),
                       [](const Options&) -> Result<std::unique_ptr<Experiment>> {
                         return std::unique_ptr<Experiment>(std::make_unique<RlptoExperiment>());
                       })

}  // namespace hetsched
