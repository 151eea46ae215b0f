// JobTable<T>: a policy's record per live job, for ids that are small non-negative integers (job
// ids are trace indices). Records live in a pool of slots reused as jobs leave, found through a
// dense index by id (4 bytes per id up to the largest seen). A lookup is two array reads; in a
// node-based hash map it is a bucket read and a node read, each a cache miss at a million jobs,
// and the pool stays as small as the live set (docs/PERFORMANCE.md, session 18). Never walked, so
// nothing depends on the order of slots. A reference stays valid until its job is erased or
// another is added (the pool may grow).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hetsched {

template <typename T>
class JobTable {
 public:
  // The record of `id`, or nullptr if it has none. REQUIRES: id >= 0.
  T* Find(int64_t id) {
    const size_t i = static_cast<size_t>(id);
    if (i >= slot_.size() || slot_[i] < 0) return nullptr;
    return &pool_[static_cast<size_t>(slot_[i])];
  }
  const T* Find(int64_t id) const { return const_cast<JobTable*>(this)->Find(id); }
  // The record of `id`, a value-initialised one added if it had none (as std::map's operator[]).
  T& operator[](int64_t id) {
    const size_t i = static_cast<size_t>(id);
    if (i >= slot_.size()) slot_.resize(i + 1, kNone);
    if (slot_[i] < 0) {
      if (free_.empty()) {
        slot_[i] = static_cast<int32_t>(pool_.size());
        pool_.emplace_back();
      } else {
        slot_[i] = free_.back();
        free_.pop_back();
        pool_[static_cast<size_t>(slot_[i])] = T{};
      }
    }
    return pool_[static_cast<size_t>(slot_[i])];
  }
  // Drops the record of `id`, if any.
  void Erase(int64_t id) {
    const size_t i = static_cast<size_t>(id);
    if (i >= slot_.size() || slot_[i] < 0) return;
    free_.push_back(slot_[i]);
    slot_[i] = kNone;
  }
  size_t size() const { return pool_.size() - free_.size(); }

 private:
  static constexpr int32_t kNone = -1;
  std::vector<int32_t> slot_;  // by id: its slot in pool_, or kNone
  std::vector<T> pool_;
  std::vector<int32_t> free_;  // unused slots of pool_
};

}  // namespace hetsched
