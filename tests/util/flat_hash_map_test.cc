// util/flat_hash_map.h against std::unordered_map as the reference: Emplace keeps a present
// key's value, Set replaces it, every key added is found with its value through growth, and keys
// never added are not found, also under a hash that puts every key in one home slot.
#include "hetsched/util/flat_hash_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>

namespace hetsched {
namespace {

struct Key {
  int a = 0;
  int b = 0;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const { return static_cast<size_t>(k.a) * 31u + static_cast<size_t>(k.b); }
};
// Every key hashes alike: each lookup walks the probe chain to its key or to an empty slot.
struct SameHash {
  size_t operator()(const Key&) const { return 7; }
};

TEST(FlatHashMapTest, EmplaceKeepsSetReplaces) {
  FlatHashMap<Key, double, KeyHash> map;
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.Find({1, 2}), nullptr);
  EXPECT_EQ(map.Emplace({1, 2}, 3.5), 3.5);
  EXPECT_EQ(map.Emplace({1, 2}, 9.0), 3.5);  // present: kept
  ASSERT_NE(map.Find({1, 2}), nullptr);
  EXPECT_EQ(*map.Find({1, 2}), 3.5);
  map.Set({1, 2}, 4.5);  // present: replaced
  EXPECT_EQ(*map.Find({1, 2}), 4.5);
  map.Set({2, 1}, -1.0);  // absent: added
  EXPECT_EQ(*map.Find({2, 1}), -1.0);
  EXPECT_EQ(map.Find({2, 2}), nullptr);
  EXPECT_EQ(map.size(), 2u);
}

template <typename Hash>
void MatchesReference(int keys, int range) {
  FlatHashMap<Key, int64_t, Hash> map;
  std::unordered_map<int64_t, int64_t> reference;
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> pick(0, range - 1);
  for (int i = 0; i < keys; ++i) {
    const Key k{pick(rng), pick(rng)};
    const int64_t id = int64_t{k.a} * range + k.b;
    const int64_t value = static_cast<int64_t>(rng() % 1000);
    if (i % 3 == 0) {
      map.Set(k, value);
      reference[id] = value;
    } else {
      EXPECT_EQ(map.Emplace(k, value), reference.try_emplace(id, value).first->second);
    }
  }
  EXPECT_EQ(map.size(), reference.size());
  for (int a = 0; a < range; ++a) {
    for (int b = 0; b < range; ++b) {
      const auto it = reference.find(int64_t{a} * range + b);
      const int64_t* found = map.Find({a, b});
      if (it == reference.end()) {
        EXPECT_EQ(found, nullptr) << a << "," << b;
      } else {
        ASSERT_NE(found, nullptr) << a << "," << b;
        EXPECT_EQ(*found, it->second) << a << "," << b;
      }
    }
  }
}

TEST(FlatHashMapTest, ReserveKeepsWhatIsThere) {
  FlatHashMap<Key, int, KeyHash> map;
  map.Reserve(0);
  EXPECT_EQ(map.Find({0, 0}), nullptr);
  for (int i = 0; i < 20; ++i) map.Set({i, i}, i);
  map.Reserve(1000);
  map.Reserve(10);  // never shrinks
  EXPECT_EQ(map.size(), 20u);
  for (int i = 0; i < 20; ++i) {
    ASSERT_NE(map.Find({i, i}), nullptr);
    EXPECT_EQ(*map.Find({i, i}), i);
  }
  EXPECT_EQ(map.Find({20, 20}), nullptr);
}

TEST(FlatHashMapTest, MatchesUnorderedMapThroughGrowth) { MatchesReference<KeyHash>(5000, 100); }

TEST(FlatHashMapTest, MatchesUnorderedMapWhenEveryKeyCollides) { MatchesReference<SameHash>(300, 30); }

}  // namespace
}  // namespace hetsched
