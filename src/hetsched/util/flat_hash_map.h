// FlatHashMap<K, V, Hash>: a hash map for memo tables that only grow (no erase): keys and values
// inline in one array of slots, open addressing with linear probing, a power-of-two size kept at
// most half full. A lookup is a multiply, a shift and usually one slot read; a node-based
// std::unordered_map pays a division by its prime bucket count, a bucket read and a node read,
// each a possible cache miss. For tables asked at every scheduling decision (SchedContext's
// iteration estimates, the measured-throughput table, the LP back end's warm-start basis by key):
// docs/PERFORMANCE.md, "Session 27".
// Never walked, so nothing depends on the order of slots.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace hetsched {

template <typename K, typename V, typename Hash>
class FlatHashMap {
 public:
  // The value of `key`, or nullptr if it has none. Valid until the next Emplace or Set.
  const V* Find(const K& key) const {
    if (slots_.empty()) return nullptr;
    for (size_t at = Home(key);; at = (at + 1) & mask_) {
      const Slot& s = slots_[at];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  // Adds `key` with `value`; a key already present keeps its value. Returns the kept value.
  const V& Emplace(const K& key, V value) { return Put(key, std::move(value), false); }
  // Adds `key` with `value`, or replaces the value of a key already present (as operator[]=).
  void Set(const K& key, V value) { Put(key, std::move(value), true); }
  // Makes room for `n` keys without growing again (a table filled at once from a known count).
  void Reserve(size_t n) {
    size_t size = std::max<size_t>(slots_.size(), 16);
    while (size < 2 * n) size *= 2;
    if (size > slots_.size()) Rehash(size);
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct Slot {
    K key{};
    V value{};
    bool used = false;
  };
  // Fibonacci hashing: the high bits of the product, so that a hash weak in its low bits (a
  // pointer, small integers) still spreads over the table.
  size_t Home(const K& key) const {
    return static_cast<size_t>((static_cast<uint64_t>(Hash{}(key)) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  V& Put(const K& key, V value, bool replace) {
    if (2 * (size_ + 1) > slots_.size()) Rehash(slots_.empty() ? 16 : 2 * slots_.size());
    size_t at = Home(key);
    for (; slots_[at].used; at = (at + 1) & mask_) {
      if (slots_[at].key == key) {
        if (replace) slots_[at].value = std::move(value);
        return slots_[at].value;
      }
    }
    slots_[at] = Slot{key, std::move(value), true};
    ++size_;
    return slots_[at].value;
  }
  // `size`: a power of two, at least twice the keys held.
  void Rehash(size_t size) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(size, Slot{});
    mask_ = size - 1;
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(size));  // Home's result has log2(size) bits
    size_ = 0;
    for (Slot& s : old) {
      if (s.used) Put(s.key, std::move(s.value), false);
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  unsigned shift_ = 64;
  size_t size_ = 0;
};

}  // namespace hetsched
