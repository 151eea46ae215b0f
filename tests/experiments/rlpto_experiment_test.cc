#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/experiments/experiment.h"
#include "hetsched/experiments/rlpto_training.h"
#include "hetsched/policies/rlpto/rlpto.h"
#include "hetsched/trace/trace.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

TEST(RlptoTrainingTest, DiscountedReturnsGolden) {
  // Rewards (10, 1), (20, 2), (30, 4); gamma 0.5 per 10 s round.
  // Decision at 5: 0.5^0.5 x (1 + 0.5 x (2 + 0.5 x 4)) = 0.70710678 x 3 = 2.12132034.
  // Decision at 10 (reward at 10 is for the interval before it): 0.5 x (2 + 0.5 x 4) = 2.
  // Decision at 30: nothing after it: 0.
  const auto g = DiscountedReturns({5, 10, 30}, {{10, 1}, {20, 2}, {30, 4}}, 0.5, 10);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_NEAR(g[0], 2.12132034, 1e-8);
  EXPECT_NEAR(g[1], 2.0, 1e-12);
  EXPECT_EQ(g[2], 0.0);
}

TEST(RlptoTrainingTest, TraceWindowGolden) {
  Workload all;
  all.source = "t";
  for (int i = 0; i < 4; ++i) {
    Job j;
    j.spec.id = 10 + i;
    j.spec.submit_time_s = 100.0 * i;
    j.spec.deadline_s = i == 2 ? 1000 : kNoDeadline;
    all.jobs.push_back(j);
  }
  // Jobs 1..2: ids 0, 1; submit times 100 and 200 shifted by 100 -> 0, 100; the deadline
  // 1000 -> 900; no deadline stays none.
  const Workload w = TraceWindow(all, 1, 3);
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.source, "t jobs 1..2");
  EXPECT_EQ(w.jobs[0].spec.id, 0);
  EXPECT_EQ(w.jobs[1].spec.id, 1);
  EXPECT_EQ(w.jobs[0].spec.submit_time_s, 0.0);
  EXPECT_EQ(w.jobs[1].spec.submit_time_s, 100.0);
  EXPECT_EQ(w.jobs[0].spec.deadline_s, kNoDeadline);
  EXPECT_EQ(w.jobs[1].spec.deadline_s, 900.0);
}

// Offered load from the trace alone: GPU-seconds demanded / GPU-seconds offered between the first
// and the last arrival. No measured table here: a job's trace run time, else its estimate.
TEST(RlptoTrainingTest, OfferedLoadGolden) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  auto cluster = MakeShorthandCluster({{"v100", 8}, {"k80", 8}}, 4, devices, LinkCatalog::BuiltIn());
  ASSERT_TRUE(cluster.ok());
  Workload w;
  for (int i = 0; i < 3; ++i) {
    Job j;
    j.spec.id = i;
    j.spec.submit_time_s = 1000.0 * i;  // arrivals over 2,000 s
    j.spec.num_gpus = 1 << i;           // 1, 2, 4 GPUs
    w.jobs.push_back(j);
  }
  w.jobs[0].truth.runtime_s = 3200;           // 1 x 3,200 GPU-s
  w.jobs[1].spec.estimated_runtime_s = 1600;  // 2 x 1,600 GPU-s
  w.jobs[2].truth.runtime_s = 0;              // nothing known: 0
  // (3,200 + 3,200) / (2,000 s x 16 GPUs) = 0.2.
  EXPECT_NEAR(OfferedLoad(w, *cluster, nullptr), 0.2, 1e-12);
  // Gaps x 2: half the load.
  for (Job& j : w.jobs) j.spec.submit_time_s *= 2;
  EXPECT_NEAR(OfferedLoad(w, *cluster, nullptr), 0.1, 1e-12);
  // One job (no span): the span counts as 1 s.
  w.jobs.resize(1);
  EXPECT_NEAR(OfferedLoad(w, *cluster, nullptr), 3200.0 / 16, 1e-9);
}

