// Gavel's space-sharing ("packed") policies as registered policies (docs/space_sharing.md): each
// is its solver (packed.h; gandiva.h) under Gavel's round mechanism with pairs (RoundPolicy::SetPacking).
#include <cmath>
#include <memory>
#include <string>

#include "hetsched/policies/gavel/gandiva.h"
#include "hetsched/policies/gavel/packed.h"
#include "hetsched/policies/gavel/packed_columns.h"
#include "hetsched/policies/gavel/policy.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/text.h"

namespace hetsched::gavel {

namespace {

// A packed policy: Gavel's mechanism (the only one that runs pairs), its types never shuffled
// (scheduler.py:879-881: the names hold "Packing"), the profiles of singles and pairs.
// `warm_start`'s default (option `warm_start`, as the non-packed LP policies take it). Where the
// LP's optimum is not unique the start picks the vertex, and the defaults are the starts whose
// vertices came out nearer Gavel's on the six 100-job cases of docs/space_sharing.md ("Warm
// starts"): by job for max-min (mean error 2.0% against 5.1%), by shape for finish-time (2.5%
// against 3.9%); for makespan (any feasible point) and cost (no Gavel run) the faster, by job
// (1,559 jobs: 7 s against 191 s, 2.6 s against 15 s). With `columns=priced` every LP policy starts
// by job (each pricing's re-solve starts from the last optimum, its new columns at 0: by shape it
// would be cold). Empty: the policy solves no LP (fifo packed, gandiva) and takes no such option.
Result<std::unique_ptr<JobScheduler>> MakePacked(const Options& options, const std::string& name,
                                                 LpRoundPolicy::SolveFn solve, bool fifo = false,
                                                 const std::string& warm_start_default = "",
                                                 PairColumns columns = PairColumns::kAll) {
  HETSCHED_ASSIGN_OR_RETURN(const double round_s, RoundOption(options));
  HETSCHED_ASSIGN_OR_RETURN(GavelMechanismOptions mechanism, MechanismOption(options, "gavel"));
  if (!mechanism.enabled) {
    return Status::InvalidArgument("policy '" + name + "' runs only under Gavel's mechanism (mechanism=gavel): "
                                   "the one that runs pairs of jobs");
  }
  mechanism.shuffle_types = false;
  mechanism.skip_zero_priority = fifo;  // "FIFO_Packing" starts with "FIFO" (scheduler.py:829-832)
  HETSCHED_RETURN_IF_ERROR(PairFinishOption(options, mechanism));
  lp::WarmStartMatch warm_start = lp::WarmStartMatch::kShape;
  if (!warm_start_default.empty()) {
    const std::string by_default = columns == PairColumns::kPriced ? "by-job" : warm_start_default;
    HETSCHED_ASSIGN_OR_RETURN(warm_start, WarmStartOption(options, by_default));
  }
  auto policy = std::make_unique<LpRoundPolicy>(name, round_s, false, std::move(solve), warm_start);
  HETSCHED_RETURN_IF_ERROR(ProfileOption(options, *policy));
  HETSCHED_RETURN_IF_ERROR(PairProfileOption(options, *policy));
  policy->SetGavelMechanism(mechanism);
  policy->SetPacking(true);
  return std::unique_ptr<JobScheduler>(std::move(policy));
}

// The option `columns` of the LP packed policies (PairColumns): `priced` by default, `all` under
// `--compat gavel` (compat/gavel_profile.cc: the vertices validated against Gavel's runs were
// measured with every column; docs/space_sharing.md, "Pair columns priced in").
Result<PairColumns> LpPackedColumns(const Options& options) { return PairColumnsOption(options, PairColumns::kPriced); }

// The option `second_phase` of the LP packed policies that have one: false, held or true (a
// boolean's spellings for those two, Options::GetBool); `absent` where it is not given.
Result<PackedSecondPhase> SecondPhaseOption(const Options& options, const std::string& policy,
                                            PackedSecondPhase absent) {
  if (!options.Has("second_phase")) return absent;
  const std::string second = options.GetString("second_phase", "");
  if (ToLower(second) == "held") return PackedSecondPhase::kHeld;
  auto parsed = options.GetBool("second_phase", false);
  if (!parsed.ok()) {
    return Status::InvalidArgument(policy + ": option 'second_phase': expected false, held or true, got '" + second +
                                   "'");
  }
  return *parsed ? PackedSecondPhase::kPriced : PackedSecondPhase::kOff;
}

Result<std::unique_ptr<JobScheduler>> MakeLasPacked(const Options& options) {
  MaxMinPackedOptions mm;
  HETSCHED_ASSIGN_OR_RETURN(mm.columns, LpPackedColumns(options));
  // `second_phase`: false (Gavel's one LP; `--compat gavel` sets it), true (a second LP, priced as
  // the first), or held (the default: the second LP over the columns the first priced in; with
  // columns=all, every column, as true). Held picks among the optima by a rule at the cost of one
  // solve: on the overloaded 1,928 jobs at 8:8:8 in the default mode 49.7 -> 54.9 s and average JCT
  // -1.5% (true: 61.1 s, -2.2%); docs/PERFORMANCE.md, "A reset's first solve" [REC].
  HETSCHED_ASSIGN_OR_RETURN(mm.second_phase, SecondPhaseOption(options, "gavel-las-packed", PackedSecondPhase::kHeld));
  auto memory = std::make_shared<PairColumnMemory>();
  auto solve = [mm, memory](const AllocationProblem& p, lp::WarmStartLpSolver& solver) {
    return SolveMaxMinFairnessPacked(p, mm, solver, memory.get());
  };
  return MakePacked(options, "gavel-las-packed", solve, /*fifo=*/false, "by-job", mm.columns);
}

Result<std::unique_ptr<JobScheduler>> MakeFtfPacked(const Options& options) {
  FtfPackedOptions ftf;
  HETSCHED_ASSIGN_OR_RETURN(ftf.tolerance, options.GetDouble("tolerance", ftf.tolerance));
  if (!(ftf.tolerance > 0 && ftf.tolerance < 1)) {
    return Status::InvalidArgument("gavel-ftf-packed: option 'tolerance' must be in (0, 1)");
  }
  // `second_phase`: as gavel-las-packed's; held, the default since the tangent steps (priced
  // columns): their point at the least rho gave -2.5% to +19% average JCT on seven default-mode
  // cases against the bisection's (six above it), held -12.1% to +1.5% (five below it);
  // docs/PERFORMANCE.md, "Finish-time packed by tangent cuts". `--compat gavel` sets false [REC].
  HETSCHED_ASSIGN_OR_RETURN(ftf.second_phase, SecondPhaseOption(options, "gavel-ftf-packed", PackedSecondPhase::kHeld));
  HETSCHED_ASSIGN_OR_RETURN(ftf.columns, LpPackedColumns(options));
  auto state = std::make_shared<GavelFtfState>();
  auto memory = std::make_shared<PairColumnMemory>();
  auto last_rho = std::make_shared<double>(0.0);
  auto solve = [ftf, state, memory, last_rho](const AllocationProblem& p, lp::WarmStartLpSolver& solver) {
    const std::vector<double> isolated = state->IsolatedTimes(p);
    return SolveFinishTimeFairnessPacked(p, solver, isolated, ftf, memory.get(), last_rho.get());
  };
  return MakePacked(options, "gavel-ftf-packed", solve, /*fifo=*/false, "same-shape", ftf.columns);
}

Result<std::unique_ptr<JobScheduler>> MakeMakespanPacked(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const PairColumns columns, LpPackedColumns(options));
  // `second_phase`: false|held|true as gavel-las-packed's, at theta* (Gavel's point is any feasible
  // one), but off by default [REC]: held gave -2.3% to -17.1% average JCT on seven default-mode
  // cases and took the overloaded case at 8:8:8 from 51.7 to 63.8 s, over issue #47's minute
  // (docs/space_sharing.md, "Min total duration").
  HETSCHED_ASSIGN_OR_RETURN(const PackedSecondPhase second,
                            SecondPhaseOption(options, "gavel-makespan-packed", PackedSecondPhase::kOff));
  auto memory = std::make_shared<PairColumnMemory>();
  auto solve = [columns, memory, second](const AllocationProblem& p, lp::WarmStartLpSolver& solver) {
    return SolveMinTotalDurationPacked(p, solver, SharePoint::kVertex, columns, memory.get(), second);
  };
  return MakePacked(options, "gavel-makespan-packed", solve, /*fifo=*/false, "by-job", columns);
}

Result<std::unique_ptr<JobScheduler>> MakeCostPacked(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const PairColumns columns, LpPackedColumns(options));
  auto memory = std::make_shared<PairColumnMemory>();
  auto solve = [columns, memory](const AllocationProblem& p, lp::WarmStartLpSolver& solver) {
    return SolveMaxThroughputPerCostPacked(p, solver, columns, memory.get());
  };
  return MakePacked(options, "gavel-cost-packed", solve, /*fifo=*/false, "by-job", columns);
}

