// Gavel's round mechanism as its simulator implements it (stanford-futuredata/gavel @ c4fa400,
// scheduler/scheduler.py), for `--compat gavel` (docs/compat.md, "Gavel"). It differs from
// RoundMechanism (the paper's description, section 5) in four ways, each decided at the line cited:
//
// 1. Time received is counted since the last *reset* (_reset_time_run_so_far, :2265): at a reset
//    every active job's time on every type restarts at round/2 (:2303), and the type's total is
//    the sum over jobs (:2305). A micro-task adds its run time to both (:3074-3077). Priority of
//    (job, type) = X / (job's time on the type / the type's total), X * 1e9 when that fraction is
//    0 (:2443-2463); 0 for a job that is not in the allocation, has X = 0 there or cannot run there.
// 2. The allocation is recomputed only at a reset, and a reset happens only when the active set
//    changed *and* at least `reset_interval_s` (1920 s, :67) passed since the last one, or the
//    last one was at time 0 (:2368-2381). A job that arrived since has priority 0 until then.
// 3. Jobs are taken type by type, not from one global list (enable_global_queue=False, :799):
//    for each type in order (v100, p100, k80, :875; shuffled every round by a Random(seed+5)
//    for policies without "Perf" in their name, :879-881) the jobs in decreasing
//    (priority, deficit, X), ties in arrival order (Python's stable sort, :800); a job is taken if
//    it is not yet taken, can run there, fits the type's remaining count (:818-852) and, for the
//    FIFO policies, has a priority above 0 (:829-832). A job not in the allocation can be taken
//    (it then holds its devices' count for the round) but is never given workers (:936).
// 4. Deficits (the time a job should have had minus what it had, summed over resets, :2290-2300)
//    only break priority ties.
// Placement, lease extension and round timing are the caller's (policies/gavel/policy.h).
#pragma once

#include <functional>
#include <map>
#include <span>
#include <vector>

#include "hetsched/model/job.h"

namespace hetsched {

// A job, or a pair of jobs co-located on the same devices (Gavel's packed policies: a JobIdPair,
// with `partner` its second job; docs/space_sharing.md).
struct GavelRoundJob {
  JobId id = 0;
  int num_gpus = 1;
  bool in_allocation = false;           // present at the last reset
  std::span<const double> share;        // X[j][k] by type index (used only if in_allocation)
  std::span<const double> throughput;   // > 0 where the job can run (type index; a pair: both)
  JobId partner = -1;                   // a pair's second job; -1: a single job
};

class GavelRoundMechanism {
 public:
  // Gavel's minimum_time_between_allocation_resets (scheduler.py:67).
  static constexpr double kDefaultResetIntervalS = 1920;

  // capacity[k]: devices of the k-th type; round_s: the round length (the initial time is half of it).
  GavelRoundMechanism(std::vector<int> capacity, double round_s, double reset_interval_s);

  int num_types() const { return static_cast<int>(capacity_.size()); }

  // A job arrived (add_job, :496-505): time round/2 on each type, deficit 0.
  void AddJob(JobId id);
  // A pair of active jobs became a combination (_populate_job_combination_metadata, :2218-2219):
  // time 0 on each type (not round/2: its first reset gives it half a round of deficit), deficit 0.
  void AddPair(JobId a, JobId b);
  // A micro-task of `id` (with `partner`: of the pair) ran `seconds` on type index `type`
  // (_done_callback, :3074-3077). The type's total counts it even when the job has just finished.
  void Account(JobId id, int type, double seconds, JobId partner = -1);
  // A finished job leaves, with every pair it is in (_remove_job, :563-582; its time stays in the
  // types' totals until the next reset).
  void RemoveJob(JobId id);

  // Whether a reset is due at `now` given that the active set changed since the last one.
  bool ResetDue(double now, bool active_set_changed) const {
    return active_set_changed && (now - last_reset_s_ >= reset_interval_s_ || last_reset_s_ == 0);
  }
  // Makes the next ResetDue true whatever the interval (Gavel sets last_reset_time = 0 when the
  // cluster is idle with nothing left to arrive, :1277-1279).
  void ForceNextReset() { last_reset_s_ = 0; }
  // Resets at `now`: deficits grow by X_old * (now - last reset) - (time - round/2), where
  // `old_share(id, partner)` is X of the job's (or the pair's) allocation being replaced (empty
  // span: not in it).
  void Reset(double now, const std::function<std::span<const double>(JobId, JobId)>& old_share);
  double last_reset_s() const { return last_reset_s_; }

  double Priority(const GavelRoundJob& job, int k) const;
  double Deficit(JobId id, int k, JobId partner = -1) const;

  // The type index each job (or pair) runs on in the next round (-1: none), in the order of
  // `jobs`, which must be Gavel's order of its priority lists: each job at its arrival, followed by
  // its pairs with the jobs active then, in their arrival order (_add_to_priorities, :2313-2333).
  // A pair is taken only if neither of its jobs is taken yet (:814-819). `type_order`: type
  // indexes in the order they are filled. Cost: O(J T log J) for J entries and T types.
  std::vector<int> PlanRound(std::span<const GavelRoundJob> jobs, std::span<const int> type_order,
                             bool skip_zero_priority) const;

 private:
  struct Times {
    std::vector<double> time_s;     // since the last reset, by type index (starts at round/2)
    std::vector<double> deficit_s;  // by type index
  };
  std::vector<int> capacity_;
  double half_round_s_;
  double reset_interval_s_;
  double last_reset_s_ = 0;
  std::vector<double> type_total_s_;  // sum of the jobs' time since the last reset, by type
  std::map<std::pair<JobId, JobId>, Times> jobs_;  // (job, partner), partner -1 for the job alone
};

}  // namespace hetsched
