#include "hetsched/learn/lstm_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "hetsched/learn/reinforce.h"
#include "hetsched/util/rng.h"

namespace hetsched::learn {
namespace {

// Six steps with one-hot position features; the reward counts steps whose action is
// step % 3, so the optimum (6) is the sequence 0 1 2 0 1 2.
StepFeatures Positions(int steps) {
  StepFeatures f;
  f.steps = steps;
  for (int s = 0; s < steps; ++s) {
    for (int k = 0; k < steps; ++k) f.values.push_back(k == s ? 1.0f : 0.0f);
  }
  return f;
}
double CountMatches(std::span<const int> a) {
  double r = 0;
  for (size_t s = 0; s < a.size(); ++s) r += a[s] == static_cast<int>(s % 3);
  return r;
}
LstmPolicyConfig SmallConfig(uint64_t seed) {
  LstmPolicyConfig c;
  c.feature_dim = 6;
  c.num_actions = 3;
  c.hidden = 16;
  c.action_embedding = 4;
  c.seed = seed;
  return c;
}

TEST(Reinforce, LearnsAToyTaskAndIsDeterministic) {
  ReinforceConfig rc;
  rc.episodes = 1600;
  rc.batch = 16;
  rc.learning_rate = 2e-2;
  rc.seed = 5;
  std::vector<int> greedy[2];
  ReinforceResult results[2];
  for (int run = 0; run < 2; ++run) {
    auto policy = LstmPolicy::Create(SmallConfig(3));
    ASSERT_TRUE(policy.ok());
    auto r = TrainReinforce(*policy, Positions(6), CountMatches, {}, rc);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    results[run] = *r;
    greedy[run] = *policy->Greedy(Positions(6));
  }
  // The policy itself learned the task (greedy decoding, not only the best sample).
  EXPECT_EQ(greedy[0], (std::vector<int>{0, 1, 2, 0, 1, 2}));
  EXPECT_DOUBLE_EQ(results[0].best_reward, 6.0);
  // Learning: the last updates' mean reward is far above the first's (chance is 2 of 6).
  EXPECT_GT(results[0].mean_reward.back(), results[0].mean_reward.front() + 2.0);
  // Same seeds, same everything.
  EXPECT_EQ(greedy[0], greedy[1]);
  EXPECT_EQ(results[0].best_episode, results[1].best_episode);
  EXPECT_EQ(results[0].mean_reward, results[1].mean_reward);
}

TEST(Reinforce, MaskIsRespected) {
  // Action 0 forbidden everywhere, action 2 forbidden after step 2: no sample may use them.
  const ActionMaskFn mask = [](int step, std::span<const int>, std::vector<uint8_t>* allowed) {
    (*allowed)[1] = 1;
    (*allowed)[2] = step <= 2 ? 1 : 0;
  };
  bool violated = false;
  const RewardFn reward = [&](std::span<const int> a) {
    for (size_t s = 0; s < a.size(); ++s) violated |= a[s] == 0 || (a[s] == 2 && s > 2);
    return CountMatches(a);
  };
  auto policy = LstmPolicy::Create(SmallConfig(1));
  ASSERT_TRUE(policy.ok());
  ReinforceConfig rc;
  rc.episodes = 64;
  auto r = TrainReinforce(*policy, Positions(6), reward, mask, rc);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(violated);
  auto g = policy->Greedy(Positions(6), mask);
  ASSERT_TRUE(g.ok());
  for (size_t s = 0; s < g->size(); ++s) EXPECT_TRUE((*g)[s] == 1 || ((*g)[s] == 2 && s <= 2)) << s;
}

TEST(LstmPolicy, SaveAndLoadKeepConfigurationAndOutputs) {
  auto policy = LstmPolicy::Create(SmallConfig(9));
  ASSERT_TRUE(policy.ok());
  ReinforceConfig rc;
  rc.episodes = 160;
  rc.learning_rate = 2e-2;
  ASSERT_TRUE(TrainReinforce(*policy, Positions(6), CountMatches, {}, rc).ok());
  const std::string path = ::testing::TempDir() + "/lstm_policy_test_" + std::to_string(::getpid()) + ".pt";
  ASSERT_TRUE(policy->Save(path).ok());
  auto loaded = LstmPolicy::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->config().feature_dim, 6);
  EXPECT_EQ(loaded->config().num_actions, 3);
  EXPECT_EQ(loaded->config().hidden, 16);
  EXPECT_EQ(loaded->config().action_embedding, 4);
  EXPECT_EQ(loaded->config().seed, 9u);
  EXPECT_EQ(*loaded->Greedy(Positions(6)), *policy->Greedy(Positions(6)));
  std::filesystem::remove(path);
}

TEST(LstmPolicy, BadInputs) {
  EXPECT_FALSE(LstmPolicy::Create(LstmPolicyConfig{}).ok());  // zero sizes
  auto policy = LstmPolicy::Create(SmallConfig(1));
  ASSERT_TRUE(policy.ok());
  StepFeatures wrong = Positions(5);  // 5 features per step, the policy takes 6
  EXPECT_NE(policy->Greedy(wrong).status().message().find("feature values"), std::string::npos);
  ReinforceConfig rc;
  rc.episodes = 0;
  EXPECT_FALSE(TrainReinforce(*policy, Positions(6), CountMatches, {}, rc).ok());
  const std::string junk = ::testing::TempDir() + "/lstm_policy_junk_" + std::to_string(::getpid()) + ".pt";
  std::ofstream(junk) << "not a policy";
  auto loaded = LstmPolicy::Load(junk);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find(junk), std::string::npos);
  std::filesystem::remove(junk);
}

