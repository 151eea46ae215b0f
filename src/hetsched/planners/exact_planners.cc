// The exact and greedy planners of the planning problems (hetero_problem.h), registered by name:
// dp and brute-force solve both objectives; mip and the greedy ones the cost objective; bsp the
// step time.
#include <memory>

#include "hetsched/planners/cost_mip.h"
#include "hetsched/planners/cost_search.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/planners/step_time_model.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class DpPlanner : public HeteroPlanner {
 public:
  std::string_view name() const override { return "dp"; }
  bool Supports(PlanObjective) const override { return true; }
  Result<HeteroPlan> Solve(const PlanningProblem& p) override {
    if (p.objective == PlanObjective::kStepTime) {
      auto m = StepTimeModel::Build(p);
      if (!m.ok()) return m.status();
      return SolveStepTimeDp(*m);
    }
    auto m = StageCostModel::Build(p);
    if (!m.ok()) return m.status();
    return SolveCostDp(*m);
  }
};

class BruteForcePlanner : public HeteroPlanner {
 public:
  explicit BruteForcePlanner(long long max_plans) : max_plans_(max_plans) {}
  std::string_view name() const override { return "brute-force"; }
  bool Supports(PlanObjective) const override { return true; }
  Result<HeteroPlan> Solve(const PlanningProblem& p) override {
    if (p.objective == PlanObjective::kStepTime) {
      auto m = StepTimeModel::Build(p);
      if (!m.ok()) return m.status();
      return SolveStepTimeBruteForce(*m, max_plans_);
    }
    auto m = StageCostModel::Build(p);
    if (!m.ok()) return m.status();
    return SolveCostBruteForce(*m, max_plans_);
  }

 private:
  long long max_plans_;
};

class MipPlanner : public HeteroPlanner {
 public:
  explicit MipPlanner(CostMipOptions o) : o_(o) {}
  std::string_view name() const override { return "mip"; }
  bool Supports(PlanObjective o) const override { return o == PlanObjective::kCostUnderThroughput; }
  Result<HeteroPlan> Solve(const PlanningProblem& p) override {
    auto m = StageCostModel::Build(p);
    if (!m.ok()) return m.status();
    return SolveCostMip(*m, o_);
  }

 private:
  CostMipOptions o_;
};

enum class Greedy { kFastest, kCheapest, kPerLayer };

class GreedyPlanner : public HeteroPlanner {
 public:
  explicit GreedyPlanner(Greedy rule) : rule_(rule) {}
  std::string_view name() const override {
    return rule_ == Greedy::kFastest ? "greedy-fastest" : rule_ == Greedy::kCheapest ? "greedy-cheapest" : "greedy-per-layer";
  }
  bool Supports(PlanObjective o) const override { return o == PlanObjective::kCostUnderThroughput; }
  Result<HeteroPlan> Solve(const PlanningProblem& p) override {
    auto m = StageCostModel::Build(p);
    if (!m.ok()) return m.status();
    switch (rule_) {
      case Greedy::kFastest: return SolveCostSingleType(*m, SingleTypeRule::kFastest);
      case Greedy::kCheapest: return SolveCostSingleType(*m, SingleTypeRule::kCheapest);
      case Greedy::kPerLayer: return SolveCostGreedyPerLayer(*m);
    }
    return Status::Internal("unknown greedy rule");
  }

 private:
  Greedy rule_;
};

class BspPlanner : public HeteroPlanner {
 public:
  std::string_view name() const override { return "bsp"; }
  bool Supports(PlanObjective o) const override { return o == PlanObjective::kStepTime; }
  Result<HeteroPlan> Solve(const PlanningProblem& p) override { return SolveBsp(p); }
};

