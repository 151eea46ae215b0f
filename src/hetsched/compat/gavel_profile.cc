// `--compat gavel`: the assumptions of Gavel's simulator (stanford-futuredata/gavel @ c4fa400,
// scheduler/scripts/drivers/simulate_scheduler_with_trace.py driving scheduler/scheduler.py), as
// defaults of hetsched's options. Sources are files of that repository; docs/compat.md, "Gavel".
#include <string>
#include <vector>

#include "hetsched/compat/compat.h"

namespace hetsched {
namespace {

CompatProfile MakeGavelProfile() {
  const std::vector<std::string> lp_policies{"gavel-las",        "gavel-las-agnostic", "gavel-makespan",
                                             "gavel-makespan-agnostic", "gavel-ftf",  "gavel-ftf-agnostic",
                                             "gavel-cost",       "gavel-throughput",   "gavel-isolated",
                                             "gavel-water-filling", "gavel-water-filling-agnostic"};
  const std::vector<std::string> packed{"gavel-las-packed", "gavel-ftf-packed", "gavel-makespan-packed",
                                        "gavel-water-filling-packed", "gavel-cost-packed", "gavel-fifo-packed",
                                        "gavel-gandiva"};
  std::vector<std::string> round_policies = lp_policies;
  round_policies.insert(round_policies.end(), {"gavel-fifo", "gavel-fifo-perf", "gavel-allox"});
  round_policies.insert(round_policies.end(), packed.begin(), packed.end());
  const std::vector<std::string> las{"gavel-las", "gavel-las-agnostic"};

  CompatProfile p;
  p.name = "gavel";
  p.peer = "Gavel's simulator (stanford-futuredata/gavel @ c4fa400)";
  p.summary = "Gavel's rounds, resets and per-type queues, free preemption, measured throughputs seen and true";
  p.settings = {
      {"--restart-cost", "0", {}, "scheduler/scheduler.py:1034-1036",
       "a micro-task lasts num_steps / throughput: nothing is charged for a preemption or a move"},
      {"--throughputs", "auto", {}, "scheduler/scheduler.py:959-977",
       "jobs progress at the measured (oracle) throughputs of simulation_throughputs.json"},
      {"--assume-consolidated", "true", {}, "scheduler/scheduler.py:959-977",
       "a job runs at its consolidated throughput wherever its workers are (devices are counted per type)"},
      {"--no-contention", "true", {}, "scheduler/scheduler.py:959-977",
       "no network model: a job's speed does not depend on other jobs"},
      {"--seed", "0", {}, "scheduler/scheduler.py:60",
       "Scheduler(seed=0): FIFO's Random(seed) and the type shuffler's Random(seed + 5) (:325-326)"},
      {"--round", "360", round_policies, "scheduler/scheduler.py:60",
       "time_per_iteration = 360 s (the driver's default too)"},
      {"--policy-opt", "mechanism=gavel", lp_policies, "scheduler/scheduler.py:766-993,1273-1331,2358-2463,2960-3008",
       "resets at most every 1920 s, priorities since the last reset, per-type queues in v100, p100, k80 order, "
       "int(T x 360) whole steps per job and round; a round that ran nothing waits for the next arrival; a "
       "micro-task with fewer steps than GPUs fails, and the fifth failure in a row drops the job"},
      {"--policy-opt", "profile=data/real/gavel/throughputs.csv", round_policies, "scheduler/scheduler.py:2253-2262",
       "every policy sees the oracle throughputs (_set_initial_throughput)"},
      {"--policy-opt", "pair_profile=data/real/gavel/pair_throughputs.csv", packed, "scheduler/scheduler.py:2241-2251",
       "the packed policies see the oracle pair throughputs (_populate_job_combination_metadata)"},
      {"--policy-opt", "pair_finish=micro_task", packed, "scheduler/scheduler.py:1034-1041,1305-1313,3042-3066",
       "both jobs of a pair micro-task are recorded as finishing at its end (the later member's): a job whose work "
       "ends inside it holds its devices idle until then"},
      {"--policy-opt", "columns=all",
       {"gavel-las-packed", "gavel-ftf-packed", "gavel-makespan-packed", "gavel-cost-packed"},
       "scheduler/policies/max_min_fairness.py:274-358, finish_time_fairness.py:123-219, min_total_duration.py:99-170, "
       "max_sum_throughput.py:88-157",
       "Gavel's packed LPs hold a variable per pair and type: where the optimum is not unique the vertex is that "
       "of the LP over every column, as the validated runs were (priced columns: another optimal vertex)"},
      {"--policy-opt", "normaliser=proportional", las, "scheduler/policies/max_min_fairness.py:59-67",
       "normalised by ProportionalPolicy's throughput sum_k T W_k / sum_k W_k, times the scale factor"},
      {"--policy-opt", "second_phase=false", las, "scheduler/policies/max_min_fairness.py:69-76",
       "one LP (max of the min), no second phase"},
      {"--policy-opt", "second_phase=false", {"gavel-las-packed"}, "scheduler/policies/max_min_fairness.py:274-358",
       "one LP (max of the min over every combination), no second phase"},
      {"--policy-opt", "second_phase=false", {"gavel-ftf-packed"}, "scheduler/policies/finish_time_fairness.py:123-219",
       "the feasible point at the least rho of the search, no second LP"},
      {"--policy-opt", "bisection=true", {"gavel-makespan", "gavel-makespan-agnostic"}, "scheduler/policies/min_total_duration.py:74-96",
       "bisection on the makespan over feasibility LPs to a 5% bracket"},
      {"--policy-opt", "point=cvxopt",
       {"gavel-las", "gavel-las-agnostic", "gavel-makespan", "gavel-makespan-agnostic", "gavel-ftf", "gavel-ftf-agnostic",
        "gavel-water-filling", "gavel-water-filling-agnostic"},
       "scheduler/policies/policy.py:11 (ECOS), scheduler.py:2443-2463; peers' gavel_cvxpy_shim.py (cvxopt)",
       "the point the yardstick's interior-point solver (cvxopt, standing in for ECOS) stops at, not a vertex: "
       "its small positive shares are priorities (x 1e9) in the per-type queues"},
      {"--policy-opt", "reference=gavel", {"gavel-ftf", "gavel-ftf-agnostic"}, "scheduler/policies/finish_time_fairness.py:76-96, isolated.py:25-47",
       "rho's denominator is the cumulative isolated time plus remaining / IsolatedPolicy's throughput"},
      {"--policy-opt", "second_phase=false", {"gavel-ftf", "gavel-ftf-agnostic"}, "scheduler/policies/finish_time_fairness.py:97-106",
       "one min-max solve, no work-conserving second LP (the stand-in's level LP at the optimum)"},
      {"--policy-opt", "tolerance=1e-7", {"gavel-ftf", "gavel-ftf-agnostic"}, "scheduler/policies/policy.py:11 (ECOS)",
       "rho solved to an interior-point solver's precision, not 0.1%"},
  };
  p.reproduces = {
      {"gavel-fifo", "fifo", "scheduler/policies/fifo.py (FIFOPolicy, mode base)"},
      {"gavel-fifo-perf", "fifo_perf", "scheduler/policies/fifo.py (FIFOPolicyWithPerf)"},
      {"gavel-las", "max_min_fairness_perf", "scheduler/policies/max_min_fairness.py (MaxMinFairnessPolicyWithPerf)"},
      {"gavel-las-agnostic", "max_min_fairness", "scheduler/policies/max_min_fairness.py (MaxMinFairnessPolicy)"},
      {"gavel-makespan", "min_total_duration_perf",
       "scheduler/policies/min_total_duration.py (MinTotalDurationPolicyWithPerf)"},
      {"gavel-ftf", "finish_time_fairness_perf",
       "scheduler/policies/finish_time_fairness.py (FinishTimeFairnessPolicyWithPerf)"},
      {"gavel-throughput", "max_sum_throughput_perf", "scheduler/policies/max_sum_throughput.py (ThroughputSumWithPerf)"},
      {"gavel-throughput", "max_sum_throughput_normalized_by_cost_perf",
       "scheduler/policies/max_sum_throughput.py (ThroughputNormalizedByCostSumWithPerf: no price files, as the "
       "trace driver runs it, and it is the same LP)"},
      {"gavel-isolated", "isolated", "scheduler/policies/isolated.py (IsolatedPolicy)"},
      {"gavel-makespan-agnostic", "min_total_duration", "scheduler/policies/min_total_duration.py (MinTotalDurationPolicy)"},
      {"gavel-ftf-agnostic", "finish_time_fairness", "scheduler/policies/finish_time_fairness.py (FinishTimeFairnessPolicy)"},
      {"gavel-water-filling", "max_min_fairness_water_filling_perf",
       "scheduler/policies/max_min_fairness_water_filling.py (MaxMinFairnessWaterFillingPolicyWithPerf)"},
      {"gavel-water-filling-agnostic", "max_min_fairness_water_filling",
       "scheduler/policies/max_min_fairness_water_filling.py (MaxMinFairnessWaterFillingPolicy)"},
      {"gavel-las-packed", "max_min_fairness_packed",
       "scheduler/policies/max_min_fairness.py (MaxMinFairnessPolicyWithPacking)"},
      {"gavel-ftf-packed", "finish_time_fairness_packed",
       "scheduler/policies/finish_time_fairness.py (FinishTimeFairnessPolicyWithPacking)"},
      {"gavel-makespan-packed", "min_total_duration_packed",
       "scheduler/policies/min_total_duration.py (MinTotalDurationPolicyWithPacking)"},
      {"gavel-water-filling-packed", "max_min_fairness_water_filling_packed",
       "scheduler/policies/max_min_fairness_water_filling.py (MaxMinFairnessWaterFillingPolicyWithPacking)"},
      {"gavel-cost-packed", "max_sum_throughput_normalized_by_cost_packed_SLOs",
       "scheduler/policies/max_sum_throughput.py (ThroughputNormalizedByCostSumWithPackingSLOs)"},
      {"gavel-fifo-packed", "fifo_packed", "scheduler/policies/fifo.py (FIFOPolicyWithPacking)"},
      {"gavel-gandiva", "gandiva", "scheduler/policies/gandiva.py (GandivaPolicy)"},
      {"gavel-allox", "allox", "scheduler/policies/allox.py (AlloXPolicy)"},
  };
  return p;
}

}  // namespace

HETSCHED_REGISTER_COMPAT(kGavelCompat, MakeGavelProfile())

}  // namespace hetsched
