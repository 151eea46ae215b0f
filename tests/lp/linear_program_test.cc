// Hand-solved LPs and a small MIP through Clp/CBC, infeasible and unbounded programs, and warm
// starts that reach the same optimum with fewer simplex iterations.
#include "hetsched/lp/linear_program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/lp/solver_backend.h"

namespace hetsched::lp {
namespace {

using Terms = std::vector<std::pair<int, double>>;

// max 3x + 2y  s.t.  x + y <= 4,  x + 3y <= 6,  x <= 3,  x, y >= 0.
// Vertices: (0,0)=0, (3,0)=9, (3,1)=11, (1.5,1.5)... check x+y=4 with x=3 -> y=1: 3+3=6 <= 6 ok.
// (3,1): 9+2 = 11 is the optimum (next vertex (0,2) gives 4).
TEST(SolveLpTest, HandSolvedMaximisation) {
  LinearProgram p;
  p.SetSense(Sense::kMaximize);
  const int x = p.AddVariable(0, 3, 3);
  const int y = p.AddVariable(0, kInfinity, 2);
  p.AddConstraint(Terms{{x, 1}, {y, 1}}, -kInfinity, 4);
  p.AddConstraint(Terms{{x, 1}, {y, 3}}, -kInfinity, 6);
  auto s = SolveLp(p);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->status, SolveStatus::kOptimal);
  EXPECT_NEAR(s->objective, 11.0, 1e-9);
  EXPECT_NEAR(s->values[0], 3.0, 1e-9);
  EXPECT_NEAR(s->values[1], 1.0, 1e-9);
}

// max x + y  s.t.  x + 2y <= 4,  3x + y <= 6: the optimum (8/5, 6/5) = 14/5, where both rows bind;
// their duals solve 1 = y0 + 3 y1, 1 = 2 y0 + y1: y = (2/5, 1/5). A column z left out, objective
// 1 and (1, 1) in the rows, has reduced cost 1 - 2/5 - 1/5 = 2/5 > 0: adding it would raise the
// optimum. As min -x - y the duals and the reduced cost change sign.
TEST(SolveLpTest, RowDualsInTheProgramsSense) {
  for (const bool maximise : {true, false}) {
    SCOPED_TRACE(maximise ? "max" : "min");
    const double sign = maximise ? 1.0 : -1.0;
    LinearProgram p;
    p.SetSense(maximise ? Sense::kMaximize : Sense::kMinimize);
    const int x = p.AddVariable(0, kInfinity, sign);
    const int y = p.AddVariable(0, kInfinity, sign);
    p.AddConstraint(Terms{{x, 1}, {y, 2}}, -kInfinity, 4);
    p.AddConstraint(Terms{{x, 3}, {y, 1}}, -kInfinity, 6);
    WarmStartLpSolver warm;
    for (int run = 0; run < 3; ++run) {  // cold, the warm solver's cold start, then warm
      auto s = run == 0 ? SolveLp(p) : warm.Solve(p);
      ASSERT_TRUE(s.ok()) << s.status().message();
      ASSERT_EQ(s->status, SolveStatus::kOptimal);
      EXPECT_NEAR(s->objective, sign * 14.0 / 5, 1e-9);
      ASSERT_EQ(s->duals.size(), 2u);
      EXPECT_NEAR(s->duals[0], sign * 2.0 / 5, 1e-9);
      EXPECT_NEAR(s->duals[1], sign * 1.0 / 5, 1e-9);
      EXPECT_NEAR(sign - s->duals[0] - s->duals[1], sign * 2.0 / 5, 1e-9);  // z's reduced cost
    }
  }
}

// min x + y  s.t.  x + 2y >= 4,  3x + y >= 6.  Intersection: x = 8/5, y = 6/5, objective 14/5.
// (Vertices (0,6) -> 6 and (4,0) -> 4 are worse.)
TEST(SolveLpTest, HandSolvedMinimisationWithDuplicateTerms) {
  LinearProgram p;
  const int x = p.AddVariable(0, kInfinity, 1);
  const int y = p.AddVariable(0, kInfinity, 1);
  p.AddConstraint(Terms{{x, 1}, {y, 1}, {y, 1}}, 4, kInfinity);  // y twice: summed to 2y
  p.AddConstraint(Terms{{x, 3}, {y, 1}}, 6, kInfinity);
  auto s = SolveLp(p);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->status, SolveStatus::kOptimal);
  EXPECT_NEAR(s->objective, 14.0 / 5.0, 1e-9);
  EXPECT_NEAR(s->values[0], 8.0 / 5.0, 1e-9);
  EXPECT_NEAR(s->values[1], 6.0 / 5.0, 1e-9);
}

