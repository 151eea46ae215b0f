// `--compat sia`: the assumptions of Sia's simulator (siasosp23/artifacts @ aaf7a0d,
// sia-simulator/; Jayaram Subramanya et al., SOSP 2023, sec. 4.3) for its policy, each with the
// file and line where the peer decides it (docs/compat.md, "Sia"). Line numbers are of that
// commit's sia-simulator/ folder. Sia's profiles and workloads carry no licence and are not in the
// project: a run names them (--profiles SIA/sia-simulator/traces, --trace SIA/.../workload-N.csv).
#include <string>
#include <vector>

#include "hetsched/compat/compat.h"

namespace hetsched {
namespace {

CompatProfile MakeSiaProfile() {
  // Sia's simulator runs Gavel's LP policies (simulator_config.py:73-75, gavel_default_policy) through
  // its own rounds (gavel.py).
  const std::vector<std::string> gavel_policies{"gavel-throughput", "gavel-las", "gavel-las-agnostic",
                                                "gavel-makespan",   "gavel-ftf", "gavel-cost"};
  CompatProfile p;
  p.name = "sia";
  p.peer = "Sia's simulator (siasosp23/artifacts @ aaf7a0d, sia-simulator/multi_simulator.py)";
  p.summary =
      "6 x 4 T4 + 2 x 8 A100 + 3 x 8 RTX 2080 Ti, jobs on their profiles of each type with Sia's delays and "
      "calibration, 60 s rounds (Gavel's 360 s), epochs on whole seconds";
  p.settings = {
      {"--cluster",
       "data/real/sia/cluster.yaml",
       {},
       "simulator_config.py:9-11 (cluster_nnodes aws 6, dgx-ext 2, rtx 3; cluster_ngpus_per_node 4, 8, 8)",
       "the peer's cluster: 64 GPUs of three types",
       {"--gpus"}},
      {"--profile-types",
       "aws=t4,dgx-ext=a100-40gb,rtx=rtx-2080ti",
       {},
       "applications.py:37-41, 341-396 (placements-<type>.csv per GPU type); simulator_config.py:3-8",
       "each type's step times from its own profile files"},
      {"--profile-settings",
       "sia",
       {},
       "applications.py:51-69 (deepspeech2 57 on rtx, rescale_time), simulator_config.py:31-33 (SLOWDOWNS), "
       "job.py:340, 375-385 (local batch per placement)",
       "Sia's application settings and job model: delays per application, calibration slowdowns, memory caps"},
      {"--goodput-interval",
       "60",
       {},
       "run_experiment.sh (--interval=60), job.py:521 (update_local_bsz at the end of each step)",
       "an adaptive job measures itself and re-picks its batch each 60 s step"},
      {"--goodput-round-epochs",
       "true",
       {},
       "job.py:489-512 (an epoch seen within a step only at its exact time; delta = round(...))",
       "an epoch ends a whole number of seconds (half to even) after the step or epoch it began in; one whose exact "
       "end falls after a round's end ends after the policy's call there"},
      {"--goodput-free-moves",
       "true",
       {},
       "cluster.py:185-216 (a job's placement as GPU counts per node), job.py:526-528 (a restart only when they change)",
       "a job re-packed onto other nodes in the same shape keeps running, without delay or restart"},
      {"--policy-opt",
       "placement=fast",
       {"sia"},
       "sia.py:155-204 (alloc_to_placement_fast each round)",
       "every job re-packed each round, as Sia's placer does (free where the shape stays)"},
      {"--policy-opt",
       "round=60",
       {"sia"},
       "run_experiment.sh (--interval=60); cluster.py:117-134 (step, then the policy)",
       "the policy is called after each 60 s step, the first at 60 s"},
      {"--policy-opt",
       "unaware=true",
       {"pollux"},
       "multi_simulator_unaware.py; cluster_unaware.py:41-51, 448-503; job.py:39-49, 216-245 (h_unaware)",
       "Sia's heterogeneity-unaware Pollux: the search sees 16 virtual nodes of 4 GPUs, a job fits one model over "
       "every type, and GPUs of all but the type a job has most of stay idle"},
      {"--policy-opt",
       "max_replicas=16",
       {"pollux"},
       "cluster_unaware.py:549-570 (the cluster-wide cap on a job's GPUs)",
       "no job is given more than 16 GPUs"},
      {"--policy-opt",
       "mechanism=sia",
       gavel_policies,
       "gavel.py:107-117, 238-332, 360-465 (GavelPolicy); cluster.py:75-85, 185-216",
       "Sia's own Gavel rounds: priority = X / share of the type's time received, pairs taken by priority "
       "where the type has room, workers from a pointer over the servers, jobs at the workload's GPUs and batch"},
      {"--policy-opt",
       "round=360",
       gavel_policies,
       "run_experiment.sh (--interval=360 for gavel); cluster.py:117-134",
       "the policy is called after each 360 s step, the first at 360 s"},
  };
  p.reproduces = {
      {"sia", "sia", "sia-simulator/sia.py (SiaPolicy; --project_throughputs --share_max_replicas)"},
      {"gavel-throughput", "gavel", "sia-simulator/gavel.py (GavelPolicy, max_sum_throughput_perf: TunedJobs)"},
      {"pollux", "pollux", "sia-simulator/multi_simulator_unaware.py, pollux_unaware.py (p = -1)"},
  };
  return p;
}

}  // namespace

HETSCHED_REGISTER_COMPAT(kSiaCompat, MakeSiaProfile())

}  // namespace hetsched