// With Gavel's measured table, a job's ideal run time is its iterations at its fastest allowed
// type's steps/s (consolidated): here the V100's, not the K80's.
TEST(RlptoTrainingTest, OfferedLoadUsesTheMeasuredFastestType) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  auto cluster = MakeShorthandCluster({{"v100", 4}, {"k80", 4}}, 4, devices, LinkCatalog::BuiltIn());
  ASSERT_TRUE(cluster.ok());
  auto table = MeasuredThroughputs::Load(std::string(HETSCHED_SOURCE_DIR) + "/data/real/gavel/throughputs.csv", devices);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  const int index = table->JobTypeIndex("A3C");
  ASSERT_GE(index, 0);
  const double v100 = table->StepsPerSecond(index, devices.Find("v100"), 1, true);
  const double k80 = table->StepsPerSecond(index, devices.Find("k80"), 1, true);
  ASSERT_GT(v100, k80);
  Workload w;
  for (int i = 0; i < 2; ++i) {
    Job j;
    j.spec.id = i;
    j.spec.submit_time_s = 3600.0 * i;
    j.spec.num_gpus = 1;
    j.truth.total_iterations = 1e5;
    j.truth.measured_job_type = "A3C";
    j.truth.runtime_s = 1;  // not used: the table has the job
    w.jobs.push_back(j);
  }
  EXPECT_NEAR(OfferedLoad(w, *cluster, &*table), 2 * 1e5 / v100 / (3600.0 * 8), 1e-9);
}

// Windows' loads at a stride, their quantiles, and the randomisation range.
TEST(RlptoTrainingTest, WindowsByLoadGolden) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  auto cluster = MakeShorthandCluster({{"v100", 4}}, 4, devices, LinkCatalog::BuiltIn());
  ASSERT_TRUE(cluster.ok());
  // 7 one-GPU jobs of 3,600 s arriving at gaps 100, 100, 400, 400, 100, 100 s.
  Workload pool;
  const double gaps[] = {0, 100, 100, 400, 400, 100, 100};
  double t = 0;
  for (int i = 0; i < 7; ++i) {
    Job j;
    j.spec.id = i;
    t += gaps[i];
    j.spec.submit_time_s = t;
    j.spec.num_gpus = 1;
    j.truth.runtime_s = 3600;
    pool.jobs.push_back(j);
  }
  // Windows of 3 jobs, stride 2: starts 0, 2, 4 (the last start is 7 - 3 = 4): spans 200, 800,
  // 200 s; load 3 x 3,600 / (span x 4 GPUs) = 13.5, 3.375, 13.5.
  const std::vector<PoolWindowLoad> loads = PoolWindowLoads(pool, 3, 2, *cluster, nullptr);
  ASSERT_EQ(loads.size(), 3u);
  EXPECT_EQ(loads[0].start, 0u);
  EXPECT_EQ(loads[1].start, 2u);
  EXPECT_EQ(loads[2].start, 4u);
  EXPECT_NEAR(loads[0].load, 13.5, 1e-9);
  EXPECT_NEAR(loads[1].load, 3.375, 1e-9);
  EXPECT_NEAR(loads[2].load, 13.5, 1e-9);
  // Stride 3: starts 0, 3, 4 (the last is always included).
  const std::vector<PoolWindowLoad> by3 = PoolWindowLoads(pool, 3, 3, *cluster, nullptr);
  ASSERT_EQ(by3.size(), 3u);
  EXPECT_EQ(by3[1].start, 3u);
  EXPECT_EQ(by3[2].start, 4u);
  // Quantiles: 2 windows -> the lightest (start 2) and the heaviest (ties by start: 4);
  // 1 -> the median (the heavier tie first by start: 0); 3 -> all, lightest first.
  EXPECT_EQ(WindowsByLoadQuantile(loads, 2), (std::vector<size_t>{2, 4}));
  EXPECT_EQ(WindowsByLoadQuantile(loads, 1), (std::vector<size_t>{0}));
  EXPECT_EQ(WindowsByLoadQuantile(loads, 3), (std::vector<size_t>{2, 0, 4}));
  // Range: lo 3.375, hi 13.5, R = 4: [3.375 / 2, 13.5 x 2].
  const auto [lo, hi] = LoadRange(loads);
  EXPECT_NEAR(lo, 1.6875, 1e-9);
  EXPECT_NEAR(hi, 27.0, 1e-9);
}

// The training tests' case: 16 GPUs (8 V100, 8 K80, 4 per server) and 40 synthetic jobs of 1-4
// GPUs arriving at 30 an hour, more work than the cluster can do at once.
struct TrainingCase {
  Result<Cluster> cluster = Status::Internal("unset");
  Result<Workload> pool = Status::Internal("unset");
};
TrainingCase MakeTrainingCase() {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  TrainingCase c;
  c.cluster = MakeShorthandCluster({{"v100", 8}, {"k80", 8}}, 4, devices, LinkCatalog::BuiltIn());
  SyntheticOptions so;
  so.num_jobs = 40;
  so.seed = 3;
  so.arrival_rate_per_hour = 30;
  so.size_mix = {{1, 4}, {2, 2}, {4, 1}};
  so.runtime_sample_s = {600, 1800, 3600, 7200};
  c.pool = GenerateSynthetic(so, devices, ModelZoo::BuiltIn());
  return c;
}