// Duplicates are summed into the variable's first term, in order; the next row starts afresh.
TEST(LinearProgramTest, DuplicateTermsSummedPerRow) {
  LinearProgram p;
  const int x = p.AddVariable(0, 1, 0);
  const int y = p.AddVariable(0, 1, 0);
  p.AddConstraint(Terms{{y, 1}, {x, 2}, {y, 3}, {x, 4}, {y, 5}}, 0, 1);
  p.AddConstraint(Terms{{x, 7}, {y, 8}}, 0, 1);
  using Term = std::pair<int, double>;
  const std::vector<Term> expected{{y, 9}, {x, 6}, {x, 7}, {y, 8}};
  EXPECT_EQ(p.row_terms(), expected);
  EXPECT_EQ(p.row_start(), (std::vector<int>{0, 2, 4}));
}

TEST(SolveLpTest, InfeasibleAndUnbounded) {
  LinearProgram infeasible;  // x >= 2 and x <= 1
  const int x = infeasible.AddVariable(0, kInfinity, 1);
  infeasible.AddConstraint(Terms{{x, 1}}, 2, kInfinity);
  infeasible.AddConstraint(Terms{{x, 1}}, -kInfinity, 1);
  auto a = SolveLp(infeasible);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, SolveStatus::kInfeasible);
  EXPECT_TRUE(a->values.empty());

  LinearProgram unbounded;  // max x + y, x - y <= 1
  unbounded.SetSense(Sense::kMaximize);
  const int u = unbounded.AddVariable(0, kInfinity, 1);
  const int v = unbounded.AddVariable(0, kInfinity, 1);
  unbounded.AddConstraint(Terms{{u, 1}, {v, -1}}, -kInfinity, 1);
  auto b = SolveLp(unbounded);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->status, SolveStatus::kUnbounded);
}

TEST(SolveLpTest, BadIndexIsAnError) {
  LinearProgram p;
  p.AddVariable(0, 1, 1);
  p.AddConstraint(Terms{{3, 1.0}}, 0, 1);
  auto s = SolveLp(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("variable 3"), std::string::npos);
}

TEST(SolveLpTest, EmptyProgramIsOptimalZero) {
  auto s = SolveLp(LinearProgram{});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->status, SolveStatus::kOptimal);
  EXPECT_EQ(s->objective, 0.0);
}

// Knapsack: max 5a + 4b + 3c, 2a + 3b + c <= 5, binary. Candidates: {a,b} weight 5 value 9;
// {a,c} weight 3 value 8; {b,c} 4 -> 7; {a,b,c} weight 6 too heavy. Optimum 9 (a = b = 1).
// The LP relaxation is larger: a = 1, c = 1, b = 2/3 -> 5 + 8/3 + 3 = 10.67.
TEST(SolveMipTest, SmallKnapsack) {
  LinearProgram p;
  p.SetSense(Sense::kMaximize);
  const int a = p.AddVariable(0, 1, 5, true);
  const int b = p.AddVariable(0, 1, 4, true);
  const int c = p.AddVariable(0, 1, 3, true);
  p.AddConstraint(Terms{{a, 2}, {b, 3}, {c, 1}}, -kInfinity, 5);
  EXPECT_TRUE(p.has_integers());
  auto mip = SolveMip(p);
  ASSERT_TRUE(mip.ok());
  ASSERT_EQ(mip->status, SolveStatus::kOptimal);
  EXPECT_NEAR(mip->objective, 9.0, 1e-9);
  EXPECT_EQ(mip->values, (std::vector<double>{1, 1, 0}));
  auto relaxed = SolveLp(p);
  ASSERT_TRUE(relaxed.ok());
  EXPECT_NEAR(relaxed->objective, 5.0 + 8.0 / 3.0 + 3.0, 1e-9);
}

