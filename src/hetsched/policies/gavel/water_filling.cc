// Gavel's water filling (water_filling.h). The structure follows Gavel's
// WaterFillingAlgorithm._run_get_allocation_iterations (max_min_fairness_water_filling.py:
// 235-308): a level LP, the level added to the growing jobs' floors, a bottleneck MILP, the jobs
// that cannot grow frozen. What Gavel does on a failed solve is kept: a level LP without an answer
// ends the filling with the previous level's allocation (:265-275), a bottleneck MILP without one
// (infeasible: its epsilon cannot be met below a level of epsilon / (slack - 1) = 0.1) freezes
// every growing job (:288-298). SolveWaterFillingPacked (packed.h) runs the same levels over the
// packed LP's columns (singles and pairs, packed.cc's PackedLayout).
#include "hetsched/policies/gavel/water_filling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "hetsched/policies/gavel/cvxopt.h"
#include "hetsched/policies/gavel/packed.h"
#include "hetsched/policies/gavel/packed_columns.h"
#include "hetsched/policies/gavel/water_filling_internal.h"

namespace hetsched::gavel {
namespace {

using water_filling_internal::BottleneckWithoutSolve;
using water_filling_internal::HeldNormalisedTerms;
using water_filling_internal::kPricingTolerance;
using water_filling_internal::LevelPoint;
using water_filling_internal::LevelTerms;
using water_filling_internal::PricingBatch;
using water_filling_internal::Rows;
using water_filling_internal::SolveBottleneck;

Rows CollectRows(const AllocationProblem& problem, Allocation* out) {
  Rows rows;
  const size_t types = problem.capacity.size();
  const PackedLayout singles = MakePackedLayout(problem, out, /*with_pairs=*/false);
  for (size_t r = 0; r < singles.rows(); ++r) {
    const size_t j = singles.job_of[r];
    const AllocationJob& job = problem.jobs[j];
    const double p = ProportionalThroughput(problem, j);  // > 0: the job can run somewhere
    std::vector<double> b(types, 0.0);
    for (size_t k = 0; k < types && k < job.throughput.size(); ++k) {
      b[k] = job.throughput[k] / p;
      // M = max over jobs and types of T / P x g (max_min_fairness_water_filling.py:390-392).
      rows.big_m = std::max(rows.big_m, b[k] * job.num_gpus);
    }
    rows.job_of.push_back(j);
    rows.p.push_back(p);
    rows.best.push_back(*std::max_element(b.begin(), b.end()));
    rows.b.push_back(std::move(b));
    rows.gpus.push_back(job.num_gpus);
  }
  // Packed: M = max_i max_{c contains i, k} T_i^{c,k} g_c / P_i (:444-453). A pair's largest rate
  // over its types divided once: rounding is monotone, so max_k (T_k / P) is (max_k T_k) / P, and
  // times g likewise (the same bits as dividing each column's).
  PairColumn last{static_cast<size_t>(-1)};
  auto add_pair = [&]() {
    if (last.pair == static_cast<size_t>(-1)) return;
    for (const auto& [r, t] : {std::pair{last.row_a, last.t_a}, std::pair{last.row_b, last.t_b}}) {
      const double coef = t / rows.p[static_cast<size_t>(r)];
      rows.best[static_cast<size_t>(r)] = std::max(rows.best[static_cast<size_t>(r)], coef);
      rows.big_m = std::max(rows.big_m, coef * last.gpus);
    }
  };
  ForEachPairColumn(problem, singles.row_of, [&](const PairColumn& pc) {
    ++rows.pair_columns;
    if (pc.pair != last.pair) {
      add_pair();
      last = pc;
    } else {
      last.t_a = std::max(last.t_a, pc.t_a);
      last.t_b = std::max(last.t_b, pc.t_b);
    }
  });
  add_pair();
  return rows;
}

// Gavel's level: the LP objective as cvxpy evaluates it at x (min over the rows of
// mult (n - floor) + M where mult = 0).
double LevelAt(const Rows& rows, const LevelTerms& terms, const LevelPoint& x) {
  double c = std::numeric_limits<double>::infinity();
  for (size_t r = 0; r < rows.size(); ++r) {
    const double term = terms.mult[r] > 0 ? terms.mult[r] * (x.normalised[r] - terms.floor[r]) : rows.big_m;
    c = std::min(c, term);
  }
  return c;
}

// The solver's slot (lp::WarmStartLpSolver::Solve) of each solve's first level LP: it starts from
// the previous solve's first level, the jobs that stayed keeping their basis where the solver
// matches by key (the packed policy's), rather than from the previous solve's last level.
constexpr int kFirstLevelSlot = 1;


// The level LP by the simplex: max t s.t. mult_r (b_r.x_r - floor_r) >= t (growing rows),
// b_r.x_r >= floor_r (every row), t <= M where some row is not growing. x unclipped in *x. Every
// level of one solve has the same rows (a non-growing row's epigraph row is free), so that each
// level starts from the previous one's basis, and without entities in the loaded model. Every
// variable and row is keyed by its job (pair) and type, for a solver that matches by key
// (lp::WarmStartMatch::kName). `first_level`: the solve's first level, from the previous solve's
// first level by the dual simplex; a later one from the last level by the primal simplex. Over
// the pair columns of `columns`, priced in until none left out can raise t (then re-solved from the
// last optimum, which the new columns at 0 still meet, by the primal simplex).
Result<bool> SolveLevelVertex(const AllocationProblem& problem, const Rows& rows, const LevelTerms& terms,
                              bool first_level, PackedColumnSet& columns, lp::WarmStartLpSolver& solver,
                              LevelPoint* x, Allocation* out, WaterFillingTrace* trace) {
  const size_t types = problem.capacity.size();
  bool all_growing = true;
  for (double m : terms.mult) all_growing = all_growing && m > 0;
  lp::Solution solution;
  int base = 0;  // the first floor row (then a floor and an epigraph row per row r)
  for (bool priced = false; !priced;) {
    lp::LinearProgram program;
    program.SetSense(lp::Sense::kMaximize);
    AddPackedShares(program, problem, columns.layout(), /*keyed=*/true);  // variable = column
    base = program.num_constraints();
    const int t = program.AddVariable(-lp::kInfinity, all_growing ? lp::kInfinity : rows.big_m, 1.0);
    program.SetVariableKey(t, JobKey(KeyKind::kTheta));
    std::vector<std::pair<int, double>> row;
    for (size_t r = 0; r < rows.size(); ++r) {
      const JobId id = problem.jobs[rows.job_of[r]].id;
      HeldNormalisedTerms(columns, rows, r, &row);
      program.SetConstraintKey(program.AddConstraint(row, terms.floor[r], lp::kInfinity), JobKey(KeyKind::kFloor, id));
      const bool growing = terms.mult[r] > 0;
      const double coef = growing ? terms.mult[r] : terms.base[r];
      for (auto& [v, c] : row) c *= coef;
      row.emplace_back(t, -1.0);
      const int epigraph =
          program.AddConstraint(row, growing ? terms.mult[r] * terms.floor[r] : -lp::kInfinity, lp::kInfinity);
      program.SetConstraintKey(epigraph, JobKey(KeyKind::kEpigraph, id));
    }
    // A later level's floors are the levels its growing jobs just reached and its newly frozen
    // jobs' epigraph rows are freed: the last level's point still meets it, where its basis is no
    // longer dual feasible. On g1s6c71a0 at 36:36:36 the dual simplex took 457 pivots a later
    // level against the primal's 9, and 21 of its 1,910 level LPs ended without an optimum (each
    // ending its filling early), none from the primal; on random problems either simplex meets
    // such floors, rounding puts some just out of reach (docs/PERFORMANCE.md, "Water filling
    // packed") [REC].
    // The policy without pairs keeps the dual simplex from the last level's basis: its validation
    // rows against Gavel's HiGHS (docs/validation.md, "Gavel's water filling", the vertex columns)
    // were measured so, and where its heterogeneity-blind optimal faces are wide the primal
    // simplex's vertex lay farther from HiGHS's (sb436b2 makespan -5% -> -16%); its LPs are small.
    // A reset's first level starts from the last reset's (kFirstLevelSlot), over other jobs: by the
    // primal simplex too (kPricedWarmAlgorithm; on the overloaded 1,928 jobs of msr 6214e9 at 8:8:8
    // under `--compat gavel` 84 -> 60 s, with the pricing as it was before session 48).
    const bool first_pass = solution.values.empty();
    const lp::WarmAlgorithm algorithm = rows.packed() ? kPricedWarmAlgorithm : lp::WarmAlgorithm::kDual;
    const int slot = rows.packed() && first_level ? kFirstLevelSlot : 0;
    HETSCHED_ASSIGN_OR_RETURN(solution, solver.Solve(program, slot, algorithm));
    ++trace->level_solves;
    ++out->lp_solves;
    out->simplex_iterations += solution.iterations;
    if (solution.status != lp::SolveStatus::kOptimal) return false;
    priced = columns.holds_every_column() || (!first_pass && columns.PricingStalled(solution));
    if (priced) break;
    // A unit of job r's effective throughput moves its floor row by 1 / P_r and its epigraph row
    // by coef / P_r.
    std::vector<double> per_rate(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      const double coef = terms.mult[r] > 0 ? terms.mult[r] : terms.base[r];
      const size_t floor_row = static_cast<size_t>(base) + 2 * r;
      per_rate[r] = (solution.duals[floor_row] + coef * solution.duals[floor_row + 1]) / rows.p[r];
    }
    priced = columns.PriceIn(solution.duals, 0, per_rate, kPricingTolerance, PricingBatch(rows.size())) == 0;
  }
  x->epigraph_dual.resize(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) x->epigraph_dual[r] = solution.duals[static_cast<size_t>(base) + 2 * r + 1];
  x->single.assign(rows.size(), std::vector<double>(types, 0.0));
  x->pair.clear();
  const PackedLayout& held = columns.layout();
  for (size_t c = 0; c < held.columns.size(); ++c) {
    const PackedLayout::Column& col = held.columns[c];
    const double v = solution.values[c];
    if (col.pair < 0) {
      x->single[static_cast<size_t>(col.row)][col.type] = v;
    } else if (v != 0) {
      x->pair.push_back({static_cast<size_t>(col.pair), col.type, v});
    }
  }
  // n_r over the held terms: the singles by type (b[r][k] = T / P_r; a type without a column adds
  // 0), then the pair columns, as before the pair layout went.
  x->normalised.assign(rows.size(), 0.0);
  for (size_t r = 0; r < rows.size(); ++r) {
    double n = 0;
    for (const auto& [c, t] : held.terms[r]) n += t / rows.p[r] * solution.values[static_cast<size_t>(c)];
    x->normalised[r] = n;
  }
  return true;
}

// The level LP at cvxopt's point: Gavel's LP as the peers' cvxpy stand-in hands it to cvxopt
// (a column per job and type; rows capacity, job, floor, epigraph, x >= 0).
bool SolveLevelCvxopt(const AllocationProblem& problem, const Rows& rows, const LevelTerms& terms, LevelPoint* x,
                      Allocation* out) {
  CentreProblem p;
  p.mode = CentreProblem::Mode::kMaxMin;
  p.capacity = problem.capacity;
  p.gpus = rows.gpus;
  p.count.assign(rows.size(), 1.0);
  WaterLevelRows level;
  level.b = rows.b;
  level.lower = terms.floor;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<double> a = rows.b[r];
    for (double& v : a) v *= terms.mult[r];
    p.a.push_back(std::move(a));
    level.epi_rhs.push_back(terms.mult[r] > 0 ? -terms.mult[r] * terms.floor[r] : rows.big_m);
  }
  ++out->lp_solves;
  Result<CentreResult> c = CvxoptShares(p, level);
  if (!c.ok()) return false;
  x->single = std::move(c->unclipped);
  x->epigraph_dual.clear();
  x->pair.clear();
  x->normalised.assign(rows.size(), 0.0);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t k = 0; k < rows.b[r].size(); ++k) x->normalised[r] += rows.b[r][k] * x->single[r][k];
  }
  return true;
}

}  // namespace