// Dynamic features: at each step the target action is (sum of the actions so far) % 3, which
// the dynamic features mark (1 for the target action); the static features carry only the
// position. The reward counts the steps that hit their target (optimum 6).
int Target(std::span<const int> prefix) {
  int sum = 0;
  for (int a : prefix) sum += a;
  return sum % 3;
}
double CountTargets(std::span<const int> a) {
  double r = 0;
  for (size_t s = 0; s < a.size(); ++s) r += a[s] == Target(a.subspan(0, s));
  return r;
}
const DynamicFeatureFn kTargetFeature = [](int, std::span<const int> prefix, std::span<float> out) {
  for (int a = 0; a < 3; ++a) out[static_cast<size_t>(a)] = a == Target(prefix) ? 1.0f : 0.0f;
};

// Greedy decodes by Eigen; it must pick what LibTorch's modules pick, for every head (plain,
// per-action static features, dynamic features, both with a repeat bias and a mask), on random
// and on trained weights.
TEST(LstmPolicy, GreedyByEigenMatchesLibTorch) {
  struct Shape {
    int action_features, dynamic_features;
    double repeat_bias;
    bool masked;
  };
  const Shape shapes[] = {{0, 0, 0, false}, {2, 0, 0, false}, {0, 3, 0, false}, {2, 3, 0.5, true}};
  constexpr int kSteps = 40, kActions = 5, kPlainFeatures = 4;
  int compared = 0;
  for (const Shape& shape : shapes) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      LstmPolicyConfig c;
      c.num_actions = kActions;
      c.action_features = shape.action_features;
      c.feature_dim = kPlainFeatures + kActions * shape.action_features;
      c.dynamic_features = shape.dynamic_features;
      c.repeat_bias = shape.repeat_bias;
      c.hidden = 24;
      c.action_embedding = 6;
      c.seed = seed;
      auto policy = LstmPolicy::Create(c);
      ASSERT_TRUE(policy.ok());
      Rng rng(seed * 7);
      StepFeatures f;
      f.steps = kSteps;
      for (int i = 0; i < kSteps * c.feature_dim; ++i) f.values.push_back(static_cast<float>(rng.Uniform(-2, 2)));
      // Dynamic features that depend on the prefix: its length, its last action, its sum.
      DynamicFeatureFn dynamic;
      if (shape.dynamic_features > 0) {
        dynamic = [](int step, std::span<const int> prefix, std::span<float> out) {
          int sum = 0;
          for (int a : prefix) sum += a;
          for (int a = 0; a < kActions; ++a) {
            out[static_cast<size_t>(a * 3)] = static_cast<float>(step) / kSteps;
            out[static_cast<size_t>(a * 3 + 1)] = !prefix.empty() && prefix.back() == a ? 1.0f : 0.0f;
            out[static_cast<size_t>(a * 3 + 2)] = static_cast<float>((sum + a) % kActions) / kActions;
          }
        };
      }
      ActionMaskFn mask;
      if (shape.masked) {
        mask = [](int step, std::span<const int>, std::vector<uint8_t>* allowed) {
          for (int a = 0; a < kActions; ++a) (*allowed)[static_cast<size_t>(a)] = (a + step) % 4 != 0;
        };
      }
      const auto reward = [](std::span<const int> a) {
        double r = 0;
        for (size_t i = 0; i < a.size(); ++i) r += a[i] == static_cast<int>(i % 2);
        return r;
      };
      for (int trained = 0; trained < 2; ++trained) {
        if (trained == 1) {
          ReinforceConfig rc;
          rc.episodes = 256;
          rc.batch = 32;
          rc.learning_rate = 1e-2;
          rc.seed = seed;
          ASSERT_TRUE(TrainReinforce(*policy, f, reward, mask, rc, dynamic).ok());
        }
        auto eigen = policy->Greedy(f, mask, dynamic);
        auto torch = policy->GreedyByLibTorchForTesting(f, mask, dynamic);
        ASSERT_TRUE(eigen.ok() && torch.ok());
        ASSERT_EQ(eigen->size(), static_cast<size_t>(kSteps));
        EXPECT_EQ(*eigen, *torch) << "action_features " << shape.action_features << " dynamic "
                                  << shape.dynamic_features << " seed " << seed << " trained " << trained;
        if (shape.masked) {
          for (int step = 0; step < kSteps; ++step) EXPECT_NE(((*eigen)[static_cast<size_t>(step)] + step) % 4, 0);
        }
        // Decodings differ across seeds and shapes: the comparison is not of constant outputs.
        compared += std::set<int>(eigen->begin(), eigen->end()).size() > 1;
      }
    }
  }
  EXPECT_GE(compared, 20);  // of 32 (23 when written)
}

