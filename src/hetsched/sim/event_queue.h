// The simulator's future events, kept exact (no stale entries): job completions in an ordered
// set keyed by (time, job id) whose entry is replaced when a job's speed changes, scheduler
// wake-ups in an ordered set of times (duplicates collapse), and at most one round tick.
// Arrivals are not here: the workload is sorted, so the simulator walks it with a cursor.
// Ties are broken by job id, so runs are deterministic. Every operation is O(log n).
#pragma once

#include <limits>
#include <set>
#include <utility>

#include "hetsched/model/job.h"

namespace hetsched {

class EventQueue {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  // Sets (or moves) the completion of `job` to `time_s`; `old_time_s` is its previous time, or
  // kNever if it had none.
  void SetCompletion(JobId job, double old_time_s, double time_s) {
    if (old_time_s != kNever) completions_.erase({old_time_s, job});
    if (time_s != kNever) completions_.insert({time_s, job});
  }
  void CancelCompletion(JobId job, double time_s) {
    if (time_s != kNever) completions_.erase({time_s, job});
  }
  void AddWakeUp(double time_s) { wake_ups_.insert(time_s); }
  void SetRound(double time_s) { round_s_ = time_s; }
  bool round_armed() const { return round_s_ != kNever; }

  double NextTime() const {
    double t = round_s_;
    if (!completions_.empty()) t = std::min(t, completions_.begin()->first);
    if (!wake_ups_.empty()) t = std::min(t, *wake_ups_.begin());
    return t;
  }
  bool empty() const { return completions_.empty() && wake_ups_.empty() && round_s_ == kNever; }

  // The first job completing at exactly `time_s`, or -1.
  JobId CompletionAt(double time_s) const {
    if (completions_.empty() || completions_.begin()->first != time_s) return -1;
    return completions_.begin()->second;
  }
  // Removes wake-ups and the round tick at or before `time_s`; returns how many were due.
  int PopTimersAt(double time_s) {
    int n = 0;
    while (!wake_ups_.empty() && *wake_ups_.begin() <= time_s) {
      wake_ups_.erase(wake_ups_.begin());
      ++n;
    }
    if (round_s_ <= time_s) {
      round_s_ = kNever;
      ++n;
    }
    return n;
  }
  size_t size() const { return completions_.size() + wake_ups_.size() + (round_armed() ? 1 : 0); }

 private:
  std::set<std::pair<double, JobId>> completions_;
  std::set<double> wake_ups_;
  double round_s_ = kNever;
};

}  // namespace hetsched
