#include "hetsched/policies/pending_index.h"

#include <algorithm>

namespace hetsched {

namespace {
constexpr size_t kNotFound = static_cast<size_t>(-1);
}  // namespace

uint64_t PendingIndex::NextPriority() {
  // splitmix64 (Steele et al., 2014): any well-mixed sequence balances the tree.
  uint64_t z = (priority_state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void PendingIndex::Pull(int32_t i) {
  Node& n = node(i);
  n.size = 1 + SizeOf(n.left) + SizeOf(n.right);
  n.min_need = n.entry.need;
  if (n.left >= 0) n.min_need = std::min(n.min_need, node(n.left).min_need);
  if (n.right >= 0) n.min_need = std::min(n.min_need, node(n.right).min_need);
}

void PendingIndex::Split(int32_t t, double time_s, JobId id, bool inclusive, int32_t* before, int32_t* after) {
  if (t < 0) {
    *before = *after = -1;
    return;
  }
  const Entry& e = node(t).entry;
  const bool goes_before = Less(e, time_s, id) || (inclusive && e.time_s == time_s && e.id == id);
  if (goes_before) {
    int32_t right_before = -1;
    Split(node(t).right, time_s, id, inclusive, &right_before, after);
    node(t).right = right_before;
    *before = t;
  } else {
    int32_t left_after = -1;
    Split(node(t).left, time_s, id, inclusive, before, &left_after);
    node(t).left = left_after;
    *after = t;
  }
  Pull(t);
}

int32_t PendingIndex::Merge(int32_t a, int32_t b) {
  if (a < 0) return b;
  if (b < 0) return a;
  if (node(a).priority > node(b).priority) {
    const int32_t right = Merge(node(a).right, b);
    node(a).right = right;
    Pull(a);
    return a;
  }
  const int32_t left = Merge(a, node(b).left);
  node(b).left = left;
  Pull(b);
  return b;
}

void PendingIndex::TreapInsert(const Entry& e) {
  int32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<int32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  Node& n = node(slot);
  n = Node{};
  n.entry = e;
  n.priority = NextPriority();
  n.min_need = e.need;
  // Down to where the new node's priority puts it, then the subtree there is split around it:
  // the treap Merge(Merge(before, slot), after) would build (a treap's shape is set by its keys
  // and priorities), touching one path instead of three.
  path_.clear();
  int32_t* link = &root_;
  while (*link >= 0 && node(*link).priority > n.priority) {
    path_.push_back(*link);
    Node& up = node(*link);
    link = Less(up.entry, e) ? &up.right : &up.left;
  }
  int32_t before = -1, after = -1;
  Split(*link, e.time_s, e.id, /*inclusive=*/false, &before, &after);
  n.left = before;
  n.right = after;
  Pull(slot);
  *link = slot;
  for (auto it = path_.rbegin(); it != path_.rend(); ++it) Pull(*it);
}

bool PendingIndex::TreapErase(double time_s, JobId id) {
  // Down to the node, which its children's merge replaces; then sizes and smallest requests are
  // recomputed up the path.
  path_.clear();
  int32_t* link = &root_;
  while (*link >= 0) {
    Node& at = node(*link);
    if (at.entry.time_s == time_s && at.entry.id == id) break;
    path_.push_back(*link);
    link = Less(at.entry, time_s, id) ? &at.right : &at.left;
  }
  if (*link < 0) return false;
  const int32_t match = *link;
  *link = Merge(node(match).left, node(match).right);
  free_.push_back(match);
  for (auto it = path_.rbegin(); it != path_.rend(); ++it) Pull(*it);
  return true;
}

void PendingIndex::DrainInto(int32_t t) {
  if (t < 0) return;
  DrainInto(node(t).left);
  front_.push_back(node(t).entry);
  free_.push_back(t);
  DrainInto(node(t).right);
}

void PendingIndex::Refill() {
  const size_t want = 2 * front_min_ - std::min(front_.size(), 2 * front_min_);
  const size_t take = std::min(want, TreapSize());
  if (take == 0) return;
  // The treap's first `take` entries are those up to and including the one at rank take - 1.
  const Entry last = TreapAt(take - 1);
  int32_t first = -1, rest = -1;
  Split(root_, last.time_s, last.id, /*inclusive=*/true, &first, &rest);
  root_ = rest;
  DrainInto(first);
}

void PendingIndex::Insert(double time_s, JobId id, int need) {
  const Entry e{time_s, id, need};
  // The front takes what precedes its last entry, and everything while the treap is empty.
  // (The front is never empty while the treap is not.)
  if (root_ >= 0 && Less(front_.back(), e)) {
    TreapInsert(e);
    return;
  }
  front_.insert(std::upper_bound(front_.begin(), front_.end(), e,
                                 [](const Entry& a, const Entry& b) { return Less(a, b); }),
                e);
  if (front_.size() > 2 * front_min_) {
    TreapInsert(front_.back());  // precedes every treap entry: it becomes the treap's first
    front_.pop_back();
  }
}

bool PendingIndex::Erase(double time_s, JobId id) {
  if (front_.empty() || Less(front_.back(), time_s, id)) return TreapErase(time_s, id);
  const auto it = std::lower_bound(front_.begin(), front_.end(), Entry{time_s, id, 0},
                                   [](const Entry& a, const Entry& b) { return Less(a, b); });
  if (it == front_.end() || it->time_s != time_s || it->id != id) return false;
  front_.erase(it);
  if (front_.size() < front_min_) Refill();
  return true;
}

const PendingIndex::Entry& PendingIndex::At(size_t rank) const {
  return rank < front_.size() ? front_[rank] : TreapAt(rank - front_.size());
}

const PendingIndex::Entry& PendingIndex::TreapAt(size_t rank) const {
  int32_t t = root_;
  while (true) {
    const Node& n = node(t);
    const size_t left = static_cast<size_t>(SizeOf(n.left));
    if (rank < left) {
      t = n.left;
    } else if (rank == left) {
      return n.entry;
    } else {
      rank -= left + 1;
      t = n.right;
    }
  }
}

// `base` is the rank of the subtree's first entry. Subtrees wholly before `from`, or whose
// smallest request is too large, are pruned; once inside the range the walk follows one path.
size_t PendingIndex::FirstFittingIn(int32_t t, size_t base, size_t from, int max_need) const {
  if (t < 0) return kNotFound;
  const Node& n = node(t);
  if (n.min_need > max_need || base + static_cast<size_t>(n.size) <= from) return kNotFound;
  const size_t found = FirstFittingIn(n.left, base, from, max_need);
  if (found != kNotFound) return found;
  const size_t mine = base + static_cast<size_t>(SizeOf(n.left));
  if (mine >= from && n.entry.need <= max_need) return mine;
  return FirstFittingIn(n.right, mine + 1, from, max_need);
}

size_t PendingIndex::FirstFitting(size_t from, int max_need, size_t limit) const {
  const size_t end = std::min(limit, size());
  const size_t in_front = std::min(end, front_.size());
  for (size_t r = from; r < in_front; ++r) {
    if (front_[r].need <= max_need) return r;
  }
  if (end > front_.size()) {
    const size_t base = front_.size();
    const size_t found = FirstFittingIn(root_, 0, std::max(from, base) - base, max_need);
    if (found != kNotFound && base + found < end) return base + found;
  }
  return size();
}

}  // namespace hetsched
