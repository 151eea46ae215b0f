#include <gtest/gtest.h>

#include <cmath>

#include "hetsched/planners/cost_model.h"
#include "hetsched/planners/cost_search.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/sched/registry.h"
#include "planning_fixtures.h"

namespace hetsched::test {
namespace {

// Two layers, two types (A: 1 TFLOP/s at 1 $/h; B: 4 TFLOP/s at 3 $/h), batch 10, a 1 GB/s
// network without latency, limit 1000 samples/s. Per unit and iteration:
//   compute of one layer: 10 x 3e9 FLOP (fwd 1e9 + bwd 2e9) = 3e10 -> A 0.03 s, B 0.0075 s
//   transfer after layer 0: 2 x (1e6 B x 10) / 1e9 = 0.02 s
//   PS sync of layer 1's 4e7 B (k >= 2 units): 2 x 4e7 / 1e9 = 0.08 s; layer 0 has no params
// Plans (k = fewest units with k x 10 / time >= 1000):
//   all A : k=1 gives 10/0.06 = 167; k>=2: k x 10 / 0.14 >= 1000 -> k = 14 -> 14 $/h
//   all B : k=1 gives 10/0.015 = 667; k>=2: k x 10 / 0.095     -> k = 10 -> 30 $/h
//   A | B : A stage 0.03 + 0.02 = 0.05 -> k = 5 (5 $/h); B stage 10/0.0075 = 1333 -> k = 1 (3 $/h): 8 $/h
//   B | A : B stage 0.0075 + 0.02 -> k = 3 (9 $/h); A stage k>=2: k x 10/0.11 -> k = 11 (11 $/h): 20 $/h
class ToyCostProblem : public ::testing::Test {
 protected:
  ToyCostProblem() : w_(MakeToyCostWorld()), a_(w_->a), b_(w_->b), model_(w_->model), problem_(w_->problem) {}
  Result<HeteroPlan> Solve(const std::string& planner) { return SolveWith(planner, problem_); }

