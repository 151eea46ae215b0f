// The cost MIP (cost_mip.h): equal to brute force under per-type caps shared by several stages
// (where the DP alone is not exact), equal to the DP where no cap binds.
#include <gtest/gtest.h>

#include <cmath>

#include "hetsched/planners/cost_mip.h"
#include "hetsched/planners/cost_model.h"
#include "hetsched/planners/hetero_problem.h"
#include "planning_fixtures.h"

namespace hetsched::test {
namespace {

// A random problem of 2-6 layers over 2-3 types; `capped` puts small caps on most types.
struct RandomCostProblem {
  DeviceCatalog catalog;
  ModelProfile model;
  LinkClass net;
  PlanningProblem p;
};
std::unique_ptr<RandomCostProblem> MakeRandom(Rng& rng, bool capped) {
  auto r = std::make_unique<RandomCostProblem>();
  const int types = 2 + static_cast<int>(rng.Below(2));
  for (int t = 0; t < types; ++t) {
    DeviceType dt = ToyType("t" + std::to_string(t), std::pow(10.0, rng.Uniform(11.5, 13.5)), rng.Uniform(0.1, 4));
    dt.memory_bytes = std::pow(10.0, rng.Uniform(8.5, 10.5));
    dt.is_cpu = t == 0;
    const int cap = capped && rng.Uniform() < 0.8 ? 1 + static_cast<int>(rng.Below(12)) : 0;
    r->p.pool.push_back({r->catalog.Add(dt), cap});
  }
  r->model = RandomModel(rng, 2 + static_cast<int>(rng.Below(5)));
  r->net = ToyLink("net", std::pow(10.0, rng.Uniform(8.5, 10.5)));
  r->p.model = &r->model;
  r->p.catalog = &r->catalog;
  r->p.network = &r->net;
  r->p.throughput_limit = std::pow(10.0, rng.Uniform(2, 4.5));
  return r;
}

// Property: with shared caps the MIP's cost equals brute force's (which checks the caps summed
// over each type's stages), and the sample has cases where the caps change the optimum.
TEST(CostMip, EqualsBruteForceUnderSharedCaps) {
  Rng rng(6006);
  int feasible = 0, binding = 0;
  for (int trial = 0; trial < 150; ++trial) {
    auto r = MakeRandom(rng, /*capped=*/true);
    auto mip = SolveWith("mip", r->p);
    auto bf = SolveWith("brute-force", r->p);
    ASSERT_EQ(mip.ok(), bf.ok()) << "trial " << trial << ": " << mip.status().ToString() << " / " << bf.status().ToString();
    // The DP falls back to the MIP when its plan breaks a shared cap: it must agree too.
    auto dp = SolveWith("dp", r->p);
    ASSERT_EQ(dp.ok(), bf.ok()) << "trial " << trial << ": " << dp.status().ToString();
    if (!bf.ok()) continue;
    ++feasible;
    EXPECT_NEAR(mip->cost_per_hour, bf->cost_per_hour, 1e-9 * bf->cost_per_hour) << "trial " << trial;
    EXPECT_NEAR(dp->cost_per_hour, bf->cost_per_hour, 1e-9 * bf->cost_per_hour) << "trial " << trial;
    // The plan honours every cap, summed over the type's stages.
    std::vector<int> used(r->p.pool.size(), 0);
    for (const PlannedStage& s : mip->stages) {
      for (size_t t = 0; t < r->p.pool.size(); ++t) used[t] += r->p.pool[t].type == s.type ? s.units : 0;
    }
    for (size_t t = 0; t < r->p.pool.size(); ++t) {
      if (r->p.pool[t].max_units > 0) {
        EXPECT_LE(used[t], r->p.pool[t].max_units) << "trial " << trial;
      }
    }
    PlanningProblem uncapped = r->p;
    for (PoolType& t : uncapped.pool) t.max_units = 0;
    auto free_dp = SolveWith("dp", uncapped);
    ASSERT_TRUE(free_dp.ok());
    binding += free_dp->cost_per_hour < bf->cost_per_hour * (1 - 1e-9);
  }
  EXPECT_GT(feasible, 40);
  EXPECT_GT(binding, 5);  // caps that change the optimum are exercised, not only slack ones
}

// Where no cap binds the MIP is the DP: random instances without caps, and a zoo model over the
// built-in pool.
TEST(CostMip, EqualsTheDpWithoutBindingCaps) {
  Rng rng(7007);
  for (int trial = 0; trial < 60; ++trial) {
    auto r = MakeRandom(rng, /*capped=*/false);
    auto mip = SolveWith("mip", r->p);
    auto dp = SolveWith("dp", r->p);
    ASSERT_EQ(mip.ok(), dp.ok()) << "trial " << trial;
    if (dp.ok()) {
      EXPECT_NEAR(mip->cost_per_hour, dp->cost_per_hour, 1e-9 * dp->cost_per_hour) << "trial " << trial;
    }
  }
  const DeviceCatalog& catalog = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  PlanningProblem p;
  p.model = ModelZoo::BuiltIn().Find("lstm-lm");
  p.catalog = &catalog;
  p.network = &links.link(links.Find("eth25"));
  for (const char* t : {"cpu-node", "t4", "v100", "a100", "rtx-a6000"}) p.pool.push_back({catalog.Find(t), 1000});
  p.throughput_limit = 20000;
  auto mip = SolveWith("mip", p);
  auto dp = SolveWith("dp", p);
  ASSERT_TRUE(mip.ok() && dp.ok()) << mip.status().ToString() << " / " << dp.status().ToString();
  EXPECT_NEAR(mip->cost_per_hour, dp->cost_per_hour, 1e-9 * dp->cost_per_hour);
  EXPECT_EQ(mip->planner, "mip");
}

// Hand-worked: the toy world of cost_planners_test.cc with a third layer, a copy of layer 0
// after layer 1 (so A|B|A is a plan), A capped at 6 units. Per unit and iteration (batch 10,
// 1 GB/s): a one-layer compute stage is 0.03 s on A, 0.0075 s on B; the activation transfer out
// of an "embed" layer is 0.02 s, out of "dense" 2 x 1e3 x 10 / 1e9 = 2e-5 s.
//   A | B | A: A stage 0.05 s -> 5 A; B stage 0.0075 + 2e-5 -> 1 B (3 $/h); last A stage 0.03 s
//              (no transfer out) -> k = 1 gives 333/s, so k >= 2: 2 x 10 / 0.03 = 667 < 1000,
//              3 x 10 / 0.03 = 1000 -> 3 A (layer 2 has no parameters: no sync): 5 + 3 + 3 = 11 $/h
//              but 8 A units in all: over the cap of 6.
// With the cap the MIP must find a plan with at most 6 A in all; the DP's uncapped plan is
// A|B|A at 11 $/h, so the capped optimum is dearer, and brute force (3 layers, 2 types: 8
// plans) gives it.
TEST(CostMip, SharedCapOnAHandWorkedPlan) {
  auto w = MakeToyCostWorld();
  w->model.layers.push_back(w->model.layers[0]);
  w->model.layers[2].name = "embed2";
  auto uncapped = SolveWith("dp", w->problem);
  ASSERT_TRUE(uncapped.ok());
  EXPECT_DOUBLE_EQ(uncapped->cost_per_hour, 11.0);
  ASSERT_EQ(uncapped->stages.size(), 3u);
  EXPECT_EQ(uncapped->stages[0].units + uncapped->stages[2].units, 8);
  w->problem.pool[0].max_units = 6;
  auto mip = SolveWith("mip", w->problem);
  auto bf = SolveWith("brute-force", w->problem);
  ASSERT_TRUE(mip.ok() && bf.ok()) << mip.status().ToString();
  EXPECT_GT(mip->cost_per_hour, 11.0);
  EXPECT_DOUBLE_EQ(mip->cost_per_hour, bf->cost_per_hour);
  int a_units = 0;
  for (const PlannedStage& s : mip->stages) a_units += s.type == w->a ? s.units : 0;
  EXPECT_LE(a_units, 6);
  for (const auto& [key, value] : {std::pair{"time_limit", "0"}, std::pair{"max_nodes", "0"}}) {
    EXPECT_FALSE(SolveWith("mip", w->problem, [&] {
                   Options o;
                   o.Set(key, value);
                   return o;
                 }()).ok())
        << key;
  }
  // CBC stops by nodes (no time limit unless asked for): a node limit gives the same plan twice.
  auto limited = [&] {
    Options o;
    o.Set("max_nodes", "2");
    return SolveWith("mip", w->problem, o);
  };
  auto first = limited(), second = limited();
  ASSERT_EQ(first.ok(), second.ok());
  if (first.ok()) {
    EXPECT_DOUBLE_EQ(first->cost_per_hour, second->cost_per_hour);
    EXPECT_EQ(first->note, second->note);
  }
}

}  // namespace
}  // namespace hetsched::test
