#include "hetsched/util/function_ref.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace hetsched {
namespace {

int SumWith(FunctionRef<int(int)> f, const std::vector<int>& xs) {
  int sum = 0;
  for (int x : xs) sum += f(x);
  return sum;
}

int Triple(int x) { return 3 * x; }

TEST(FunctionRefTest, CallsTheCallableItRefersTo) {
  const int offset = 10;
  EXPECT_EQ(SumWith([&](int x) { return x + offset; }, {1, 2, 3}), 36);
  int (*triple)(int) = Triple;
  EXPECT_EQ(SumWith(triple, {1, 2, 3}), 18);
}

TEST(FunctionRefTest, RefersToTheCallableNotACopy) {
  // A stateful callable: its calls through the reference change the object itself.
  struct Counter {
    int calls = 0;
    int operator()(int x) { return x * ++calls; }
  } counter;
  EXPECT_EQ(SumWith(counter, {5, 5, 5}), 5 + 10 + 15);
  EXPECT_EQ(counter.calls, 3);
}

TEST(FunctionRefTest, PassesArgumentsAsDeclared) {
  std::string seen;
  auto append = [&](const std::string& s, int times) {
    for (int i = 0; i < times; ++i) seen += s;
  };
  FunctionRef<void(const std::string&, int)> ref(append);
  ref("ab", 2);
  ref("c", 1);
  EXPECT_EQ(seen, "ababc");
}

TEST(FunctionRefTest, VoidSignatureDropsTheResult) {
  int calls = 0;
  auto counted = [&] { return ++calls; };
  FunctionRef<void()> ref(counted);
  ref();
  ref();
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace hetsched
