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
      "FIFO with head-of-line blocking, dlas/dlas-gpu/dlas-gpu-gittins re-planned at every event";
  p.settings = {
      {"--restart-cost",
       "0",
       {},
       "run_sim.py:1207",
       "a preempted job resumes where it stopped: remaining = duration - executed time, nothing is charged"},
      {"--whole-second-completions",
       "true",
       {},
       "run_sim.py:1207-1208 (end_time = int(event_time + remaining_time)), 1227-1235 (queue jumps at int(...))",
       "a completion within 1e-4 s of a whole second is that second: the float drift of a job's summed progress "
       "would otherwise split or reorder events the peer handles together"},
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
       {"dlas", "dlas-gpu", "dlas-gpu-gittins", "gittins", "dlas-gpu-pack", "dlas-gpu-05", "dlas-gpu-1",
        "dlas-gpu-2", "dlas-gpu-4", "dlas-gpu-8", "dlas-gpu-10", "dlas-gpu-100", "dlas-gpu-1000",
        "dlas-gpu-gittins-1", "dlas-gpu-gittins-2", "dlas-gpu-gittins-4", "dlas-gpu-gittins-8"},
       "run_sim.py:1094-1117, 1378-1391",
       "dlas and gittins count free GPUs (CLUSTER.empty_infra, free_gpu) and place nothing"},
      {"--policy-opt",
       "thresholds=3250;7200",
       {"dlas", "dlas-gpu", "tiresias-las", "dlas-gpu-gittins"},
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
      {"dlas-gpu-gittins", "dlas-gpu-gittins",
       "run_sim.py:959-1242, 1950-2009 (dlas_sim_jobs, queues sorted by Gittins index over "
       "yarn-gput1000.csv)"},
      {"dlas-gpu-pack", "dlas-gpu-pack",
       "run_sim.py:1503-1770 (dlas_pack_sim_jobs: dlas-gpu, as models.py:22 gives every model a GPU share of "
       "1)"},
      {"multi-dlas-gpu", "multi-dlas-gpu",
       "run_sim.py:728-957, jobs.py:596-670 (multi_dlas_sim_jobs, reserve_gpus; the peer with "
       "--scheme=count)"},
      {"gittins", "gittins",
       "run_sim.py:1252-1500 (gittins_sim_jobs; the peer with JOBS.job_dist_data set, run_sim.py:2075)"},
      {"tiresias-shortest-expected", "shortest-expected",
       "run_sim.py:581-725 (shortest_first_sim_jobs, expected durations; cluster.py:98 fixed)"},
      {"dlas-gpu-05", "dlas-gpu-05", "run_sim.py:959-1242, 1061-1074 (dlas_sim_jobs, solve_starvation=0.5)"},
      {"dlas-gpu-1", "dlas-gpu-1", "run_sim.py:959-1242, 1061-1074 (dlas_sim_jobs, solve_starvation=1)"},
      {"dlas-gpu-2", "dlas-gpu-2", "run_sim.py:959-1242, 1061-1074 (dlas_sim_jobs, solve_starvation=2)"},
      {"dlas-gpu-4", "dlas-gpu-4", "run_sim.py:959-1242, 1061-1074 (dlas_sim_jobs, solve_starvation=4)"},
      {"dlas-gpu-8", "dlas-gpu-8", "run_sim.py:959-1242, 1061-1074 (dlas_sim_jobs, solve_starvation=8)"},
      {"dlas-gpu-10", "dlas-gpu-10", "run_sim.py:959-1242, 1061-1074 (dlas_sim_jobs, solve_starvation=10)"},
      {"dlas-gpu-100", "dlas-gpu-100",
       "run_sim.py:959-1242, 1061-1074 (dlas_sim_jobs, solve_starvation=100)"},
      {"dlas-gpu-1000", "dlas-gpu-1000",
       "run_sim.py:959-1242, 1061-1074 (dlas_sim_jobs, solve_starvation=1000)"},
      {"dlas-gpu-gittins-1", "dlas-gpu-gittins-1",
       "run_sim.py:2053-2064 (dlas_sim_jobs, solve_starvation=1; no Gittins order)"},
      {"dlas-gpu-gittins-2", "dlas-gpu-gittins-2",
       "run_sim.py:2053-2064 (dlas_sim_jobs, solve_starvation=2; no Gittins order)"},
      {"dlas-gpu-gittins-4", "dlas-gpu-gittins-4",
       "run_sim.py:2053-2064 (dlas_sim_jobs, solve_starvation=4; no Gittins order)"},
      {"dlas-gpu-gittins-8", "dlas-gpu-gittins-8",
       "run_sim.py:2053-2064 (dlas_sim_jobs, solve_starvation=8; no Gittins order)"},
      {"tiresias-gandiva", "gandiva",
       "run_sim.py:211-266, cluster.py:156-495 (gandiva_sim_jobs: --schedule=gandiva --scheme=gandiva; "
       "node sets re-sized to demand, 10 s steps, time slicing every 60 s)"},
      {"yarn", "yarn", "cluster.py:894-904, switch.py:197-214 (ms_yarn_placement)"},
      {"tiresias-count", "count", "cluster.py:1373-1380, 1467-1472 (none_placement: --scheme=count)"},
      {"tiresias-random", "random",
       "cluster.py:907-1124 (random_placement: --scheme=random; the peer seeded with random.seed(seed), and "
       "node.py:155 reading node_dict.get('mem', 0))"},
      {"tiresias-crandom", "crandom",
       "cluster.py:1127-1371 (consolidate_random_placement: --scheme=crandom; seeded and node.py:155 "
       "fixed, as random)"},
  };
  return p;
}

}  // namespace

HETSCHED_REGISTER_COMPAT(kTiresiasCompat, MakeTiresiasProfile())

}  // namespace hetsched
