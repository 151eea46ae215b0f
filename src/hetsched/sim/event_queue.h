// The simulator's future events, kept exact (no stale entries): job completions in a binary heap
// ordered by (time, job id) and indexed by job (a job's entry is moved in place when its speed
// changes), scheduler wake-ups in a binary min-heap of times (a time asked for twice is one timer:
// repeats are dropped as they are popped), and at most one round tick. Arrivals are not here: the
// workload is sorted, so the simulator walks it with a cursor. Ties are broken by job id, so runs
// are deterministic. Completion updates are O(log n) with no allocation once the heap has grown (a
// 1M-job run re-times jobs millions of times; an ordered set allocated and freed a node for each).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <functional>
#include <vector>

#include "hetsched/model/job.h"

namespace hetsched {

class EventQueue {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  // Sets (or moves) the completion of `job` to `time_s`; kNever removes it. REQUIRES: job >= 0.
  void SetCompletion(JobId job, double time_s) {
    if (time_s == kNever) {
      CancelCompletion(job);
      return;
    }
    const size_t j = static_cast<size_t>(job);
    if (j >= position_.size()) position_.resize(j + 1, kAbsent);
    if (position_[j] == kAbsent) {
      position_[j] = static_cast<int32_t>(heap_.size());
      heap_.push_back({time_s, job});
      SiftUp(heap_.size() - 1);
      return;
    }
    const size_t at = static_cast<size_t>(position_[j]);
    const double old_time_s = heap_[at].time_s;
    heap_[at].time_s = time_s;
    if (time_s < old_time_s) {
      SiftUp(at);
    } else {
      SiftDown(at);
    }
  }
  void CancelCompletion(JobId job) {
    const size_t j = static_cast<size_t>(job);
    if (j >= position_.size() || position_[j] == kAbsent) return;
    const size_t at = static_cast<size_t>(position_[j]);
    position_[j] = kAbsent;
    const size_t last = heap_.size() - 1;
    if (at != last) {
      heap_[at] = heap_[last];
      position_[static_cast<size_t>(heap_[at].job)] = static_cast<int32_t>(at);
      heap_.pop_back();
      // The moved entry may belong above or below its new place.
      if (at > 0 && Before(heap_[at], heap_[(at - 1) / 2])) {
        SiftUp(at);
      } else {
        SiftDown(at);
      }
    } else {
      heap_.pop_back();
    }
  }
  void AddWakeUp(double time_s) {
    // A scheduler that asks for the same time at every call adds it once (it is still queued:
    // nothing was popped since it was added); other repeats are dropped when popped.
    if (time_s == last_wake_up_) return;
    last_wake_up_ = time_s;
    wake_ups_.push_back(time_s);
    std::push_heap(wake_ups_.begin(), wake_ups_.end(), std::greater<>());
  }
  void SetRound(double time_s) { round_s_ = time_s; }
  bool round_armed() const { return round_s_ != kNever; }

  double NextTime() const {
    double t = round_s_;
    if (!heap_.empty()) t = std::min(t, heap_.front().time_s);
    if (!wake_ups_.empty()) t = std::min(t, wake_ups_.front());
    return t;
  }
  bool empty() const { return heap_.empty() && wake_ups_.empty() && round_s_ == kNever; }

  // The first job (lowest id) completing at exactly `time_s`, or -1.
  JobId CompletionAt(double time_s) const {
    if (heap_.empty() || heap_.front().time_s != time_s) return -1;
    return heap_.front().job;
  }
  // Removes wake-ups and the round tick at or before `time_s`; returns how many were due.
  int PopTimersAt(double time_s) {
    int n = 0;
    // Distinct times only (the heap pops them in order, so equal times come together).
    while (!wake_ups_.empty() && wake_ups_.front() <= time_s) {
      const double t = wake_ups_.front();
      last_wake_up_ = std::numeric_limits<double>::quiet_NaN();
      std::pop_heap(wake_ups_.begin(), wake_ups_.end(), std::greater<>());
      wake_ups_.pop_back();
      ++n;
      while (!wake_ups_.empty() && wake_ups_.front() == t) {
        std::pop_heap(wake_ups_.begin(), wake_ups_.end(), std::greater<>());
        wake_ups_.pop_back();
      }
    }
    if (round_s_ <= time_s) {
      round_s_ = kNever;
      ++n;
    }
    return n;
  }

 private:
  static constexpr int32_t kAbsent = -1;
  struct Entry {
    double time_s;
    JobId job;
  };
  static bool Before(const Entry& a, const Entry& b) {
    return a.time_s < b.time_s || (a.time_s == b.time_s && a.job < b.job);
  }
  void Place(size_t at, const Entry& e) {
    heap_[at] = e;
    position_[static_cast<size_t>(e.job)] = static_cast<int32_t>(at);
  }
  void SiftUp(size_t at) {
    const Entry e = heap_[at];
    while (at > 0) {
      const size_t parent = (at - 1) / 2;
      if (!Before(e, heap_[parent])) break;
      Place(at, heap_[parent]);
      at = parent;
    }
    Place(at, e);
  }
  void SiftDown(size_t at) {
    const Entry e = heap_[at];
    const size_t n = heap_.size();
    while (true) {
      size_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && Before(heap_[child + 1], heap_[child])) ++child;
      if (!Before(heap_[child], e)) break;
      Place(at, heap_[child]);
      at = child;
    }
    Place(at, e);
  }

  std::vector<Entry> heap_;                 // completions, a binary min-heap on (time, job)
  std::vector<int32_t> position_;           // by job id: its index in heap_, or kAbsent
  std::vector<double> wake_ups_;            // wake-up times, a binary min-heap (may repeat)
  double last_wake_up_ = std::numeric_limits<double>::quiet_NaN();  // the last time added, while queued
  double round_s_ = kNever;
};

}  // namespace hetsched
