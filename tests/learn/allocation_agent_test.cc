#include "hetsched/learn/allocation_agent.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>
#include <unistd.h>  // getpid: a path of its own beside concurrent test runs

namespace hetsched::learn {
namespace {

AllocationAgentConfig Bandit() {
  AllocationAgentConfig c;
  c.state_dim = 2;
  c.actions = 3;
  c.hidden = 8;
  c.learning_rate = 0.05;
  c.seed = 4;
  return c;
}

// A new agent; a failure to create one (bad config, back end missing) fails the test.
AllocationAgent Make(const AllocationAgentConfig& config) {
  auto agent = AllocationAgent::Create(config);
  EXPECT_TRUE(agent.ok()) << agent.status().ToString();
  return std::move(agent).value();  // throws (and the test fails) when there is none
}

// A contextual bandit: in state (1, 0) action 2 pays +1, in state (0, 1) action 0 pays +1, every
// other action -1. REINFORCE with these rewards as advantages must learn both.
TEST(AllocationAgentTest, LearnsAContextualBandit) {
  AllocationAgent agent = Make(Bandit());
  Rng rng(9);
  const std::vector<float> states{1, 0, 0, 1};
  for (int step = 0; step < 150; ++step) {
    const std::vector<int> acts = agent.Act(states, 2, &rng);
    const std::vector<double> adv{acts[0] == 2 ? 1.0 : -1.0, acts[1] == 0 ? 1.0 : -1.0};
    ASSERT_TRUE(agent.Update(states, acts, adv).ok());
  }
  EXPECT_GT(agent.Probabilities(std::vector<float>{1, 0})[2], 0.9);
  EXPECT_GT(agent.Probabilities(std::vector<float>{0, 1})[0], 0.9);
  EXPECT_EQ(agent.Act(states, 2, nullptr), (std::vector<int>{2, 0}));  // greedy
}

// The same bandit by PPO: advantages = reward - the critic's value, the critic's target the
// reward. Both states must be learnt, and the critic must find each state's value under the
// learnt policy (close to +1 once the policy picks the paying action).
TEST(AllocationAgentTest, PpoLearnsTheBanditAndItsValues) {
  AllocationAgent agent = Make(Bandit());
  Rng rng(9);
  const std::vector<float> states{1, 0, 0, 1};
  const PpoConfig ppo{.learning_rate = 0.02, .clip = 0.2, .value_coef = 0.5, .max_grad_norm = 1.0};
  std::vector<double> log_probs, values;
  for (int step = 0; step < 150; ++step) {
    const std::vector<int> acts = agent.Act(states, 2, &rng);
    const std::vector<double> reward{acts[0] == 2 ? 1.0 : -1.0, acts[1] == 0 ? 1.0 : -1.0};
    agent.Evaluate(states, acts, &log_probs, &values);
    const std::vector<double> adv{reward[0] - values[0], reward[1] - values[1]};
    for (int epoch = 0; epoch < 2; ++epoch) ASSERT_TRUE(agent.PpoUpdate({states, acts, log_probs, adv, reward, {}}, ppo).ok());
  }
  EXPECT_GT(agent.Probabilities(std::vector<float>{1, 0})[2], 0.9);
  EXPECT_GT(agent.Probabilities(std::vector<float>{0, 1})[0], 0.9);
  agent.Evaluate(states, std::vector<int>{2, 0}, &log_probs, &values);
  EXPECT_GT(values[0], 0.6);
  EXPECT_GT(values[1], 0.6);
  // Sizes that disagree and a bad clip are refused.
  EXPECT_FALSE(agent.PpoUpdate({states, std::vector<int>{2}, log_probs, log_probs, log_probs, {}}, ppo).ok());
  PpoConfig bad = ppo;
  bad.clip = 0;
  EXPECT_FALSE(agent.PpoUpdate({states, std::vector<int>{2, 0}, log_probs, log_probs, log_probs, {}}, bad).ok());
}

// FitValue moves the critic alone: the policy's probabilities do not change.
TEST(AllocationAgentTest, FitValueTrainsTheCriticOnly) {
  AllocationAgent agent = Make(Bandit());
  const std::vector<float> states{1, 0, 0, 1};
  const std::vector<double> before = agent.Probabilities(std::vector<float>{1, 0});
  for (int step = 0; step < 300; ++step) ASSERT_TRUE(agent.FitValue(states, std::vector<double>{3, -2}, 0.02).ok());
  std::vector<double> log_probs, values;
  agent.Evaluate(states, std::vector<int>{0, 0}, &log_probs, &values);
  EXPECT_NEAR(values[0], 3, 0.1);
  EXPECT_NEAR(values[1], -2, 0.1);
  EXPECT_EQ(agent.Probabilities(std::vector<float>{1, 0}), before);
  EXPECT_FALSE(agent.FitValue(states, std::vector<double>{3}, 0.02).ok());
}

TEST(AllocationAgentTest, DeterministicAndSavedExactly) {
  AllocationAgent a = Make(Bandit()), b = Make(Bandit());
  const std::vector<float> s{0.3f, -0.2f};
  EXPECT_EQ(a.Probabilities(s), b.Probabilities(s));
  const std::string path =
      (std::filesystem::temp_directory_path() / ("hetsched_agent_test_" + std::to_string(::getpid()) + ".bin")).string();
  ASSERT_TRUE(a.Update(s, std::vector<int>{1}, std::vector<double>{1.0}).ok());
  ASSERT_TRUE(a.Save(path).ok());
  auto loaded = AllocationAgent::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->Probabilities(s), a.Probabilities(s));
  EXPECT_EQ(loaded->config().actions, 3);
  std::vector<double> lp_a, v_a, lp_b, v_b;  // the critic is saved too
  a.Evaluate(s, std::vector<int>{1}, &lp_a, &v_a);
  loaded->Evaluate(s, std::vector<int>{1}, &lp_b, &v_b);
  EXPECT_EQ(v_a, v_b);
  EXPECT_EQ(lp_a, lp_b);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 5);
  EXPECT_FALSE(AllocationAgent::Load(path).ok());
  std::filesystem::remove(path);
}

