// sia-plus's split jobs on the policy's side (policies/sia/split_jobs.h), worked by hand on a
// cluster of two fast nodes of 4 GPUs (devices 0-7) and two slow ones of 4 (devices 8-15).
#include "hetsched/policies/sia/split_jobs.h"

#include <gtest/gtest.h>

#include <memory>
#include <utility>
#include <vector>

#include "fake_backend.h"
#include "hetsched/perf/goodput_application.h"
#include "../common/toy_goodput_app.h"

namespace hetsched::sia_internal {
namespace {

using test::kFast;
using test::kSlow;
using test::TestCluster;

GoodputJobView ProfiledOn(std::vector<DeviceTypeId> types) {
  GoodputJobView v;
  for (DeviceTypeId t : types) v.types.push_back(GoodputTypeView{t, nullptr, 0, {}});
  return v;
}

TEST(SplitJobsTest, AJobGivesBackOnlyWhatTheRoundNeeds) {
  TestCluster c({{kFast, 4}, {kFast, 4}, {kSlow, 4}, {kSlow, 4}});
  const std::vector<DeviceId> split{0, 1, 8, 9, 12};  // 2 fast GPUs of node 0, 2 + 1 slow of nodes 2, 3
  EXPECT_EQ(FirstTypeDevices(c.cluster(), split), (std::vector<DeviceId>{0, 1}));
  // The lists leave 2 GPUs on node 2 and 1 on node 3: it keeps its 2 + 1, taken from what is left.
  std::vector<int> left{0, 4, 2, 1};
  EXPECT_FALSE(MustGiveBack(c.cluster(), split, &left));
  EXPECT_EQ(left, (std::vector<int>{0, 4, 0, 0}));
  // A list takes one more GPU of node 2: it must give back (and `left` is not touched).
  left = {0, 4, 1, 1};
  EXPECT_TRUE(MustGiveBack(c.cluster(), split, &left));
  EXPECT_EQ(left, (std::vector<int>{0, 4, 1, 1}));
  // A job on one type has nothing to give back.
  EXPECT_FALSE(MustGiveBack(c.cluster(), std::vector<DeviceId>{0, 1}, &left));
}

TEST(SplitJobsTest, AJobBorrowsTheIdleGpusOfTheOtherTypeUpToItsShare) {
  TestCluster c({{kFast, 4}, {kFast, 4}, {kSlow, 4}, {kSlow, 4}});
  const std::vector<NodeGroup> groups = GroupNodes(c.cluster());
  ClusterState state(c.cluster());
  ASSERT_TRUE(state.Allocate(1, std::vector<DeviceId>{0, 1}).ok());  // the job
  ASSERT_TRUE(state.Allocate(2, std::vector<DeviceId>{8}).ok());     // another, on slow node 2
  JobSpec spec;
  const std::vector<DeviceId> own{0, 1};
  // The slow type has 7 idle GPUs (3 on node 2, 4 on node 3): at one per GPU of its own it borrows
  // 2, from the whole free node 3 first.
  EXPECT_EQ(BorrowIdle(c.cluster(), state, groups, spec, ProfiledOn({kFast, kSlow}), own, 1),
            (std::vector<DeviceId>{0, 1, 12, 13}));
  // At three per GPU: 6, node 3's four then node 2's first two idle ones.
  EXPECT_EQ(BorrowIdle(c.cluster(), state, groups, spec, ProfiledOn({kFast, kSlow}), own, 3),
            (std::vector<DeviceId>{0, 1, 12, 13, 14, 15, 9, 10}));
  // Not profiled on the slow type, or not allowed there, or no share: nothing.
  EXPECT_TRUE(BorrowIdle(c.cluster(), state, groups, spec, ProfiledOn({kFast}), own, 1).empty());
  JobSpec fast_only;
  fast_only.allowed_types = {kFast};
  EXPECT_TRUE(BorrowIdle(c.cluster(), state, groups, fast_only, ProfiledOn({kFast, kSlow}), own, 1).empty());
  EXPECT_TRUE(BorrowIdle(c.cluster(), state, groups, spec, ProfiledOn({kFast, kSlow}), own, 0.4).empty());
}

// Two hand-made applications (as tests/sim/goodput_split_test.cc): fast passes 0.05 + 0.003125 b
// (local batches 32..64), slow ones twice as long (16..32); initial batch 32, largest 256.
std::shared_ptr<const GoodputApplication> App(double s) {
  using testing_util::ToyRow;
  if (s == 1) {
    return testing_util::ToyFastApplication();
  }
  // passes s / 2 times the slow type's of the sim test (slowdown 2: 0.1 + 0.00625 b)
  return testing_util::ToyApplication({ToyRow("1", 16, 0.05 * s, 0), ToyRow("1", 32, 0.1 * s, 0),
                                       ToyRow("2", 16, 0.05 * s + 0.05, 0.05), ToyRow("2", 32, 0.1 * s + 0.05, 0.05)});
}

// A job that ran on both types: its models there (the first type's truth; `second` on the slow one).
GoodputJobView Known(const GoodputApplication* fast, const GoodputApplication* slow, const ThroughputParams& second) {
  GoodputJobView v;
  v.application = fast;
  v.adaptive = true;
  v.grad = GradientStats{1, 3};
  v.types = {GoodputTypeView{kFast, fast, 2, ThroughputParams{0.05, 0.003125, 0.05, 0, 0.05, 0, 1}},
             GoodputTypeView{kSlow, slow, 2, second}};
  return v;
}

TEST(SplitJobsTest, ALoanIsPredictedFromTheJobsModelsNeverFromTheTruth) {
  TestCluster c({{kFast, 4}, {kFast, 4}, {kSlow, 4}, {kSlow, 4}});
  const auto fast = App(1), slow = App(2), slower = App(8);
  const std::vector<DeviceId> joint{0, 1, 8, 9};  // two fast GPUs of node 0, two slow of node 2
  // Its model of the slow type is the slow truth (passes 0.1 + 0.00625 b); no model of the job's
  // parameters: no ring. Alone, its fast pair's best by its model (Optimize); split, local batches
  // 50 and 17, a batch of 134 in 0.25625 s (tests/perf/goodput_split_test.cc): 32 x gain / step.
  const ThroughputParams slow_model{0.1, 0.00625, 0.05, 0, 0.05, 0, 1};
  const LoanPrediction p = PredictLoan(c.cluster(), Known(fast.get(), slow.get(), slow_model), nullptr, joint);
  const GoodputModel alone(ThroughputParams{0.05, 0.003125, 0.05, 0, 0.05, 0, 1}, GradientStats{1, 3}, 32);
  EXPECT_NEAR(p.alone, alone.Optimize(1, 2, BatchLimits{256, 32, 64, true}).goodput, 1e-9);
  EXPECT_NEAR(p.split, 32 * (4 / (3 / (134.0 / 32) + 1)) / 0.25625, 1e-9);
  EXPECT_GT(p.split, 1.1 * p.alone);
  // The slow type's truth four times slower changes nothing: the job predicts from its model.
  const LoanPrediction same = PredictLoan(c.cluster(), Known(fast.get(), slower.get(), slow_model), nullptr, joint);
  EXPECT_DOUBLE_EQ(same.split, p.split);
  EXPECT_DOUBLE_EQ(same.alone, p.alone);
  // Its model says the slow passes take 0.3 + 0.0125 b: no pair fits, no loan.
  EXPECT_EQ(PredictLoan(c.cluster(), Known(fast.get(), slow.get(), ThroughputParams{0.3, 0.0125, 0.05, 0, 0.05, 0, 1}),
                        nullptr, joint).split, 0);
  // Never run on the slow type: Sia's projection by the one-GPU throughputs (160 / 320), which is
  // the slow model above; the same prediction.
  GoodputJobView unknown = Known(fast.get(), slow.get(), slow_model);
  unknown.types[1].params.reset();
  EXPECT_NEAR(PredictLoan(c.cluster(), unknown, nullptr, joint).split, p.split, 1e-9);
  // No model on its first type, or no gradient statistics: nothing predicted.
  unknown.types[0].params.reset();
  EXPECT_EQ(PredictLoan(c.cluster(), unknown, nullptr, joint).alone, 0);
}

TEST(SplitJobsTest, ASplitIsGivenBackWhenWhatItTimedDoesNotPay) {
  TestCluster c({{kFast, 4}, {kFast, 4}, {kSlow, 4}, {kSlow, 4}});
  const auto fast = App(1), slow = App(2);
  const std::vector<DeviceId> joint{0, 1, 8, 9};
  GoodputJobView v = Known(fast.get(), slow.get(), ThroughputParams{0.1, 0.00625, 0.05, 0, 0.05, 0, 1});
  EXPECT_FALSE(SplitLost(c.cluster(), v, joint));  // not split
  v.second_type = kSlow;
  v.atomic_bsz = 50;
  v.second_atomic_bsz = 0;
  EXPECT_TRUE(SplitLost(c.cluster(), v, joint));  // it left the slow GPUs idle
  v.second_atomic_bsz = 17;
  EXPECT_FALSE(SplitLost(c.cluster(), v, joint));  // not timed yet
  // Timed at 50 and 17 in 0.25625 s: 291 against its fast pair's best alone (about 259 by its
  // model): it keeps them. In 0.4 s (186): it gives them back.
  v.split_measured = SplitMeasurement{kSlow, 1, 2, 1, 2, 50, 17, 0.20625, 0.20625, 0.25625};
  EXPECT_FALSE(SplitLost(c.cluster(), v, joint));
  v.split_measured->step_s = 0.4;
  EXPECT_TRUE(SplitLost(c.cluster(), v, joint));
  // A measurement at other local batches is not of this split.
  v.split_measured->bsz2 = 16;
  EXPECT_FALSE(SplitLost(c.cluster(), v, joint));
}

TEST(SplitJobsTest, TheTimeLeftIsTheProgressLeftOverTheRateNow) {
  // An application of two epochs that end at progress 100 and 200.
  PolluxModelProfile p;
  p.model = "toy";
  PolluxPlacementRow row;
  row.placement = "1";
  row.local_bsz = 32;
  row.step_time_s = 0.1;
  p.placements = {row};
  p.validation[32] = {PolluxValidationRow{100, 100, 0.5, 1, 1}, PolluxValidationRow{200, 200, 0.6, 1, 1}};
  auto app = GoodputApplication::Create(std::move(p));
  ASSERT_TRUE(app.ok()) << app.status().ToString();
  GoodputJobView view;
  view.application = app->get();
  JobStatus job;
  job.iterations_done = 50;
  EXPECT_EQ(RemainingS(job, view), 0);  // not progressing
  job.iteration_rate = 5;
  EXPECT_DOUBLE_EQ(RemainingS(job, view), (200 - 50) / 5.0);
}

}  // namespace
}  // namespace hetsched::sia_internal
