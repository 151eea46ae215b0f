#include "hetsched/policies/pending_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "hetsched/util/rng.h"

namespace hetsched {
namespace {

using Entry = PendingIndex::Entry;

bool KeyLess(const Entry& a, const Entry& b) { return std::tie(a.time_s, a.id) < std::tie(b.time_s, b.id); }

// The obvious implementation the index must agree with: a sorted vector and a linear scan.
size_t NaiveFirstFitting(const std::vector<Entry>& sorted, size_t from, int max_need,
                         size_t limit = static_cast<size_t>(-1)) {
  for (size_t r = from; r < std::min(limit, sorted.size()); ++r) {
    if (sorted[r].need <= max_need) return r;
  }
  return sorted.size();
}

TEST(PendingIndexTest, OrdersByTimeThenIdWhateverTheInsertionOrder) {
  PendingIndex index;
  index.Insert(10, 7, 4);
  index.Insert(5, 9, 1);
  index.Insert(10, 3, 2);  // same time as job 7, smaller id: before it
  index.Insert(0, 100, 8);
  ASSERT_EQ(index.size(), 4u);
  EXPECT_EQ(index.At(0).id, 100);
  EXPECT_EQ(index.At(1).id, 9);
  EXPECT_EQ(index.At(2).id, 3);
  EXPECT_EQ(index.At(3).id, 7);
  EXPECT_EQ(index.At(3).need, 4);
}

// Needs in rank order: 8, 1, 2, 4.
TEST(PendingIndexTest, FirstFittingSkipsLargerRequests) {
  PendingIndex index;
  index.Insert(0, 1, 8);
  index.Insert(1, 2, 1);
  index.Insert(2, 3, 2);
  index.Insert(3, 4, 4);
  EXPECT_EQ(index.FirstFitting(0, 8), 0u);  // the first entry fits
  EXPECT_EQ(index.FirstFitting(0, 3), 1u);  // 8 does not fit, 1 does
  EXPECT_EQ(index.FirstFitting(2, 3), 2u);  // from rank 2: need 2 fits
  EXPECT_EQ(index.FirstFitting(3, 3), 4u);  // only need 4 left: none (size)
  EXPECT_EQ(index.FirstFitting(0, 0), 4u);  // nothing needs 0 devices
  EXPECT_EQ(index.FirstFitting(9, 8), 4u);  // past the end
  EXPECT_EQ(index.FirstFitting(0, 3, 2), 1u);  // rank 1 is inside [0, 2)
  EXPECT_EQ(index.FirstFitting(0, 3, 1), 4u);  // only rank 0 (need 8) is looked at: none
  EXPECT_EQ(index.FirstFitting(2, 4, 99), 2u);  // a limit past the end is the end
}

TEST(PendingIndexTest, EraseRemovesOnlyTheExactKey) {
  PendingIndex index;
  index.Insert(1, 1, 1);
  index.Insert(2, 2, 2);
  EXPECT_FALSE(index.Erase(1, 2));  // right id, wrong time
  EXPECT_FALSE(index.Erase(3, 3));
  EXPECT_EQ(index.size(), 2u);
  EXPECT_TRUE(index.Erase(1, 1));
  EXPECT_FALSE(index.Erase(1, 1));  // already gone
  ASSERT_EQ(index.size(), 1u);
  EXPECT_EQ(index.At(0).id, 2);
  EXPECT_TRUE(index.Erase(2, 2));
  EXPECT_TRUE(index.empty());
  EXPECT_EQ(index.FirstFitting(0, 100), 0u);
}

// Property: after any sequence of inserts (with many equal times) and erases, every query
// agrees with the sorted-vector model. Run with the default front and with fronts of 1 and 4
// entries, so that entries cross between the front and the blocks (spills and refills) often.
void CheckAgainstSortedVector(size_t front_min, uint64_t seed, size_t cap = 600, int steps = 20000) {
  Rng rng(seed);
  PendingIndex index(front_min);
  std::vector<Entry> model;
  JobId next_id = 0;
  for (int step = 0; step < steps; ++step) {
    // Grow for the first half, then shrink, so the queue is long for a while and then empties.
    const double p_insert = model.size() > cap ? 0.45 : (step < steps / 2 ? 0.6 : 0.4);
    const bool insert = model.empty() || rng.Uniform() < p_insert;
    if (insert) {
      // Few distinct times, ids not in time order: ties are resolved by id.
      const Entry e{static_cast<double>(rng.Below(50)), (next_id++ * 7919) % 100003, 1 << rng.Below(7)};
      index.Insert(e.time_s, e.id, e.need);
      model.insert(std::upper_bound(model.begin(), model.end(), e, KeyLess), e);
    } else {
      // Mostly from the front, as the schedulers erase, sometimes anywhere.
      const size_t victim = rng.Uniform() < 0.7 ? rng.Below(std::min<size_t>(model.size(), 8)) : rng.Below(model.size());
      ASSERT_TRUE(index.Erase(model[victim].time_s, model[victim].id));
      model.erase(model.begin() + static_cast<std::ptrdiff_t>(victim));
    }
    ASSERT_EQ(index.size(), model.size());
    ASSERT_EQ(index.empty(), model.empty());
    if (step % 97 == 0) {
      for (size_t r = 0; r < model.size(); ++r) {
        ASSERT_EQ(index.At(r).id, model[r].id) << "rank " << r << " at step " << step;
        ASSERT_EQ(index.At(r).need, model[r].need);
      }
    }
    const size_t from = rng.Below(model.size() + 2);
    const int max_need = static_cast<int>(rng.Below(70));
    ASSERT_EQ(index.FirstFitting(from, max_need), NaiveFirstFitting(model, from, max_need))
        << "from " << from << " max_need " << max_need << " at step " << step;
    const size_t limit = from + rng.Below(20);
    ASSERT_EQ(index.FirstFitting(from, max_need, limit), NaiveFirstFitting(model, from, max_need, limit))
        << "from " << from << " limit " << limit << " at step " << step;
  }
}

TEST(PendingIndexTest, AgreesWithSortedVectorUnderRandomOperations) {
  CheckAgainstSortedVector(PendingIndex::kDefaultFrontMin, 42);
}
TEST(PendingIndexTest, AgreesWithSortedVectorWithATinyFront) {
  CheckAgainstSortedVector(1, 43);
  CheckAgainstSortedVector(4, 44);
}
// Thousands of entries beyond the front: a hundred blocks and more, so blocks split, empty and
// are searched through several levels of the tree over them.
TEST(PendingIndexTest, AgreesWithSortedVectorWhenLong) {
  CheckAgainstSortedVector(4, 45, 8000, 40000);
}

}  // namespace
}  // namespace hetsched