  std::unique_ptr<ToyCostWorld> w_;
  DeviceTypeId a_, b_;
  ModelProfile& model_;
  PlanningProblem& problem_;
};

TEST_F(ToyCostProblem, DpFindsTheHandWorkedOptimum) {
  auto plan = Solve("dp");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_DOUBLE_EQ(plan->cost_per_hour, 8.0);
  ASSERT_EQ(plan->stages.size(), 2u);
  EXPECT_EQ(plan->stages[0].type, a_);
  EXPECT_EQ(plan->stages[0].units, 5);
  EXPECT_NEAR(plan->stages[0].compute_s, 0.03, 1e-12);
  EXPECT_NEAR(plan->stages[0].transfer_s, 0.02, 1e-12);
  EXPECT_EQ(plan->stages[1].type, b_);
  EXPECT_EQ(plan->stages[1].units, 1);
  EXPECT_DOUBLE_EQ(plan->stages[1].sync_s, 0.0);  // one unit: no synchronisation
  // The slowest stage: 5 x 10 / 0.05 = 1000 samples/s (the B stage sustains 1333).
  EXPECT_NEAR(plan->throughput, 1000.0, 1e-6);
  EXPECT_NEAR(plan->stages[1].throughput, 10 / 0.0075, 1e-6);
}

TEST_F(ToyCostProblem, GreedyBaselinesAndBruteForce) {
  auto fastest = Solve("greedy-fastest");
  auto cheapest = Solve("greedy-cheapest");
  auto per_layer = Solve("greedy-per-layer");
  auto brute = Solve("brute-force");
  ASSERT_TRUE(fastest.ok() && cheapest.ok() && per_layer.ok() && brute.ok());
  EXPECT_DOUBLE_EQ(fastest->cost_per_hour, 30.0);   // all B, 10 units
  EXPECT_EQ(fastest->stages.at(0).units, 10);
  EXPECT_DOUBLE_EQ(cheapest->cost_per_hour, 14.0);  // all A, 14 units
  EXPECT_EQ(cheapest->stages.at(0).units, 14);
  // Per layer: price x time = A 1 x 0.03 vs B 3 x 0.0075 = 0.0225 for both layers: all B.
  EXPECT_DOUBLE_EQ(per_layer->cost_per_hour, 30.0);
  EXPECT_DOUBLE_EQ(brute->cost_per_hour, 8.0);
  EXPECT_EQ(brute->evaluations, 4);  // 2^2 assignments
}

TEST_F(ToyCostProblem, CapsSharedAcrossStagesAndInfeasibleLimits) {
  // A capped at 4 units: A|B needs 5 A, all A 14, B|A 11 A: only all B (30 $/h) remains.
  problem_.pool = {{a_, 4}, {b_, 0}};
  auto plan = Solve("dp");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_DOUBLE_EQ(plan->cost_per_hour, 30.0);
  // B capped at 5 as well: nothing sustains the limit.
  problem_.pool = {{a_, 4}, {b_, 5}};
  plan = Solve("dp");
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kInfeasible);
  EXPECT_NE(plan.status().message().find("1000"), std::string::npos) << plan.status().message();
  auto greedy = Solve("greedy-fastest");
  ASSERT_FALSE(greedy.ok());
  EXPECT_NE(greedy.status().message().find("a, b"), std::string::npos) << greedy.status().message();
}

TEST_F(ToyCostProblem, BadInputsAreClearErrors) {
  problem_.throughput_limit = 0;
  EXPECT_NE(Solve("dp").status().message().find("throughput limit"), std::string::npos);
  problem_.throughput_limit = 1000;
  problem_.pool.clear();
  EXPECT_NE(Solve("dp").status().message().find("pool is empty"), std::string::npos);
  problem_.pool = {{a_, 0}, {a_, 0}};
  EXPECT_NE(Solve("dp").status().message().find("listed twice"), std::string::npos);
  problem_.pool = {{a_, 0}, {b_, 0}};
  auto unknown = Solve("no-such-planner");
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  auto wrong = Solve("bsp");
  EXPECT_NE(wrong.status().message().find("does not solve the cost objective"), std::string::npos)
      << wrong.status().message();
  // 2^40 plans: refused, not run.
  model_.layers.assign(40, model_.layers[0]);
  EXPECT_NE(Solve("brute-force").status().message().find("exceed"), std::string::npos);
}

// Property: on random small instances (1-7 layers, 2-4 types, random prices, some unit caps,
// some sparse layers, limits over three decades) the DP's cost equals brute force's.
TEST(CostDp, EqualsBruteForceOnRandomInstances) {
  Rng rng(20261123);
  int feasible = 0;
  for (int trial = 0; trial < 300; ++trial) {
    DeviceCatalog catalog;
    const int types = 2 + static_cast<int>(rng.Below(3));
    PlanningProblem p;
    for (int t = 0; t < types; ++t) {
      DeviceType dt = ToyType("t" + std::to_string(t), std::pow(10.0, rng.Uniform(11.5, 13.5)), rng.Uniform(0.1, 4));
      dt.memory_bytes = std::pow(10.0, rng.Uniform(8.5, 10.5));
      dt.is_cpu = t == 0;
      const int cap = rng.Uniform() < 0.3 ? 1 + static_cast<int>(rng.Below(20)) : 0;
      p.pool.push_back({catalog.Add(dt), cap});
    }
    ModelProfile model = RandomModel(rng, 1 + static_cast<int>(rng.Below(7)));
    LinkClass net = ToyLink("net", std::pow(10.0, rng.Uniform(8.5, 10.5)));
    p.model = &model;
    p.catalog = &catalog;
    p.network = &net;
    p.throughput_limit = std::pow(10.0, rng.Uniform(2, 5));
    auto dp = SolveWith("dp", p);
    auto bf = SolveWith("brute-force", p);
    ASSERT_EQ(dp.ok(), bf.ok()) << "trial " << trial << ": " << dp.status().ToString() << " / " << bf.status().ToString();
    if (!dp.ok()) continue;
    ++feasible;
    EXPECT_NEAR(dp->cost_per_hour, bf->cost_per_hour, 1e-9 * bf->cost_per_hour) << "trial " << trial;
    // Invariants of the DP's plan: contiguous stages covering every layer, adjacent stages on
    // different types, every stage at the limit.
    int next = 0;
    for (size_t s = 0; s < dp->stages.size(); ++s) {
      EXPECT_EQ(dp->stages[s].first_layer, next);
      next = dp->stages[s].last_layer + 1;
      if (s > 0) {
        EXPECT_NE(dp->stages[s].type, dp->stages[s - 1].type);
      }
      EXPECT_GE(dp->stages[s].throughput, p.throughput_limit * (1 - 1e-9));
    }
    EXPECT_EQ(next, static_cast<int>(model.layers.size()));
  }
  EXPECT_GT(feasible, 150);  // the sample exercises real plans, not only infeasible ones
}

// On every zoo model over the built-in pool, the DP is no worse than any greedy baseline.
TEST(CostDp, NoWorseThanGreedyOnTheZoo) {
  const DeviceCatalog& catalog = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  for (const ModelProfile& model : ModelZoo::BuiltIn().models()) {
    PlanningProblem p;
    p.model = &model;
    p.catalog = &catalog;
    p.network = &links.link(links.Find("eth25"));
    for (const char* t : {"cpu-node", "k80", "t4", "p100", "v100-16gb", "a100-40gb"}) p.pool.push_back({catalog.Find(t), 0});
    p.throughput_limit = 2000;
    auto dp = SolveWith("dp", p);
    ASSERT_TRUE(dp.ok()) << model.name << ": " << dp.status().ToString();
    for (const char* g : {"greedy-fastest", "greedy-cheapest", "greedy-per-layer"}) {
      auto other = SolveWith(g, p);
      if (other.ok()) {
        EXPECT_LE(dp->cost_per_hour, other->cost_per_hour * (1 + 1e-12)) << model.name << " vs " << g;
      }
    }
  }
}

}  // namespace
}  // namespace hetsched::test