Result<std::unique_ptr<JobScheduler>> MakeFifoPacked(const Options& options) {
  FifoPackedOptions fifo;
  HETSCHED_ASSIGN_OR_RETURN(fifo.threshold, options.GetDouble("threshold", fifo.threshold));
  if (!(fifo.threshold >= 0) || !std::isfinite(fifo.threshold)) {
    return Status::InvalidArgument("gavel-fifo-packed: option 'threshold' must be a number >= 0");
  }
  return MakePacked(options, "gavel-fifo-packed", [fifo](const AllocationProblem& p, lp::WarmStartLpSolver&) -> Result<Allocation> {
    return SolveFifoPacked(p, fifo);
  }, /*fifo=*/true);
}

// Gavel's gandiva (gandiva.h): random pairs while the cluster is oversubscribed, an equal split
// over the combinations; its Random seeded with the run's seed, as Gavel's (utils.py get_policy).
Result<std::unique_ptr<JobScheduler>> MakeGandiva(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const GavelMechanismOptions mechanism, MechanismOption(options, "gavel"));
  auto gandiva = std::make_shared<GandivaAllocation>(mechanism.seed);
  return MakePacked(options, "gavel-gandiva", [gandiva](const AllocationProblem& p, lp::WarmStartLpSolver&) {
    return gandiva->Compute(p);
  });
}

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kGavelLasPackedRegistered,
                       (MethodInfo{"gavel-las-packed",
                                   "Gavel max-min fairness with space sharing: pairs of jobs on shared GPUs, Gavel's rounds",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) sec. 3.1, max_min_fairness_packed; "
                                   "co-location speeds: Gavel's measured pairs (pair_profile) or the model [REC]"}),
                       [](const Options& o) { return MakeLasPacked(o); })