Result<std::unique_ptr<HeteroPlanner>> MakeDp(const Options&) {
  return std::unique_ptr<HeteroPlanner>(std::make_unique<DpPlanner>());
}
Result<std::unique_ptr<HeteroPlanner>> MakeBruteForce(const Options& o) {
  auto max_plans = o.GetInt("max_plans", 20'000'000);
  if (!max_plans.ok()) return max_plans.status();
  if (*max_plans < 1) return Status::InvalidArgument("brute-force: max_plans must be >= 1");
  return std::unique_ptr<HeteroPlanner>(std::make_unique<BruteForcePlanner>(*max_plans));
}
Result<std::unique_ptr<HeteroPlanner>> MakeMip(const Options& o) {
  CostMipOptions mip;
  HETSCHED_ASSIGN_OR_RETURN(mip.max_nodes, o.GetInt("max_nodes", mip.max_nodes));
  if (mip.max_nodes < 1) return Status::InvalidArgument("mip: max_nodes must be >= 1");
  HETSCHED_ASSIGN_OR_RETURN(mip.time_limit_s, o.GetDouble("time_limit", mip.time_limit_s));
  if (!(mip.time_limit_s > 0)) return Status::InvalidArgument("mip: time_limit must be > 0 seconds");
  return std::unique_ptr<HeteroPlanner>(std::make_unique<MipPlanner>(mip));
}
template <Greedy rule>
Result<std::unique_ptr<HeteroPlanner>> MakeGreedy(const Options&) {
  return std::unique_ptr<HeteroPlanner>(std::make_unique<GreedyPlanner>(rule));
}
Result<std::unique_ptr<HeteroPlanner>> MakeBsp(const Options&) {
  return std::unique_ptr<HeteroPlanner>(std::make_unique<BspPlanner>());
}

const MethodInfo kDpInfo{
    "dp", "exact DP over layer cuts and types (cost) or cuts and devices (step time)",
    "[REC] exact for our cost models (ALGORITHMS.md 2.2-2.3, 4.2-4.3): O(L^2 D) for cost, O(L^2 2^M M^2) for step time"};
const MethodInfo kBruteForceInfo{"brute-force", "enumerates every plan (tiny models only; option max_plans)",
                                 "[REC] reference optimum for tests (ALGORITHMS.md 2.5 item 6)"};
const MethodInfo kMipInfo{
    "mip", "MIP over stages and types with CBC (cost objective): exact under per-type caps shared by stages (options max_nodes, 100,000; time_limit s, off)",
    "[REC] ALGORITHMS.md 2.1's shared cap sum_s k_s <= K_d^max, which the DP cannot express; a stage-path formulation (cost_mip.h)"};
const MethodInfo kFastestInfo{"greedy-fastest", "every layer on the fastest type, provisioned for the limit",
                              "[REC] all-best-GPU baseline (ALGORITHMS.md 2.5 item 2)"};
const MethodInfo kCheapestInfo{"greedy-cheapest", "every layer on the cheapest type per hour, provisioned for the limit",
                               "[REC] all-cheapest baseline (ALGORITHMS.md 2.5 item 1: the CPU node when in the pool)"};
const MethodInfo kPerLayerInfo{"greedy-per-layer", "each layer on the type of least price x layer time, then provisioned",
                               "[REC] per-layer greedy (ALGORITHMS.md 2.5 item 3)"};
const MethodInfo kBspInfo{"bsp", "data-parallel BSP on every device: even batch split, ring all-reduce",
                          "[SRC] TAPP's comparator, data parallel BSP (Mao et al., Appl. Sci. 2021); model [REC] ALGORITHMS.md 4.2"};

}  // namespace

HETSCHED_REGISTER_IMPL(HeteroPlanner, kDpRegistered, kDpInfo, MakeDp)
HETSCHED_REGISTER_IMPL(HeteroPlanner, kBruteForceRegistered, kBruteForceInfo, MakeBruteForce)
HETSCHED_REGISTER_IMPL(HeteroPlanner, kMipRegistered, kMipInfo, MakeMip)
HETSCHED_REGISTER_IMPL(HeteroPlanner, kFastestRegistered, kFastestInfo, MakeGreedy<Greedy::kFastest>)
HETSCHED_REGISTER_IMPL(HeteroPlanner, kCheapestRegistered, kCheapestInfo, MakeGreedy<Greedy::kCheapest>)
HETSCHED_REGISTER_IMPL(HeteroPlanner, kPerLayerRegistered, kPerLayerInfo, MakeGreedy<Greedy::kPerLayer>)
HETSCHED_REGISTER_IMPL(HeteroPlanner, kBspRegistered, kBspInfo, MakeBsp)

}  // namespace hetsched
