// util/timer_heap.h against an ordered set of the live (time, id) entries: random pushes and
// cancellations (enough to trigger rebuilds), and pops of everything due, in the same order.
#include "hetsched/util/timer_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <utility>

namespace hetsched {
namespace {

TEST(TimerHeapTest, PopsInTimeThenIdOrderSkippingCancelled) {
  TimerHeap<long> heap;
  std::map<long, uint32_t> seq;  // the owner's live seq per id
  const auto live = [&](const TimerHeap<long>::Entry& e) { return seq.count(e.id) > 0 && seq[e.id] == e.seq; };
  heap.Push(5.0, 2, seq[2] = 1);
  heap.Push(5.0, 1, seq[1] = 1);
  heap.Push(3.0, 9, seq[9] = 1);
  seq[9] = 2;  // cancel job 9's entry
  heap.Cancelled(live);
  heap.Push(7.0, 9, seq[9] = 3);
  EXPECT_EQ(heap.live(), 3u);
  const auto* top = heap.Top(live);
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->id, 1);  // (3, 9) cancelled; (5, 1) before (5, 2)
  seq.erase(1);
  heap.Cancelled(live);
  EXPECT_EQ(heap.Top(live)->id, 2);
  seq.erase(2);
  heap.Cancelled(live);
  EXPECT_EQ(heap.Top(live)->id, 9);
  EXPECT_EQ(heap.Top(live)->time_s, 7.0);
  seq.erase(9);
  heap.Cancelled(live);
  EXPECT_EQ(heap.Top(live), nullptr);
  EXPECT_EQ(heap.live(), 0u);
}

TEST(TimerHeapTest, AgreesWithAnOrderedSetUnderRandomUpdates) {
  std::mt19937 rng(7);
  TimerHeap<long> heap;
  std::map<long, std::pair<double, uint32_t>> owner;  // id -> (time, seq) of its live entry
  std::set<std::pair<double, long>> ref;
  const auto live = [&](const TimerHeap<long>::Entry& e) {
    const auto it = owner.find(e.id);
    return it != owner.end() && it->second.second == e.seq;
  };
  uint32_t next_seq = 1;
  double now = 0;
  size_t most_stored = 0;
  for (int step = 0; step < 200000; ++step) {
    const long id = static_cast<long>(rng() % 3000);
    const auto it = owner.find(id);
    if (it != owner.end()) {  // cancel its entry
      ref.erase({it->second.first, id});
      owner.erase(it);
      heap.Cancelled(live);
    }
    if (rng() % 4 != 0) {  // (re)schedule it, times on a coarse grid so that ties occur
      const double t = now + static_cast<double>(rng() % 50);
      owner[id] = {t, next_seq};
      ref.insert({t, id});
      heap.Push(t, id, next_seq++);
    }
    if (step % 97 == 0) {  // everything due pops in the reference's order
      now += 5;
      for (const TimerHeap<long>::Entry* e; (e = heap.Top(live)) != nullptr && e->time_s <= now;) {
        ASSERT_FALSE(ref.empty());
        ASSERT_EQ(std::make_pair(e->time_s, e->id), *ref.begin()) << step;
        ref.erase(ref.begin());
        owner.erase(e->id);
        heap.Cancelled(live);
      }
      ASSERT_TRUE(ref.empty() || ref.begin()->first > now);
    }
    ASSERT_EQ(heap.live(), ref.size());
    most_stored = std::max(most_stored, heap.stored());
  }
  // Rebuilds keep cancelled entries from piling up: at most 3 x live + the rebuild floor.
  EXPECT_LE(most_stored, 3 * 3000 + 1024 + 1);
}

}  // namespace
}  // namespace hetsched
