// PendingIndex: one FIFO queue of pending jobs, ordered by (time entered, job id), each with its
// device request, built for a windowed scan ("examine the first W jobs, start those that fit")
// that must not visit, one by one, the many jobs that cannot start now.
//
// Two levels. The earliest entries (between front_min and 2 x front_min of them, fewer only when
// the queue is that short) sit in a sorted vector, the front: the scans examine at most a window
// of ~100 ranks, so their queries are answered there by a short contiguous walk, and a job that
// starts leaves the front with a move of a few hundred bytes. The rest sits in blocks of at most
// 64 entries, each a sorted vector, the blocks in key order, with each block's first key in one
// contiguous array (the search for a key's block stays in cache) and a segment tree over the
// blocks of their entry counts and smallest requests: an erase or insert costs a binary search
// over the first keys, one inside the block and a move within it (a few cache misses, where a
// binary tree node per entry cost one per level: the starvation promotions of a million-job
// Tiresias-LAS run erase from deep inside a queue of ~100,000), and rank and "first that fits"
// queries beyond the front descend the tree, O(log n). A block split at the end (where a queue
// in time order grows) takes a new leaf; a split elsewhere rebuilds the tree, O(n / 64). An
// emptied block frees its storage but stays, holding its place in key order, until empty blocks
// are half of all (then they are dropped and the tree rebuilt). Entries move from the rest into the front in batches
// when the front runs low, and back one at a time when an insert overfills it. Every answer
// depends on the entries alone. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
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

  size_t size() const { return front_.size() + RestSize(); }
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
  static bool Less(const Entry& a, double time_s, JobId id) {
    return a.time_s < time_s || (a.time_s == time_s && a.id < id);
  }
  static bool Less(const Entry& a, const Entry& b) { return Less(a, b.time_s, b.id); }
  // Less as a function object, for the sorted searches over the front and the blocks.
  struct Before {
    bool operator()(const Entry& a, const Entry& b) const { return Less(a, b); }
  };
  // The entry (time_s, id) in `sorted`, or sorted.end().
  static std::vector<Entry>::iterator Locate(std::vector<Entry>& sorted, double time_s, JobId id);
  // The entries after the front: blocks of at most kBlock entries, each sorted, the blocks in key
  // order; a segment tree over the blocks keeps each block's entry count and smallest request.
  static constexpr size_t kBlock = 64;
  size_t RestSize() const { return count_.empty() ? 0 : static_cast<size_t>(count_[1]); }  // the tree's root
  void RestInsert(const Entry& e);
  bool RestErase(double time_s, JobId id);
  const Entry& RestAt(size_t rank) const;
  // The smallest rank (within the rest) >= from whose entry needs at most max_need, or kNotFound.
  size_t RestFirstFitting(size_t from, int max_need) const;
  // Moves the rest's earliest entries to the end of the front until it holds 2 x front_min.
  void Refill();
  // The block that holds (or would hold) key (time_s, id): the last whose first key is not after it.
  size_t BlockOf(double time_s, JobId id) const;
  static int32_t LeastNeed(const std::vector<Entry>& block);
  void UpdateLeaf(size_t b);  // block b's count and block_min_ into the tree
  void Rebuild();             // the tree over all blocks, after blocks were added or removed
  void Emptied(size_t b);     // block b lost its last entry: its storage is freed, it stays
  void CompactIfSparse();     // Compact once empty blocks are half of all
  void Compact();             // drops the empty blocks, then Rebuild
  // The block holding rank `rank` of the rest; *offset gets the rank within it.
  size_t BlockAtRank(size_t rank, size_t* offset) const;
  size_t RanksBefore(size_t b) const;  // entries in blocks before b
  // The first block >= b whose smallest request is at most max_need, or blocks_.size().
  size_t FirstBlockFitting(size_t b, int max_need) const;

  size_t front_min_;
  std::vector<Entry> front_;  // the earliest entries, sorted; each precedes every later entry
  std::vector<std::vector<Entry>> blocks_;
  std::vector<std::pair<double, JobId>> first_key_;  // each block's first key, for the search
  std::vector<int32_t> block_min_;  // each block's smallest request
  size_t leaves_ = 0;               // the tree's leaf count (a power of two >= blocks)
  std::vector<int32_t> count_;      // tree: entries under each node
  std::vector<int32_t> min_need_;   // tree: smallest request under each node
  size_t empty_blocks_ = 0;  // blocks emptied and kept (their first keys stay in order)
};

}  // namespace hetsched
