#include "hetsched/util/python_random.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace hetsched {
namespace {

// Expected values printed by CPython 3.11.7:
//   r = random.Random(); r.seed(0); [r.randrange(3) for _ in range(10)], r.getrandbits(32)
TEST(PythonRandom, RandrangeMatchesCPython) {
  PythonRandom r(0);
  const std::vector<uint32_t> expected{1, 1, 0, 1, 2, 1, 1, 1, 1, 1};
  for (uint32_t e : expected) EXPECT_EQ(r.RandBelow(3), e);
  EXPECT_EQ(r.GetRandBits(32), 2505606783u);
}

//   r = random.Random(); r.seed(5); [r.getrandbits(32) for _ in range(3)]
TEST(PythonRandom, SeedingMatchesCPython) {
  PythonRandom r(5);
  EXPECT_EQ(r.GetRandBits(32), 2675342405u);
  EXPECT_EQ(r.GetRandBits(32), 1097127993u);
  EXPECT_EQ(r.GetRandBits(32), 3185950873u);
}

//   r = random.Random(); r.seed(5); l = ['v100', 'p100', 'k80']
//   five times: r.shuffle(l) -> vpk vpk pvk kpv pkv (first letters)
TEST(PythonRandom, ShuffleMatchesCPython) {
  PythonRandom r(5);
  std::vector<std::string> l{"v100", "p100", "k80"};
  const std::vector<std::string> expected{"vpk", "vpk", "pvk", "kpv", "pkv"};
  for (const std::string& e : expected) {
    r.Shuffle(l);
    std::string got;
    for (const auto& x : l) got += x[0];
    EXPECT_EQ(got, e);
  }
}

// Gandiva's pairing draws (Gavel's policies/gandiva.py, self._rng.sample(list, 2)):
//   r = random.Random(); r.seed(0)
//   [(n, r.sample(list(range(n)), 2)) for n in (2, 3, 5, 21, 22, 40, 200)]
// n <= 21 takes CPython's pool path, n = 22 and above the set path.
TEST(PythonRandom, SampleOfTwoMatchesCPython) {
  PythonRandom r(0);
  const std::vector<std::pair<size_t, std::vector<size_t>>> expected{
      {2, {1, 0}}, {3, {0, 1}}, {5, {4, 3}}, {21, {12, 9}}, {22, {15, 11}}, {40, {37, 13}}, {200, {129, 35}}};
  for (const auto& [n, draw] : expected) EXPECT_EQ(r.Sample(n, 2), draw) << "n = " << n;
}

//   r = random.Random(); r.seed(3)
//   r.sample(list(range(30)), 7), r.sample(list(range(100)), 7), r.sample(list(range(10)), 7),
//   r.getrandbits(32)
// k = 7 moves the paths' boundary to n = 21 + 4^3 = 85: 30 and 10 take the pool, 100 the set.
TEST(PythonRandom, SampleOfSevenMatchesCPython) {
  PythonRandom r(3);
  EXPECT_EQ(r.Sample(30, 7), (std::vector<size_t>{7, 18, 17, 4, 11, 19, 15}));
  EXPECT_EQ(r.Sample(100, 7), (std::vector<size_t>{80, 74, 8, 77, 1, 60, 33}));
  EXPECT_EQ(r.Sample(10, 7), (std::vector<size_t>{8, 3, 9, 5, 7, 4, 6}));
  EXPECT_EQ(r.GetRandBits(32), 1705680002u);
}

}  // namespace
}  // namespace hetsched
