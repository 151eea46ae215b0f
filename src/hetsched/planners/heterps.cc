// HeterPS (Feng et al., FGCS 2023; ALGORITHMS.md 2.4): an LSTM policy reads the layers in order
// and picks a resource type per layer (consecutive layers on one type form a stage), trained by
// REINFORCE with reward -cost/cost_ref from the provisioning step (cost_model.h); infeasible
// plans get -10 - (their infeasible layers' share). cost_ref is the cheapest single-type plan,
// so a reward above -1 beats every all-on-one-type baseline. Returns the best plan sampled or
// decoded greedily after training, then (option polish, default on) improved by a local search
// over stage boundaries and stage types (cost_search.h; ours, not the paper's): the plan's
// learned_objective keeps the RL plan's own cost.
#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "hetsched/learn/lstm_policy.h"
#include "hetsched/learn/reinforce.h"
#include "hetsched/planners/cost_model.h"
#include "hetsched/planners/cost_search.h"
#include "hetsched/planners/rl_common.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

constexpr double kInfeasiblePenalty = 10.0;  // P_inf of ALGORITHMS.md 2.4

class HeterPsPlanner : public HeteroPlanner {
 public:
  explicit HeterPsPlanner(LearnedPlannerOptions o) : o_(std::move(o)) {}
  std::string_view name() const override { return "heterps"; }
  bool Supports(PlanObjective o) const override { return o == PlanObjective::kCostUnderThroughput; }

  Result<HeteroPlan> Solve(const PlanningProblem& p) override {
    auto built = StageCostModel::Build(p);
    if (!built.ok()) return built.status();
    const StageCostModel& m = *built;
    const int L = m.num_layers(), D = m.num_types();
    double ref = StageCostModel::kInfeasible;
    for (int t = 0; t < D; ++t) ref = std::min(ref, m.AssignmentCost(std::vector<int>(static_cast<size_t>(L), t)));
    if (ref == StageCostModel::kInfeasible) {
      auto greedy = SolveCostGreedyPerLayer(m);
      ref = greedy.ok() ? greedy->cost_per_hour : 1.0;
    }
    // Per-type features of each layer l: log10 of price x one-layer time (cost per sample);
    // whether the layer alone fits in the type's memory; and the cost of running the rest of the
    // model, layers l..L-1, as one stage on the type, relative to ref (log10, clipped to
    // [-2, 2]; 2 when it does not fit). The last one tells the policy at each layer what staying
    // on a type until the end would cost [REC, ours].
    const learn::StepFeatures features = LayerFeatures(*p.model, 3 * D, [&](int l, std::vector<float>* row) {
      for (int t = 0; t < D; ++t) {
        const double s = m.ComputeS(l, l, t) - m.type(t).iteration_overhead_s;
        row->push_back(static_cast<float>(std::log10(1e-12 + m.type(t).price_per_hour * std::max(0.0, s)) / 10.0));
        row->push_back(m.StageCost(l, l, t) < StageCostModel::kInfeasible ? 1.0f : 0.0f);
        const double rest = m.StageCost(l, L - 1, t);
        const double rel = rest < StageCostModel::kInfeasible ? std::clamp(std::log10(rest / ref), -2.0, 2.0) : 2.0;
        row->push_back(static_cast<float>(rel / 2.0));
      }
    });
    const auto reward = [&](std::span<const int> a) {
      const double cost = m.AssignmentCost(a);
      if (cost < StageCostModel::kInfeasible) return -cost / ref;
      int bad = 0;  // layers whose type cannot hold them alone: a gradient towards feasibility
      for (int l = 0; l < L; ++l) bad += m.StageCost(l, l, a[static_cast<size_t>(l)]) == StageCostModel::kInfeasible;
      return -kInfeasiblePenalty - static_cast<double>(bad) / L;
    };
    HETSCHED_ASSIGN_OR_RETURN(const LearnedAssignment learned,
                              LearnAssignment(o_, features, D, /*action_features=*/3, reward, {},
                                              [&](std::span<const int> a) { return m.AssignmentCost(a); }));
    auto plan = m.EvaluateAssignment(learned.actions, "heterps");
    if (!plan.ok()) {
      return Status::Infeasible(fmt::format("heterps: no feasible plan found in {} episodes ({})", learned.episodes,
                                            plan.status().message()));
    }
    plan->episodes = learned.episodes;
    plan->episodes_to_best = learned.episodes_to_best;
    plan->evaluations = learned.episodes;
    plan->learned_objective = learned.learned_objective;
    plan->note = fmt::format(
        "REINFORCE: reward -cost/{:.4g} $/h (cheapest single-type plan); learned plan {:.6g} $/h, {} local-search "
        "move(s){}",
        ref, learned.learned_objective, learned.polish_moves, o_.polish ? "" : " (polish=false)");
    return plan;
  }

 private:
  LearnedPlannerOptions o_;
};

Result<std::unique_ptr<HeteroPlanner>> MakeHeterPs(const Options& options) {
  auto o = ReadLearnedPlannerOptions(options, {.episodes = 2000, .lr = 1e-3, .entropy = 0.01, .entropy_final = -1});
  if (!o.ok()) return o.status();
  return std::unique_ptr<HeteroPlanner>(std::make_unique<HeterPsPlanner>(std::move(o).value()));
}

const MethodInfo kHeterPsInfo{
    "heterps",
    "LSTM policy picks a resource type per layer, REINFORCE on the provisioned cost (options: episodes, batch, lr, "
    "entropy, entropy_final, hidden, repeat_bias, patience, seed, save, polish, action_head)",
    "[SRC] RL scheduling of layers to resource types, min cost under a throughput limit (Feng et al., FGCS 2023); "
    "[REC-M] LSTM + REINFORCE; [REC] features, reward, provisioning model (ALGORITHMS.md 2.2-2.4), local-search polish (ours)"};

}  // namespace

HETSCHED_REGISTER_IMPL(HeteroPlanner, kHeterPsRegistered, kHeterPsInfo, MakeHeterPs)

}  // namespace hetsched