// A new agent of the current shape (26 features, 14 actions), seed 5; null (and a failure) if it
// cannot be made.
std::shared_ptr<learn::AllocationAgent> NewTrainingAgent() {
  learn::AllocationAgentConfig config;
  config.state_dim = kRlptoStateDim;
  config.actions = kRlptoActions;
  config.seed = 5;
  auto created = learn::AllocationAgent::Create(config);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return created.ok() ? std::make_shared<learn::AllocationAgent>(std::move(created).value()) : nullptr;
}

// Trains twice from the same seed with `learner` and checks identical logs and an identical
// agent (imitation, REINFORCE or PPO's shuffled minibatches, and the validation-based selection
// all draw from hetsched::Rng and seeded LibTorch).
void ExpectTrainingDeterministic(RlptoLearner learner, bool by_load = false) {
  const TrainingCase c = MakeTrainingCase();
  ASSERT_TRUE(c.cluster.ok() && c.pool.ok());
  const Cluster& cluster = *c.cluster;
  const Workload& pool = *c.pool;
  RlptoTrainingOptions options;
  options.episodes = 2;
  options.jobs_per_episode = 20;
  options.imitation_episodes = 1;
  options.imitation_steps = 10;
  options.validation_windows = 1;
  options.eval_every = 1;
  options.seed = 5;
  options.learner = learner;
  options.validation_by_load = by_load;
  options.episode_load_range = by_load;
  if (learner == RlptoLearner::kPpo) {  // the critic's warm-up and minibatches, kept small
    options.critic_warmup_steps = 5;
    options.ppo_minibatch = 64;
  }
  SimOptions sim;
  sim.seed = 5;
  std::vector<RlptoTrainingLog> logs;
  std::vector<std::vector<double>> probabilities;
  for (int run = 0; run < 2; ++run) {
    auto agent = NewTrainingAgent();
    ASSERT_NE(agent, nullptr);
    auto log = TrainRlptoAgent(cluster, ModelZoo::BuiltIn(), pool, options, agent, sim, nullptr);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    logs.push_back(*log);
    probabilities.push_back(agent->Probabilities(std::vector<float>(kRlptoStateDim, 0.5f)));
  }
  EXPECT_EQ(logs[0].episode_reward, logs[1].episode_reward);
  EXPECT_EQ(logs[0].decisions, logs[1].decisions);
  EXPECT_EQ(logs[0].validation_jct_h, logs[1].validation_jct_h);
  EXPECT_EQ(logs[0].validation_jct_h.size(), 3u);  // after the warm start, after episodes 1 and 2
  EXPECT_EQ(logs[0].imitation_accuracy, logs[1].imitation_accuracy);
  EXPECT_EQ(probabilities[0], probabilities[1]);
  EXPECT_GT(logs[0].decisions[0], 0);
}

// RlptoTrainingOptions::teacher_yield reaches the training's simulations: on an overloaded
// synthetic pool with low yield thresholds, the heuristic's validation score with the
// scheduler's yield=true differs from the one without yielding when the teacher yields, and is
// the same to the bit when it does not (then nothing yields: no agent acts in that score).
TEST(RlptoTrainingTest, TeacherYieldReachesTheEpisodes) {
  const TrainingCase c = MakeTrainingCase();
  ASSERT_TRUE(c.cluster.ok() && c.pool.ok());
  const Cluster& cluster = *c.cluster;
  const Workload& pool = *c.pool;
  const auto heuristic_score = [&](bool yield, bool teacher_yield) {
    RlptoTrainingOptions options;
    options.episodes = 0;
    options.jobs_per_episode = 40;
    options.imitation_episodes = 1;
    options.imitation_steps = 1;
    options.validation_windows = 1;
    options.seed = 5;
    options.round_s = 300;
    options.teacher_yield = teacher_yield;
    options.policy_options.Set("yield", yield ? "true" : "false");
    options.policy_options.Set("yield_service", "0.1");
    options.policy_options.Set("yield_after", "60");
    auto agent = NewTrainingAgent();
    if (agent == nullptr) return -1.0;
    SimOptions sim;
    sim.seed = 5;
    auto log = TrainRlptoAgent(cluster, ModelZoo::BuiltIn(), pool, options, agent, sim, nullptr);
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return log.ok() ? log->heuristic_validation_jct_h : -1.0;
  };
  const double none = heuristic_score(false, true);
  ASSERT_GT(none, 0);
  EXPECT_NE(heuristic_score(true, true), none);   // the teacher yields
  EXPECT_EQ(heuristic_score(true, false), none);  // it does not
}