std::vector<double> LevelWeights(const AllocationProblem& problem, const EntityAssignment& entities,
                                 const std::vector<bool>& frozen) {
  const size_t n = problem.jobs.size();
  std::vector<double> w(n, 0.0);
  if (entities.empty()) {  // no reweighting: the jobs' own weights (:23-25)
    for (size_t j = 0; j < n; ++j) w[j] = problem.jobs[j].weight;
    return w;
  }
  // Members of each entity, in job id order (:56 sorts them for fifo; fairness is order-free).
  std::vector<std::vector<size_t>> members(entities.entities.size());
  std::vector<size_t> alone;
  for (size_t j = 0; j < n; ++j) {
    auto it = entities.entity_of.find(problem.jobs[j].id);
    if (it == entities.entity_of.end()) {
      alone.push_back(j);
    } else {
      members[static_cast<size_t>(it->second)].push_back(j);
    }
  }
  for (size_t j : alone) w[j] = frozen[j] ? 0.0 : problem.jobs[j].weight;
  for (size_t e = 0; e < members.size(); ++e) {
    std::vector<size_t>& jobs = members[e];
    std::sort(jobs.begin(), jobs.end(),
              [&](size_t a, size_t b) { return problem.jobs[a].id < problem.jobs[b].id; });
    const Entity& entity = entities.entities[e];
    if (entity.reweighting == Reweighting::kFairness) {  // :32-50
      double total = 0;
      for (size_t j : jobs) {
        if (!frozen[j]) total += problem.jobs[j].weight;
      }
      for (size_t j : jobs) w[j] = frozen[j] ? 0.0 : entity.weight * problem.jobs[j].weight / total;
    } else {  // fifo, :51-65
      bool given = false;
      for (size_t j : jobs) {
        if (frozen[j] || given) continue;
        w[j] = entity.weight;
        given = true;
      }
    }
  }
  return w;
}

