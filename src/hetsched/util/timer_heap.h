// Due times with lazy cancellation: a binary min-heap of (time, id, seq) entries that pops in
// (time, id) order, as an ordered set of (time, id) would, without a node per entry or a search
// per removal. The owner keeps, per id, the seq of its live entry (changing it cancels the
// entry; an owner whose ids can come back gives seqs that never repeat) and passes a
// `live(entry)` predicate: cancelled entries are dropped when they come up, or all at once when
// they outnumber the live ones 2 to 1 (then the heap is rebuilt). At most one entry per id may
// be live. Not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hetsched {

template <typename Id>
class TimerHeap {
 public:
  struct Entry {
    double time_s;
    Id id;
    uint64_t seq;
  };

  // A new live entry.
  void Push(double time_s, Id id, uint64_t seq) {
    heap_.push_back({time_s, id, seq});
    std::push_heap(heap_.begin(), heap_.end(), Later);
    ++live_;
  }
  // Says that a live entry was cancelled (its seq changed by the owner); `live` tells live entries
  // apart if the heap is rebuilt now.
  template <typename Live>
  void Cancelled(const Live& live) {
    --live_;
    if (heap_.size() > kMinRebuild && heap_.size() > 3 * live_) {
      std::erase_if(heap_, [&](const Entry& e) { return !live(e); });
      std::make_heap(heap_.begin(), heap_.end(), Later);
    }
  }
  // The earliest live entry (cancelled ones before it are dropped), or nullptr. The pointer is
  // valid until the next call that changes the heap.
  template <typename Live>
  const Entry* Top(const Live& live) {
    while (!heap_.empty() && !live(heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), Later);
      heap_.pop_back();
    }
    return heap_.empty() ? nullptr : &heap_.front();
  }
  size_t live() const { return live_; }
  size_t stored() const { return heap_.size(); }  // live and not yet dropped cancelled entries

 private:
  static constexpr size_t kMinRebuild = 1024;
  // A function object (a function pointer would not be inlined into the heap algorithms).
  struct LaterThan {
    bool operator()(const Entry& a, const Entry& b) const { return a.time_s > b.time_s || (a.time_s == b.time_s && a.id > b.id); }
  };
  static constexpr LaterThan Later{};
  std::vector<Entry> heap_;
  size_t live_ = 0;
};

}  // namespace hetsched
