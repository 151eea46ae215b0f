// GADGET's stated bound against the exact solvers on many random small instances
// (docs/gadget.md, "The guarantee"):
//   (1) allocation: GreedyAllocate >= ExactAllocate / 2 always, = when the tables are concave;
//   (2) joint allocation + embedding: GadgetDecide >= ExactJoint / 2 whenever its embedding
//       realises the spans the allocation assumed (no span miss); misses are counted and the
//       worst ratio over all cases is printed (not asserted: no bound is claimed there).
#include "hetsched/policies/gadget/exact.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "hetsched/perf/ring_model.h"
#include "hetsched/util/rng.h"

namespace hetsched::gadget {
namespace {

TEST(GadgetExactTest, ExactAllocateByHand) {
  // Same instance as the greedy's textbook bad case: best is job 1 alone (9) with capacity 5,
  // and job 0 + job 1 (11) with capacity 6.
  const std::vector<AllocItem> items{{{0, 2}}, {{0, 0, 0, 0, 0, 9}}};
  EXPECT_DOUBLE_EQ(ExactAllocate(items, 5).objective, 9.0);
  const Allocation six = ExactAllocate(items, 6);
  EXPECT_DOUBLE_EQ(six.objective, 11.0);
  EXPECT_EQ(six.workers, (std::vector<int>{1, 5}));
}

TEST(GadgetExactTest, ExactJointByHand) {
  // Servers {3, 1}; one job worth 10/worker on one server, 1/worker across: best is 3 on the
  // first server (30), not 4 across both (4).
  JointInstance in;
  in.free_per_server = {3, 1};
  in.max_workers = {4};
  in.value = [](int, int w, int span) { return span == 1 ? 10.0 * w : 1.0 * w; };
  const JointDecision d = ExactJoint(in);
  EXPECT_DOUBLE_EQ(d.objective, 30.0);
  EXPECT_EQ(d.workers, (std::vector<int>{3}));
}

TEST(GadgetExactTest, GreedyAllocationWithinHalfOfOptimumOnRandomTables) {
  Rng rng(2022);
  int single_wins = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int jobs = 1 + static_cast<int>(rng.Below(5));
    const int capacity = static_cast<int>(rng.Below(13));
    std::vector<AllocItem> items(static_cast<size_t>(jobs));
    for (AllocItem& item : items) {
      const int top = 1 + static_cast<int>(rng.Below(8));
      item.value.assign(static_cast<size_t>(top) + 1, 0.0);
      // Arbitrary (not monotone, not concave) non-negative tables.
      for (int w = 1; w <= top; ++w) item.value[static_cast<size_t>(w)] = rng.Uniform(0.0, 10.0);
    }
    const Allocation g = GreedyAllocate(items, capacity);
    const Allocation x = ExactAllocate(items, capacity);
    single_wins += g.single_job ? 1 : 0;
    int used = 0;
    double check = 0;
    for (size_t j = 0; j < items.size(); ++j) {
      used += g.workers[j];
      if (g.workers[j] > 0) check += items[j].value[static_cast<size_t>(g.workers[j])];
    }
    ASSERT_LE(used, capacity) << "trial " << trial;
    ASSERT_NEAR(check, g.objective, 1e-9) << "trial " << trial;
    ASSERT_LE(g.objective, x.objective + 1e-9) << "trial " << trial;
    ASSERT_GE(g.objective, 0.5 * x.objective - 1e-9) << "trial " << trial;
  }
  std::printf("best-single fallback won %d of 2000 cases\n", single_wins);
}

TEST(GadgetExactTest, GreedyAllocationOptimalOnConcaveTables) {
  Rng rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const int jobs = 1 + static_cast<int>(rng.Below(5));
    const int capacity = static_cast<int>(rng.Below(16));
    std::vector<AllocItem> items(static_cast<size_t>(jobs));
    for (AllocItem& item : items) {
      const int top = 1 + static_cast<int>(rng.Below(8));
      item.value.assign(static_cast<size_t>(top) + 1, 0.0);
      // Decreasing positive increments: concave and non-decreasing (diminishing returns).
      double step = rng.Uniform(1.0, 10.0);
      for (int w = 1; w <= top; ++w) {
        item.value[static_cast<size_t>(w)] = item.value[static_cast<size_t>(w) - 1] + step;
        step *= rng.Uniform(0.3, 1.0);
      }
    }
    EXPECT_NEAR(GreedyAllocate(items, capacity).objective, ExactAllocate(items, capacity).objective, 1e-9)
        << "trial " << trial;
  }
}

// Joint instances valued by the ring model: completion-rate utility x(w)/R with tau(w, span)
// over NVLink inside a server and 25 GbE across (ALGORITHMS.md 5.2), random jobs.
TEST(GadgetExactTest, JointDecisionWithinHalfOfOptimumWhenSpansAreRealised) {
  Rng rng(3);
  const RingLinks nvlink{120e9, 2e-6}, ethernet{2.1875e9, 20e-6};
  int misses_cases = 0, checked = 0;
  double worst_ratio = 1.0;
  for (int trial = 0; trial < 1500; ++trial) {
    JointInstance in;
    const int servers = 2 + static_cast<int>(rng.Below(2));
    for (int h = 0; h < servers; ++h) in.free_per_server.push_back(1 + static_cast<int>(rng.Below(4)));
    const int jobs = 1 + static_cast<int>(rng.Below(3));
    std::vector<RingJob> ring_jobs;
    std::vector<double> remaining;
    for (int j = 0; j < jobs; ++j) {
      RingJob rj;
      rj.compute_s = rng.Uniform(0.01, 0.3);
      rj.dense_bytes = rng.Uniform(1e7, 1.4e9);  // ResNet-50 (100 MB) .. BERT-large (1.3 GB)
      rj.batch_per_worker = 32;
      ring_jobs.push_back(rj);
      remaining.push_back(rng.Uniform(1e3, 1e5));
      in.max_workers.push_back(1 + static_cast<int>(rng.Below(6)));
    }
    in.value = [&](int j, int w, int span) {
      RingUtility u;
      u.remaining_iterations = remaining[static_cast<size_t>(j)];
      const RingJob& rj = ring_jobs[static_cast<size_t>(j)];
      const double rate = RingProgressRate(rj, w, span <= 1 ? nvlink : ethernet, in.max_workers[static_cast<size_t>(j)]);
      return UtilityOf(u, w, rate);
    };
    const JointDecision g = GadgetDecide(in);
    const JointDecision x = ExactJoint(in);
    ASSERT_LE(g.objective, x.objective * (1 + 1e-12)) << "trial " << trial;
    // The allocation's assumed value bounds the optimum from above up to the factor 2.
    ASSERT_GE(2 * g.assumed, x.objective * (1 - 1e-12)) << "trial " << trial;
    if (x.objective > 0) worst_ratio = std::min(worst_ratio, g.objective / x.objective);
    if (g.span_misses > 0) {
      ++misses_cases;
      continue;
    }
    ++checked;
    ASSERT_GE(g.objective, 0.5 * x.objective * (1 - 1e-12)) << "trial " << trial;
  }
  EXPECT_GT(checked, 1000);
  std::printf("joint: %d cases checked against the bound, %d with a span miss; worst GADGET/OPT = %.3f\n",
              checked, misses_cases, worst_ratio);
}

}  // namespace
}  // namespace hetsched::gadget
