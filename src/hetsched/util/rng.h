// Deterministic random numbers. The generator and every distribution are written here (not
// <random>'s distributions, whose output differs between standard libraries), so the same seed
// gives the same stream on every platform. Pass an Rng explicitly; there is no global one.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "hetsched/util/fixed_math.h"

namespace hetsched {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  // SplitMix64 (Steele, Lea, Flood 2014): fast, 64-bit state, passes BigCrush.
  uint64_t NextU64() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  // Uniform integer in [0, n). REQUIRES: n > 0. Rejection sampling: exactly uniform.
  uint64_t Below(uint64_t n);
  double Exponential(double rate) { return -FixedLog1p(-Uniform()) / rate; }
  // Standard normal by Box-Muller (one of the pair is discarded to keep the stream simple).
  double Normal() {
    double u1 = Uniform(), u2 = Uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * FixedLog(u1)) * FixedCos(6.283185307179586 * u2);
  }
  // Fisher-Yates: for i from size down to 2, swap x[i - 1] with x[Below(i)].
  template <typename T>
  void Shuffle(std::vector<T>& x) {
    for (size_t i = x.size(); i > 1; --i) std::swap(x[i - 1], x[static_cast<size_t>(Below(i))]);
  }
  // A child generator with an independent stream (for per-component seeding).
  Rng Fork() { return Rng(NextU64()); }

 private:
  static constexpr size_t kSmallBounds = 64;
  template <uint64_t N>
  uint64_t BelowConst() {
    if constexpr (N == 0) {
      return 0;  // never called: Below requires n > 0
    } else {
      constexpr uint64_t limit = UINT64_MAX - UINT64_MAX % N;
      uint64_t x = NextU64();
      while (x >= limit) x = NextU64();
      return x % N;
    }
  }
  template <size_t... I>
  static constexpr std::array<uint64_t (Rng::*)(), sizeof...(I)> SmallTable(std::index_sequence<I...>) {
    return {&Rng::BelowConst<I>...};
  }

  uint64_t state_;
};

inline uint64_t Rng::Below(uint64_t n) {
  // Small bounds (shuffles of a few dozen items, a GA's random counts) by a divisor known at
  // compile time: the compiler's multiply-and-shift instead of two 64-bit divisions; the same
  // draws and values as the general form.
  if (n <= kSmallBounds) {
    static constexpr auto kTable = SmallTable(std::make_index_sequence<kSmallBounds + 1>());
    return (this->*kTable[n])();
  }
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x = NextU64();
  while (x >= limit) x = NextU64();
  return x % n;
}

}  // namespace hetsched
