// `--compat pollux`: the assumptions of Pollux's simulator (petuum/adaptdl @ osdi21-artifact,
// simulator/; Qiao et al., OSDI 2021, sec. 5.3), each with the file and line where the peer decides
// it (docs/compat.md, "Pollux"). Line numbers are of that commit's simulator/ folder.
#include "hetsched/compat/compat.h"

namespace hetsched {
namespace {

CompatProfile MakePolluxProfile() {
  CompatProfile p;
  p.name = "pollux";
  p.peer = "Pollux's simulator (petuum/adaptdl @ c793c70, osdi21-artifact, simulator/simulator.py)";
  p.summary =
      "16 nodes x 4 T4, jobs on their application's measured profiles, 30 s per re-allocation, 60 s rounds, "
      "epochs on whole seconds";
  p.settings = {
      {"--gpus",
       "t4=64",
       {},
       "simulator.py:431-437 (--min-nodes 16, --num-gpus 4); placements.csv measured on g4dn.12xlarge",
       "the peer's cluster: 16 nodes of 4 NVIDIA T4",
       {"--cluster"}},
      {"--gpus-per-server",
       "4",
       {},
       "simulator.py:437 (--num-gpus 4)",
       "4 GPUs a node",
       {"--cluster"}},
      {"--goodput-delay",
       "30",
       {},
       "simulator.py:174 (rescale_time = 30)",
       "every placement, the first too, holds the GPUs 30 s without progress"},
      {"--goodput-interval",
       "60",
       {},
       "simulator.py:431 (--interval 60), :156 (update_local_bsz at the end of each step)",
       "an adaptive job measures itself and re-picks its batch each 60 s step"},
      {"--goodput-round-epochs",
       "true",
       {},
       "simulator.py:132-150 (an epoch seen within a step only at its exact time; delta = round(...))",
       "an epoch ends a whole number of seconds (half to even) after the step or epoch it began in; one whose exact "
       "end falls after a round's end ends after the policy's call there"},
      {"--policy-opt",
       "round=60",
       {"pollux-tiresias"},
       "simulator.py:431, 415-416 (step(args.interval) then the policy)",
       "the policy is called after each 60 s step, the first at 60 s"},
  };
  p.reproduces = {
      {"pollux-tiresias", "tiresias", "simulator/tiresias.py (TiresiasPolicy, Tiresias+TunedJobs)"},
  };
  return p;
}

}  // namespace

HETSCHED_REGISTER_COMPAT(kPolluxCompat, MakePolluxProfile())

}  // namespace hetsched