TEST(RlptoTrainingTest, DeterministicForASeed) { ExpectTrainingDeterministic(RlptoLearner::kReinforce); }

// The same for PPO with per-job credit (critic warm-up, shuffled minibatches from hetsched::Rng).
TEST(RlptoTrainingTest, PpoDeterministicForASeed) { ExpectTrainingDeterministic(RlptoLearner::kPpo); }

// And with validation windows chosen by offered load and load-randomised episodes.
TEST(RlptoTrainingTest, PpoByLoadDeterministicForASeed) { ExpectTrainingDeterministic(RlptoLearner::kPpo, true); }

// The quick experiment trains for 2 episodes of 30 jobs and compares every method on 40 held-out
// jobs of a real trace; it must print a row per method and write its outputs.
TEST(RlptoExperimentTest, QuickRunWritesEveryMethod) {
  // One directory per process: two builds' test runs at once (CI's release and ASan trees, or
  // two checkouts) must not write into each other's.
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("hetsched_rlpto_experiment_" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  auto experiment = Registry<Experiment>::Instance().Create("rlpto", Options());
  ASSERT_TRUE(experiment.ok());
  ExperimentContext ctx;
  ctx.out_dir = out;
  ctx.quick = true;
  ctx.threads = 2;
  ctx.options.Set("trace", std::string(HETSCHED_SOURCE_DIR) + "/data/real/gavel/traces/msr_seed0_6c71a0.trace");
  ctx.options.Set("throughputs", std::string(HETSCHED_SOURCE_DIR) + "/data/real/gavel/throughputs.csv");
  std::string printed;
  ctx.print = [&](const std::string& s) { printed += s; };
  const Status st = (*experiment)->Run(ctx);
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto csv = ReadFile(out + "/rlpto.csv");
  ASSERT_TRUE(csv.ok());
  for (const char* m : {"\nFIFO,", "\nSRTF,", "\nTiresias-LAS,", "\nGavel-LAS,", "\nmulti-priority,", "\nRLPTO-rule,",
                        "\nRLPTO-heuristic,", "\nRLPTO-REINFORCE,", "\nRLPTO-PPO,", "\nRLPTO-rule-elastic,",
                        "\nRLPTO-PPO-elastic,", "\nRLPTO-heuristic-yield,", "\nRLPTO-REINFORCE-yield,", "\nRLPTO-PPO-yield,"}) {
    EXPECT_NE(csv->find(m), std::string::npos) << m;
  }
  EXPECT_NE(printed.find("episode   2"), std::string::npos) << printed;
  EXPECT_NE(printed.find("imitation: "), std::string::npos) << printed;
  EXPECT_NE(printed.find("kept the agent scored after"), std::string::npos) << printed;
  EXPECT_NE(printed.find("learner ppo"), std::string::npos) << printed;
  EXPECT_TRUE(std::filesystem::exists(out + "/rlpto_agent_reinforce.bin"));
  EXPECT_TRUE(std::filesystem::exists(out + "/rlpto_agent_ppo.bin"));
  // The same table with one thread: the agents' runs in parallel above must not disturb each
  // other (they once raced in LibTorch's state and scored differently from run to run).
  ctx.out_dir = out + "/serial";
  std::filesystem::create_directories(ctx.out_dir);
  ctx.threads = 1;
  const Status serial_run = (*experiment)->Run(ctx);
  ASSERT_TRUE(serial_run.ok()) << serial_run.message();
  auto serial = ReadFile(ctx.out_dir + "/rlpto.csv");
  ASSERT_TRUE(serial.ok());
  EXPECT_EQ(*serial, *csv);
  std::filesystem::remove_all(out);
}

// E2's agent of record is shipped (data/models/rlpto_agent_e2_yield_seed1.bin: seed 1's PPO agent
// of the default command, docs/experiments/rlpto.md "Session 17"): compared without training
// (option agent=), it reproduces the documented held-out figures of seed 1 (RLPTO-PPO: 102.0118
// h with yielding off, RLPTO-PPO-yield: 92.4548 h) and the target of issue #21 item 2 (at least 5%
// below its warm-start heuristic, 104.0479 h).
TEST(RlptoExperimentTest, ShippedAgentReproducesE2) {
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("hetsched_rlpto_shipped_" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out);
  auto experiment = Registry<Experiment>::Instance().Create("rlpto", Options());
  ASSERT_TRUE(experiment.ok());
  ExperimentContext ctx;
  ctx.out_dir = out;
  ctx.seed = 1;
  ctx.threads = 2;
  ctx.options.Set("trace", std::string(HETSCHED_SOURCE_DIR) + "/data/real/gavel/traces/msr_seed0_6c71a0.trace");
  ctx.options.Set("throughputs", std::string(HETSCHED_SOURCE_DIR) + "/data/real/gavel/throughputs.csv");
  ctx.options.Set("agent", std::string(HETSCHED_SOURCE_DIR) + "/data/models/rlpto_agent_e2_yield_seed1.bin");
  ctx.options.Set("elastic", "false");
  std::string printed;
  ctx.print = [&](const std::string& s) { printed += s; };
  const Status st = (*experiment)->Run(ctx);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(printed.find("training the agent"), std::string::npos) << printed;
  auto csv = ReadFile(out + "/rlpto.csv");
  ASSERT_TRUE(csv.ok());
  const auto mean_jct = [&](const std::string& method) {
    const size_t at = csv->find("\n" + method + ",");
    if (at == std::string::npos) return -1.0;
    const std::vector<std::string_view> fields = Split(std::string_view(*csv).substr(at + 1, csv->find('\n', at + 1) - at - 1), ',');
    return std::stod(std::string(fields[2]));
  };
  EXPECT_DOUBLE_EQ(mean_jct("RLPTO-heuristic"), 104.0479);
  EXPECT_DOUBLE_EQ(mean_jct("RLPTO-agent"), 102.0118);
  EXPECT_DOUBLE_EQ(mean_jct("RLPTO-agent-yield"), 92.4548);
  EXPECT_LT(mean_jct("RLPTO-agent-yield"), 0.95 * mean_jct("RLPTO-heuristic"));
  EXPECT_FALSE(std::filesystem::exists(out + "/rlpto_agent_ppo.bin"));
  // A missing file, and a file that is not an agent, are refused by the option's name before
  // anything runs.
  ASSERT_TRUE(WriteFileAtomic(out + "/not_an_agent.bin", "hello").ok());
  for (const std::string& bad : {std::string("/nonexistent/agent.bin"), out + "/not_an_agent.bin"}) {
    ctx.options.Set("agent", bad);
    printed.clear();
    const Status refused = (*experiment)->Run(ctx);
    EXPECT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.message().find("option 'agent'"), std::string::npos) << refused.ToString();
    EXPECT_EQ(printed, "") << bad;
  }
  std::filesystem::remove_all(out);
}

