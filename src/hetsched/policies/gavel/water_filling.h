// Gavel's hierarchical max-min fairness by water filling (Narayanan et al., OSDI 2020, section 4.3;
// Gavel's policies/max_min_fairness_water_filling.py): the min normalised share is raised level by
// level. Each level is one LP: maximise the lowest weighted share gain of the jobs not yet frozen,
// keeping every job at its level so far; then a bottleneck MILP finds the largest set of those jobs
// that can all still grow (by the factor `slack`) together, and every other one is frozen at its
// level. It ends when a level freezes nothing or every job is frozen. With entities, a job's weight
// is recomputed at every level from its entity's (the "fairness" or "fifo" reweighting of Gavel's
// WaterFillingAlgorithm._compute_priority_weights), so that an entity's weight passes to its jobs
// still growing. docs/gavel.md, "Water filling", has the LP and MILP with [SRC]/[REC] tags.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hetsched/lp/linear_program.h"
#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/policies/gavel/centre.h"
#include "hetsched/util/status.h"

namespace hetsched::gavel {

// How an entity's weight is shared by its jobs at each level (Gavel's priority_reweighting_policies).
enum class Reweighting {
  // The entity's weight split over its jobs not yet frozen, in proportion to their own weights.
  kFairness,
  // All of the entity's weight on its first job (lowest id) not yet frozen; its other jobs weigh 0
  // at that level (they keep their level but do not grow with the others).
  kFifo,
};

struct Entity {
  std::string name;
  double weight = 1;  // > 0
  Reweighting reweighting = Reweighting::kFairness;
};

// Which entity each job belongs to. Empty `entities`: none (Gavel's simulator passes none,
// scheduler.py:2129-2131): each job weighs its own priority weight at every level. A job missing
// from `entity_of` forms an entity of its own weighing its priority weight (fairness). [REC]
struct EntityAssignment {
  std::vector<Entity> entities;
  std::map<JobId, int> entity_of;  // job -> index into entities
  bool empty() const { return entities.empty(); }
};

struct WaterFillingOptions {
  // kVertex: each level LP by the simplex (hetsched's default); kCvxopt: the point cvxopt's
  // interior-point solver returns (`--compat gavel`; Gavel uses ECOS, max_min_fairness_water_filling.py:150).
  SharePoint point = SharePoint::kVertex;
  // Gavel's bottleneck test (max_min_fairness_water_filling.py:158, 160, 215-223): a job still grows if it
  // can reach slack x its level (+ epsilon on the other side).
  double slack = 1.0001;
  double epsilon = 1e-5;
  // Solve the bottleneck MILP without its big M where that has the same feasible sets (every
  // level at least epsilon / (slack - 1)): its relaxation most often answers it in one LP. false:
  // Gavel's big-M MILP by branch and cut every time.
  bool tight_milp = true;
  // Answer the bottleneck MILP without a solve where its rows and the level just reached say it has
  // no point (levels below epsilon / (slack - 1), water_filling_internal.h BottleneckWithoutSolve):
  // the same answer. false: solve it every time (for comparison).
  bool decide_without_solve = true;
  // Packed: the level LPs and the bottleneck relaxations hold the single columns and only the pair
  // columns priced in so far (packed_columns.h), rather than every pair's (O(active^2)); the same
  // levels, another optimal vertex where the level LP's is not unique. The MILPs hold every
  // column. false: every column (for comparison).
  bool generate_pair_columns = true;
  // Packed, with generate_pair_columns: each solve starts from the pair columns with a share at
  // the last solve's allocation (PairColumnMemory, as the LP packed policies keep theirs), so that
  // few are left to price in. false: from the singles alone every solve.
  bool remember_pair_columns = true;
};

// What one solve did, for tests and statistics.
struct WaterFillingTrace {
  int levels = 0;                 // levels (a level LP each)
  int level_solves = 0;           // level LP solves (more than levels where pair columns were priced in)
  int milps = 0;                  // bottleneck MILPs solved (feasible or not)
  int infeasible_milps = 0;       // of which infeasible: every growing job frozen (Gavel's except path)
  int milps_decided = 0;          // of which answered without a solve (no optimum: its rows and the level say so)
  std::vector<double> objective;  // each level LP's objective c (Gavel's _lp_objective.value)
  std::vector<double> level;      // per job of the problem: its final normalised share level (0 unplaceable)
  size_t pair_columns = 0;        // the problem's usable pair columns (pair and type)
  size_t pair_columns_held = 0;   // of which the LPs held at the end (all without generation)
};

// The allocation of the last level LP solved, clipped to [0, 1]. `solver`: the level LPs' (vertex
// point), each later level warm from the previous one's basis (primal simplex), the first from the
// last solve's first level (slot 1: by key where the solver matches by key, else by shape). Normalised share of job j:
// n_j = sum_k T[j][k] X[j][k] / P_j, P_j = ProportionalThroughput; a level's gain is weighed by
// g_j / w_j (w_j: the job's weight at that level). objective = the first level's c.
Result<Allocation> SolveWaterFilling(const AllocationProblem& problem, const EntityAssignment& entities,
                                     const WaterFillingOptions& options, lp::WarmStartLpSolver& solver,
                                     WaterFillingTrace* trace = nullptr);

// Gavel's per-level job weights (WaterFillingAlgorithm._compute_priority_weights): for each job of
// `problem` (index j), its weight at this level given which jobs are frozen. Exposed for tests.
std::vector<double> LevelWeights(const AllocationProblem& problem, const EntityAssignment& entities,
                                 const std::vector<bool>& frozen);

}  // namespace hetsched::gavel
