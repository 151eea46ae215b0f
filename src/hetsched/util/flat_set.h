// An ordered set kept as a sorted vector: O(log n) lookups, O(n) element moves per insert or
// erase, no allocation per element and neighbours next to each other in memory. For sets of up to
// a few thousand elements that change often (a rack's list of the jobs crossing its uplink, updated
// at every re-time of one of them), where a node-based std::set pays an allocation and a chain of
// cache misses per update. Iteration is in order, as std::set's.
#pragma once

#include <algorithm>
#include <functional>
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
