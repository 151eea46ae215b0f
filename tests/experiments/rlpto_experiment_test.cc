#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hetsched/experiments/experiment.h"
#include "hetsched/experiments/rlpto_training.h"
#include "hetsched/policies/rlpto.h"
#include "hetsched/trace/trace.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"

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

// Trains twice from the same seed with `learner` and checks identical logs and an identical
// agent (imitation, REINFORCE or PPO's shuffled minibatches, and the validation-based selection
// all draw from hetsched::Rng and seeded LibTorch).
void ExpectTrainingDeterministic(RlptoLearner learner) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  auto cluster = MakeShorthandCluster({{"v100", 8}, {"k80", 8}}, 4, devices, LinkCatalog::BuiltIn());
  ASSERT_TRUE(cluster.ok());
  SyntheticOptions so;
  so.num_jobs = 40;
  so.seed = 3;
  so.arrival_rate_per_hour = 30;
  so.size_mix = {{1, 4}, {2, 2}, {4, 1}};
  so.runtime_sample_s = {600, 1800, 3600, 7200};
  auto pool = GenerateSynthetic(so, devices, ModelZoo::BuiltIn());
  ASSERT_TRUE(pool.ok());
  RlptoTrainingOptions options;
  options.episodes = 2;
  options.jobs_per_episode = 20;
  options.imitation_episodes = 1;
  options.imitation_steps = 10;
  options.validation_windows = 1;
  options.eval_every = 1;
  options.seed = 5;
  options.learner = learner;
  if (learner == RlptoLearner::kPpo) {  // the critic's warm-up and minibatches, kept small
    options.critic_warmup_steps = 5;
    options.ppo_minibatch = 64;
  }
  SimOptions sim;
  sim.seed = 5;
  std::vector<RlptoTrainingLog> logs;
  std::vector<std::vector<double>> probabilities;
  for (int run = 0; run < 2; ++run) {
    learn::AllocationAgentConfig config;
    config.state_dim = kRlptoStateDim;
    config.actions = kRlptoActions;
    config.seed = 5;
    auto created = learn::AllocationAgent::Create(config);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    auto agent = std::make_shared<learn::AllocationAgent>(std::move(created).value());
    auto log = TrainRlptoAgent(*cluster, ModelZoo::BuiltIn(), *pool, options, agent, sim, nullptr);
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

TEST(RlptoTrainingTest, DeterministicForASeed) { ExpectTrainingDeterministic(RlptoLearner::kReinforce); }

// The same for PPO with per-job credit (critic warm-up, shuffled minibatches from hetsched::Rng).
TEST(RlptoTrainingTest, PpoDeterministicForASeed) { ExpectTrainingDeterministic(RlptoLearner::kPpo); }

// The quick experiment trains for 2 episodes of 30 jobs and compares every method on 40 held-out
// jobs of a real trace; it must print a row per method and write its outputs.
TEST(RlptoExperimentTest, QuickRunWritesEveryMethod) {
  const std::string out = (std::filesystem::temp_directory_path() / "hetsched_rlpto_experiment").string();
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
                        "\nRLPTO-heuristic,", "\nRLPTO-REINFORCE,", "\nRLPTO-PPO,"}) {
    EXPECT_NE(csv->find(m), std::string::npos) << m;
  }
  EXPECT_NE(printed.find("episode   2"), std::string::npos) << printed;
  EXPECT_NE(printed.find("imitation: "), std::string::npos) << printed;
  EXPECT_NE(printed.find("kept the agent scored after"), std::string::npos) << printed;
  EXPECT_NE(printed.find("learner ppo"), std::string::npos) << printed;
  EXPECT_TRUE(std::filesystem::exists(out + "/rlpto_agent_reinforce.bin"));
  EXPECT_TRUE(std::filesystem::exists(out + "/rlpto_agent_ppo.bin"));
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
  ctx.options.Set("learners", "ppo,dqn");
  const Status learner = (*experiment)->Run(ctx);
  ASSERT_FALSE(learner.ok());
  EXPECT_NE(learner.message().find("'dqn' is not reinforce or ppo"), std::string::npos) << learner.ToString();
  ctx.options.Set("learners", "ppo");
  ctx.options.Set("load_spread", "0.5");
  EXPECT_FALSE((*experiment)->Run(ctx).ok());
  ctx.options.Set("load_spread", "1");
  ctx.options.Set("jobs", "50");
  ctx.options.Set("trace", "/nonexistent.trace");
  const Status st = (*experiment)->Run(ctx);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("nonexistent.trace"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
