// util/job_table.h against std::unordered_map as the reference: added records start fresh (also
// in a reused slot), erased ones are gone, others keep their values, and slots are reused.
#include "hetsched/util/job_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>

namespace hetsched {
namespace {

struct Record {
  int value = 0;
  double other = -1;
};

TEST(JobTableTest, AddFindErase) {
  JobTable<Record> table;
  EXPECT_EQ(table.Find(3), nullptr);
  table[3].value = 30;
  table[1].value = 10;
  ASSERT_NE(table.Find(3), nullptr);
  EXPECT_EQ(table.Find(3)->value, 30);
  EXPECT_EQ(table.Find(2), nullptr);  // inside the index, never added
  EXPECT_EQ(table.Find(99), nullptr);  // beyond it
  EXPECT_EQ(table.size(), 2u);
  table.Erase(3);
  table.Erase(3);   // twice: no effect
  table.Erase(50);  // never added: no effect
  EXPECT_EQ(table.Find(3), nullptr);
  EXPECT_EQ(table.size(), 1u);
  // Job 7 takes job 3's slot, and starts from a fresh record, not job 3's values.
  Record& seven = table[7];
  EXPECT_EQ(seven.value, 0);
  EXPECT_EQ(seven.other, -1);
  EXPECT_EQ(table.Find(1)->value, 10);
  EXPECT_EQ(table.size(), 2u);
}

TEST(JobTableTest, IdsBeyondTheDenseIndex) {
  // Slurm job ids can be in the billions (federation), or negative in a bad file: such ids take the
  // hash map, and the dense index does not grow to them.
  JobTable<Record> table;
  const int64_t big = int64_t{4'000'000'000};
  table[big].value = 1;
  table[-5].value = 2;
  table[JobTable<Record>::kDenseIds].value = 3;
  table[7].value = 4;
  EXPECT_EQ(table.Find(big)->value, 1);
  EXPECT_EQ(table.Find(-5)->value, 2);
  EXPECT_EQ(table.Find(JobTable<Record>::kDenseIds)->value, 3);
  EXPECT_EQ(table.Find(big + 1), nullptr);
  EXPECT_EQ(table.size(), 4u);
  table.Erase(big);
  EXPECT_EQ(table.Find(big), nullptr);
  EXPECT_EQ(table[big].value, 0);  // back fresh, in a reused slot
  EXPECT_EQ(table.Find(7)->value, 4);
}

TEST(JobTableTest, AgreesWithUnorderedMapUnderRandomUpdates) {
  std::mt19937 rng(11);
  JobTable<Record> table;
  std::unordered_map<long, Record> ref;
  for (int step = 0; step < 50000; ++step) {
    // Dense ids, and a few beyond the dense index.
    const long id = rng() % 8 == 0 ? JobTable<Record>::kDenseIds - 3 + static_cast<long>(rng() % 6)
                                   : static_cast<long>(rng() % 500);
    switch (rng() % 3) {
      case 0:
        table[id].value += step;
        ref[id].value += step;
        break;
      case 1:
        table.Erase(id);
        ref.erase(id);
        break;
      default: {
        const Record* got = table.Find(id);
        const auto it = ref.find(id);
        ASSERT_EQ(got != nullptr, it != ref.end()) << step;
        if (got != nullptr) {
          ASSERT_EQ(got->value, it->second.value) << step;
        }
      }
    }
    ASSERT_EQ(table.size(), ref.size()) << step;
  }
}

}  // namespace
}  // namespace hetsched
