#include "hetsched/sched/round_mechanism_gavel.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace hetsched {
namespace {

// Three jobs on two types of 4 devices, 360 s rounds (each job starts at 180 s per type).
class GavelMechanismTest : public ::testing::Test {
 protected:
  GavelMechanismTest() : m_({4, 4}, 360, 1920) {
    for (JobId id : {0, 1, 2}) m_.AddJob(id);
    m_.Reset(100, [](JobId, JobId) { return std::span<const double>(); });
    // Round 1: job 0 ran 360 s on type 0, job 1 360 s on type 1.
    m_.Account(0, 0, 360);
    m_.Account(1, 1, 360);
  }
  std::vector<GavelRoundJob> Jobs() const {
    return {GavelRoundJob{0, 4, true, x_[0], thr_}, GavelRoundJob{1, 2, true, x_[1], thr_},
            GavelRoundJob{2, 2, true, x_[2], thr_}};
  }
  GavelRoundMechanism m_;
  std::vector<std::vector<double>> x_{{1.0, 0.0}, {0.5, 0.5}, {0.5, 0.5}};
  std::vector<double> thr_{1.0, 1.0};
};

TEST_F(GavelMechanismTest, ResetOnlyWhenChangedAndIntervalElapsed) {
  EXPECT_EQ(m_.last_reset_s(), 100);
  EXPECT_FALSE(m_.ResetDue(200, true));    // 100 s < 1920 s since the reset
  EXPECT_TRUE(m_.ResetDue(2020, true));    // 1920 s since
  EXPECT_FALSE(m_.ResetDue(2020, false));  // nothing changed
  m_.ForceNextReset();
  EXPECT_TRUE(m_.ResetDue(200, true));
}

TEST_F(GavelMechanismTest, PriorityIsShareOverFractionOfTypeTime) {
  const auto jobs = Jobs();
  // Type 0: times 540 / 180 / 180, total 900. Type 1: 180 / 540 / 180, total 900.
  EXPECT_NEAR(m_.Priority(jobs[0], 0), 1.0 / (540.0 / 900.0), 1e-12);  // 1.667
  EXPECT_NEAR(m_.Priority(jobs[1], 0), 0.5 / (180.0 / 900.0), 1e-12);  // 2.5
  EXPECT_NEAR(m_.Priority(jobs[1], 1), 0.5 / (540.0 / 900.0), 1e-12);  // 0.833
  EXPECT_EQ(m_.Priority(jobs[0], 1), 0.0);                             // X = 0
}

TEST_F(GavelMechanismTest, TypesAreFilledOneAfterAnother) {
  const auto jobs = Jobs();
  // Type 0 first: jobs 1 and 2 (2.5, tie kept in arrival order) fill it; on type 1 job 0 (priority
  // 0, not a FIFO policy) still fits the 4 devices left.
  EXPECT_EQ(m_.PlanRound(jobs, std::vector<int>{0, 1}, false), (std::vector<int>{1, 0, 0}));
  // FIFO policies never run a job of priority 0.
  EXPECT_EQ(m_.PlanRound(jobs, std::vector<int>{0, 1}, true), (std::vector<int>{-1, 0, 0}));
  // Type 1 first: job 2 (2.5) then job 1 (0.833) fill it; job 0 gets type 0.
  EXPECT_EQ(m_.PlanRound(jobs, std::vector<int>{1, 0}, false), (std::vector<int>{0, 1, 1}));
}

TEST_F(GavelMechanismTest, ResetAddsDeficitsAndRestartsTimes) {
  m_.Reset(2020, [this](JobId id, JobId) { return std::span<const double>(x_[static_cast<size_t>(id)]); });
  // 1920 s since the last reset: deficit = X * 1920 - (time - 180).
  EXPECT_DOUBLE_EQ(m_.Deficit(0, 0), 1920 - 360);  // 1560
  EXPECT_DOUBLE_EQ(m_.Deficit(0, 1), 0);
  EXPECT_DOUBLE_EQ(m_.Deficit(1, 0), 960);
  EXPECT_DOUBLE_EQ(m_.Deficit(1, 1), 960 - 360);   // 600
  EXPECT_DOUBLE_EQ(m_.Deficit(2, 1), 960);
  // Every job back at 180 s of 540 s per type: priority = 3 X.
  const auto jobs = Jobs();
  EXPECT_NEAR(m_.Priority(jobs[0], 0), 3.0, 1e-12);
  EXPECT_NEAR(m_.Priority(jobs[2], 1), 1.5, 1e-12);
}

TEST(GavelMechanism, JobOutsideTheAllocationHoldsDevicesButDoesNotRun) {
  GavelRoundMechanism m({2}, 360, 1920);
  for (JobId id : {5, 6, 7}) m.AddJob(id);
  m.Reset(10, [](JobId, JobId) { return std::span<const double>(); });
  const std::vector<double> zero{0.0};
  const std::vector<double> thr{1.0};
  // All three have priority 0, deficit 0, X 0: arrival order. Job 5 (not in the allocation) holds
  // one device, job 6 runs on the other, job 7 (2 devices) no longer fits.
  const std::vector<GavelRoundJob> jobs{GavelRoundJob{5, 1, false, zero, thr}, GavelRoundJob{6, 1, true, zero, thr},
                                        GavelRoundJob{7, 2, true, zero, thr}};
  EXPECT_EQ(m.PlanRound(jobs, std::vector<int>{0}, false), (std::vector<int>{-1, 0, -1}));
}

TEST(GavelMechanism, NoTimeOnTheTypeYetScalesTheShareByABillion) {
  GavelRoundMechanism m({4}, 360, 1920);
  m.AddJob(0);  // no reset yet: the type's total is 0
  const std::vector<double> x{0.25};
  const std::vector<double> thr{1.0};
  EXPECT_DOUBLE_EQ(m.Priority(GavelRoundJob{0, 1, true, x, thr}, 0), 0.25e9);
}

}  // namespace
}  // namespace hetsched
