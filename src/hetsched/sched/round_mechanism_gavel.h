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

#include <set>
#include <span>
#include <vector>

#include "hetsched/model/job.h"

namespace hetsched {

// A combination the mechanism planned for the next round, in the allocation (Gavel gives it
// workers): a job, or a pair of jobs co-located on the same devices (Gavel's packed policies: a
// JobIdPair; docs/space_sharing.md) with `id` the lower id and `partner` the higher.
struct GavelPlannedCombo {
  int combo = -1;      // GavelRoundMechanism::Combo
  JobId id = 0;
  JobId partner = -1;  // -1: a single job
  int num_gpus = 1;
  int type = -1;       // type index it runs on
};

// Gavel's time received, deficits and per-type queues over a table of combinations (each active
// job, and with packing each pair of active jobs: O(active^2) of them). Each combination is a
// slot of flat per-type arrays, found by its handle (Combo) in O(1); a round costs O(A log A + S)
// for the A combinations with a positive share on a type and the S taken or skipped below them
// in the queue (O(C) for C combinations where the positive ones leave devices free), not a sort
// of every combination (docs/space_sharing.md, "Scale").
class GavelRoundMechanism {
 public:
  // Gavel's minimum_time_between_allocation_resets (scheduler.py:67).
  static constexpr double kDefaultResetIntervalS = 1920;
  // A combination's handle: its slot (reused once it is removed).
  using Combo = int;
  static constexpr Combo kNoCombo = -1;

  // capacity[k]: devices of the k-th type; round_s: the round length (the initial time is half of it).
  GavelRoundMechanism(std::vector<int> capacity, double round_s, double reset_interval_s);

  int num_types() const { return static_cast<int>(capacity_.size()); }

  // A job arrived (add_job, :496-505): time round/2 on each type, deficit 0, outside the
  // allocation until the next reset. `runnable[k]` > 0 where it can run (type index; missing: 0).
  Combo AddJob(JobId id, int num_gpus, std::span<const double> runnable);
  // A pair of two added jobs became a combination (_populate_job_combination_metadata,
  // :2218-2219): time 0 on each type (not round/2: its first reset gives it half a round of
  // deficit), deficit 0; it takes `a`'s GPU count. `runnable[k]` > 0 where both run paired.
  Combo AddPair(Combo a, Combo b, std::span<const double> runnable);
  // A job or pair added again (a back end announcing a job twice): its time and deficit start
  // again as when it was added; it keeps its share. REQUIRES: `combo` is alive.
  void Restart(Combo combo, std::span<const double> runnable);
  // A micro-task of `combo` ran `seconds` on type index `type` (_done_callback, :3074-3077). The
  // type's total counts it even when the job has just finished; kNoCombo: the total only.
  void Account(Combo combo, int type, double seconds);
  // A finished job leaves (_remove_job, :563-582; its time stays in the types' totals until the
  // next reset): its combination and each pair it is in are removed, by the caller, one by one.
  void Remove(Combo combo);
  // A new allocation, after Reset: every live combination enters it with share 0 on every type,
  // until SetAllocation gives it another. Cost: O(combinations added or given a share other than 0
  // since the last call), not O(combinations).
  void BeginAllocation();
  // The combination's share X[c][k] of the allocation computed at the last reset (by type index);
  // it is then in the allocation. Set after Reset for every combination, or after BeginAllocation
  // for those whose share is not 0.
  void SetAllocation(Combo combo, std::span<const double> share);

  // Whether a reset is due at `now` given that the active set changed since the last one.
  bool ResetDue(double now, bool active_set_changed) const {
    return active_set_changed && (now - last_reset_s_ >= reset_interval_s_ || last_reset_s_ == 0);
  }
  // Makes the next ResetDue true whatever the interval (Gavel sets last_reset_time = 0 when the
  // cluster is idle with nothing left to arrive, :1277-1279).
  void ForceNextReset() { last_reset_s_ = 0; }
  // Resets at `now`: deficits grow by X_old * (now - last reset) - (time - round/2), X_old the
  // share of the allocation being replaced (0 outside it). Cost: O(combinations that ran, were added
  // or hold a share other than 0): every other one keeps its deficit and time.
  void Reset(double now);
  double last_reset_s() const { return last_reset_s_; }

  double Priority(Combo combo, int k) const;
  double Deficit(Combo combo, int k) const { return deficit_[At(combo, k)]; }

  // The combinations in the allocation taken for the next round, each with its type, in Gavel's
  // order of its priority lists (a job by id, followed by its pairs with lower ids, by that id:
  // _add_to_priorities, :2313-2333). Per type (`type_order`: the type indexes in the order they
  // are filled), the combinations in decreasing (priority, deficit, X), ties in that order
  // (Python's stable sort); one is taken if neither of its jobs is taken yet (:814-819), it can
  // run there, fits the type's remaining count and, with `skip_zero_priority` (the FIFO
  // policies), has a priority above 0 (:829-832). A combination outside the allocation can be
  // taken (it holds its devices' count for the round) but is not returned (never given workers,
  // :936).
  std::vector<GavelPlannedCombo> PlanRound(std::span<const int> type_order, bool skip_zero_priority);

