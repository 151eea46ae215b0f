// EventQueue: completions come out in (time, job id) order whatever the order of updates, a
// moved or cancelled completion leaves no stale entry, and wake-ups at one time collapse.
#include "hetsched/sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <random>
#include <utility>

namespace hetsched {
namespace {

// Pops every completion in order (as the simulator does: CompletionAt, then cancel).
std::vector<std::pair<double, JobId>> Drain(EventQueue& q) {
  std::vector<std::pair<double, JobId>> out;
  while (!q.empty()) {
    const double t = q.NextTime();
    for (JobId j = q.CompletionAt(t); j >= 0; j = q.CompletionAt(t)) {
      out.emplace_back(t, j);
      q.CancelCompletion(j);
    }
    q.PopTimersAt(t);
  }
  return out;
}

TEST(EventQueueTest, TiesByJobIdAndMovesInPlace) {
  EventQueue q;
  q.SetCompletion(5, 10.0);
  q.SetCompletion(2, 10.0);
  q.SetCompletion(9, 3.0);
  q.SetCompletion(9, 12.0);  // moved later: no entry left at 3
  q.SetCompletion(7, 20.0);
  q.SetCompletion(7, 1.0);   // moved earlier
  q.SetCompletion(4, 8.0);
  q.CancelCompletion(4);     // gone
  q.CancelCompletion(4);     // cancelling twice is harmless
  q.SetCompletion(3, EventQueue::kNever);  // kNever: nothing to complete
  EXPECT_EQ(q.NextTime(), 1.0);
  const std::vector<std::pair<double, JobId>> want = {{1.0, 7}, {10.0, 2}, {10.0, 5}, {12.0, 9}};
  EXPECT_EQ(Drain(q), want);
  EXPECT_EQ(q.NextTime(), EventQueue::kNever);
}

TEST(EventQueueTest, TimersCollapseAndCount) {
  EventQueue q;
  q.AddWakeUp(5.0);
  q.AddWakeUp(5.0);  // the same time: one wake-up
  q.AddWakeUp(7.0);
  q.SetRound(6.0);
  EXPECT_EQ(q.NextTime(), 5.0);
  EXPECT_EQ(q.PopTimersAt(5.0), 1);
  EXPECT_TRUE(q.round_armed());
  EXPECT_EQ(q.PopTimersAt(7.0), 2);  // the round tick at 6 and the wake-up at 7
  EXPECT_FALSE(q.round_armed());
  EXPECT_TRUE(q.empty());
}

// Repeats that are not in a row are one timer too, and a time popped can be asked for again.
TEST(EventQueueTest, RepeatedWakeUpsAnywhereCountOnce) {
  EventQueue q;
  for (double t : {9.0, 5.0, 7.0, 5.0, 9.0, 5.0, 7.0}) q.AddWakeUp(t);
  EXPECT_EQ(q.NextTime(), 5.0);
  EXPECT_EQ(q.PopTimersAt(6.0), 1);  // 5 (three times)
  EXPECT_EQ(q.NextTime(), 7.0);
  q.AddWakeUp(8.0);
  q.AddWakeUp(8.0);
  EXPECT_EQ(q.PopTimersAt(8.0), 2);  // 7 and 8
  q.AddWakeUp(9.0);                  // the last one added before: still one timer at 9
  EXPECT_EQ(q.PopTimersAt(100.0), 1);
  EXPECT_TRUE(q.empty());
  q.AddWakeUp(9.0);  // asked again after it was popped: a new timer
  EXPECT_EQ(q.PopTimersAt(9.0), 1);
  EXPECT_TRUE(q.empty());
}

// Against a std::set of times as the reference: random wake-ups and pops.
TEST(EventQueueTest, WakeUpsAgreeWithAnOrderedSet) {
  std::mt19937 rng(11);
  EventQueue q;
  std::set<double> ref;
  double now = 0;
  for (int step = 0; step < 20000; ++step) {
    if (rng() % 3 != 0) {
      const double t = now + static_cast<double>(1 + rng() % 20);
      q.AddWakeUp(t);
      ref.insert(t);
    } else {
      now += static_cast<double>(rng() % 5);
      int due = 0;
      while (!ref.empty() && *ref.begin() <= now) {
        ref.erase(ref.begin());
        ++due;
      }
      ASSERT_EQ(q.PopTimersAt(now), due) << "step " << step;
    }
    ASSERT_EQ(q.NextTime(), ref.empty() ? EventQueue::kNever : *ref.begin()) << "step " << step;
  }
}

// Against an ordered map as the reference: random sets, moves and cancellations.
TEST(EventQueueTest, AgreesWithAnOrderedSetUnderRandomUpdates) {
  std::mt19937 rng(7);
  EventQueue q;
  std::map<JobId, double> when;  // the reference: job -> completion time
  for (int step = 0; step < 20000; ++step) {
    const JobId job = static_cast<JobId>(rng() % 300);
    const int op = static_cast<int>(rng() % 4);
    if (op == 0) {
      q.CancelCompletion(job);
      when.erase(job);
    } else {
      const double t = static_cast<double>(rng() % 50);  // few distinct times: many ties
      q.SetCompletion(job, t);
      when[job] = t;
    }
    if (step % 1000 == 999) {
      std::pair<double, JobId> first{EventQueue::kNever, -1};
      for (const auto& [j, t] : when) first = std::min(first, std::make_pair(t, j));
      ASSERT_EQ(q.NextTime(), first.first);
      ASSERT_EQ(q.CompletionAt(first.first), first.second);
    }
  }
  std::vector<std::pair<double, JobId>> want;
  for (const auto& [j, t] : when) want.emplace_back(t, j);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Drain(q), want);
}

}  // namespace
}  // namespace hetsched