// Imitation is the policy loss with advantage 1 (cross-entropy): fitting the labels of the
// bandit's two states makes the greedy agent reproduce them; CopyWeightsFrom then carries the
// fitted weights into a fresh agent exactly, and refuses a network of another size.
TEST(AllocationAgentTest, ImitationAndCopyWeights) {
  AllocationAgent a = Make(Bandit());
  const std::vector<float> states{1, 0, 0, 1};
  for (int step = 0; step < 100; ++step) ASSERT_TRUE(a.Update(states, std::vector<int>{1, 2}, std::vector<double>{1, 1}).ok());
  EXPECT_EQ(a.Act(states, 2, nullptr), (std::vector<int>{1, 2}));
  AllocationAgentConfig other = Bandit();
  other.seed = 99;
  AllocationAgent b = Make(other);
  EXPECT_NE(b.Probabilities(std::vector<float>{1, 0}), a.Probabilities(std::vector<float>{1, 0}));
  ASSERT_TRUE(b.CopyWeightsFrom(a).ok());
  EXPECT_EQ(b.Probabilities(std::vector<float>{1, 0}), a.Probabilities(std::vector<float>{1, 0}));
  EXPECT_EQ(b.Probabilities(std::vector<float>{0, 1}), a.Probabilities(std::vector<float>{0, 1}));
  AllocationAgentConfig wider = Bandit();
  wider.hidden = 16;
  AllocationAgent c = Make(wider);
  EXPECT_FALSE(c.CopyWeightsFrom(a).ok());
}

TEST(AllocationAgentTest, BadInput) {
  AllocationAgent agent = Make(Bandit());
  const std::vector<float> s{1, 0};
  EXPECT_FALSE(agent.Update(s, std::vector<int>{0, 1}, std::vector<double>{1}).ok());
  EXPECT_FALSE(agent.Update(s, std::vector<int>{3}, std::vector<double>{1}).ok());
  EXPECT_FALSE(agent.Update(s, std::vector<int>{}, std::vector<double>{}).ok());
  AllocationAgentConfig bad = Bandit();
  bad.actions = 1;
  EXPECT_FALSE(bad.Validate().ok());
  const auto refused = AllocationAgent::Create(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("field 'actions'"), std::string::npos) << refused.status().ToString();
  EXPECT_FALSE(AllocationAgent::Load("/nonexistent/agent.bin").ok());
}

}  // namespace
}  // namespace hetsched::learn
