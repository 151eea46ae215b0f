// util/flat_set.h against std::set as the reference: random inserts, erases and lookups, then the
// same order forwards and backwards.
#include "hetsched/util/flat_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace hetsched {
namespace {

TEST(FlatSetTest, InsertEraseAndLookUpAsStdSet) {
  FlatSet<std::pair<double, long>> flat;
  EXPECT_TRUE(flat.empty());
  EXPECT_TRUE(flat.insert({2.0, 7}));
  EXPECT_FALSE(flat.insert({2.0, 7}));  // present: nothing changes
  EXPECT_TRUE(flat.insert({1.0, 9}));
  EXPECT_TRUE(flat.insert({2.0, 3}));
  EXPECT_EQ(flat.size(), 3u);
  EXPECT_EQ(*flat.begin(), (std::pair<double, long>{1.0, 9}));
  EXPECT_EQ(*flat.rbegin(), (std::pair<double, long>{2.0, 7}));
  EXPECT_TRUE(flat.contains({2.0, 3}));
  EXPECT_EQ(flat.erase({2.0, 4}), 0u);
  EXPECT_EQ(flat.erase({2.0, 3}), 1u);
  EXPECT_FALSE(flat.contains({2.0, 3}));
  EXPECT_EQ(flat.size(), 2u);
}

TEST(FlatSetTest, AgreesWithStdSetUnderRandomUpdates) {
  std::mt19937 rng(3);
  FlatSet<std::pair<double, long>> flat;
  std::set<std::pair<double, long>> ref;
  for (int step = 0; step < 20000; ++step) {
    const std::pair<double, long> v{static_cast<double>(rng() % 40), static_cast<long>(rng() % 30)};
    switch (rng() % 3) {
      case 0:
        ASSERT_EQ(flat.insert(v), ref.insert(v).second) << step;
        break;
      case 1:
        ASSERT_EQ(flat.erase(v), ref.erase(v)) << step;
        break;
      default:
        ASSERT_EQ(flat.contains(v), ref.contains(v)) << step;
    }
    ASSERT_EQ(flat.size(), ref.size());
  }
  EXPECT_TRUE(std::equal(flat.begin(), flat.end(), ref.begin(), ref.end()));
  EXPECT_TRUE(std::equal(flat.rbegin(), flat.rend(), ref.rbegin(), ref.rend()));
}

// InsertSorted merges a sorted batch in (before, between and after the present elements);
// RemoveIf visits every element once in order and keeps the others in order.
TEST(FlatSetTest, InsertSortedAndRemoveIf) {
  FlatSet<int> flat;
  flat.InsertSorted({});
  EXPECT_TRUE(flat.empty());
  flat.InsertSorted({3, 7});
  flat.InsertSorted({1, 5, 9});
  flat.InsertSorted({});
  EXPECT_EQ(std::vector<int>(flat.begin(), flat.end()), (std::vector<int>{1, 3, 5, 7, 9}));
  std::vector<int> seen;
  EXPECT_EQ(flat.RemoveIf([&](int v) {
    seen.push_back(v);
    return v % 3 == 0;
  }),
            2u);
  EXPECT_EQ(seen, (std::vector<int>{1, 3, 5, 7, 9}));
  EXPECT_EQ(std::vector<int>(flat.begin(), flat.end()), (std::vector<int>{1, 5, 7}));
  EXPECT_EQ(flat.RemoveIf([](int) { return true; }), 3u);
  EXPECT_TRUE(flat.empty());
  // Against std::set under random batches.
  std::mt19937 rng(5);
  std::set<int> ref;
  for (int round = 0; round < 200; ++round) {
    std::vector<int> batch;
    for (int i = 0; i < static_cast<int>(rng() % 6); ++i) {
      const int v = static_cast<int>(rng() % 100);
      if (!ref.contains(v) && std::find(batch.begin(), batch.end(), v) == batch.end()) batch.push_back(v);
    }
    std::sort(batch.begin(), batch.end());
    flat.InsertSorted(batch);
    ref.insert(batch.begin(), batch.end());
    const int mod = 2 + static_cast<int>(rng() % 7);
    flat.RemoveIf([&](int v) { return v % mod == 0 && rng() % 4 == 0 && ref.erase(v) == 1; });
    ASSERT_TRUE(std::equal(flat.begin(), flat.end(), ref.begin(), ref.end())) << round;
  }
}

}  // namespace
}  // namespace hetsched