TEST(SolveMipTest, Infeasible) {
  LinearProgram p;  // 2a = 1 with a integer
  const int a = p.AddVariable(0, 10, 1, true);
  p.AddConstraint(Terms{{a, 2}}, 1, 1);
  auto s = SolveMip(p);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->status, SolveStatus::kInfeasible);
}

// A max-min family: max z s.t. z <= c_j * x_j (j = 0..n-1), sum x_j <= 1. Optimum
// z* = 1 / sum(1/c_j). Changing one c slightly keeps the shape: the warm start reaches the same
// optimum as a cold solve in fewer iterations. With `ids` (one per c) every variable and row is
// named: "z", "sum", and job j's "x<id>" and "z<id>".
LinearProgram MaxMin(const std::vector<double>& c, const std::vector<int>& ids = {}) {
  const bool named = !ids.empty();
  auto name = [&](const char* what, size_t j) { return named ? what + std::to_string(ids[j]) : std::string(); };
  LinearProgram p;
  p.SetSense(Sense::kMaximize);
  const int z = p.AddVariable(0, kInfinity, 1, false, named ? "z" : "");
  Terms sum;
  for (size_t j = 0; j < c.size(); ++j) {
    const int x = p.AddVariable(0, 1, 0, false, name("x", j));
    p.AddConstraint(Terms{{z, 1}, {x, -c[j]}}, -kInfinity, 0, name("z", j));
    sum.emplace_back(x, 1);
  }
  p.AddConstraint(sum, -kInfinity, 1, named ? "sum" : "");
  return p;
}

// Solves `p` warm with `solver` (its warm_starts() then `warm_starts`) and cold: the same optimum,
// in fewer iterations where `fewer_iterations`.
void ExpectWarmSolveMatchesCold(WarmStartLpSolver& solver, const LinearProgram& p, long long warm_starts,
                                bool fewer_iterations = true) {
  auto warm = solver.Solve(p);
  auto cold = SolveLp(p);
  ASSERT_TRUE(warm.ok() && cold.ok());
  ASSERT_EQ(warm->status, SolveStatus::kOptimal);
  EXPECT_EQ(solver.warm_starts(), warm_starts);
  EXPECT_NEAR(warm->objective, cold->objective, 1e-9);
  if (fewer_iterations) {
    EXPECT_LT(warm->iterations, cold->iterations);
  }
}

TEST(WarmStartLpSolverTest, SameOptimumFewerIterations) {
  std::vector<double> c;
  for (int j = 0; j < 60; ++j) c.push_back(1.0 + 0.1 * j);
  WarmStartLpSolver solver;
  auto first = solver.Solve(MaxMin(c));
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->status, SolveStatus::kOptimal);
  double inv = 0;
  for (double cj : c) inv += 1 / cj;
  EXPECT_NEAR(first->objective, 1 / inv, 1e-9);
  EXPECT_EQ(solver.warm_starts(), 0);

  c[7] *= 1.01;
  ExpectWarmSolveMatchesCold(solver, MaxMin(c), 1);

  // A different shape is solved cold (and correctly).
  c.push_back(2.0);
  auto grown = solver.Solve(MaxMin(c));
  ASSERT_TRUE(grown.ok());
  EXPECT_EQ(solver.warm_starts(), 1);
  inv = 0;
  for (double cj : c) inv += 1 / cj;
  EXPECT_NEAR(grown->objective, 1 / inv, 1e-9);
}

