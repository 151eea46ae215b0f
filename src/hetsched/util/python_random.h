// The draws of CPython's `random.Random(seed)` for the calls Gavel's simulator makes with it:
// `randrange(n)`, `shuffle(list)` and `sample(list, k)` (gandiva's pairs). A peer's random
// choices can only be reproduced draw for draw with its own generator, so this is MT19937
// (Matsumoto & Nishimura 1998) seeded the way CPython seeds it from an int (init_by_array over the
// integer's 32-bit words, least significant first; Modules/_randommodule.c, random_seed), and
// randrange/shuffle/sample as CPython 3.11 derives them from getrandbits (Lib/random.py:
// _randbelow_with_getrandbits, shuffle, sample). Checked against python3 3.11 in
// tests/util/python_random_test.cc.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <utility>
#include <vector>

namespace hetsched {

class PythonRandom {
 public:
  // REQUIRES: seed >= 0 (Gavel seeds with small non-negative ints).
  explicit PythonRandom(uint64_t seed) {
    std::vector<uint32_t> key;
    for (uint64_t s = seed; s != 0; s >>= 32) key.push_back(static_cast<uint32_t>(s & 0xffffffffu));
    if (key.empty()) key.push_back(0);
    InitByArray(key);
  }

  uint32_t NextU32() {
    if (index_ >= kN) Twist();
    uint32_t y = state_[index_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }

  // random.Random.getrandbits(k) for 1 <= k <= 32.
  uint32_t GetRandBits(int k) { return NextU32() >> (32 - k); }

  // random.Random.randrange(n) == _randbelow(n): k = n.bit_length() bits, rejected until < n.
  // REQUIRES: 0 < n < 2^32.
  uint32_t RandBelow(uint32_t n) {
    int k = 0;
    for (uint32_t v = n; v != 0; v >>= 1) ++k;
    uint32_t r = GetRandBits(k);
    while (r >= n) r = GetRandBits(k);
    return r;
  }

  // random.Random.shuffle(x): for i from len-1 down to 1, swap x[i] with x[randbelow(i + 1)].
  template <typename T>
  void Shuffle(std::vector<T>& x) {
    for (std::size_t i = x.size(); i-- > 1;) {
      const std::size_t j = RandBelow(static_cast<uint32_t>(i + 1));
      std::swap(x[i], x[j]);
    }
  }

  // random.Random.sample(population, k) for a population of n: the positions (0 .. n-1) of the k
  // items drawn, in draw order. CPython 3.11 takes one of two ways, by size: where a list of n is
  // smaller than a set of k (n <= 21, plus 4^ceil(log4(3k)) when k > 5), a partial Fisher-Yates
  // over a copy of the positions (the drawn one replaced by the last not yet drawn); otherwise
  // randbelow(n) redrawn until unseen. REQUIRES: k <= n < 2^32.
  std::vector<std::size_t> Sample(std::size_t n, std::size_t k) {
    std::size_t setsize = 21;
    if (k > 5) {
      const double log4 = std::log(3.0 * static_cast<double>(k)) / std::log(4.0);  // math.log(3k, 4)
      setsize += static_cast<std::size_t>(std::pow(4.0, std::ceil(log4)));
    }
    std::vector<std::size_t> drawn;
    drawn.reserve(k);
    if (n <= setsize) {
      std::vector<std::size_t> pool(n);
      for (std::size_t i = 0; i < n; ++i) pool[i] = i;
      for (std::size_t i = 0; i < k; ++i) {
        const std::size_t j = RandBelow(static_cast<uint32_t>(n - i));
        drawn.push_back(pool[j]);
        pool[j] = pool[n - i - 1];
      }
      return drawn;
    }
    std::unordered_set<std::size_t> seen;
    for (std::size_t i = 0; i < k; ++i) {
      std::size_t j = RandBelow(static_cast<uint32_t>(n));
      while (seen.contains(j)) j = RandBelow(static_cast<uint32_t>(n));
      seen.insert(j);
      drawn.push_back(j);
    }
    return drawn;
  }

 private:
  static constexpr int kN = 624;
  static constexpr int kM = 397;

  void InitGenrand(uint32_t s) {
    state_[0] = s;
    for (int i = 1; i < kN; ++i) {
      state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + static_cast<uint32_t>(i);
    }
    index_ = kN;
  }
  void InitByArray(const std::vector<uint32_t>& key) {
    InitGenrand(19650218u);
    int i = 1;
    std::size_t j = 0;
    const int key_length = static_cast<int>(key.size());
    for (int k = kN > key_length ? kN : key_length; k > 0; --k) {
      state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1664525u)) + key[j] + static_cast<uint32_t>(j);
      ++i;
      ++j;
      if (i >= kN) {
        state_[0] = state_[kN - 1];
        i = 1;
      }
      if (j >= key.size()) j = 0;
    }
    for (int k = kN - 1; k > 0; --k) {
      state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1566083941u)) - static_cast<uint32_t>(i);
      ++i;
      if (i >= kN) {
        state_[0] = state_[kN - 1];
        i = 1;
      }
    }
    state_[0] = 0x80000000u;
  }
  void Twist() {
    for (int i = 0; i < kN; ++i) {
      const uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % kN] & 0x7fffffffu);
      state_[i] = state_[(i + kM) % kN] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    index_ = 0;
  }

  std::array<uint32_t, kN> state_{};
  int index_ = kN;
};

}  // namespace hetsched
