// A running job's speed: its estimate under the link load it shares with other jobs
// (link_contention.h), its truth (the model, or true_rates.h), and its completion re-timed.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "hetsched/sim/simulator_impl.h"

namespace hetsched::sim_internal {

namespace {
// SimOptions::whole_second_completions. 1e-6 until tiresias-gandiva: its jobs' ~1e5 runs of 60 s
// drift by up to 5.3e-6 s (s6c71a0, docs/validation.md); every Tiresias row is unchanged at 1e-4.
constexpr double kWholeSecondSlackS = 1e-4;
}  // namespace

void Simulator::Retime(JobId id, bool estimate_current) {
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  Advance(job);
  if (job.goodput >= 0) {  // its application's truth, set at its last boundary (goodput_run.cc)
    run.rate = goodput(job).rate;
    status_[static_cast<size_t>(id)].iteration_rate = run.idle ? 0.0 : run.rate;
    Reschedule(id);
    return;
  }
  if (estimate_current) {
    // The same estimate gives the same rate, link meter entry, visible rate and keys: only the
    // progress is re-based at now, which moves the completion time's last bits.
    Reschedule(id);
    return;
  }
  // Only the communication depends on the load: the rest was computed at the start.
  const double old_key = LinkContention::UplinkKey(run);
  run.estimate = EstimateUnderLoad(run.prepared, *job.model, run.plan, cluster_, contention_.Load());
  contention_.Rekeyed(run, id, job.active, old_key);
  // Progress is counted in iterations of the job as submitted (num_gpus x batch samples), so a
  // job that a scheduler runs on more or fewer devices than it asked for (elastic scheduling)
  // progresses at its sample throughput over that.
  run.rate = run.estimate.samples_per_s > 0 && job.samples_per_iteration > 0
                 ? run.estimate.samples_per_s / job.samples_per_iteration
                 : 0.0;
  const JobSpec& spec = workload_.jobs[static_cast<size_t>(id)].spec;
  if (job.measured_type >= 0) {
    // Where the table lacks the configuration, the model's rate is the truth.
    if (const double measured = truth_.Measured(spec, job, run); measured > 0) {
      run.rate = measured;
    } else {
      job.measured_fallback = true;
    }
  } else if (job.runtime_rate > 0 && !run.plan.devices.empty()) {
    const Result<double> truth = truth_.Runtime(spec, job, cluster_.device(run.plan.devices.front()).type,
                                                static_cast<int>(run.plan.devices.size()));
    // Where the model cannot run the job (no estimate), its own rate stays the truth.
    if (truth.ok()) run.rate = *truth * truth_.ContentionSlowdown(job, run);
  }
  // Space sharing: its device time shared with its partner (docs/space_sharing.md).
  const double share = ShareFactor(status_[static_cast<size_t>(id)], run);
  run.rate *= share;
  if (!run.nics.empty()) traffic_.Set(job.active, run.traffic, run.estimate.iteration_s / share);
  status_[static_cast<size_t>(id)].iteration_rate = run.idle ? 0.0 : run.rate;
  Reschedule(id);
}

void Simulator::Reschedule(JobId id) {
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  double finish = EventQueue::kNever;
  if (FinishHeld(job)) {
    finish = std::max(now_, run.finish_hold_s);
  } else if (run.rate > 0 && !run.idle) {
    const double from = std::max(now_, run.progress_from_s);
    if (job.goodput >= 0) {
      // Its epoch's end (or its mark); Pollux's time to it is a whole number of seconds from the
      // boundary it last crossed (half to even, as Python's round()).
      const GoodputJob& g = goodput(job);
      const double progress_from = std::max(g.boundary_s, run.progress_from_s);
      // Its progress then (the rate has not changed since that boundary).
      const double done_then =
          job.done_at_update + run.rate * (progress_from - std::max(run.update_s, run.progress_from_s));
      double seconds = (std::min(GoodputBoundary(job), run.mark) - done_then) / run.rate;
      if (options_.goodput_round_epochs) seconds = std::nearbyint(seconds);
      finish = std::max(from, progress_from + seconds);
    } else {
      // Never before `from`: a job re-timed at the instant it reaches its mark (its partner's
      // change of speed, space sharing) may be a rounding past it.
      finish = std::max(from, from + (std::min(job.total_iterations, run.mark) - job.done_at_update) / run.rate);
      if (options_.whole_second_completions) {
        const double second = std::nearbyint(finish);
        if (std::abs(finish - second) < kWholeSecondSlackS) finish = std::max(from, second);
      }
    }
  }
  if (finish != run.completion_s) {  // often the same: a neighbour's change left this job's speed alone
    events_.SetCompletion(id, finish);
    run.completion_s = finish;
  }
}

void Simulator::ChangeTraffic(JobId id, int delta) {
  const RunState& job = runs_[static_cast<size_t>(id)];
  contention_.Register(active(job), id, job.active, delta);
  if (delta > 0) Retime(id);
  contention_.RetimeListed([this](JobId other, bool stands) { Retime(other, stands); });
  if (delta < 0 && !active(job).nics.empty()) traffic_.Remove(job.active);
}

}  // namespace hetsched::sim_internal