// Jobs 0-59 with c_j = 1 + 0.1 j.
void SixtyJobs(std::vector<double>* c, std::vector<int>* ids) {
  for (int j = 0; j < 60; ++j) {
    c->push_back(1.0 + 0.1 * j);
    ids->push_back(j);
  }
}

// Matching by name, a program whose jobs came and went starts from the previous basis and reaches
// the cold solve's optimum in fewer iterations; an unnamed one falls back to the shape rule.
TEST(WarmStartLpSolverTest, ByNameStartsWarmAfterJobsComeAndGo) {
  std::vector<double> c;
  std::vector<int> ids;
  SixtyJobs(&c, &ids);
  WarmStartLpSolver solver(WarmStartMatch::kName);
  ASSERT_TRUE(solver.Solve(MaxMin(c, ids)).ok());
  EXPECT_EQ(solver.warm_starts(), 0);

  c.erase(c.begin() + 10);  // job 10 leaves, job 60 arrives
  ids.erase(ids.begin() + 10);
  c.push_back(3.5);
  ids.push_back(60);
  ExpectWarmSolveMatchesCold(solver, MaxMin(c, ids), 1);

  c.push_back(2.0);
  auto unnamed = solver.Solve(MaxMin(c));
  ASSERT_TRUE(unnamed.ok());
  EXPECT_EQ(solver.warm_starts(), 1);
}

// MaxMin(c, ids) keyed (lp::Key) instead of named: z 1, x_j 2 + 4 id, z row 3 + 4 id, sum 4. With
// `even_rows` only jobs of even id have a z row (the others' x stay at 0).
LinearProgram KeyedMaxMin(const std::vector<double>& c, const std::vector<int>& ids, bool even_rows = false) {
  LinearProgram p;
  p.SetSense(Sense::kMaximize);
  const int z = p.AddVariable(0, kInfinity, 1);
  p.SetVariableKey(z, 1);
  Terms sum;
  for (size_t j = 0; j < c.size(); ++j) {
    const int x = p.AddVariable(0, 1, 0);
    p.SetVariableKey(x, 2 + 4 * static_cast<Key>(ids[j]));
    sum.emplace_back(x, 1);
    if (even_rows && ids[j] % 2 != 0) continue;
    const int row = p.AddConstraint(Terms{{z, 1}, {x, -c[j]}}, -kInfinity, 0);
    p.SetConstraintKey(row, 3 + 4 * static_cast<Key>(ids[j]));
  }
  p.SetConstraintKey(p.AddConstraint(sum, -kInfinity, 1), 4);
  return p;
}

// Matching by key works as by name: a program whose jobs came and went starts warm; one keyed
// only in part, or named where the last was keyed, falls back to the shape rule.
TEST(WarmStartLpSolverTest, ByKeyStartsWarmAfterJobsComeAndGo) {
  std::vector<double> c;
  std::vector<int> ids;
  SixtyJobs(&c, &ids);
  WarmStartLpSolver solver(WarmStartMatch::kName);
  ASSERT_TRUE(solver.Solve(KeyedMaxMin(c, ids)).ok());
  EXPECT_EQ(solver.warm_starts(), 0);

  c.erase(c.begin() + 10);  // job 10 leaves, jobs 60 and 61 arrive
  ids.erase(ids.begin() + 10);
  c.insert(c.end(), {3.5, 2.0});
  ids.insert(ids.end(), {60, 61});
  ExpectWarmSolveMatchesCold(solver, KeyedMaxMin(c, ids), 1);

  c.push_back(2.2);
  ids.push_back(62);
  LinearProgram part = KeyedMaxMin(c, ids);
  part.SetVariableKey(3, kNoKey);
  ASSERT_TRUE(solver.Solve(part).ok());
  EXPECT_EQ(solver.warm_starts(), 1);  // another shape, not all keyed: cold
  ASSERT_TRUE(solver.Solve(KeyedMaxMin(c, ids)).ok());
  EXPECT_EQ(solver.warm_starts(), 2);  // same shape as `part`
  ASSERT_TRUE(solver.Solve(MaxMin(c, ids)).ok());
  EXPECT_EQ(solver.warm_starts(), 3);  // names, not keys: by shape (the same)
  c.push_back(2.5);
  ids.push_back(63);
  ASSERT_TRUE(solver.Solve(KeyedMaxMin(c, ids)).ok());
  EXPECT_EQ(solver.warm_starts(), 3);  // keys after names, another shape: cold
}