 private:
  size_t At(Combo c, int k) const { return static_cast<size_t>(c) * capacity_.size() + static_cast<size_t>(k); }
  // Gavel's order of the priority lists: (id, -1) for a job, (higher id, lower id) for a pair.
  bool Before(Combo a, Combo b) const {
    return first_[static_cast<size_t>(a)] != first_[static_cast<size_t>(b)]
               ? first_[static_cast<size_t>(a)] < first_[static_cast<size_t>(b)]
               : second_[static_cast<size_t>(a)] < second_[static_cast<size_t>(b)];
  }
  Combo NewSlot();
  bool Positive(Combo c, int k) const;  // in the allocation with X != 0 where it can run
  bool Free(Combo c) const;             // neither of its jobs taken this round
  void Take(Combo c);
  // One type's queue walked as Gavel walks it: the positive entries sorted, then the others by
  // (deficit, order). `exact`: every combination sorted as one list (Gavel's code as written; the
  // fallback where a share is negative or something is not a number).
  void FillType(int k, bool skip_zero_priority, std::vector<GavelPlannedCombo>* out);
  void FillTypeExact(int k, bool skip_zero_priority, std::vector<GavelPlannedCombo>* out);
  // Takes `c` on type k if Gavel would (free, runnable, a priority above 0 where asked, fits `left`).
  void Consider(Combo c, int k, double priority, bool skip_zero_priority, int* left,
                std::vector<GavelPlannedCombo>* out);

  std::vector<int> capacity_;
  double half_round_s_;
  double reset_interval_s_;
  double last_reset_s_ = 0;
  std::vector<double> type_total_s_;  // sum of the jobs' time since the last reset, by type
  // Per slot.
  std::vector<char> alive_;
  std::vector<JobId> id_, partner_;          // a pair: the lower id, the higher one
  std::vector<JobId> first_, second_;        // Before's key
  std::vector<Combo> member_a_, member_b_;   // the jobs' own slots (a job: itself, twice)
  std::vector<int> num_gpus_;
  std::vector<char> in_allocation_;
  // Per slot and type (At): time since the last reset (starts at round/2; a pair's at 0),
  // deficit, share X, and > 0 where it can run.
  std::vector<double> time_s_, deficit_, share_, runnable_;
  std::vector<Combo> free_slots_;
  size_t alive_count_ = 0;
  // The slots a Reset must visit, each listed once (its flag set while listed; a slot removed and
  // reused stays listed): `moved_`, those whose time left its reset value (added, restarted or
  // charged) since the last Reset; `shared_`, those given a share other than 0 since the last
  // BeginAllocation (a superset of those with one). `outside_`: those added since the last
  // BeginAllocation (outside the allocation until then).
  std::vector<Combo> moved_, shared_, outside_;
  std::vector<char> in_moved_, in_shared_;
  void ListMoved(Combo c);
  // Per type: the slots with a positive share there (Positive), rebuilt from shared_ after
  // SetAllocation.
  std::vector<std::vector<Combo>> positive_;
  bool positive_stale_ = true;
  // A share that is negative or not a number, or a deficit not a number, was seen: every queue is
  // then sorted whole (FillTypeExact), as the fast walk assumes neither.
  bool exact_only_ = false;
  // Per type, the combinations of priority 0 that can run there (alive, runnable, not Positive) in
  // the order the walk takes them after the positive ones: deficit decreasing, then Gavel's list
  // order. Kept as combinations come and go, their shares are set and their deficits change at a
  // reset (most do not: one that did not run and holds no share keeps its deficit), so that a round
  // walks only the head of it, not every combination. Not kept once exact_only_ is set.
  struct RestEntry {
    double deficit;
    JobId first, second;  // Before's key (unique among the live combinations)
    Combo combo;
    bool operator<(const RestEntry& o) const {
      if (deficit != o.deficit) return deficit > o.deficit;
      return first != o.first ? first < o.first : second < o.second;
    }
  };
  RestEntry RestKey(Combo c, int k) const {
    return RestEntry{deficit_[At(c, k)], first_[static_cast<size_t>(c)], second_[static_cast<size_t>(c)], c};
  }
  std::vector<std::set<RestEntry>> rest_;
  std::vector<char> in_rest_;  // per slot and type (At)
  bool RestEligible(Combo c, int k) const;
  void RestErase(Combo c, int k);
  void RestInsertIfEligible(Combo c, int k);
  void DropRest();  // exact_only_ set: the sets are no longer kept
  // PlanRound's scratch: whether each job slot is taken this round, and which were.
  std::vector<char> taken_;
  std::vector<Combo> taken_list_;
};

}  // namespace hetsched