TEST(RlptoExperimentTest, BadOptions) {
  auto experiment = Registry<Experiment>::Instance().Create("rlpto", Options());
  ASSERT_TRUE(experiment.ok());
  ExperimentContext ctx;
  ctx.out_dir = std::filesystem::temp_directory_path().string();
  ctx.print = [](const std::string&) {};
  ctx.options.Set("jobs", "3");
  EXPECT_FALSE((*experiment)->Run(ctx).ok());
  ctx.options.Set("jobs", "50");
  // Sets one bad option: the run fails with `message`; then the option gets a good value.
  const auto expect_refused = [&](const char* key, const char* bad, const char* good, const char* message) {
    ctx.options.Set(key, bad);
    const Status st = (*experiment)->Run(ctx);
    EXPECT_FALSE(st.ok()) << key;
    EXPECT_NE(st.message().find(message), std::string::npos) << st.ToString();
    ctx.options.Set(key, good);
  };
  expect_refused("learners", "ppo,dqn", "ppo", "'dqn' is not reinforce or ppo");
  expect_refused("load_spread", "0.5", "1", "load_spread");
  expect_refused("validation", "time", "load", "'validation' must be 'even' or 'load'");
  expect_refused("type_share", "1.5", "0", "'type_share' must be in [0, 1]");
  for (const char* flag : {"yield_rows", "train_yield", "teacher_yield"}) {
    expect_refused(flag, "sometimes", "true", (std::string("option '") + flag + "': expected true/false").c_str());
  }
  ctx.options.Set("jobs", "50");
  ctx.options.Set("trace", "/nonexistent.trace");
  const Status st = (*experiment)->Run(ctx);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("nonexistent.trace"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
