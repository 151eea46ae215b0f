// RLPTO's decision stage (internal to policies/rlpto/): what the jobs up for a decision at one
// scheduling call get, as actions of rlpto.h's action space, from the state vectors the scheduler
// builds (RlptoFeature). The scheduler holds one decider, chosen once from its options
// (MakeRlptoScheduler): the heuristic, the agent, or either of them behind the legacy adapter (an
// agent of the earlier shape, or the heuristic teaching one). The rule (allocation=rule) reads no
// state vector: it is the scheduler's own dispatch (RlptoScheduler::DispatchByRule).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "hetsched/learn/allocation_agent.h"
#include "hetsched/policies/rlpto/rlpto.h"
#include "hetsched/util/rng.h"

namespace hetsched::rlpto_internal {

// The state RLPTO decides on: one row of `dim` features per job (RlptoFeature's first `dim`), the
// running jobs first. The scheduler's rows have every feature (kRlptoStateDim).
struct RlptoDecisionState {
  std::span<const float> features;  // jobs x dim
  int jobs = 0;
  int dim = kRlptoStateDim;
  std::span<const float> Row(size_t i) const {
    return features.subspan(i * static_cast<size_t>(dim), static_cast<size_t>(dim));
  }
};

// One action per job: `chosen` is the decider's own (its action space: what training records and
// learns from), `applied` what the scheduler carries out; they differ only behind the legacy
// adapter, where the yielding rule turns some keeps into kRlptoYield.
struct RlptoDecisions {
  std::vector<int> chosen;
  std::vector<int> applied;
};

class RlptoDecider {
 public:
  virtual ~RlptoDecider() = default;
  // REQUIRES: state.features.size() == state.jobs x state.dim, dim at least what the decider reads.
  virtual RlptoDecisions Decide(const RlptoDecisionState& state) = 0;
};

// The heuristic (RlptoHeuristicAction), yielding by its rule when `yield`. Without `yield` it reads
// only the first kRlptoLegacyStateDim features.
std::unique_ptr<RlptoDecider> MakeRlptoHeuristicDecider(bool yield);

// The agent's most probable action for each job, or, with `explore_seed`, one sampled from its
// policy with an Rng seeded from it (training). The agent sees its first config().state_dim
// features: REQUIRES state.dim == agent->config().state_dim (behind the legacy adapter when it is
// not kRlptoStateDim).
std::unique_ptr<RlptoDecider> MakeRlptoAgentDecider(std::shared_ptr<learn::AllocationAgent> agent,
                                                    std::optional<uint64_t> explore_seed);

// A decider of the earlier shape (no yield action; the first `dim` features): `inner` decides on
// the first `dim` features of each row; with `rule_yields`, a running job it keeps whose yielding
// thresholds are met (RlptoYieldThresholdsMet on the whole row) is yielded instead (queue 0's head
// is tested as the scheduler applies it). REQUIRES: rows of kRlptoStateDim.
std::unique_ptr<RlptoDecider> MakeRlptoLegacyAdapter(std::unique_ptr<RlptoDecider> inner, int dim,
                                                     bool rule_yields);

// The first `dim` of every `from_dim` values of `from`, appended to `out` (a narrower agent's view).
void NarrowRows(std::span<const float> from, int from_dim, int dim, std::vector<float>& out);

}  // namespace hetsched::rlpto_internal
