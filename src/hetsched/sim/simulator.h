// The discrete-event simulator. Deterministic: the same workload, cluster, methods and seed give
// byte-identical outputs. It advances time and dispatches events; policies, placers and planners
// are plug-ins driven through SchedContext, performance comes from perf/.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/validation.h"
#include "hetsched/sched/methods.h"
#include "hetsched/trace/trace.h"
#include "hetsched/util/status.h"

namespace hetsched {

struct SimOptions {
  unsigned long long seed = 1;
  double restart_cost_s = 30;        // checkpoint + restart time a preempted job pays on restart
  // Re-rendezvous time of an elastic resize (ResizeJob of an elastic job that keeps a worker and
  // its device type); the state broadcast comes on top (perf/elastic_resize.h, docs/elastic.md).
  double resize_rendezvous_s = 10;
  double max_time_s = 1e12;          // stop the run here (jobs still running are reported unfinished)
  bool check_invariants = true;      // audit every event (cheap checks) + full audit every N events
  // The full audit (job accounting, every link's flows and lists, the cluster's consistency)
  // every N scheduling calls and at the end; 0: at the end only. kAuditAmortised: every
  // max(100,000, jobs arrived so far) calls, so that its walk over the arrived jobs costs about
  // one job per call at most (at 100,000 calls flat, a million-job run would spend ~2% auditing).
  static constexpr long long kAuditAmortised = -1;
  long long full_audit_every = kAuditAmortised;
  bool contention = true;            // share NICs/uplinks between cross-node jobs
  // A job that can never fit the cluster (too many devices, no allowed type, out of memory):
  // false = the run fails naming the job; true = it is skipped and counted in the record.
  bool skip_unfit_jobs = false;
  // Measured throughputs (Gavel's throughputs.csv) for jobs whose JobTruth::measured_job_type the
  // table holds: their true speed is the measured steps/s for the GPU type, count and layout they
  // run on, scaled by the model's contention slowdown (docs/gavel.md). Null: the model for all.
  const MeasuredThroughputs* measured_throughputs = nullptr;
  // true: a measured job runs at its *consolidated* measured speed wherever its devices are, as
  // Gavel's simulator assumes (it counts devices per type only; scheduler.py:959-990); false: the
  // layout it runs on picks the consolidated or unconsolidated row (consolidated = one node).
  bool measured_always_consolidated = false;
  // Goodput-adaptive jobs (JobSpec::application; docs/goodput.md), run on their application's
  // measured truth as Pollux's simulator runs them: each placement (the first too) costs a delay,
  // the job holding its GPUs without progress: goodput_restart_delay_s, or where it is < 0 the
  // application's own (Sia's settings: per application), else 30 s (Pollux's, simulator.py:174;
  // GoodputSteps::RestartDelayS, which the Slurm agent shows its policy too); a running
  // adaptive job measures itself and re-picks its batch every goodput_interval_s of simulated time
  // (Pollux's round: its step() re-picks at its end), on a grid from 0; and with
  // goodput_round_epochs an epoch ends on a whole number of seconds after its last progress
  // boundary (Pollux rounds, half to even: simulator.py:144), else exactly; there, one whose
  // exact end falls just after a scheduler round's end (its step's), though it rounds to it,
  // ends after the scheduler's call at that round, as in the peers' steps (DeferEpochEnd).
  double goodput_restart_delay_s = -1;
  double goodput_interval_s = 60;
  bool goodput_round_epochs = false;
  // A job's completion within 1e-4 s of a whole second is that second (a peer whose clock counts
  // whole seconds: Tiresias's; a job's progress, summed in iterations over its runs, drifts: by
  // ~1e-8 s over millions of seconds, up to 5.3e-6 s for a job time-sliced in 60 s runs over 8e6 s
  // (tiresias-gandiva); it would split one of the peer's events in two).
  bool whole_second_completions = false;
  // A goodput job stopped and started again at the same instant on GPUs of the same type, in the
  // same number per node (node after node), continues as it was: no delay (what was left of its
  // last one runs on), no restart, the same batch. Sia's simulator does so (it hands a job GPU
  // counts per node, not nodes: cluster.py:185-216, job.py:526-528), a cluster cannot.
  bool goodput_free_moves = false;
  // Benchmarks only: when set, called after each Schedule() call with its wall time (seconds)
  // and the number of pending jobs at that call. Never part of the outputs.
  std::function<void(double seconds, long long pending)> decision_timing;
  // Called every ~0.5% of progress with (jobs finished, jobs total); for progress bars.
  std::function<void(long long, long long)> progress;
  // The wall clock (seconds, monotonic) that times the run (RunRecord::wall_seconds); unset: the
  // steady clock. Tests set it to make that figure repeat.
  std::function<double()> wall_clock;
};

// Runs `workload` on `cluster`. The workload must hold (checked before the first event, each an
// InvalidArgument naming the job): at most 2^31 - 1 jobs; ids 0..n-1 in order; submit times not
// decreasing; num_gpus >= 1; a model the zoo knows; a job with a trace run time
// (JobTruth::runtime_s) only in a workload that names its reference device
// (Workload::runtime_device, a type of the catalog); and every job able to fit the empty cluster
// (enough devices of an allowed type, memory, containers), unless SimOptions::skip_unfit_jobs,
// and a goodput job's application among the workload's (Workload::applications),
// which skips and counts the others. The cluster must pass Cluster::Validate. Other errors: an
// invariant violation (a bug, kInternal: reported with the event that broke it), a run in which
// nothing can progress (Stalled), a fault a method reports through its context.
Result<RunRecord> Simulate(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                           Methods methods, const SimOptions& options);

}  // namespace hetsched
