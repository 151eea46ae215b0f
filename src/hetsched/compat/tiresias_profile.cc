// `--compat tiresias`: the assumptions of Tiresias' simulator (SymbioticLab/Tiresias @ 959f9b0,
// simulator/; Gu et al., NSDI 2019), each with the file and line where the peer decides it
// (docs/compat.md, "Tiresias"). Line numbers are of that commit's simulator/ folder.
#include "hetsched/compat/compat.h"

namespace hetsched {
namespace {

CompatProfile MakeTiresiasProfile() {
  CompatProfile p;
  p.name = "tiresias";
  p.peer = "Tiresias' simulator (SymbioticLab/Tiresias @ 959f9b0, simulator/run_sim.py)";
  p.summary =
      "trace durations as run times, free preemption, no network model, YARN placement, "
      "FIFO with head-of-line blocking, dlas/dlas-gpu re-planned at every event";
  p.settings = {
      {"--restart-cost",
       "0",
       {},
       "run_sim.py:1207",
       "a preempted job resumes where it stopped: remaining = duration - executed time, nothing is charged"},
      {"--no-contention",
       "true",
       {},
       "jobs.py:389, switch.py:116, node.py:112",
       "a job runs for its duration whatever else runs: network loads are recorded, never slow a job"},
      {"--reference-device",
       "v100",
       {},
       "jobs.py:389",
       "a trace duration is the run time on the cluster's GPUs (the peer has one GPU type)"},
      {"--placer",
       "yarn",
       {},
       "run_sim.py:32, 185-186; cluster.py:894-904; switch.py:44-214",
       "the default --scheme=yarn: one node if it fits, else whole free nodes + one, in one switch"},
      {"--policy-opt",
       "backfill=none",
       {"fifo"},
       "run_sim.py:305-320",
       "fifo walks the pending queue in arrival order and stops at the first job it cannot place"},
      {"--policy-opt",
       "placement=count",
       {"dlas", "dlas-gpu"},
       "run_sim.py:1094-1117",
       "dlas counts free GPUs (CLUSTER.empty_infra, free_gpu) and places nothing"},
      {"--policy-opt",
       "thresholds=3250;7200",
       {"dlas", "dlas-gpu", "tiresias-las"},
       "jobs.py:102-104",
       "three queues, limits 3250 and 7200 (s for dlas, GPU-s for dlas-gpu); the third limit is never read"},
      {"--policy-opt",
       "starve_factor=0",
       {"tiresias-las"},
       "run_sim.py:2045-2049",
       "dlas and dlas-gpu run with solve_starvation = 0: no promotion"},
  };
  p.reproduces = {
      {"fifo", "fifo", "run_sim.py:272-335 (one_queue_fifo_sim_jobs)"},
      {"fjf", "fjf", "run_sim.py:338-395 (fit_first_sim_jobs)"},
      {"tiresias-sjf", "sjf",
       "run_sim.py:454-580 (smallest_first_sim_jobs; the peer with cluster.py:98's memory leak fixed)"},
      {"tiresias-shortest", "shortest",
       "run_sim.py:592-725 (shortest_first_sim_jobs; durations=TRACE; cluster.py:98 fixed)"},
      {"tiresias-shortest-gpu", "shortest-gpu",
       "run_sim.py:592-725 (shortest_first_sim_jobs, gputime=True; durations=TRACE; cluster.py:98 fixed)"},
      {"tiresias-lpjf", "lpjf", "run_sim.py:1773-1830 (longest_pending_first_sim_jobs)"},
      {"dlas", "dlas", "run_sim.py:959-1242 (dlas_sim_jobs, gputime=False)"},
      {"dlas-gpu", "dlas-gpu", "run_sim.py:959-1242 (dlas_sim_jobs, gputime=True)"},
      {"yarn", "yarn", "cluster.py:894-904, switch.py:197-214 (ms_yarn_placement)"},
  };
  return p;
}

}  // namespace

HETSCHED_REGISTER_COMPAT(kTiresiasCompat, MakeTiresiasProfile())

}  // namespace hetsched