// A key carries its variable's and its row's status wherever they move: the same program with its
// jobs in reverse order (odd and even places swapped) starts at its optimum (no iteration), which
// the shape rule would not.
TEST(WarmStartLpSolverTest, ByKeyFollowsVariablesThatMove) {
  std::vector<double> c;
  std::vector<int> ids;
  for (int j = 0; j < 40; ++j) {
    c.push_back(1.0 + 0.37 * ((j * 7) % 40));
    ids.push_back(j);
  }
  WarmStartLpSolver solver(WarmStartMatch::kName);
  auto first = solver.Solve(KeyedMaxMin(c, ids, true));
  ASSERT_TRUE(first.ok());
  std::reverse(c.begin(), c.end());
  std::reverse(ids.begin(), ids.end());
  auto moved = solver.Solve(KeyedMaxMin(c, ids, true));
  ASSERT_TRUE(moved.ok());
  ASSERT_EQ(moved->status, SolveStatus::kOptimal);
  EXPECT_EQ(solver.warm_starts(), 1);
  EXPECT_EQ(moved->iterations, 0);
  EXPECT_NEAR(moved->objective, first->objective, 1e-9);
}

// A leaver can take more basic variables than rows with it (or fewer): the start is repaired to
// one basic variable per row, and the solve still ends at the cold optimum.
TEST(WarmStartLpSolverTest, ByNameRepairsTheBasisCount) {
  const std::vector<double> c{1.0, 1.5, 2.0, 2.5, 3.0};
  const std::vector<int> ids{0, 1, 2, 3, 4};
  for (const bool drop_row : {true, false}) {
    WarmStartLpSolver solver(WarmStartMatch::kName);
    ASSERT_TRUE(solver.Solve(MaxMin(c, ids)).ok());  // every x basic, every z row binding
    // Job 2 loses its z row (one basic too many) or its x (one too few; z <= 0 then).
    LinearProgram p;
    p.SetSense(Sense::kMaximize);
    const int z = p.AddVariable(0, kInfinity, 1, false, "z");
    Terms sum;
    for (size_t j = 0; j < c.size(); ++j) {
      const std::string id = std::to_string(ids[j]);
      const bool keep_x = !(j == 2 && !drop_row);
      const int x = keep_x ? p.AddVariable(0, 1, 0, false, "x" + id) : -1;
      if (keep_x) sum.emplace_back(x, 1);
      if (j == 2 && drop_row) continue;
      p.AddConstraint(keep_x ? Terms{{z, 1}, {x, -c[j]}} : Terms{{z, 1}}, -kInfinity, 0, "z" + id);
    }
    p.AddConstraint(sum, -kInfinity, 1, "sum");
    SCOPED_TRACE(drop_row ? "z row dropped" : "x dropped");
    ExpectWarmSolveMatchesCold(solver, p, 1, false);
  }
}

TEST(WarmStartLpSolverTest, InfeasibleAfterWarmStartIsReported) {
  WarmStartLpSolver solver;
  LinearProgram p;
  const int x = p.AddVariable(0, kInfinity, 1);
  p.AddConstraint(Terms{{x, 1}}, 2, kInfinity);
  auto ok = solver.Solve(p);
  ASSERT_TRUE(ok.ok());
  EXPECT_NEAR(ok->objective, 2, 1e-9);
  LinearProgram q;  // same shape, now x >= 2 and x <= 1 through the variable bound
  const int y = q.AddVariable(0, 1, 1);
  q.AddConstraint(Terms{{y, 1}}, 2, kInfinity);
  auto bad = solver.Solve(q);
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->status, SolveStatus::kInfeasible);
}