HETSCHED_REGISTER_IMPL(JobScheduler, kGavelFtfPackedRegistered,
                       (MethodInfo{"gavel-ftf-packed",
                                   "Gavel finish-time fairness with space sharing, Gavel's rounds",
                                   "[SRC] Gavel's finish_time_fairness_packed (Themis rho, Gavel's isolated time); "
                                   "bisection over every pair column, tangent cuts over priced ones, the rates "
                                   "maximised at the least rho (second_phase=held) [REC]"}),
                       [](const Options& o) { return MakeFtfPacked(o); })
HETSCHED_REGISTER_IMPL(JobScheduler, kGavelMakespanPackedRegistered,
                       (MethodInfo{"gavel-makespan-packed",
                                   "Gavel minimum makespan with space sharing (bisection over feasibility LPs), Gavel's rounds",
                                   "[SRC] Gavel's min_total_duration_packed"}),
                       [](const Options& o) { return MakeMakespanPacked(o); })
HETSCHED_REGISTER_IMPL(JobScheduler, kGavelCostPackedRegistered,
                       (MethodInfo{"gavel-cost-packed",
                                   "Gavel throughput per dollar with SLOs and space sharing, Gavel's rounds",
                                   "[SRC] Gavel's max_sum_throughput_normalized_by_cost_packed_SLOs (which Gavel's "
                                   "trace driver cannot run: docs/space_sharing.md)"}),
                       [](const Options& o) { return MakeCostPacked(o); })
HETSCHED_REGISTER_IMPL(JobScheduler, kGavelFifoPackedRegistered,
                       (MethodInfo{"gavel-fifo-packed",
                                   "Gavel's fifo_packed: arrival order, fastest type, then pairs whose summed speed-up "
                                   "beats 1.5, Gavel's rounds",
                                   "[SRC] Gavel simulator (policies/fifo.py, packing mode) under its round mechanism"}),
                       [](const Options& o) { return MakeFifoPacked(o); })
HETSCHED_REGISTER_IMPL(JobScheduler, kGavelGandivaRegistered,
                       (MethodInfo{"gavel-gandiva",
                                   "Gavel's gandiva: random pairs of jobs on shared GPUs while the cluster is "
                                   "oversubscribed, kept while their paired speed-up is at least 1, time split evenly "
                                   "over the combinations, Gavel's rounds",
                                   "[SRC] Gavel simulator (policies/gandiva.py, GandivaPolicy \"Gandiva_Packing\", "
                                   "after Xiao et al., OSDI 2018) under its round mechanism; Python's random.sample "
                                   "draw for draw"}),
                       [](const Options& o) { return MakeGandiva(o); })

}  // namespace hetsched::gavel
