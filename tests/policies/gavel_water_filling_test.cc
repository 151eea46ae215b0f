// gavel-water-filling: Gavel's water filling (water_filling.h) on 3-job, 2-type cases whose
// levels are worked out by hand below, with job weights, with entities (fairness and fifo), at the
// simplex's vertex and at cvxopt's point; the policy's option and entity-file errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "hetsched/policies/gavel/water_filling.h"
#include "hetsched/policies/gavel/water_filling_internal.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/options.h"
#include "hetsched/sched/registry.h"

namespace hetsched::gavel {
namespace {

AllocationJob WfJob(JobId id, std::vector<double> t, double weight = 1) {
  AllocationJob j;
  j.id = id;
  j.num_gpus = 1;
  j.weight = weight;
  j.throughput = std::move(t);
  return j;
}

// Types A and B, one GPU each. Jobs 0 and 1 run on A only (T = 1); job 2 on both, T = (1, 3).
// Proportional throughputs P = sum_k T W_k / sum W: 0.5, 0.5, 2, so the normalised throughputs
// are b_0 = b_1 = (2, 0), b_2 = (0.5, 1.5); M = max b g = 2.
AllocationProblem JobTwoFastOnB(double w0 = 1) {
  AllocationProblem p;
  p.capacity = {1, 1};
  p.type_names = {"a", "b"};
  p.jobs = {WfJob(0, {1, 0}, w0), WfJob(1, {1, 0}), WfJob(2, {1, 3})};
  return p;
}

// As above but job 2 is slow on B: T = (1, 0.5), P = 0.75, b_2 = (4/3, 2/3). Job 2 competes for A.
AllocationProblem JobTwoSlowOnB() {
  AllocationProblem p = JobTwoFastOnB();
  p.jobs[2].throughput = {1, 0.5};
  return p;
}

// Levels, equal weights. Level 1: max t, t <= 2 x0A, 2 x1A, 0.5 x2A + 1.5 x2B: jobs 0 and 1 split
// A (n = 1 each), job 2 alone on B could reach 1.5, so t = 1 and every level so far is 1 (g/w = 1).
// The MILP: only job 2 can reach 1.0001, so jobs 0 and 1 freeze at 1. Level 2: max n2 - 1 with
// n0, n1 >= 1: n2 = 1.5, c = 0.5; nobody grows: job 2 freezes at 1.5. X = [[.5, 0], [.5, 0], [0, 1]].
// Both ways of solving the MILP (without and with its big M) give the same levels.
TEST(GavelWaterFillingTest, TwoLevelsByHand) {
  for (int variant = 0; variant < 4; ++variant) {
    const SharePoint point = variant % 2 == 0 ? SharePoint::kVertex : SharePoint::kCvxopt;
    SCOPED_TRACE(std::string(point == SharePoint::kVertex ? "vertex" : "cvxopt") +
                 (variant < 2 ? ", tight" : ", big M"));
    lp::WarmStartLpSolver solver;
    WaterFillingOptions o;
    o.point = point;
    o.tight_milp = variant < 2;
    WaterFillingTrace tr;
    auto a = SolveWaterFilling(JobTwoFastOnB(), {}, o, solver, &tr);
    ASSERT_TRUE(a.ok()) << a.status().message();
    EXPECT_EQ(tr.levels, 2);
    EXPECT_EQ(tr.milps, 2);
    EXPECT_EQ(tr.infeasible_milps, 0);
    ASSERT_EQ(tr.objective.size(), 2u);
    EXPECT_NEAR(tr.objective[0], 1.0, 1e-6);
    EXPECT_NEAR(tr.objective[1], 0.5, 1e-6);
    EXPECT_NEAR(tr.level[0], 1.0, 1e-6);
    EXPECT_NEAR(tr.level[1], 1.0, 1e-6);
    EXPECT_NEAR(tr.level[2], 1.5, 1e-6);
    EXPECT_NEAR(a->share[0][0], 0.5, 1e-6);
    EXPECT_NEAR(a->share[1][0], 0.5, 1e-6);
    EXPECT_NEAR(a->share[2][1], 1.0, 1e-6);
    EXPECT_NEAR(a->share[2][0], 0.0, 1e-6);
  }
}

// Job 0 weighs 2: g/w = (0.5, 1, 1). Level 1: t <= x0A, 2 x1A, n2 with x0A + x1A <= 1: x0A = 2/3,
// x1A = 1/3, t = 2/3; levels so far t w/g = 4/3, 2/3, 2/3. Jobs 0 and 1 freeze; level 2 gives
// job 2 its 1.5 (c = 1.5 - 2/3 = 5/6).
TEST(GavelWaterFillingTest, JobWeightsScaleTheLevels) {
  lp::WarmStartLpSolver solver;
  WaterFillingTrace tr;
  auto a = SolveWaterFilling(JobTwoFastOnB(2), {}, {}, solver, &tr);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(tr.levels, 2);
  EXPECT_NEAR(tr.objective[0], 2.0 / 3, 1e-6);
  EXPECT_NEAR(tr.objective[1], 5.0 / 6, 1e-6);
  EXPECT_NEAR(tr.level[0], 4.0 / 3, 1e-6);
  EXPECT_NEAR(tr.level[1], 2.0 / 3, 1e-6);
  EXPECT_NEAR(tr.level[2], 1.5, 1e-6);
  EXPECT_NEAR(a->share[0][0], 2.0 / 3, 1e-6);
  EXPECT_NEAR(a->share[1][0], 1.0 / 3, 1e-6);
}

EntityAssignment TwoEntities(Reweighting first) {
  EntityAssignment e;
  e.entities = {Entity{"team-a", 1, first}, Entity{"team-b", 1, Reweighting::kFairness}};
  e.entity_of = {{0, 0}, {1, 0}, {2, 1}};
  return e;
}

// Flat: t <= 2 x0A, 2 x1A, 4/3 x2A + 2/3 x2B with x2B = 1 - x2A and x0A = x1A = a, x2A = 1 - 2a:
// 2a = 4/3 - 4a/3, a = 0.4, every level 0.8 (A is full and job 2's time too: one level).
// Entities {0, 1} and {2}, weight 1 each (fairness): job weights 0.5, 0.5, 1, g/w = 2, 2, 1:
// 4a = 4/3 - 4a/3, a = 1/4, t = 1, levels t w/g = 0.5, 0.5, 1: the two-job entity's jobs share
// what job 2's entity gets alone.
TEST(GavelWaterFillingTest, EntitiesShareTheirWeightOverTheirJobs) {
  for (int variant = 0; variant < 4; ++variant) {
    const SharePoint point = variant % 2 == 0 ? SharePoint::kVertex : SharePoint::kCvxopt;
    SCOPED_TRACE(std::string(point == SharePoint::kVertex ? "vertex" : "cvxopt") +
                 (variant < 2 ? ", tight" : ", big M"));
    lp::WarmStartLpSolver solver;
    WaterFillingOptions o;
    o.point = point;
    o.tight_milp = variant < 2;
    WaterFillingTrace flat, nested;
    auto a = SolveWaterFilling(JobTwoSlowOnB(), {}, o, solver, &flat);
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(flat.levels, 1);
    for (double level : flat.level) EXPECT_NEAR(level, 0.8, 1e-6);
    EXPECT_NEAR(a->share[0][0], 0.4, 1e-6);
    EXPECT_NEAR(a->share[2][0], 0.2, 1e-6);
    auto b = SolveWaterFilling(JobTwoSlowOnB(), TwoEntities(Reweighting::kFairness), o, solver, &nested);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(nested.levels, 1);
    EXPECT_NEAR(nested.objective[0], 1.0, 1e-6);
    EXPECT_NEAR(nested.level[0], 0.5, 1e-6);
    EXPECT_NEAR(nested.level[1], 0.5, 1e-6);
    EXPECT_NEAR(nested.level[2], 1.0, 1e-6);
    EXPECT_NEAR(b->share[0][0], 0.25, 1e-6);
    EXPECT_NEAR(b->share[2][0], 0.5, 1e-6);
    EXPECT_NEAR(b->share[2][1], 0.5, 1e-6);
  }
}

// fifo in entity {0, 1}: level 1 weighs job 0 (its first) 1 and job 1 0 (term M = 2, floor 0):
// t <= 2 x0A, 2/3 + 2/3 x2A with x0A + x2A <= 1: x0A = 0.5, t = 1; jobs 0 and 2 cannot grow and
// freeze at 1 (job 1, weight 0, is never frozen). Level 2 weighs job 1 alone: A is held by the
// floors n0 >= 1 (x0A = 0.5) and n2 >= 1 (x2A = 0.5), so c = 0; the MILP lets job 1 "grow"
// (n1 >= 0 x slack), nobody new freezes and the filling ends: job 1 waits for its entity's first.
TEST(GavelWaterFillingTest, FifoEntityRunsItsFirstJob) {
  lp::WarmStartLpSolver solver;
  WaterFillingTrace tr;
  auto a = SolveWaterFilling(JobTwoSlowOnB(), TwoEntities(Reweighting::kFifo), {}, solver, &tr);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(tr.levels, 2);
  EXPECT_NEAR(tr.objective[0], 1.0, 1e-6);
  EXPECT_NEAR(tr.objective[1], 0.0, 1e-6);
  EXPECT_NEAR(tr.level[0], 1.0, 1e-6);
  EXPECT_NEAR(tr.level[1], 0.0, 1e-6);
  EXPECT_NEAR(tr.level[2], 1.0, 1e-6);
  EXPECT_NEAR(a->share[0][0], 0.5, 1e-6);
  EXPECT_NEAR(a->share[1][0], 0.0, 1e-6);
  EXPECT_NEAR(a->share[2][0], 0.5, 1e-6);
  EXPECT_NEAR(a->share[2][1], 0.5, 1e-6);
}

// A job that cannot grow must stay below slack x level - epsilon but at or above its level:
// infeasible below a level of epsilon / (slack - 1) (0.1 with Gavel's 1.0001 and 1e-5), and then
// Gavel freezes every growing job (its except path). N jobs of 4 GPUs on A only (A and B have 4
// GPUs each): P = 0.5, b = (2, 0), M = 8; A's capacity gives each x = 1/N, n = 2/N = its level.
// N = 10 (level 0.2): nobody can grow, the MILP freezes all; N = 30 (level 1/15): infeasible, all
// freeze by the except path. With slack 1.1 and epsilon 0.01 (threshold 0.1) alike. One level.
TEST(GavelWaterFillingTest, LowLevelsMakeTheBottleneckMilpInfeasible) {
  for (double epsilon : {1e-5, 0.01}) {
    for (int jobs : {10, 30}) {
      SCOPED_TRACE(std::to_string(jobs) + " jobs, epsilon " + std::to_string(epsilon));
      AllocationProblem p;
      p.capacity = {4, 4};
      for (int j = 0; j < jobs; ++j) {
        p.jobs.push_back(WfJob(j, {1, 0}));
        p.jobs.back().num_gpus = 4;
      }
      WaterFillingOptions o;
      o.tight_milp = jobs == 10;  // N = 30 falls back to the big M by itself (level < 0.1)
      if (epsilon > 1e-5) {
        o.slack = 1.1;
        o.epsilon = epsilon;
      }
      lp::WarmStartLpSolver solver;
      WaterFillingTrace tr;
      auto a = SolveWaterFilling(p, {}, o, solver, &tr);
      ASSERT_TRUE(a.ok());
      EXPECT_EQ(tr.levels, 1);
      EXPECT_EQ(tr.infeasible_milps, jobs == 30 ? 1 : 0);
      // Told without a solve (BottleneckWithoutSolve): at level 1/15 every job must reach slack x
      // its level, which the level LP's optimum c = 8/30 rules out; at 0.2 every job is held at
      // its level by a dual of the level LP (1/10 each), so none can grow.
      EXPECT_EQ(tr.milps_decided, 1);
      EXPECT_NEAR(tr.level[0], 2.0 / jobs, 1e-6);
      EXPECT_NEAR(a->share[0][0], 1.0 / jobs, 1e-6);
    }
  }
}

// BottleneckWithoutSolve's tests by hand, Gavel's slack 1.0001 and epsilon 1e-5 (threshold 0.1),
// M = 2, two rows. Rows at z = 0 need n in [s, 1.0001 s - 1e-5]: empty below s = 0.1 (by the 1e-6
// margin: below s = 0.09; open above 0.11).
TEST(GavelWaterFillingTest, BottleneckToldWithoutASolveOnlyWhereItsAnswerIsSure) {
  using water_filling_internal::BottleneckWithoutSolve;
  using water_filling_internal::LevelOptimum;
  water_filling_internal::Rows rows;
  rows.job_of = {0, 1};
  rows.big_m = 2;
  const WaterFillingOptions o;
  auto terms = [](std::vector<double> mult, std::vector<double> floor) {
    water_filling_internal::LevelTerms t;
    t.mult = std::move(mult);
    t.floor = std::move(floor);
    t.base = {1, 1};
    return t;
  };
  const std::vector<double> no_duals, both_held = {-0.5, -0.5}, one_free = {-1, 0};
  auto at = [](double c, const std::vector<double>& duals) { return LevelOptimum{c, &duals}; };
  auto no_point = [](const std::optional<std::vector<bool>>& d) { return d.has_value() && d->empty(); };
  auto nobody = [](const std::optional<std::vector<bool>>& d) {
    return d.has_value() && *d == std::vector<bool>{false, false};
  };
  LevelOptimum l;
  // Both growing at 0.05 after a level c = 0.05: no point (it would give the LP t >= 0.050005).
  EXPECT_TRUE(no_point(BottleneckWithoutSolve(rows, terms({1, 1}, {0.05, 0.05}), o, &(l = at(0.05, no_duals)))));
  // Without the level (its LP had no optimum), or one job above the threshold: a solve decides.
  EXPECT_FALSE(BottleneckWithoutSolve(rows, terms({1, 1}, {0.05, 0.05}), o, nullptr));
  EXPECT_FALSE(BottleneckWithoutSolve(rows, terms({1, 1}, {0.05, 0.2}), o, &(l = at(0.05, no_duals))));
  // Within the margin of the threshold (0.095: the window is empty by 5e-7 only): solved.
  EXPECT_FALSE(BottleneckWithoutSolve(rows, terms({1, 1}, {0.095, 0.095}), o, &(l = at(0.05, both_held))));
  // A frozen job (mult 0) below the threshold: no point whatever the level, the LP's or none.
  EXPECT_TRUE(no_point(BottleneckWithoutSolve(rows, terms({1, 0}, {0.5, 0.05}), o, nullptr)));
  EXPECT_TRUE(no_point(BottleneckWithoutSolve(rows, terms({0, 0}, {0, 0}), o, nullptr)));
  // A frozen job above it and no job growing: solved.
  EXPECT_FALSE(BottleneckWithoutSolve(rows, terms({0, 0}, {0.5, 0.5}), o, &(l = at(0.05, no_duals))));
  // c too small for the test ((slack - 1) c = 5e-7 < 1e-6), or slack x c not below M: solved.
  EXPECT_FALSE(BottleneckWithoutSolve(rows, terms({1, 1}, {0.05, 0.05}), o, &(l = at(0.005, no_duals))));
  EXPECT_FALSE(BottleneckWithoutSolve(rows, terms({1, 1}, {0.05, 0.05}), o, &(l = at(1.9999, no_duals))));
  EXPECT_TRUE(no_point(BottleneckWithoutSolve(rows, terms({1, 1}, {0.05, 0.05}), o, &(l = at(1.99, no_duals)))));
  // Above the threshold, both epigraph rows held by a dual: nobody grows. One row free (dual 0), or
  // the duals unknown (cvxopt's point): solved.
  EXPECT_TRUE(nobody(BottleneckWithoutSolve(rows, terms({1, 1}, {0.5, 0.6}), o, &(l = at(0.1, both_held)))));
  EXPECT_FALSE(BottleneckWithoutSolve(rows, terms({1, 1}, {0.5, 0.6}), o, &(l = at(0.1, one_free))));
  EXPECT_FALSE(BottleneckWithoutSolve(rows, terms({1, 1}, {0.5, 0.6}), o, &(l = at(0.1, no_duals))));
  // A frozen row beside one growing row held by its dual: nobody grows.
  EXPECT_TRUE(nobody(BottleneckWithoutSolve(rows, terms({1, 0}, {0.5, 0.6}), o, &(l = at(0.1, one_free)))));
  // Held, and one must grow (below the threshold) while the other cannot: no point.
  EXPECT_TRUE(no_point(BottleneckWithoutSolve(rows, terms({1, 1}, {0.05, 0.6}), o, &(l = at(0.001, both_held)))));
}

TEST(GavelWaterFillingTest, LevelWeightsByReweighting) {
  AllocationProblem p = JobTwoFastOnB();
  p.jobs[0].weight = 1;
  p.jobs[1].weight = 2;
  EntityAssignment e;
  e.entities = {Entity{"x", 3, Reweighting::kFairness}};
  e.entity_of = {{0, 0}, {1, 0}};  // job 2 alone: its own weight
  p.jobs[2].weight = 5;
  std::vector<double> w = LevelWeights(p, e, {false, false, false});
  EXPECT_DOUBLE_EQ(w[0], 1);
  EXPECT_DOUBLE_EQ(w[1], 2);
  EXPECT_DOUBLE_EQ(w[2], 5);
  w = LevelWeights(p, e, {false, true, true});  // job 1 frozen: job 0 takes the entity's 3
  EXPECT_DOUBLE_EQ(w[0], 3);
  EXPECT_DOUBLE_EQ(w[1], 0);
  EXPECT_DOUBLE_EQ(w[2], 0);
  e.entities[0].reweighting = Reweighting::kFifo;
  w = LevelWeights(p, e, {true, false, false});  // fifo: the first job not frozen
  EXPECT_DOUBLE_EQ(w[0], 0);
  EXPECT_DOUBLE_EQ(w[1], 3);
  // No entities: the jobs' own weights, frozen or not (Gavel's reweighting None).
  w = LevelWeights(p, {}, {true, true, true});
  EXPECT_DOUBLE_EQ(w[1], 2);
}

std::string WfTempFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

Status MakeWf(const std::vector<std::string>& items, const std::string& policy = "gavel-water-filling") {
  auto options = Options::Parse(items);
  if (!options.ok()) return options.status();
  auto made = Registry<JobScheduler>::Instance().Create(policy, *options);
  return made.ok() ? Status::Ok() : made.status();
}

TEST(GavelWaterFillingPolicyTest, OptionsAndEntityFiles) {
  EXPECT_TRUE(MakeWf({}).ok());
  EXPECT_TRUE(MakeWf({"point=cvxopt", "mechanism=gavel"}, "gavel-water-filling-agnostic").ok());
  EXPECT_TRUE(MakeWf({"entities=user", "entity.alice=2", "reweighting=fifo"}).ok());
  const std::string good = WfTempFile("wf_entities.csv", "job_id,entity\n0,alice\n1,bob\n");
  const std::string weights =
      WfTempFile("wf_weights.csv", "# weights\nentity,weight,reweighting\nalice,2\nbob,1,fifo\n");
  EXPECT_TRUE(MakeWf({"entity_file=" + good, "entity_weights=" + weights}).ok());

  auto expect_error = [](const Status& s, const std::string& text) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
  };
  expect_error(MakeWf({"point=centre"}), "'vertex' or 'cvxopt'");
  expect_error(MakeWf({"slack=0.5"}), "option 'slack'");
  expect_error(MakeWf({"tight_milp=maybe"}), "option 'tight_milp'");
  expect_error(MakeWf({"decide_without_solve=2"}), "option 'decide_without_solve'");
  expect_error(MakeWf({"column_memory=yes please"}, "gavel-water-filling-packed"), "option 'column_memory'");
  EXPECT_TRUE(MakeWf({"column_memory=false", "decide_without_solve=false"}, "gavel-water-filling-packed").ok());
  expect_error(MakeWf({"entities=group"}), "option 'entities'");
  expect_error(MakeWf({"entity.alice=2"}), "without entities");
  expect_error(MakeWf({"entities=user", "entity.alice=-1"}),
               "option 'entity.alice': must be a positive number");
  expect_error(MakeWf({"entities=user", "entity_file=" + good}), "exclude each other");
  const std::string bad_weight = WfTempFile("wf_bad_weight.csv", "alice,2\nbob,zero\n");
  expect_error(MakeWf({"entities=user", "entity_weights=" + bad_weight}), bad_weight + ":2: field 'weight'");
  const std::string bad_rw = WfTempFile("wf_bad_rw.csv", "alice,2,lottery\n");
  expect_error(MakeWf({"entities=user", "entity_weights=" + bad_rw}), bad_rw + ":1: field 'reweighting'");
  const std::string twice = WfTempFile("wf_twice.csv", "job_id,entity\n0,a\n\n0,b\n");
  expect_error(MakeWf({"entity_file=" + twice}), twice + ":4: field 'job_id': job 0 is listed twice");
  const std::string bad_id = WfTempFile("wf_bad_id.csv", "x,a\n");
  expect_error(MakeWf({"entity_file=" + bad_id}), bad_id + ":1: field 'job_id'");
  const std::string fields = WfTempFile("wf_fields.csv", "0,a,b\n");
  expect_error(MakeWf({"entity_file=" + fields}), fields + ":1: expected 2 comma-separated fields, got 3");
  expect_error(MakeWf({"entity_file=/nonexistent/entities.csv"}), "/nonexistent/entities.csv");
}

}  // namespace
}  // namespace hetsched::gavel