// A makespan-like family in phases (as gavel-makespan solves it): shares x[j][k] in [0, 1] of
// `jobs` jobs on three types with rates spread over six orders of magnitude (so that Clp scales
// the matrix), max theta s.t. sum_k rate[j][k] x[j][k] >= theta, sum_k x[j][k] <= 1, and
// sum_j x[j][k] <= capacity[k]; a free work row. Every variable and row keyed. Each `round` (a
// re-solve) changes the rates of two jobs in three; `spread` multiplies one rate.
struct PhasedProgram {
  LinearProgram p;
  int theta = -1;
  int work = -1;
  std::vector<double> work_objective;
};

PhasedProgram Phased(int jobs, int round, double spread = 1) {
  PhasedProgram m;
  m.p.SetSense(Sense::kMaximize);
  m.theta = m.p.AddVariable(0, kInfinity, 1);
  m.p.SetVariableKey(m.theta, 1);
  std::vector<Terms> per_type(3);
  Terms work;
  for (int j = 0; j < jobs; ++j) {
    Terms need{{m.theta, -1}}, time;
    for (int k = 0; k < 3; ++k) {
      const int x = m.p.AddVariable(0, 1, 0);
      m.p.SetVariableKey(x, 100 + 3 * static_cast<Key>(j) + static_cast<Key>(k));
      double rate = std::pow(10.0, ((j * 7 + k * 3) % 13) / 2.0 - 3) * (1 + 0.1 * k) * (1 + 0.3 * round * (j % 3));
      if (j == 0 && k == 0) rate *= spread;
      need.emplace_back(x, rate);
      time.emplace_back(x, 1);
      per_type[static_cast<size_t>(k)].emplace_back(x, 1 + (j % 4));
      work.emplace_back(x, 1.0 / (1 + k));
    }
    m.p.SetConstraintKey(m.p.AddConstraint(need, 0, kInfinity), 1000 + 2 * static_cast<Key>(j));
    m.p.SetConstraintKey(m.p.AddConstraint(time, -kInfinity, 1), 1001 + 2 * static_cast<Key>(j));
  }
  for (int k = 0; k < 3; ++k) {
    m.p.SetConstraintKey(m.p.AddConstraint(per_type[static_cast<size_t>(k)], -kInfinity, 4 + 3 * k), 10 + static_cast<Key>(k));
  }
  m.work = m.p.AddConstraint(work, -kInfinity, kInfinity);
  m.p.SetConstraintKey(m.work, 20);
  m.work_objective.assign(static_cast<size_t>(m.p.num_variables()), 0.0);
  for (const auto& [x, c] : work) m.work_objective[static_cast<size_t>(x)] = c;
  return m;
}

