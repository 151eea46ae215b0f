// HeterPS (Feng et al., FGCS 2023; ALGORITHMS.md 2.4): an LSTM policy reads the layers in order
// and picks a resource type per layer (consecutive layers on one type form a stage), trained by
// REINFORCE with reward -cost/cost_ref from the provisioning step (cost_model.h); infeasible
// plans get -10 - (their infeasible layers' share). cost_ref is the cheapest single-type plan,
// so a reward above -1 beats every all-on-one-type baseline. The gradient is risk-seeking (only
// the best 10 % of each batch of 64 is reinforced, Petersen et al. 2021) and the 16 best plans
// found so far are imitated at every update (priority-queue training, Abolafia et al. 2018): the
// planner keeps its best plan, so it is the best case, not the mean, that training must push
// [REC: the choice is ours, learn/reinforce.h]. Returns the best plan sampled or decoded
// greedily after training, then (option polish, default on) improved by a local search over
// stage boundaries and stage types (cost_search.h; ours, not the paper's): the plan's
// learned_objective keeps the RL plan's own cost.
#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "hetsched/learn/lstm_policy.h"
#include "hetsched/learn/reinforce.h"
#include "hetsched/planners/cost_model.h"
#include "hetsched/planners/cost_search.h"
#include "hetsched/planners/heterps_features.h"
#include "hetsched/planners/rl_common.h"
#include "hetsched/sched/registry.h"

namespace hetsched {

// The partial plan's features for each type t at layer l [REC, ours]: with the prefix's closed
// stages costing C and its open stage [s, l-1] on type c (P = C + cost(s..l-1 on c)):
//   0: t == c;
//   1: the marginal cost of putting layer l on t, log2(1 + (P' - P) / p_min) / 3 clipped to 1,
//      with p_min the cheapest unit price of the pool (P' = C + cost(s..l on c) if t == c, else
//      P + cost(l..l on t); 1 when infeasible);
//   2: the cost of the plan completed by keeping t to the last layer, RelativeLogFeature;
//   3: whether P' is feasible;
//   4: how full the units of the stage that layer l would end are: its load (StageLoad, the
//      units it needs as a real number) over the units it gets (the load's ceiling), in (0, 1]
//      (0 when it does not fit): close to 1, one more layer buys a unit;
//   5: those units, log2(units) / 4 clipped to 1.
// O(l) per call (the prefix is scanned) plus O(D) stage costs of O(1).
void HeterPsPartialPlanFeatures(const StageCostModel& m, double ref, double min_price, int l, std::span<const int> prefix,
                         std::span<float> out) {
  const int L = m.num_layers(), D = m.num_types();
  double closed = 0;
  int start = 0;
  for (int i = 1; i < l; ++i) {
    if (prefix[static_cast<size_t>(i)] != prefix[static_cast<size_t>(i - 1)]) {
      closed += m.StageCost(start, i - 1, prefix[static_cast<size_t>(i - 1)]);
      start = i;
    }
  }
  const int c = l > 0 ? prefix[static_cast<size_t>(l - 1)] : -1;
  const double open = c >= 0 ? m.StageCost(start, l - 1, c) : 0.0;
  for (int t = 0; t < D; ++t) {
    double next = 0, complete = 0;
    if (t == c) {
      next = closed + m.StageCost(start, l, c);
      complete = closed + m.StageCost(start, L - 1, c);
    } else {
      next = closed + open + m.StageCost(l, l, t);
      complete = closed + open + m.StageCost(l, L - 1, t);
    }
    const bool feasible = next < StageCostModel::kInfeasible;
    float* f = out.data() + static_cast<size_t>(t) * kHeterPsDynamicFeatures;
    f[0] = t == c ? 1.0f : 0.0f;
    const double marginal = std::max(0.0, next - closed - open) / min_price;
    f[1] = feasible ? static_cast<float>(std::min(1.0, std::log2(1.0 + marginal) / 3.0)) : 1.0f;
    f[2] = RelativeLogFeature(complete, ref);
    f[3] = feasible ? 1.0f : 0.0f;
    const double load = m.StageLoad(t == c ? start : l, l, t);
    const double units = std::max(1.0, std::ceil(load - 1e-9));
    f[4] = load < StageCostModel::kInfeasible ? static_cast<float>(load / units) : 0.0f;
    f[5] = load < StageCostModel::kInfeasible ? static_cast<float>(std::min(1.0, std::log2(units) / 4.0)) : 1.0f;
  }
}

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
    double min_price = StageCostModel::kInfeasible;
    for (int t = 0; t < D; ++t) min_price = std::min(min_price, m.type(t).price_per_hour);
    const auto reward = [&](std::span<const int> a) {
      const double cost = m.AssignmentCost(a);
      if (cost < StageCostModel::kInfeasible) return -cost / ref;
      int bad = 0;  // layers whose type cannot hold them alone: a gradient towards feasibility
      for (int l = 0; l < L; ++l) bad += m.StageCost(l, l, a[static_cast<size_t>(l)]) == StageCostModel::kInfeasible;
      return -kInfeasiblePenalty - static_cast<double>(bad) / L;
    };
    HETSCHED_ASSIGN_OR_RETURN(const LearnedAssignment learned,
                              LearnAssignment(o_, features, D, /*action_features=*/3, reward, {},
                                              [&](std::span<const int> a) { return m.AssignmentCost(a); },
                                              {kHeterPsDynamicFeatures, [&](int l, std::span<const int> prefix, std::span<float> out) {
                                                 HeterPsPartialPlanFeatures(m, ref, min_price, l, prefix, out);
                                               }}));
    auto plan = m.EvaluateAssignment(learned.actions, "heterps");
    if (!plan.ok()) {
      return Status::Infeasible(fmt::format("heterps: no feasible plan found in {} episodes ({})", learned.episodes,
                                            plan.status().message()));
    }
    RecordLearning(learned, &*plan);
    plan->note = fmt::format(
        "REINFORCE: reward -cost/{:.4g} $/h (cheapest single-type plan); best of training {:.6g} $/h, learned plan "
        "(with {} inference samples) {:.6g} $/h, {} local-search move(s){}",
        ref, learned.trained_objective, learned.samples, learned.learned_objective, learned.polish_moves,
        o_.polish ? "" : " (polish=false)");
    return plan;
  }

 private:
  LearnedPlannerOptions o_;
};

Result<std::unique_ptr<HeteroPlanner>> MakeHeterPs(const Options& options) {
  auto o = ReadLearnedPlannerOptions(options, kHeterPsDefaults);
  if (!o.ok()) return o.status();
  return std::unique_ptr<HeteroPlanner>(std::make_unique<HeterPsPlanner>(std::move(o).value()));
}

const MethodInfo kHeterPsInfo{
    "heterps",
    "LSTM policy picks a resource type per layer, REINFORCE on the provisioned cost (options: " +
        std::string(kLearnedPlannerOptionList) + ")",
    "[SRC] RL scheduling of layers to resource types, min cost under a throughput limit (Feng et al., FGCS 2023); "
    "[REC-M] LSTM + REINFORCE; [REC] features, reward, provisioning model (ALGORITHMS.md 2.2-2.4), risk-seeking "
    "gradient (Petersen et al. 2021) and priority-queue imitation (Abolafia et al. 2018) as training aids, local-search "
    "polish (ours)"};

}  // namespace

HETSCHED_REGISTER_IMPL(HeteroPlanner, kHeterPsRegistered, kHeterPsInfo, MakeHeterPs)

}  // namespace hetsched
