#include "hetsched/util/python_random.h"

#include <gtest/gtest.h>

#include <string>
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

}  // namespace
}  // namespace hetsched
