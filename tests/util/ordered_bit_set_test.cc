// OrderedBitSet against std::set under random inserts and erases: membership, count, the smallest
// member and the order of iteration agree at every step, for sizes on and around the bitmap's
// word (64) and summary (4,096) boundaries.
#include "hetsched/util/ordered_bit_set.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace hetsched {
namespace {

TEST(OrderedBitSetTest, AgreesWithAnOrderedSetUnderRandomUpdates) {
  for (size_t size : {1u, 63u, 64u, 65u, 4095u, 4096u, 4097u, 9000u}) {
    OrderedBitSet bits(size);
    std::set<size_t> ref;
    std::mt19937_64 rng(size);
    std::uniform_int_distribution<size_t> pick(0, size - 1);
    for (int step = 0; step < 20000; ++step) {
      const size_t i = pick(rng);
      if (rng() % 2 == 0) {
        bits.insert(i);
        ref.insert(i);
      } else {
        bits.erase(i);
        ref.erase(i);
      }
      ASSERT_EQ(bits.count(), ref.size()) << size << " " << step;
      ASSERT_EQ(bits.empty(), ref.empty());
      ASSERT_EQ(bits.first(), ref.empty() ? -1 : static_cast<long>(*ref.begin())) << size << " " << step;
      ASSERT_TRUE(bits.contains(i) == ref.contains(i));
      if (step % 997 == 0) {
        std::vector<size_t> seen;
        bits.ForEach([&](size_t m) {
          seen.push_back(m);
          return true;
        });
        ASSERT_EQ(seen, std::vector<size_t>(ref.begin(), ref.end())) << size << " " << step;
      }
    }
  }
}

TEST(OrderedBitSetTest, IterationStopsWhenAsked) {
  OrderedBitSet bits(10000);
  for (size_t i : {3u, 64u, 4096u, 4100u, 9999u}) bits.insert(i);
  std::vector<size_t> seen;
  bits.ForEach([&](size_t m) {
    seen.push_back(m);
    return seen.size() < 3;
  });
  EXPECT_EQ(seen, (std::vector<size_t>{3, 64, 4096}));
  bits.erase(3);
  bits.erase(64);
  bits.erase(4096);
  EXPECT_EQ(bits.first(), 4100);
}

}  // namespace
}  // namespace hetsched
