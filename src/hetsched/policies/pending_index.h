// PendingIndex: one FIFO queue of pending jobs, ordered by (time entered, job id), each with its
// device request, built for a windowed scan ("examine the first W jobs, start those that fit")
// that must not visit, one by one, the many jobs that cannot start now.
//
// Two levels. The earliest entries (between front_min and 2 x front_min of them, fewer only when
// the queue is that short) sit in a sorted vector, the front: the scans examine at most a window
// of ~100 ranks, so their queries are answered there by a short contiguous walk, and a job that
// starts leaves the front with a move of a few hundred bytes. The rest is a treap (a binary search
// tree balanced by heap-ordered priorities) whose nodes also carry their subtree's size and
// smallest request: queries beyond the front are O(log n) expected, as are inserts and erases
// there. Entries move from the treap into the front in batches when the front runs low, and back
// one at a time when an insert overfills it. Priorities come from a fixed-seed generator inside
// the object, so the shape, and every answer, is the same on every run. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hetsched/model/job.h"

namespace hetsched {

class PendingIndex {
 public:
  struct Entry {
    double time_s = 0;  // when the job entered the queue
    JobId id = 0;
    int need = 0;       // devices it requests
  };

  static constexpr size_t kDefaultFrontMin = 128;
  // `front_min` >= 1: the front is refilled when it holds fewer (tests use small values).
  explicit PendingIndex(size_t front_min = kDefaultFrontMin) : front_min_(front_min < 1 ? 1 : front_min) {}

  size_t size() const { return front_.size() + TreapSize(); }
  bool empty() const { return front_.empty(); }  // the front is refilled before it empties

  // REQUIRES: no entry with the same (time_s, id).
  void Insert(double time_s, JobId id, int need);
  // Removes the entry (time_s, id); false (and no change) if there is none.
  bool Erase(double time_s, JobId id);

  // The entry at `rank` (0 = the earliest). REQUIRES: rank < size().
  const Entry& At(size_t rank) const;
  // The smallest rank in [from, limit) whose entry needs at most `max_need` devices; size() if
  // none (a caller that only looks `k` ranks ahead passes limit = from + k).
  size_t FirstFitting(size_t from, int max_need, size_t limit = static_cast<size_t>(-1)) const;

 private:
  struct Node {
    Entry entry;
    uint64_t priority = 0;
    int32_t left = -1;
    int32_t right = -1;
    int32_t size = 1;  // nodes in this subtree
    int min_need = 0;  // smallest request in this subtree
  };

  static bool Less(const Entry& a, double time_s, JobId id) {
    return a.time_s < time_s || (a.time_s == time_s && a.id < id);
  }
  static bool Less(const Entry& a, const Entry& b) { return Less(a, b.time_s, b.id); }
  size_t TreapSize() const { return static_cast<size_t>(SizeOf(root_)); }
  // Treap operations on the entries after the front.
  void TreapInsert(const Entry& e);
  bool TreapErase(double time_s, JobId id);
  // The treap's entry at `rank` (0 = its earliest). REQUIRES: rank < TreapSize().
  const Entry& TreapAt(size_t rank) const;
  // Moves the treap's earliest entries to the end of the front until it holds 2 x front_min.
  void Refill();
  // Appends the subtree's entries in order to the front and frees its nodes.
  void DrainInto(int32_t t);
  const Node& node(int32_t i) const { return nodes_[static_cast<size_t>(i)]; }
  Node& node(int32_t i) { return nodes_[static_cast<size_t>(i)]; }
  int32_t SizeOf(int32_t i) const { return i < 0 ? 0 : node(i).size; }
  void Pull(int32_t i);
  // Splits `t` into keys before (time_s, id) (or at or before it, when `inclusive`) and the rest.
  void Split(int32_t t, double time_s, JobId id, bool inclusive, int32_t* before, int32_t* after);
  int32_t Merge(int32_t a, int32_t b);
  size_t FirstFittingIn(int32_t t, size_t base, size_t from, int max_need) const;
  uint64_t NextPriority();

  size_t front_min_;
  std::vector<Entry> front_;  // the earliest entries, sorted; each precedes every treap entry
  std::vector<Node> nodes_;
  std::vector<int32_t> free_;  // recycled node slots
  std::vector<int32_t> path_;  // scratch: the nodes above an insert's or erase's place, root first
  int32_t root_ = -1;
  uint64_t priority_state_ = 0x9e3779b97f4a7c15ULL;
};

}  // namespace hetsched
