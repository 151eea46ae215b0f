// Plug point 1: the job scheduler decides which jobs run now, on how many devices of which type.
// Driven identically by the simulator (sim/) and the Slurm agent (slurm/), through SchedContext.
//
// Protocol: the back end calls the On*() hooks as things happen, then Schedule() once per batch
// of simultaneous events, at every round tick (if round_period_s() > 0) and at every time the
// scheduler asked for with ctx.WakeUpAt(). Policies keep their own queues incrementally from
// the hooks; they must not scan every job on every call.
#pragma once

#include <string_view>

#include "hetsched/sched/job_status.h"

namespace hetsched {

class SchedContext;

class JobScheduler {
 public:
  static constexpr std::string_view kKind = "policy";
  virtual ~JobScheduler() = default;
  virtual std::string_view name() const = 0;
  // Whether the policy lets goodput-adaptive jobs (JobSpec::adaptive_batch) pick their batch size
  // for their goodput, as Pollux and Sia do; otherwise every job keeps the batch its user tuned
  // (the peers' "TunedJobs" baselines).
  virtual bool adapts_batch_sizes() const { return false; }
  // Whether a goodput job under this policy fits one throughput model over every GPU type it runs
  // on (a heterogeneity-unaware job: Sia's simulator's baseline Pollux) rather than one per type.
  virtual bool pools_goodput_models() const { return false; }
  // Whether a goodput job under this policy starts from what the earlier jobs of its application
  // measured (their throughput samples per GPU type and their first gradient statistics, as a
  // scheduler keeps a history of the models it has run) [REC]; else from nothing (Pollux, Sia).
  virtual bool shares_application_history() const { return false; }

  virtual void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) = 0;
  virtual void OnJobFinished(const JobStatus& job, SchedContext& ctx) = 0;
  // The back end took the job's devices away (node failure, Slurm requeue); the job is pending
  // again. Jobs the scheduler preempts itself through ctx.Preempt() do not trigger this.
  virtual void OnJobRequeued(const JobStatus& job, SchedContext& ctx) = 0;
  // The back end shows the scheduler a job that is already running on `job.devices` (state
  // kRunning, last_start_s the start of its current run), which it never saw start: a Slurm agent
  // restarted while the job ran (its earlier life started it). The scheduler books it as if it
  // had started it itself: it counts it, may preempt it through ctx.Preempt(), and is told by
  // OnJobFinished/OnJobRequeued when it ends or is given back. Called instead of OnJobSubmitted,
  // before the next Schedule(). The simulator never calls it (it starts every job it runs).
  virtual void OnJobRunning(const JobStatus& job, SchedContext& ctx) = 0;

  virtual void Schedule(SchedContext& ctx) = 0;

  // Length of a scheduling round in seconds; 0 = purely event-driven.
  virtual double round_period_s() const { return 0; }
};

}  // namespace hetsched
