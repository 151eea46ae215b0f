#include "hetsched/policies/pending_index.h"

#include <algorithm>
#include <limits>

namespace hetsched {

namespace {
constexpr size_t kNotFound = static_cast<size_t>(-1);
constexpr int32_t kNoNeed = std::numeric_limits<int32_t>::max();
}  // namespace

std::vector<PendingIndex::Entry>::iterator PendingIndex::Locate(std::vector<Entry>& sorted, double time_s, JobId id) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), Entry{time_s, id, 0}, Before{});
  return it != sorted.end() && it->time_s == time_s && it->id == id ? it : sorted.end();
}

size_t PendingIndex::BlockOf(double time_s, JobId id) const {
  // The first block whose first key is after (time_s, id), less one.
  const auto it = std::upper_bound(first_key_.begin(), first_key_.end(), std::make_pair(time_s, id));
  return it == first_key_.begin() ? 0 : static_cast<size_t>(it - first_key_.begin()) - 1;
}

int32_t PendingIndex::LeastNeed(const std::vector<Entry>& block) {
  int32_t least = kNoNeed;
  for (const Entry& e : block) least = std::min(least, static_cast<int32_t>(e.need));
  return least;
}

void PendingIndex::UpdateLeaf(size_t b) {
  const std::vector<Entry>& block = blocks_[b];
  const int32_t least = block_min_[b];
  size_t v = leaves_ + b;
  count_[v] = static_cast<int32_t>(block.size());
  min_need_[v] = least;
  for (v >>= 1; v >= 1; v >>= 1) {
    count_[v] = count_[2 * v] + count_[2 * v + 1];
    min_need_[v] = std::min(min_need_[2 * v], min_need_[2 * v + 1]);
  }
}

void PendingIndex::Rebuild() {
  leaves_ = 1;
  while (leaves_ < blocks_.size()) leaves_ *= 2;
  count_.assign(2 * leaves_, 0);
  min_need_.assign(2 * leaves_, kNoNeed);
  for (size_t b = 0; b < blocks_.size(); ++b) {
    count_[leaves_ + b] = static_cast<int32_t>(blocks_[b].size());
    min_need_[leaves_ + b] = block_min_[b];
  }
  for (size_t v = leaves_; v-- > 1;) {
    count_[v] = count_[2 * v] + count_[2 * v + 1];
    min_need_[v] = std::min(min_need_[2 * v], min_need_[2 * v + 1]);
  }
}

size_t PendingIndex::BlockAtRank(size_t rank, size_t* offset) const {
  size_t v = 1;
  while (v < leaves_) {
    const size_t left = static_cast<size_t>(count_[2 * v]);
    if (rank < left) {
      v = 2 * v;
    } else {
      rank -= left;
      v = 2 * v + 1;
    }
  }
  *offset = rank;
  return v - leaves_;
}

size_t PendingIndex::RanksBefore(size_t b) const {
  size_t sum = 0;
  for (size_t v = leaves_ + b; v > 1; v >>= 1) {
    if (v & 1) sum += static_cast<size_t>(count_[v - 1]);
  }
  return sum;
}

size_t PendingIndex::FirstBlockFitting(size_t b, int max_need) const {
  if (b >= blocks_.size()) return blocks_.size();
  // Up from leaf b until a right sibling (covering later blocks) has a small enough request.
  size_t v = leaves_ + b;
  if (min_need_[v] <= max_need) return b;
  while (v > 1) {
    if ((v & 1) == 0 && min_need_[v + 1] <= max_need) {
      v = v + 1;
      // Down to its first leaf that fits.
      while (v < leaves_) v = min_need_[2 * v] <= max_need ? 2 * v : 2 * v + 1;
      return std::min(v - leaves_, blocks_.size());
    }
    v >>= 1;
  }
  return blocks_.size();
}

void PendingIndex::RestInsert(const Entry& e) {
  if (blocks_.empty()) {
    blocks_.push_back({e});
    block_min_.push_back(e.need);
    first_key_.push_back({e.time_s, e.id});
    Rebuild();
    return;
  }
  const size_t b = BlockOf(e.time_s, e.id);
  std::vector<Entry>& block = blocks_[b];
  if (block.empty()) --empty_blocks_;  // revived
  const auto at = std::upper_bound(block.begin(), block.end(), e, Before{});
  if (at == block.begin()) first_key_[b] = {e.time_s, e.id};
  block.insert(at, e);
  block_min_[b] = std::min(block_min_[b], static_cast<int32_t>(e.need));
  if (block.size() > kBlock) {
    std::vector<Entry> upper(block.begin() + kBlock / 2, block.end());
    block.resize(kBlock / 2);
    block.shrink_to_fit();  // it rarely grows again: a queue in time order grows at its end
    block_min_[b] = LeastNeed(block);
    const auto pos = static_cast<std::ptrdiff_t>(b) + 1;
    first_key_.insert(first_key_.begin() + pos, {upper.front().time_s, upper.front().id});
    block_min_.insert(block_min_.begin() + pos, LeastNeed(upper));
    blocks_.insert(blocks_.begin() + pos, std::move(upper));
    if (b + 2 == blocks_.size() && blocks_.size() <= leaves_) {
      // Split at the end, where a queue in time order grows: the tree has room for the new leaf.
      UpdateLeaf(b);
      UpdateLeaf(b + 1);
    } else {
      Rebuild();
    }
    return;
  }
  UpdateLeaf(b);
}

