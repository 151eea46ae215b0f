// JobTable<T>: a policy's record per live job. Records live in a pool of slots reused as jobs
// leave, found through a dense index by id for ids below kDenseIds (the simulator's ids are trace
// indices: 4 bytes per id up to the largest seen) and through a hash map for others (a Slurm job
// id can be in the billions). A dense lookup is two array reads; in a node-based hash map it is a
// bucket read and a node read, each a cache miss at a million jobs, and the pool stays as small as
// the live set (docs/PERFORMANCE.md, session 18). Never walked, so nothing depends on the order of
// slots. A reference stays valid until its job is erased or another is added (the pool may grow).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace hetsched {

template <typename T>
class JobTable {
 public:
  // Ids from 0 up to this use the dense index (at most 16 MiB of it).
  static constexpr int64_t kDenseIds = int64_t{1} << 22;

  // The record of `id`, or nullptr if it has none.
  T* Find(int64_t id) {
    const int32_t slot = SlotOf(id);
    return slot < 0 ? nullptr : &pool_[static_cast<size_t>(slot)];
  }
  const T* Find(int64_t id) const { return const_cast<JobTable*>(this)->Find(id); }
  // Starts loading the record of `id`, if it has one, into the cache: for a caller that looks it
  // up after long independent work, so that the lookup's misses overlap that work.
  void Prefetch(int64_t id) const {
    if (!Dense(id) || static_cast<size_t>(id) >= dense_.size()) return;
    const int32_t slot = dense_[static_cast<size_t>(id)];
    if (slot >= 0) __builtin_prefetch(&pool_[static_cast<size_t>(slot)]);
  }
  // The record of `id`, a value-initialised one added if it had none (as std::map's operator[]).
  T& operator[](int64_t id) {
    int32_t* slot = nullptr;
    if (Dense(id)) {
      const size_t i = static_cast<size_t>(id);
      if (i >= dense_.size()) dense_.resize(i + 1, kNone);
      slot = &dense_[i];
    } else {
      slot = &sparse_.try_emplace(id, kNone).first->second;
    }
    if (*slot < 0) {
      if (free_.empty()) {
        *slot = static_cast<int32_t>(pool_.size());
        pool_.emplace_back();
      } else {
        *slot = free_.back();
        free_.pop_back();
        pool_[static_cast<size_t>(*slot)] = T{};
      }
    }
    return pool_[static_cast<size_t>(*slot)];
  }
  // Drops the record of `id`, if any.
  void Erase(int64_t id) {
    const int32_t slot = SlotOf(id);
    if (slot < 0) return;
    free_.push_back(slot);
    if (Dense(id)) {
      dense_[static_cast<size_t>(id)] = kNone;
    } else {
      sparse_.erase(id);
    }
  }
  size_t size() const { return pool_.size() - free_.size(); }

 private:
  static constexpr int32_t kNone = -1;
  static bool Dense(int64_t id) { return id >= 0 && id < kDenseIds; }
  int32_t SlotOf(int64_t id) const {
    if (Dense(id)) {
      const size_t i = static_cast<size_t>(id);
      return i < dense_.size() ? dense_[i] : kNone;
    }
    const auto it = sparse_.find(id);
    return it == sparse_.end() ? kNone : it->second;
  }

  std::vector<int32_t> dense_;                     // by id below kDenseIds: its slot, or kNone
  std::unordered_map<int64_t, int32_t> sparse_;    // other ids: their slots
  std::vector<T> pool_;
  std::vector<int32_t> free_;  // unused slots of pool_
};

}  // namespace hetsched
