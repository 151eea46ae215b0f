#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "fake_backend.h"
#include "hetsched/policies/priority_queues.h"
#include "hetsched/util/rng.h"

namespace hetsched {
namespace {

using ::testing::ElementsAre;
using test::kFast;
using test::PolicyHarness;

void SubmitP(PolicyHarness& h, JobId id, int gpus, double t, int64_t iters, int priority) {
  h.Submit(id, gpus, t, iters, 0, {}, priority);
}

TEST(MultiLevelQueueTest, BaseLevelsAndAging) {
  PriorityClassConfig c;  // 3 levels, age 1800 s, large above 8 GPU-hours
  JobSpec high, normal, low;
  high.priority = 2;
  low.priority = -1;
  EXPECT_EQ(c.BaseLevel(high, 0), 0);
  EXPECT_EQ(c.BaseLevel(normal, 0), 1);
  EXPECT_EQ(c.BaseLevel(low, 0), 2);
  EXPECT_EQ(c.BaseLevel(normal, 9 * 3600), 2);  // large: one level lower
  EXPECT_EQ(c.BaseLevel(low, 9 * 3600), 2);     // clamped to the last level
  MultiLevelQueue q(c);
  q.Add(1, 2, 100, 100);
  EXPECT_EQ(q.LevelOf(1), 2);
  EXPECT_EQ(q.NextPromotionS(), 1900);  // 100 + 1800
  q.Age(1899);
  EXPECT_EQ(q.LevelOf(1), 2);
  q.Age(1900);
  EXPECT_EQ(q.LevelOf(1), 1);
  EXPECT_EQ(q.NextPromotionS(), 3700);
  q.Age(5000);
  EXPECT_EQ(q.LevelOf(1), 0);
  EXPECT_FALSE(q.Starving(1, 5000));  // starving after 3 x 1800 = 5400 s of waiting
  EXPECT_TRUE(q.Starving(1, 5500));
  // A job added late has already earned its promotions: entered at 0, added at 4000 -> 2 steps.
  q.Add(2, 2, 0, 4000);
  EXPECT_EQ(q.LevelOf(2), 0);
  // Queue 0 is ordered by the time a job started waiting: job 2 (0) before job 1 (100).
  EXPECT_EQ(q.queue(0).begin()->second, 2);
  q.Remove(2);
  q.Remove(2);  // absent: no-op
  EXPECT_EQ(q.size(), 1u);
}

TEST(MultiPriorityTest, HighPriorityFirstThenBackfill) {
  PolicyHarness h({{kFast, 4}}, "multi-priority");
  SubmitP(h, 1, 3, 0, 100, 0);   // normal
  SubmitP(h, 2, 2, 0, 100, 1);   // high
  SubmitP(h, 3, 1, 0, 100, -1);  // low
  h.ScheduleAt(0);
  // Job 2 (queue 0) first; job 1 (queue 1) does not fit in the 2 left; job 3 (queue 2) does.
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 2 on [0,1]", "start 3 on [2]"));
  EXPECT_EQ(h.state(1), JobState::kPending);
}

TEST(MultiPriorityTest, StarvingJobBlocksTheJobsBehindIt) {
  PolicyHarness h({{kFast, 4}}, "multi-priority", {"age=100"});
  SubmitP(h, 1, 1, 0, 1000, 1);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
  SubmitP(h, 2, 4, 1, 50, -1);  // low: level 2, promoted at 101 and 201, starving from 301
  SubmitP(h, 3, 1, 2, 50, 1);
  h.ScheduleAt(2);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 3 on [1]"));
  h.Finish(3, 52);
  SubmitP(h, 4, 1, 310, 50, 1);  // high, but job 2 has waited 309 s >= 3 x 100 in queue 0
  h.ScheduleAt(310);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
  h.Finish(1, 400);
  h.ScheduleAt(400);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 2 on [0,1,2,3]"));
}

TEST(MultiPriorityTest, BadOptions) {
  for (const char* bad : {"levels=0", "age=-1", "large_gpu_h=0", "window=0", "levels=x"}) {
    auto options = Options::Parse({bad});
    ASSERT_TRUE(options.ok());
    EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("multi-priority", *options).ok()) << bad;
  }
}

// Property: under aging no job starves. Random workloads on 8 GPUs: a steady stream of small
// high-priority jobs (1 GPU for 240 s every 40 s: 6 GPUs busy for as long as it lasts, so a job
// of more than 2 GPUs never finds room among them without aging) and, with probability 0.03 per
// 40 s, normal/low jobs of 1..8 GPUs running 100..499 s (about 1 GPU of load: under capacity). With aging (age
// 300 s, 3 levels) a job is in queue 0 after 600 s and starving after 900 s; then nothing new
// starts before it, and the devices it waits for are all free within the longest runtime (499 s)
// once the jobs ahead of it in queue 0 (each also bounded so) have started. The test checks every
// job starts and the longest wait stays under 3,000 s, while with aging off (age=0) the same
// workload keeps some low-priority job waiting longer than that (so the property is not vacuous).
double MaxWaitS(const std::string& age, uint64_t seed, int* never_started) {
  PolicyHarness h({{kFast, 8}}, "multi-priority", {"age=" + age});
  Rng rng(seed);
  struct Arrival {
    double t;
    int gpus;
    int64_t iters;
    int priority;
  };
  std::map<JobId, Arrival> arrivals;
  JobId next = 1;
  for (double t = 0; t < 20000; t += 40) {
    arrivals[next++] = {t, 1, 240, 1};
    if (rng.Uniform() < 0.03) {
      arrivals[next++] = {t, 1 + static_cast<int>(rng.Below(8)), 100 + static_cast<int64_t>(rng.Below(400)),
                          rng.Uniform() < 0.5 ? -1 : 0};
    }
  }
  std::map<JobId, double> end_s;
  std::map<JobId, bool> started;
  double max_wait = 0;
  auto a = arrivals.begin();
  for (double t = 0; t <= 60000; t += 10) {
    for (auto it = end_s.begin(); it != end_s.end();) {
      if (it->second <= t) {
        h.Finish(it->first, t);
        it = end_s.erase(it);
      } else {
        ++it;
      }
    }
    std::vector<JobId> submitted;
    for (; a != arrivals.end() && a->second.t <= t; ++a) {
      h.Submit(a->first, a->second.gpus, a->second.t, a->second.iters, 0, {}, a->second.priority);
      started[a->first] = false;
    }
    h.ScheduleAt(t);
    for (auto& [id, is_started] : started) {
      if (is_started || h.state(id) != JobState::kRunning) continue;
      is_started = true;
      end_s[id] = t + static_cast<double>(arrivals[id].iters);  // fast GPU: 1 s per iteration
      max_wait = std::max(max_wait, t - arrivals[id].t);
    }
  }
  *never_started = 0;
  for (const auto& [id, is_started] : started) *never_started += is_started ? 0 : 1;
  return max_wait;
}

TEST(MultiPriorityTest, NoJobStarvesUnderAging) {
  for (uint64_t seed : {1, 2, 3}) {
    int never = -1;
    EXPECT_LT(MaxWaitS("300", seed, &never), 3000) << "seed " << seed;
    EXPECT_EQ(never, 0) << "seed " << seed;
    EXPECT_GT(MaxWaitS("0", seed, &never), 3000) << "seed " << seed << ": without aging someone should wait longer";
  }
}

}  // namespace
}  // namespace hetsched