namespace {

// SolveWaterFilling (a problem without pairs) and SolveWaterFillingPacked.
Result<Allocation> FillWater(const AllocationProblem& problem, const EntityAssignment& entities,
                             const WaterFillingOptions& options, bool extra_level,
                             lp::WarmStartLpSolver& solver, WaterFillingTrace* trace, PairColumnMemory* memory) {
  if (options.point == SharePoint::kCentre) {
    return Status::InvalidArgument("water filling: point 'centre' is not supported (vertex or cvxopt)");
  }
  Allocation out = ZeroAllocation(problem);
  WaterFillingTrace local;
  WaterFillingTrace& tr = trace != nullptr ? *trace : local;
  tr = WaterFillingTrace{};
  tr.level.assign(problem.jobs.size(), 0.0);
  const Rows rows = CollectRows(problem, &out);
  const size_t n = rows.size();
  if (n == 0) return out;
  // The pair columns the level LPs and relaxations hold, grown over the levels of this solve.
  PackedColumnSet columns(problem, nullptr, options.generate_pair_columns ? PairColumns::kPriced : PairColumns::kAll);
  const bool remember = memory != nullptr && options.generate_pair_columns && options.remember_pair_columns;
  if (remember) columns.HoldRemembered(*memory);
  if (rows.packed() && options.point != SharePoint::kVertex) {
    return Status::InvalidArgument("water filling (packed): only the simplex's vertex where pairs can run");
  }

  std::vector<bool> frozen_job(problem.jobs.size(), false);  // by job index, for LevelWeights
  std::vector<bool> frozen(n, false);
  size_t frozen_count = 0;
  std::vector<double> so_far(n, 0.0);
  LevelPoint x, last_x;
  bool have_x = false;
  for (bool done = false; !done;) {
    const std::vector<double> weight = LevelWeights(problem, entities, frozen_job);
    LevelTerms terms;
    terms.mult.assign(n, 0.0);
    terms.floor = so_far;  // a frozen job's floor is its final level, which so_far keeps
    terms.base.assign(n, 0.0);
    for (size_t r = 0; r < n; ++r) terms.base[r] = rows.gpus[r] / problem.jobs[rows.job_of[r]].weight;
    for (size_t r = 0; r < n; ++r) {
      const double w = weight[rows.job_of[r]];
      if (!frozen[r] && w > 0) terms.mult[r] = rows.gpus[r] / w;
    }
    ++tr.levels;
    bool solved = false;
    if (options.point == SharePoint::kCvxopt) {
      solved = SolveLevelCvxopt(problem, rows, terms, &x, &out);
      // Gavel has no answer where its first level fails (it would stop with an error); like
      // gavel-las's interior point, fall back to the simplex's vertex there [REC].
      if (!solved && !have_x) {
        HETSCHED_ASSIGN_OR_RETURN(
            solved, SolveLevelVertex(problem, rows, terms, /*first_level=*/true, columns, solver, &x, &out, &tr));
      }
    } else {
      HETSCHED_ASSIGN_OR_RETURN(
          solved, SolveLevelVertex(problem, rows, terms, /*first_level=*/!have_x, columns, solver, &x, &out, &tr));
    }
    if (solved) {
      const double c = LevelAt(rows, terms, x);
      tr.objective.push_back(c);
      if (tr.levels == 1) out.objective = c;
      for (size_t r = 0; r < n; ++r) {
        if (terms.mult[r] > 0) so_far[r] += c / terms.mult[r];
      }
      last_x = x;
      have_x = true;
    } else {
      done = true;  // the previous level's allocation stands (:265-275)
      if (!have_x) {
        out.status = lp::SolveStatus::kLimitReached;
        out.note = "water filling: the first level LP has no optimum";
        return out;
      }
    }
    LevelTerms milp_terms = terms;
    milp_terms.floor = so_far;
    ++tr.milps;
    std::vector<bool> grows;
    std::optional<std::vector<bool>> decided;
    if (options.decide_without_solve) {
      const water_filling_internal::LevelOptimum reached{solved ? tr.objective.back() : 0, &x.epigraph_dual};
      decided = BottleneckWithoutSolve(rows, milp_terms, options, solved ? &reached : nullptr);
    }
    if (decided) {
      ++tr.milps_decided;
      grows = std::move(*decided);
    } else {
      HETSCHED_ASSIGN_OR_RETURN(grows, SolveBottleneck(problem, rows, milp_terms, options, columns, &out));
    }
    if (grows.empty()) {  // no optimum: every growing job is frozen (:288-298)
      ++tr.infeasible_milps;
      grows.assign(n, false);
    }
    size_t newly = 0;
    for (size_t r = 0; r < n; ++r) {
      if (frozen[r] || grows[r] || !(weight[rows.job_of[r]] > 0)) continue;
      frozen[r] = true;
      frozen_job[rows.job_of[r]] = true;
      ++newly;
    }
    frozen_count += newly;
    // Gavel's packed loop compares the frozen count with the number of combinations (:478), so
    // with pairs it stops only at a level that freezes nobody: one more level after the last.
    if (newly == 0 || (frozen_count == n && !(extra_level && rows.packed()))) done = true;
  }
  tr.pair_columns = rows.pair_columns;
  tr.pair_columns_held = static_cast<size_t>(
      std::count_if(columns.layout().columns.begin(), columns.layout().columns.end(),
                    [](const PackedLayout::Column& col) { return col.pair >= 0; }));
  for (size_t r = 0; r < n; ++r) {
    const size_t j = rows.job_of[r];
    tr.level[j] = so_far[r];
    for (size_t k = 0; k < problem.capacity.size(); ++k) out.share[j][k] = std::clamp(last_x.single[r][k], 0.0, 1.0);
  }
  // Only the pairs with a share are written (a row never written reads 0): the others are nearly
  // all of them (1.38 million pairs on the overloaded 1,928-job case, a hash entry each). A pair
  // with a share on some type has its every type written (0 where it has none).
  for (const PairShare& share : last_x.pair) {
    if (!(share.value > 0)) continue;
    out.pair_share[share.pair][share.type] = std::min(share.value, 1.0);
  }
  if (remember) memory->Remember(problem, last_x.pair);
  return out;
}

}  // namespace

Result<Allocation> SolveWaterFilling(const AllocationProblem& problem, const EntityAssignment& entities,
                                     const WaterFillingOptions& options, lp::WarmStartLpSolver& solver,
                                     WaterFillingTrace* trace) {
  if (problem.pairs.empty()) return FillWater(problem, entities, options, /*extra_level=*/false, solver, trace, nullptr);
  // The pairs of a packed problem are not this policy's: its jobs alone.
  AllocationProblem alone = problem;
  alone.pairs.clear();
  HETSCHED_ASSIGN_OR_RETURN(Allocation out,
                            FillWater(alone, entities, options, /*extra_level=*/false, solver, trace, nullptr));
  out.pair_share = ShareRows(problem.pairs.size(), problem.capacity.size());
  return out;
}

Result<Allocation> SolveWaterFillingPacked(const AllocationProblem& problem, const EntityAssignment& entities,
                                           const WaterFillingPackedOptions& options, lp::WarmStartLpSolver& solver,
                                           WaterFillingTrace* trace, PairColumnMemory* memory) {
  return FillWater(problem, entities, options.base, options.gavel_extra_level, solver, trace,
                   memory);
}

}  // namespace hetsched::gavel
