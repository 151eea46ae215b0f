#include "hetsched/policies/gadget/core.h"

#include <vector>

#include <gtest/gtest.h>

namespace hetsched::gadget {
namespace {

TEST(GadgetCoreTest, GreedyTakesTheSteepestSegmentsFirst) {
  // Job 0: 10, 15, 18 for 1..3 workers (slopes 10, 5, 3). Job 1: 8, 16 (slopes 8, 8).
  // Capacity 3: 10 (job 0, 1st), then job 1's 8 + 8, total 10 + 16 = 26 (job 0 second worker
  // at slope 5 does not beat 8).
  const std::vector<AllocItem> items{{{0, 10, 15, 18}}, {{0, 8, 16}}};
  const Allocation a = GreedyAllocate(items, 3);
  EXPECT_EQ(a.workers, (std::vector<int>{1, 2}));
  EXPECT_DOUBLE_EQ(a.objective, 26.0);
  EXPECT_FALSE(a.single_job);
}

TEST(GadgetCoreTest, ConvexTablesUseTheirHull) {
  // Job 0: 1, 2, 12 for 1..3 (a ring that only pays at 3 workers): hull slope 4 from 0 to 3.
  // Job 1: 3 for one worker (slope 3). Capacity 4: job 0 takes 3 (12), job 1 takes 1 (3) = 15.
  const std::vector<AllocItem> items{{{0, 1, 2, 12}}, {{0, 3}}};
  const Allocation a = GreedyAllocate(items, 4);
  EXPECT_EQ(a.workers, (std::vector<int>{3, 1}));
  EXPECT_DOUBLE_EQ(a.objective, 15.0);
}

TEST(GadgetCoreTest, BestSingleJobWinsWhenTheGreedyIsStuck) {
  // The textbook bad case of the plain greedy: job 0 has slope 2 for 1 worker (2), job 1 is
  // worth 9 but only with 5 workers (slope 1.8). Capacity 5: the greedy takes job 0 and then
  // job 1 no longer fits (value 2); the single best job gives 9.
  const std::vector<AllocItem> items{{{0, 2}}, {{0, 0, 0, 0, 0, 9}}};
  const Allocation a = GreedyAllocate(items, 5);
  EXPECT_TRUE(a.single_job);
  EXPECT_EQ(a.workers, (std::vector<int>{0, 5}));
  EXPECT_DOUBLE_EQ(a.objective, 9.0);
}

TEST(GadgetCoreTest, NeverGivesWorkersThatAddNothing) {
  // Energy-like table that falls after 2 workers: 5, 7, 6, 4. Capacity 4: 2 workers (7).
  const std::vector<AllocItem> items{{{0, 5, 7, 6, 4}}};
  const Allocation a = GreedyAllocate(items, 4);
  EXPECT_EQ(a.workers, (std::vector<int>{2}));
  EXPECT_DOUBLE_EQ(a.objective, 7.0);
  EXPECT_EQ(GreedyAllocate(items, 0).workers, (std::vector<int>{0}));
}

TEST(GadgetCoreTest, MinSpan) {
  const std::vector<int> free{2, 8, 4, 0};
  EXPECT_EQ(MinSpan(free, 0), 0);
  EXPECT_EQ(MinSpan(free, 8), 1);
  EXPECT_EQ(MinSpan(free, 9), 2);   // 8 + 4
  EXPECT_EQ(MinSpan(free, 13), 3);  // 8 + 4 + 2 = 14
  EXPECT_EQ(MinSpan(free, 15), -1);
}

TEST(GadgetCoreTest, EmbedBestFitOnOneServer) {
  std::vector<int> free{6, 3, 4, 3};
  std::vector<ServerShare> out;
  ASSERT_TRUE(EmbedOnServers(&free, 3, &out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].server, 1);  // fewest free that holds 3; ties: lowest index
  EXPECT_EQ(free, (std::vector<int>{6, 0, 4, 3}));
}

TEST(GadgetCoreTest, EmbedFewestServersThenBestFitRemainder) {
  // 9 workers, free {4, 6, 3, 5}: no server holds 9; two servers do (6 + 5 = 11 >= 9).
  // Most free first: server 1 (6) whole; remainder 3 on the best fit among the others: server 2 (3).
  std::vector<int> free{4, 6, 3, 5};
  std::vector<ServerShare> out;
  ASSERT_TRUE(EmbedOnServers(&free, 9, &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].server, 1);
  EXPECT_EQ(out[0].workers, 6);
  EXPECT_EQ(out[1].server, 2);
  EXPECT_EQ(out[1].workers, 3);
  EXPECT_EQ(free, (std::vector<int>{4, 0, 0, 5}));
  std::vector<ServerShare> none;
  EXPECT_FALSE(EmbedOnServers(&free, 10, &none));
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(free, (std::vector<int>{4, 0, 0, 5}));
}

TEST(GadgetCoreTest, DecideEmbedsLargestFirstAndCountsMisses) {
  // Two servers of 4 free. Job 0 values 10 per worker on one server, 1 per worker across servers
  // (a ring over 25 GbE); job 1 the same. Best: 4 + 4, each on its own server: 80.
  JointInstance in;
  in.free_per_server = {4, 4};
  in.max_workers = {4, 4};
  in.value = [](int, int w, int span) { return span == 1 ? 10.0 * w : 1.0 * w; };
  const JointDecision d = GadgetDecide(in);
  EXPECT_EQ(d.workers, (std::vector<int>{4, 4}));
  EXPECT_DOUBLE_EQ(d.objective, 80.0);
  EXPECT_EQ(d.span_misses, 0);
  ASSERT_EQ(d.shares[0].size(), 1u);
  ASSERT_EQ(d.shares[1].size(), 1u);
  EXPECT_NE(d.shares[0][0].server, d.shares[1][0].server);
}

}  // namespace
}  // namespace hetsched::gadget
