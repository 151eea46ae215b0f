// RLPTO's deciders (decider.h): the heuristic, the agent, and the legacy adapter. Each is a
// function of the state vectors alone; the scheduler carries their actions out (decide.cc).
#include <optional>
#include <utility>

#include "hetsched/policies/rlpto/decider.h"

namespace hetsched::rlpto_internal {
namespace {

class HeuristicDecider final : public RlptoDecider {
 public:
  explicit HeuristicDecider(bool yield) : yield_(yield) {}

  RlptoDecisions Decide(const RlptoDecisionState& state) override {
    RlptoDecisions out;
    out.chosen.resize(static_cast<size_t>(state.jobs));
    for (size_t i = 0; i < out.chosen.size(); ++i) out.chosen[i] = RlptoHeuristicAction(state.Row(i), yield_);
    out.applied = out.chosen;
    return out;
  }

 private:
  bool yield_;
};

class AgentDecider final : public RlptoDecider {
 public:
  AgentDecider(std::shared_ptr<learn::AllocationAgent> agent, std::optional<uint64_t> explore_seed)
      : agent_(std::move(agent)), explore_(explore_seed.value_or(1)), exploring_(explore_seed.has_value()) {}

  RlptoDecisions Decide(const RlptoDecisionState& state) override {
    RlptoDecisions out;
    out.chosen = agent_->Act(state.features, state.jobs, exploring_ ? &explore_ : nullptr);
    out.applied = out.chosen;
    return out;
  }

 private:
  std::shared_ptr<learn::AllocationAgent> agent_;
  Rng explore_;
  bool exploring_;
};

class LegacyAdapter final : public RlptoDecider {
 public:
  LegacyAdapter(std::unique_ptr<RlptoDecider> inner, int dim, bool rule_yields)
      : inner_(std::move(inner)), dim_(dim), rule_yields_(rule_yields) {}

  RlptoDecisions Decide(const RlptoDecisionState& state) override {
    narrow_.clear();
    NarrowRows(state.features, state.dim, dim_, narrow_);
    RlptoDecisions out = inner_->Decide({narrow_, state.jobs, dim_});
    if (!rule_yields_) return out;
    // The rule yields what the decider keeps (it has no yield action); queue 0's head is tested
    // when the scheduler applies it, as the devices stand then.
    for (size_t i = 0; i < out.applied.size(); ++i) {
      if (out.applied[i] == 0 && RlptoYieldThresholdsMet(state.Row(i))) out.applied[i] = kRlptoYield;
    }
    return out;
  }

 private:
  std::unique_ptr<RlptoDecider> inner_;
  int dim_;
  bool rule_yields_;
  std::vector<float> narrow_;
};

}  // namespace

void NarrowRows(std::span<const float> from, int from_dim, int dim, std::vector<float>& out) {
  for (size_t row = 0; row + static_cast<size_t>(from_dim) <= from.size();
       row += static_cast<size_t>(from_dim)) {
    out.insert(out.end(), from.begin() + static_cast<std::ptrdiff_t>(row),
               from.begin() + static_cast<std::ptrdiff_t>(row) + dim);
  }
}

std::unique_ptr<RlptoDecider> MakeRlptoHeuristicDecider(bool yield) {
  return std::make_unique<HeuristicDecider>(yield);
}

std::unique_ptr<RlptoDecider> MakeRlptoAgentDecider(std::shared_ptr<learn::AllocationAgent> agent,
                                                    std::optional<uint64_t> explore_seed) {
  return std::make_unique<AgentDecider>(std::move(agent), explore_seed);
}

std::unique_ptr<RlptoDecider> MakeRlptoLegacyAdapter(std::unique_ptr<RlptoDecider> inner, int dim,
                                                     bool rule_yields) {
  return std::make_unique<LegacyAdapter>(std::move(inner), dim, rule_yields);
}

}  // namespace hetsched::rlpto_internal
