// RoundPolicy's space sharing under Gavel's mechanism (its packed policies; docs/space_sharing.md):
// the pairs of active jobs (scheduler.py _populate_job_combination_metadata, :2197-2251), the
// round's combinations in Gavel's order, and a pair's micro-task (_get_num_steps, :959-993).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "hetsched/policies/gavel/policy.h"

namespace hetsched::gavel {

void RoundPolicy::AddPairs(JobId id, SchedContext& ctx) {
  if (!gavel_) return;  // pairs run under Gavel's mechanism only (Init ends the run)
  const JobSpec& spec = *ctx.job(id).spec;
  ActiveJob& mine = active_.at(id);
  const size_t types = types_.size();
  std::vector<double> rate_a(types), rate_b(types), runnable(types);
  for (auto& [other, theirs] : active_) {
    // Gavel pairs a job with every active job of its scale factor, whatever their rates (:2205-2209).
    if (other == id || ctx.job(other).spec->num_gpus != spec.num_gpus) continue;
    const JobId low = std::min(id, other), high = std::max(id, other);
    const ActiveJob& a = low == id ? mine : theirs;
    const ActiveJob& b = low == id ? theirs : mine;
    std::fill(rate_a.begin(), rate_a.end(), 0.0);
    std::fill(rate_b.begin(), rate_b.end(), 0.0);
    std::fill(runnable.begin(), runnable.end(), 0.0);
    const int type_a = profile_ == nullptr ? -1 : profile_->JobTypeIndex(ctx.job(low).spec->name);
    const int type_b = profile_ == nullptr ? -1 : profile_->JobTypeIndex(ctx.job(high).spec->name);
    for (size_t k = 0; k < types_.size(); ++k) {
      if (!(a.runnable[k] > 0) || !(b.runnable[k] > 0)) continue;
      if (profile_ != nullptr && profile_->has_pairs() && type_a >= 0 && type_b >= 0) {
        // Gavel's oracle pair entry; one it lacks cannot run together (Gavel has them all).
        const auto rates = profile_->PairStepsPerSecond(type_a, type_b, types_[k], spec.num_gpus);
        if (rates) {
          rate_a[k] = rates->first;
          rate_b[k] = rates->second;
        }
      } else {
        const double factor = ctx.CoLocationFactorOf(low, high, spec.num_gpus, types_[k]);
        rate_a[k] = a.runnable[k] * factor;
        rate_b[k] = b.runnable[k] * factor;
      }
      runnable[k] = std::min(rate_a[k], rate_b[k]);
    }
    // The pair's place in the higher id's list (at the end when `id` is the highest).
    ActiveJob& upper = high == id ? mine : theirs;
    auto entry = std::lower_bound(upper.lower_pairs.begin(), upper.lower_pairs.end(), low,
                                  [](const auto& e, JobId l) { return e.first < l; });
    GavelRoundMechanism::Combo combo = GavelRoundMechanism::kNoCombo;
    if (entry != upper.lower_pairs.end() && entry->first == low && entry->second != GavelRoundMechanism::kNoCombo) {
      combo = entry->second;
      gavel_->Restart(combo, runnable);  // announced again (as Gavel's metadata of a known pair)
    } else {
      combo = gavel_->AddPair(a.combo, b.combo, runnable);
      if (entry != upper.lower_pairs.end() && entry->first == low) {  // a forgotten pair's place
        entry->second = combo;
        --upper.forgotten_pairs;
      } else {
        upper.lower_pairs.insert(entry, {low, combo});
      }
    }
    const size_t slot = static_cast<size_t>(combo);
    if (pairs_.size() <= slot) {
      pairs_.resize(slot + 1);
      pair_rates_.resize(2 * (slot + 1) * types, 0.0);
    }
    pairs_[slot].low = low;
    pairs_[slot].high = high;
    std::copy(rate_a.begin(), rate_a.end(), pair_rates_.begin() + static_cast<std::ptrdiff_t>(2 * slot * types));
    std::copy(rate_b.begin(), rate_b.end(), pair_rates_.begin() + static_cast<std::ptrdiff_t>((2 * slot + 1) * types));
  }
}

double RoundPolicy::DispatchPair(SchedContext& ctx, const GavelPlannedCombo& combo) {
  const int k = combo.type;
  ActivePair& p = pairs_[static_cast<size_t>(combo.combo)];
  const JobStatus& low = ctx.job(combo.id);
  const JobStatus& high = ctx.job(combo.partner);
  if (low.state != JobState::kRunning || low.sharing_with != combo.partner) {
    // The pair did not form (the back end declined it): whichever member runs holds its devices
    // idle for the round, as a micro-task that was never given workers.
    for (const JobStatus* st : {&low, &high}) {
      if (st->state == JobState::kRunning) ctx.RunUntil(st->spec->id, st->iterations_done);
    }
    return -1;
  }
  // Each member runs int(T_pair x round) whole steps at its paired speed, or what it has left; the
  // micro-task lasts as long as the slower of the two (:995-1041). A member with fewer steps than
  // GPUs fails the whole micro-task: neither progresses, nothing is charged (:2953-2963). [REC]
  // Such a member (in Gavel it cannot happen with single-GPU pairs; here a job whose true work
  // outlasts the steps it reports) counts the failure as its own single micro-task's would, so that
  // the fifth in a row drops it, as EndMicroTasks drops a single job.
  const double now = ctx.now();
  double steps[2], left[2], done[2], run_s[2];
  const double speed[2] = {PairRates(combo.combo, 0)[static_cast<size_t>(k)],
                           PairRates(combo.combo, 1)[static_cast<size_t>(k)]};
  const JobStatus* member[2] = {&low, &high};
  bool failed = false;
  for (int m = 0; m < 2; ++m) {
    const JobStatus& st = *member[m];
    const ReportedProgress progress = ReportedProgressOf(st, now);
    done[m] = progress.done;
    left[m] = progress.left;
    steps[m] = std::min(std::floor(speed[m] * round_s_), left[m]);
    run_s[m] = progress.RunS(steps[m], speed[m], round_s_);
    if (progress.Fails(steps[m], combo.num_gpus)) {
      failed = true;
      active_.at(st.spec->id).micro_failed = true;
    }
  }
  double end = now;
  for (int m = 0; m < 2; ++m) end = std::max(end, now + run_s[m]);
  for (int m = 0; m < 2; ++m) {
    const JobId id = member[m]->spec->id;
    if (failed) {
      ctx.RunUntil(id, done[m]);
      continue;
    }
    ctx.RunUntil(id, steps[m] >= left[m] ? std::numeric_limits<double>::infinity() : done[m] + steps[m]);
    // pair_finish=micro_task: Gavel's record. The pair is one micro-task whose end is its later
    // member's (_get_job_steps_and_finish_times, :1034-1041, one running_jobs entry, :1479-1484), and
    // each member's latest timestamp is set to that end (simulate(), :1305-1313): a member whose
    // steps finish it is "[Job succeeded]" then (_done_callback, :3042-3066), its JCT that end less
    // its arrival (_remove_job, :536-547). Here it holds its devices idle from its work's end to the
    // pair's (docs/space_sharing.md, "A pair's end").
    if (gavel_options_.finish_with_pair) ctx.HoldFinishUntil(id, end);
  }
  if (!failed) {
    p.micro_type = k;
    p.micro_end_s = end;
    running_pairs_.push_back(combo.combo);
  }
  return end;
}

}  // namespace hetsched::gavel
