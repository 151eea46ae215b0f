// RLPTO's deciders (policies/rlpto/decider.h) on hand-made state vectors: the heuristic, the
// agent, and the legacy adapter (narrowing for an agent of 23 features, the yielding rule on what
// it keeps).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "hetsched/policies/rlpto/decider.h"

namespace hetsched::rlpto_internal {
namespace {

using ::testing::ElementsAre;
using F = RlptoFeature;

// A state row: running or waiting, slot 0 the only type, with room for the job's request.
std::vector<float> DeciderTestRow(bool running) {
  std::vector<float> row(kRlptoStateDim, 0.0f);
  row[static_cast<size_t>(F::kBias)] = 1;
  row[static_cast<size_t>(F::kRunning)] = running ? 1.0f : 0.0f;
  row[static_cast<size_t>(F::kHeldShare)] = running ? 1.0f : 0.0f;
  row[static_cast<size_t>(F::kHeldSpeed)] = running ? 1.0f : 0.0f;
  row[static_cast<size_t>(F::kSlotSpeed)] = 1;
  row[static_cast<size_t>(F::kSlotFree)] = 1;
  return row;
}

// A recording inner decider: what it was given, and `action` for every job.
class SpyDecider final : public RlptoDecider {
 public:
  SpyDecider(std::vector<float>* seen, int* seen_dim, int action)
      : seen_(seen), seen_dim_(seen_dim), action_(action) {}
  RlptoDecisions Decide(const RlptoDecisionState& state) override {
    seen_->assign(state.features.begin(), state.features.end());
    *seen_dim_ = state.dim;
    std::vector<int> actions(static_cast<size_t>(state.jobs), action_);
    return {actions, actions};
  }

 private:
  std::vector<float>* seen_;
  int* seen_dim_;
  int action_;
};

// Three jobs: running past both yielding thresholds with queue 0's head blocked, running under
// them, waiting. The heuristic keeps both running jobs (yields the first with yield), and starts
// the waiting one on its request on slot 0.
TEST(RlptoDeciderTest, HeuristicActsAsRlptoHeuristicAction) {
  std::vector<float> states;
  for (const bool past : {true, false}) {
    std::vector<float> row = DeciderTestRow(true);
    row[static_cast<size_t>(F::kHeadBlocked)] = 1;
    row[static_cast<size_t>(F::kServiceShare)] = past ? 1.5f : 0.5f;
    row[static_cast<size_t>(F::kRunShare)] = past ? 1.5f : 0.5f;
    states.insert(states.end(), row.begin(), row.end());
  }
  const std::vector<float> waiting = DeciderTestRow(false);
  states.insert(states.end(), waiting.begin(), waiting.end());
  const RlptoDecisionState state{states, 3, kRlptoStateDim};
  const RlptoDecisions plain = MakeRlptoHeuristicDecider(false)->Decide(state);
  EXPECT_THAT(plain.chosen, ElementsAre(0, 0, RlptoAction(0, 2)));
  EXPECT_EQ(plain.applied, plain.chosen);
  const RlptoDecisions yielding = MakeRlptoHeuristicDecider(true)->Decide(state);
  EXPECT_THAT(yielding.chosen, ElementsAre(kRlptoYield, 0, RlptoAction(0, 2)));
  EXPECT_EQ(yielding.applied, yielding.chosen);
}

// The legacy adapter gives its decider the first `dim` features of each row and, with the rule
// on, turns a keep of a running job past both thresholds into a yield in `applied` only: `chosen`
// stays the decider's own (what training records). Head blocked or not (the scheduler tests it
// as it applies the yield).
TEST(RlptoDeciderTest, LegacyAdapterNarrowsAndYieldsByTheRule) {
  std::vector<float> states;
  for (const bool past : {true, false}) {
    std::vector<float> row = DeciderTestRow(true);
    row[static_cast<size_t>(F::kServiceShare)] = past ? 2.0f : 0.9f;
    row[static_cast<size_t>(F::kRunShare)] = 2.0f;
    states.insert(states.end(), row.begin(), row.end());
  }
  const RlptoDecisionState state{states, 2, kRlptoStateDim};
  for (const bool rule : {true, false}) {
    std::vector<float> seen;
    int seen_dim = 0;
    auto adapter =
        MakeRlptoLegacyAdapter(std::make_unique<SpyDecider>(&seen, &seen_dim, 0), kRlptoLegacyStateDim, rule);
    const RlptoDecisions d = adapter->Decide(state);
    EXPECT_EQ(seen_dim, kRlptoLegacyStateDim);
    ASSERT_EQ(seen.size(), 2u * kRlptoLegacyStateDim);
    for (size_t i = 0; i < 2; ++i) {
      for (size_t f = 0; f < kRlptoLegacyStateDim; ++f)
        EXPECT_EQ(seen[i * kRlptoLegacyStateDim + f], states[i * kRlptoStateDim + f]);
    }
    EXPECT_THAT(d.chosen, ElementsAre(0, 0));
    if (rule) {
      EXPECT_THAT(d.applied, ElementsAre(kRlptoYield, 0));
    } else {
      EXPECT_THAT(d.applied, ElementsAre(0, 0));
    }
  }
  // A decider's own move is never replaced.
  std::vector<float> seen;
  int seen_dim = 0;
  auto mover = MakeRlptoLegacyAdapter(std::make_unique<SpyDecider>(&seen, &seen_dim, RlptoAction(1, 0)),
                                      kRlptoLegacyStateDim, true);
  EXPECT_THAT(mover->Decide(state).applied, ElementsAre(RlptoAction(1, 0), RlptoAction(1, 0)));
}

// The agent decider acts as the agent does: its most probable action without exploring, the
// same samples as the agent with an Rng of the same seed when exploring.
TEST(RlptoDeciderTest, AgentActsAsTheAgent) {
  learn::AllocationAgentConfig config;
  config.state_dim = kRlptoStateDim;
  config.actions = kRlptoActions;
  config.seed = 3;
  auto created = learn::AllocationAgent::Create(config);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto agent = std::make_shared<learn::AllocationAgent>(std::move(created).value());
  std::vector<float> states;
  for (int i = 0; i < 4; ++i) {
    std::vector<float> row = DeciderTestRow(i % 2 == 0);
    row[static_cast<size_t>(F::kProgress)] = 0.2f * static_cast<float>(i);
    states.insert(states.end(), row.begin(), row.end());
  }
  const RlptoDecisionState state{states, 4, kRlptoStateDim};
  EXPECT_EQ(MakeRlptoAgentDecider(agent, std::nullopt)->Decide(state).chosen, agent->Act(states, 4, nullptr));
  auto exploring = MakeRlptoAgentDecider(agent, uint64_t{7});
  Rng rng(7);
  for (int call = 0; call < 3; ++call) {  // the decider's Rng lives across calls
    const RlptoDecisions d = exploring->Decide(state);
    EXPECT_EQ(d.chosen, agent->Act(states, 4, &rng));
    EXPECT_EQ(d.applied, d.chosen);
  }
}

}  // namespace
}  // namespace hetsched::rlpto_internal