// A session puts a program with the loaded one's matrix into its Clp model in place (keeping the
// model's scale factors): each phase must come out bit for bit as from a fresh load of the same
// program, from the same start, which the second session (in_place = false) makes; a program with
// a fixed variable is loaded afresh.
TEST(WarmStartLpSolverTest, PhaseSolvedInPlaceEqualsFreshLoad) {
  for (const int jobs : {12, 40}) {
    SCOPED_TRACE(jobs);
    WarmStartLpSolver in_place(WarmStartMatch::kName), fresh(WarmStartMatch::kName, false);
    PhasedProgram m;
    // Solves the program in both sessions, expects the same solution, and returns it.
    Solution solution;
    auto phase = [&](int slot) {
      auto a = in_place.Solve(m.p, slot);
      auto b = fresh.Solve(m.p, slot);
      ASSERT_TRUE(a.ok() && b.ok());
      ASSERT_EQ(a->status, b->status);
      EXPECT_EQ(a->iterations, b->iterations);
      EXPECT_EQ(a->objective, b->objective);
      EXPECT_EQ(a->values, b->values);  // bit for bit
      solution = *a;
    };
    // Three re-solves of three phases, each phase from its own basis of the previous re-solve
    // (slots 1-3), as gavel-makespan solves them: phases 2 and 3 start elsewhere than where the
    // model was left.
    double best = 0;
    for (int round = 0; round < 3; ++round) {
      SCOPED_TRACE(round);
      m = Phased(jobs, round);
      phase(1);
      ASSERT_EQ(solution.status, SolveStatus::kOptimal);
      best = solution.values[static_cast<size_t>(m.theta)];
      ASSERT_GT(best, 0);
      m.p.SetVariableBounds(m.theta, best * (1 - 1e-7), kInfinity);
      for (int v = 0; v < m.p.num_variables(); ++v) m.p.SetObjective(v, m.work_objective[static_cast<size_t>(v)]);
      phase(2);
      ASSERT_EQ(solution.status, SolveStatus::kOptimal);
      double work = 0;
      for (size_t v = 0; v < m.work_objective.size(); ++v) work += m.work_objective[v] * solution.values[v];
      m.p.SetConstraintBounds(m.work, work * (1 - 1e-7), kInfinity);
      for (int v = 1; v < m.p.num_variables(); ++v) m.p.SetObjective(v, 1.0 / (1 + (v * (round + 1)) % 5));
      phase(3);
      ASSERT_EQ(solution.status, SolveStatus::kOptimal);
    }
    m.p.SetVariableBounds(m.theta, best * 1.5, kInfinity);
    phase(1);
    EXPECT_EQ(solution.status, SolveStatus::kInfeasible);
    m.p.SetVariableBounds(m.theta, best * (1 - 1e-7), best * (1 - 1e-7));  // fixed: loaded afresh
    phase(3);
    ASSERT_EQ(solution.status, SolveStatus::kOptimal);
    // A matrix whose elements span more than 12 orders of magnitude is loaded afresh every time
    // (Clp's scaling then raises the solve's tolerances): three more solves, none in place.
    m = Phased(jobs, 3, 1e13);
    for (int solve = 0; solve < 3; ++solve) phase(1);
    ASSERT_EQ(solution.status, SolveStatus::kOptimal);
    // The first phase 1 was cold (a model after a cold solve is loaded afresh), later ones loaded
    // (a new matrix); phase 2 loaded in the first round, in place after; phase 3 and the
    // infeasible one in place.
    EXPECT_EQ(in_place.in_place_solves(), 2 + 3 + 1);
    EXPECT_EQ(fresh.in_place_solves(), 0);
    EXPECT_EQ(in_place.warm_starts(), fresh.warm_starts());
  }
}

