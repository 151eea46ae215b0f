// util/flat_set.h against std::set as the reference: random inserts, erases and lookups, then the
// same order forwards and backwards.
#include "hetsched/util/flat_set.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hetsched
