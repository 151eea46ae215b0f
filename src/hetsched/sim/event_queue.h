// The simulator's future-event list: a binary heap ordered by (time, kind, sequence number), so
// that simultaneous events are processed in a fixed order (completions free devices before
// arrivals ask for them) and runs are deterministic. Stale events (a completion whose job changed
// speed since) are skipped by version, not removed: O(log n) per event.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "hetsched/model/job.h"

namespace hetsched {

enum class EventKind : uint8_t { kCompletion = 0, kRound = 1, kWakeUp = 2 };

struct Event {
  double time_s = 0;
  EventKind kind = EventKind::kWakeUp;
  uint64_t seq = 0;
  JobId job = -1;
  uint32_t version = 0;
};

class EventQueue {
 public:
  void Push(double time_s, EventKind kind, JobId job = -1, uint32_t version = 0) {
    heap_.push(Event{time_s, kind, next_seq_++, job, version});
  }
  bool empty() const { return heap_.empty(); }
  const Event& top() const { return heap_.top(); }
  Event Pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }
  size_t size() const { return heap_.size(); }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      if (a.time_s != b.time_s) return a.time_s > b.time_s;
      if (a.kind != b.kind) return a.kind > b.kind;
      return a.seq > b.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace hetsched
