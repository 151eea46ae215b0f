// OrderedBitSet: a set of small non-negative integers [0, size) kept as a two-level bitmap.
// Insert, erase and membership are O(1) with no allocation; the smallest member and iteration in
// increasing order cost O(size / 4096 + members visited). For indexes that a simulator updates
// at every start and stop (ClusterState's nodes by free-device count), where an ordered tree set
// allocated and freed a node per update.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hetsched {

class OrderedBitSet {
 public:
  OrderedBitSet() = default;
  explicit OrderedBitSet(size_t size) : words_((size + 63) / 64, 0), summary_((words_.size() + 63) / 64, 0) {}

  bool empty() const { return count_ == 0; }
  size_t count() const { return count_; }
  bool contains(size_t i) const { return (words_[i >> 6] >> (i & 63)) & 1u; }

  // REQUIRES: i < size.
  void insert(size_t i) {
    uint64_t& w = words_[i >> 6];
    const uint64_t bit = uint64_t{1} << (i & 63);
    if (w & bit) return;
    w |= bit;
    summary_[i >> 12] |= uint64_t{1} << ((i >> 6) & 63);
    ++count_;
  }
  void erase(size_t i) {
    uint64_t& w = words_[i >> 6];
    const uint64_t bit = uint64_t{1} << (i & 63);
    if (!(w & bit)) return;
    w &= ~bit;
    if (w == 0) summary_[i >> 12] &= ~(uint64_t{1} << ((i >> 6) & 63));
    --count_;
  }

  // The smallest member, or -1 when empty.
  long first() const { return NextFrom(0); }

  // Calls f(member) in increasing order while f returns true.
  template <typename F>
  void ForEach(F&& f) const {
    for (long i = NextFrom(0); i >= 0; i = NextFrom(static_cast<size_t>(i) + 1)) {
      if (!f(static_cast<size_t>(i))) return;
    }
  }

 private:
  // The smallest member >= from, or -1.
  long NextFrom(size_t from) const {
    size_t w = from >> 6;
    if (w >= words_.size()) return -1;
    // The rest of `from`'s own word first.
    const uint64_t here = words_[w] & (~uint64_t{0} << (from & 63));
    if (here != 0) return static_cast<long>((w << 6) + static_cast<size_t>(std::countr_zero(here)));
    // Then the next non-empty word, through the summary.
    ++w;
    for (size_t s = w >> 6; s < summary_.size(); ++s) {
      uint64_t bits = summary_[s];
      if (s == (w >> 6)) bits &= (w & 63) == 0 ? ~uint64_t{0} : ~uint64_t{0} << (w & 63);
      if (bits == 0) continue;
      const size_t word = (s << 6) + static_cast<size_t>(std::countr_zero(bits));
      return static_cast<long>((word << 6) + static_cast<size_t>(std::countr_zero(words_[word])));
    }
    return -1;
  }

  std::vector<uint64_t> words_;
  std::vector<uint64_t> summary_;  // bit k of summary_[s]: words_[64 s + k] is not empty
  size_t count_ = 0;
};

}  // namespace hetsched