TEST(LstmPolicy, DynamicFeaturesAreLearntSampledSavedAndChecked) {
  LstmPolicyConfig c = SmallConfig(2);
  c.dynamic_features = 1;
  auto policy = LstmPolicy::Create(c);
  ASSERT_TRUE(policy.ok());
  ReinforceConfig rc;
  rc.episodes = 1600;
  rc.learning_rate = 2e-2;
  rc.seed = 3;
  auto r = TrainReinforce(*policy, Positions(6), CountTargets, {}, rc, kTargetFeature);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto greedy = policy->Greedy(Positions(6), {}, kTargetFeature);
  ASSERT_TRUE(greedy.ok());
  EXPECT_DOUBLE_EQ(CountTargets(*greedy), 6.0);  // the policy follows the dynamic feature
  // Sampling at inference: deterministic for a seed, mostly on target after training.
  auto a = policy->Sample(Positions(6), 32, 11, {}, kTargetFeature);
  auto b = policy->Sample(Positions(6), 32, 11, {}, kTargetFeature);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  ASSERT_EQ(a->size(), 32u);
  double mean = 0;
  for (const auto& seq : *a) mean += CountTargets(seq) / 32;
  EXPECT_GT(mean, 4.0);  // chance is 2
  // Saved with its configuration; the loaded policy decodes the same.
  const std::string path = ::testing::TempDir() + "/lstm_policy_dyn_" + std::to_string(::getpid()) + ".pt";
  ASSERT_TRUE(policy->Save(path).ok());
  auto loaded = LstmPolicy::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->config().dynamic_features, 1);
  EXPECT_EQ(*loaded->Greedy(Positions(6), {}, kTargetFeature), *greedy);
  std::filesystem::remove(path);
  // A policy with dynamic features needs them, one without refuses them.
  EXPECT_FALSE(policy->Greedy(Positions(6)).ok());
  EXPECT_FALSE(policy->Sample(Positions(6), 4, 1).ok());
  auto plain = LstmPolicy::Create(SmallConfig(2));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->Greedy(Positions(6), {}, kTargetFeature).ok());
  EXPECT_FALSE(plain->Sample(Positions(6), 0, 1).ok());
}

// A deceptive task over four steps: every 0 scores 1 (all zeros: 4), but the one sequence
// 2 1 2 1 scores 10. The mean reward pulls the policy towards zeros; once the needle has been sampled, the
// risk-seeking gradient (only the batch's best reinforced) and the priority queue (the best
// sequences replayed and imitated at every update) must make the policy itself decode it.
const std::vector<int> kNeedle = {2, 1, 2, 1};
double Deceptive(std::span<const int> a) {
  if (std::equal(a.begin(), a.end(), kNeedle.begin(), kNeedle.end())) return 10.0;
  return static_cast<double>(std::count(a.begin(), a.end(), 0));
}

TEST(Reinforce, RiskSeekingWithPriorityQueueKeepsTheRareBestSequence) {
  LstmPolicyConfig config = SmallConfig(3);
  config.feature_dim = 4;
  ReinforceConfig rc;
  rc.episodes = 3200;
  rc.batch = 64;
  rc.learning_rate = 1e-2;
  rc.seed = 7;
  rc.elite = 1;  // the best sequence alone is replayed (with 16, the zero-heavy runners-up outvote it)
  struct Variant {
    double risk, imitation;
  };
  std::vector<int> greedy[2];
  ReinforceResult results[2];
  const Variant variants[2] = {{0.1, 1.0}, {0.0, 0.0}};
  for (int v = 0; v < 2; ++v) {
    rc.risk = variants[v].risk;
    rc.imitation = variants[v].imitation;
    auto policy = LstmPolicy::Create(config);
    ASSERT_TRUE(policy.ok());
    auto r = TrainReinforce(*policy, Positions(4), Deceptive, {}, rc);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    results[v] = *r;
    greedy[v] = *policy->Greedy(Positions(4));
  }
  EXPECT_EQ(results[0].best_actions, kNeedle);
  EXPECT_EQ(greedy[0], kNeedle);  // the policy itself, not only the best sample
  // The same budget and seeds with plain REINFORCE: the policy settles elsewhere (so the test
  // above depends on the two aids).
  EXPECT_NE(greedy[1], kNeedle);
  // Bad values are refused.
  rc.risk = 1.5;
  auto policy = LstmPolicy::Create(config);
  EXPECT_FALSE(TrainReinforce(*policy, Positions(4), Deceptive, {}, rc).ok());
  rc.risk = 0.1;
  rc.imitation = -1;
  EXPECT_FALSE(TrainReinforce(*policy, Positions(4), Deceptive, {}, rc).ok());
}

}  // namespace
}  // namespace hetsched::learn