bool PendingIndex::RestErase(double time_s, JobId id) {
  if (blocks_.empty()) return false;
  const size_t b = BlockOf(time_s, id);
  std::vector<Entry>& block = blocks_[b];
  const auto it = Locate(block, time_s, id);
  if (it == block.end()) return false;
  const bool first = it == block.begin();
  const bool least = it->need == block_min_[b];
  block.erase(it);
  // An emptied block stays, with its last first key (still in order), until compaction.
  if (first && !block.empty()) first_key_[b] = {block.front().time_s, block.front().id};
  if (least) block_min_[b] = LeastNeed(block);
  UpdateLeaf(b);
  if (block.empty()) {
    Emptied(b);
    CompactIfSparse();
  }
  return true;
}

const PendingIndex::Entry& PendingIndex::RestAt(size_t rank) const {
  size_t offset = 0;
  const size_t b = BlockAtRank(rank, &offset);
  return blocks_[b][offset];
}

size_t PendingIndex::RestFirstFitting(size_t from, int max_need) const {
  if (from >= RestSize()) return kNotFound;
  size_t offset = 0;
  size_t b = BlockAtRank(from, &offset);
  size_t base = from - offset;  // rank of block b's first entry
  for (;;) {
    const std::vector<Entry>& block = blocks_[b];
    for (size_t i = offset; i < block.size(); ++i) {
      if (block[i].need <= max_need) return base + i;
    }
    const size_t next = FirstBlockFitting(b + 1, max_need);
    if (next >= blocks_.size()) return kNotFound;
    base = RanksBefore(next);
    b = next;
    offset = 0;
  }
}

void PendingIndex::Refill() {
  const size_t want = 2 * front_min_ - std::min(front_.size(), 2 * front_min_);
  size_t take = std::min(want, RestSize());
  for (size_t b = 0; take > 0; ++b) {
    std::vector<Entry>& block = blocks_[b];
    if (block.empty()) continue;
    const size_t n = std::min(take, block.size());
    front_.insert(front_.end(), block.begin(), block.begin() + static_cast<std::ptrdiff_t>(n));
    take -= n;
    block.erase(block.begin(), block.begin() + static_cast<std::ptrdiff_t>(n));
    if (!block.empty()) {
      first_key_[b] = {block.front().time_s, block.front().id};
      block_min_[b] = LeastNeed(block);
    } else {
      block_min_[b] = kNoNeed;
    }
    UpdateLeaf(b);
    if (block.empty()) Emptied(b);
  }
  CompactIfSparse();
}

void PendingIndex::Emptied(size_t b) {
  std::vector<Entry>().swap(blocks_[b]);  // its storage back; the block keeps its place in order
  ++empty_blocks_;
}

void PendingIndex::CompactIfSparse() {
  if (empty_blocks_ > 16 && 2 * empty_blocks_ > blocks_.size()) Compact();
}

void PendingIndex::Compact() {
  size_t kept = 0;
  for (size_t b = 0; b < blocks_.size(); ++b) {
    if (blocks_[b].empty()) continue;
    if (kept != b) {
      blocks_[kept] = std::move(blocks_[b]);
      first_key_[kept] = first_key_[b];
      block_min_[kept] = block_min_[b];
    }
    ++kept;
  }
  blocks_.resize(kept);
  first_key_.resize(kept);
  block_min_.resize(kept);
  empty_blocks_ = 0;
  Rebuild();
}

void PendingIndex::Insert(double time_s, JobId id, int need) {
  const Entry e{time_s, id, need};
  // The front takes what precedes its last entry, and everything while the rest is empty.
  // (The front is never empty while the rest is not.)
  if (RestSize() > 0 && Less(front_.back(), e)) {
    RestInsert(e);
    return;
  }
  front_.insert(std::upper_bound(front_.begin(), front_.end(), e, Before{}), e);
  if (front_.size() > 2 * front_min_) {
    RestInsert(front_.back());  // precedes every later entry: it becomes the rest's first
    front_.pop_back();
  }
}

bool PendingIndex::Erase(double time_s, JobId id) {
  if (front_.empty() || Less(front_.back(), time_s, id)) return RestErase(time_s, id);
  const auto it = Locate(front_, time_s, id);
  if (it == front_.end()) return false;
  front_.erase(it);
  if (front_.size() < front_min_) Refill();
  return true;
}

const PendingIndex::Entry& PendingIndex::At(size_t rank) const {
  return rank < front_.size() ? front_[rank] : RestAt(rank - front_.size());
}

size_t PendingIndex::FirstFitting(size_t from, int max_need, size_t limit) const {
  const size_t end = std::min(limit, size());
  const size_t in_front = std::min(end, front_.size());
  for (size_t r = from; r < in_front; ++r) {
    if (front_[r].need <= max_need) return r;
  }
  if (end > front_.size()) {
    const size_t base = front_.size();
    const size_t found = RestFirstFitting(std::max(from, base) - base, max_need);
    if (found != kNotFound && base + found < end) return base + found;
  }
  return size();
}

}  // namespace hetsched
