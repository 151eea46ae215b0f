// Internal to the agent (agent*.cc): what it keeps per job.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/perf/goodput_job.h"
#include "hetsched/sched/job_status.h"
#include "hetsched/slurm/agent.h"
#include "hetsched/slurm/goodput_files.h"
#include "hetsched/slurm/job_request.h"

namespace hetsched::slurm {

enum class Phase { kPending, kReleased, kRunning, kFinished };

// What the journal says of a preemption the policy asked for (AgentJob::preempt_why).
inline constexpr const char* kPreemptedByPolicy = "preempted by the policy";

struct Agent::AgentJob {
  JobRequest request;
  JobStatus status;                   // status.spec points at request.spec (stable: heap object)
  Phase phase = Phase::kPending;
  bool policy_knows = false;          // the policy was shown the job (submitted, or running at a restart)
  int restart_count = 0;              // Slurm's restart_cnt as last seen
  std::vector<std::string> nodes;     // of the last placement
  std::string type_name;              // catalog type of the last placement
  int placements = 0;
  int requeues = 0;
  bool uneven = false;                // placed with unequal GPU counts per node (Slurm splits it)
  double run_start_epoch_s = -1;      // Slurm start of the current run (-1: not started)
  // A preemption (or a take-back of a run the agent did not release) sent to Slurm and not yet
  // seen through: journaled (`preempt`) before its commands ran; closed at a poll that shows the
  // job held (`requeue`), or ended on its own (`finish`); sent again while Slurm shows it running.
  bool preempt_open = false;
  std::string preempt_why;            // what the closing `requeue` record says
  double released_at_s = -1;          // agent clock of its last release (for the stuck report)
  bool stuck_reported = false;        // the stuck report was given for this release
  double rerun_cancel_s = -1;         // Slurm listed it again after it ended: when scancel was sent
  // The preempted run's start (Slurm's epoch seconds; -1: none the agent saw). A run that began
  // before slurmctld's last start may be one whose end slurmctld lost (Agent::RunLostBySlurm).
  double preempted_run_start_s = -1;
  double run_probe_s = -1;            // when `sstat` last looked for its steps
  bool run_gone = false;              // ... and found none: the run has ended, Slurm not told
  double lost_cancel_s = -1;          // its lost run's cancel was sent then (-1: not)
  int pins_refused = 0;               // Slurm refused its pin or release this many times in a row
  double pin_retry_s = -1;            // after kPinRefusalsBeforeBackoff refusals: no pin before this
  std::string final_state;
  JobRecord record;
  // A goodput job (request.goodput has its application): what it knows of itself (its reported
  // measurements, its fitted models, its placement and batch), its metrics file as read so far,
  // and whether a malformed line made the agent stop trusting that file (agent_goodput.cc).
  std::optional<GoodputJob> goodput;
  MetricsTail metrics;
  bool metrics_distrusted = false;
  bool metrics_final_read = false;  // its file read once after it ended (ReadGoodputMetrics)
  GoodputAlloc alloc;       // the last allocation written to its .alloc (journaled; seq 0: none yet)
  bool repick_due = false;  // an epoch of its current run ended in what this poll read
  bool reported_since_placement = false;  // a report was read while it held its last placement
  // Its measured rate of progress (status.iteration_rate, in its reports' progress per second):
  // the progress and the agent's time of the first read that showed progress in this placement;
  // at_s < 0: none yet. A goodput job's rate is only ever measured, never the release's estimate
  // (the performance model's steps, another unit).
  struct ProgressMark {
    double progress = 0, at_s = -1;
  } rate_mark;

  // Its rate as a run starts: the plan's estimate (`iteration_s` per iteration) for a rigid job;
  // 0 (unknown until measured) for a goodput job.
  double StartRate(double iteration_s) const {
    return !goodput && std::isfinite(iteration_s) && iteration_s > 0 ? 1.0 / iteration_s : 0.0;
  }
};

const char* PhaseName(Phase p);

}  // namespace hetsched::slurm