// Clp's driver (initialSolve) changes some of the model's settings for its own solve (special
// option 64 on more than 100 rows, a factorisation frequency by size, ...) and does not put them
// all back when it ends without an optimum. A session whose first, cold, solve is infeasible must
// then solve as a session that never met that program: bit for bit, over a run of re-solves in
// phases, with either warm-start match; and its next cold solve is the program solved alone.
TEST(WarmStartLpSolverTest, AnInfeasibleColdSolveLeavesNoTraceInLaterSolves) {
  for (const WarmStartMatch match : {WarmStartMatch::kShape, WarmStartMatch::kName}) {
    SCOPED_TRACE(static_cast<int>(match));
    WarmStartLpSolver after_infeasible(match), clean(match);
    PhasedProgram m = Phased(60, 0);  // 124 rows
    ASSERT_GT(m.p.num_constraints(), 100);
    m.p.SetVariableBounds(m.theta, 1e6, kInfinity);  // no share reaches it
    auto bad = after_infeasible.Solve(m.p);
    ASSERT_TRUE(bad.ok());
    ASSERT_EQ(bad->status, SolveStatus::kInfeasible);
    for (int round = 0; round < 6; ++round) {
      SCOPED_TRACE(round);
      m = Phased(60, round);
      for (int phase = 1; phase <= 2; ++phase) {
        if (phase == 2) {
          for (int v = 0; v < m.p.num_variables(); ++v) {
            m.p.SetObjective(v, m.work_objective[static_cast<size_t>(v)] + (v == m.theta ? 1e-3 : 0.0));
          }
        }
        auto a = after_infeasible.Solve(m.p, phase);
        auto b = clean.Solve(m.p, phase);
        ASSERT_TRUE(a.ok() && b.ok());
        if (round == 0 && phase == 1) {  // cold in both sessions
          auto alone = SolveLp(m.p);
          ASSERT_TRUE(alone.ok());
          EXPECT_EQ(a->iterations, alone->iterations);
          EXPECT_EQ(a->values, alone->values);
        }
        ASSERT_EQ(a->status, SolveStatus::kOptimal);
        ASSERT_EQ(b->status, SolveStatus::kOptimal);
        EXPECT_EQ(a->iterations, b->iterations);
        EXPECT_EQ(a->objective, b->objective);
        EXPECT_EQ(a->values, b->values);
      }
    }
  }
}

// Clp and CBC live in the back-end module, opened by the first solve (lp/solver_backend.h): once
// a program is solved, the module and Clp are mapped in this process (the simulator's FIFO test
// checks that a run that solves nothing maps neither).
TEST(SolverBackendTest, FirstSolveLoadsTheCoinOrModule) {
  LinearProgram p;
  p.AddVariable(1, 2, 1);  // min x, 1 <= x <= 2: x = 1
  auto s = SolveLp(p);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_NEAR(s->objective, 1.0, 1e-12);
  ASSERT_TRUE(LpSolverBackend().ok());
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  EXPECT_NE(text.str().find("libhetsched_lp_coin.so"), std::string::npos);
  EXPECT_NE(text.str().find("libClp"), std::string::npos);
}

}  // namespace
}  // namespace hetsched::lp

namespace hetsched::lp {
namespace {

// A multi-dimensional 0-1 knapsack (40 items, 6 rows, weights and values from a fixed LCG) that
// CBC does not close at its root: with max_nodes it stops after that many nodes, kLimitReached with
// its best point, and the same point again on a second run (a node limit, unlike a time limit, does
// not depend on the machine's speed).
TEST(SolveMipTest, NodeLimitStopsDeterministically) {
  LinearProgram p;
  p.SetSense(Sense::kMaximize);
  uint64_t state = 20261205;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>((state >> 33) % 1000) + 1;
  };
  const int items = 40;
  for (int i = 0; i < items; ++i) p.AddVariable(0, 1, next(), /*integer=*/true);
  for (int r = 0; r < 6; ++r) {
    std::vector<std::pair<int, double>> row;
    double total = 0;
    for (int i = 0; i < items; ++i) {
      row.emplace_back(i, next());
      total += row.back().second;
    }
    p.AddConstraint(row, -kInfinity, total / 3);
  }
  SolveOptions whole;
  whole.relative_gap = 0;
  auto full = SolveMip(p, whole);
  ASSERT_TRUE(full.ok());
  ASSERT_EQ(full->status, SolveStatus::kOptimal);
  ASSERT_GT(full->iterations, 3) << "the instance must need branching";
  SolveOptions limited = whole;
  limited.time_limit_s = kInfinity;
  limited.max_nodes = 2;
  auto a = SolveMip(p, limited);
  auto b = SolveMip(p, limited);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->status, SolveStatus::kLimitReached);
  EXPECT_LE(a->iterations, 3);
  EXPECT_EQ(a->values, b->values);
  EXPECT_EQ(a->objective, b->objective);
  if (!a->values.empty()) {
    EXPECT_LE(a->objective, full->objective + 1e-9);
  }
}

}  // namespace
}  // namespace hetsched::lp
