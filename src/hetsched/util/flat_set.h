// An ordered set kept as a sorted vector: O(log n) lookups, O(n) element moves per insert or
// erase, no allocation per element and neighbours next to each other in memory. For sets of up to
// a few thousand elements that change often (a rack's list of the jobs crossing its uplink, updated
// at every re-time of one of them), where a node-based std::set pays an allocation and a chain of
// cache misses per update. Iteration is in order, as std::set's.
#pragma once

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace hetsched {

template <typename T, typename Less = std::less<T>>
class FlatSet {
 public:
  using const_iterator = typename std::vector<T>::const_iterator;
  using const_reverse_iterator = typename std::vector<T>::const_reverse_iterator;

  // False if an equal element is present (then nothing changes).
  bool insert(const T& value) {
    const auto at = std::lower_bound(items_.begin(), items_.end(), value, Less());
    if (at != items_.end() && !Less()(value, *at)) return false;
    items_.insert(at, value);
    return true;
  }
  // The number of elements removed (0 or 1).
  size_t erase(const T& value) {
    const auto at = std::lower_bound(items_.begin(), items_.end(), value, Less());
    if (at == items_.end() || Less()(value, *at)) return 0;
    items_.erase(at);
    return 1;
  }
  bool contains(const T& value) const { return std::binary_search(items_.begin(), items_.end(), value, Less()); }
  // Adds `sorted` (ascending by Less, no two equal, none present) in one merge from the back, in
  // place: O(size + sorted.size()), no buffer beyond the set's own growth.
  void InsertSorted(const std::vector<T>& sorted) {
    size_t i = items_.size(), j = sorted.size(), k = i + j;
    items_.resize(k);
    while (j > 0) {
      if (i > 0 && Less()(sorted[j - 1], items_[i - 1])) {
        items_[--k] = std::move(items_[--i]);
      } else {
        items_[--k] = sorted[--j];
      }
    }
  }
  // Removes every element for which `remove(element)` is true, calling it once per element in
  // ascending order (it may act on the ones it removes); the rest keep their order. O(size).
  template <typename Remove>
  size_t RemoveIf(Remove&& remove) {
    size_t kept = 0;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (remove(static_cast<const T&>(items_[i]))) continue;
      if (kept != i) items_[kept] = std::move(items_[i]);
      ++kept;
    }
    const size_t removed = items_.size() - kept;
    items_.resize(kept);
    return removed;
  }

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  const_reverse_iterator rbegin() const { return items_.rbegin(); }
  const_reverse_iterator rend() const { return items_.rend(); }

 private:
  std::vector<T> items_;  // sorted by Less, no two equal
};

}  // namespace hetsched
