// SlurmHealth (slurm/slurm_health.h) on a fake clock and a scripted `scontrol show config`: an
// outage reported once and its end starting the settling time, answers not understood reported
// once per message, and preemptions held back after slurmctld restarts (a new BOOT_TIME) but not
// for the slurmctld the agent started with.
#include "hetsched/slurm/slurm_health.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hetsched/slurm/squeue_text.h"

namespace hetsched::slurm {
namespace {

class SlurmHealthTest : public ::testing::Test {
 protected:
  SlurmHealthTest()
      : boot0_(*ParseSlurmTime("2026-12-02T02:14:09", "t")),
        clock_(boot0_ + 3600),
        health_(clock_, 20, [this](const std::vector<std::string>& argv) { return Config(argv); },
                [this](const std::string& m) { reports_.push_back(m); }) {}
  Result<CommandResult> Config(const std::vector<std::string>& argv) {
    EXPECT_EQ(argv, (std::vector<std::string>{"scontrol", "show", "config"}));
    ++config_reads_;
    CommandResult r;
    r.out = "BOOT_TIME               = " + boot_ + "\nClusterName             = x\n";
    return r;
  }
  double boot0_;
  FakeClock clock_;
  std::string boot_ = "2026-12-02T02:14:09";
  int config_reads_ = 0;
  std::vector<std::string> reports_;
  SlurmHealth health_;
};

TEST_F(SlurmHealthTest, AnOutageIsReportedOnceAndItsEndStartsTheSettlingTime) {
  EXPECT_TRUE(health_.Settled());  // the slurmctld it starts with, up an hour
  EXPECT_FALSE(health_.PollFailed(Status::IoError("squeue exited 1")));
  EXPECT_FALSE(health_.PollFailed(Status::IoError("squeue exited 1")));
  EXPECT_FALSE(health_.reachable());
  health_.Answered();
  EXPECT_TRUE(health_.reachable());
  EXPECT_EQ(reports_, (std::vector<std::string>{"Slurm unreachable (will retry): squeue exited 1",
                                                "Slurm reachable again"}));
  clock_.SleepS(19);
  EXPECT_FALSE(health_.Settled());
  health_.ReportWaiting();
  health_.ReportWaiting();
  EXPECT_EQ(reports_.size(), 3u);  // once per wait
  EXPECT_EQ(reports_.back().rfind("preemptions wait 1 s after", 0), 0u) << reports_.back();
  clock_.SleepS(1);
  EXPECT_TRUE(health_.Settled());
}

TEST_F(SlurmHealthTest, AnAnswerNotUnderstoodIsNotAnOutageAndIsReportedOncePerMessage) {
  EXPECT_TRUE(health_.PollFailed(Status::ParseError("squeue:3: field 'state': bad")));
  EXPECT_TRUE(health_.PollFailed(Status::ParseError("squeue:3: field 'state': bad")));
  EXPECT_TRUE(health_.reachable());
  health_.Understood();
  EXPECT_TRUE(health_.PollFailed(Status::ParseError("squeue:3: field 'state': bad")));
  EXPECT_EQ(reports_.size(), 2u);
}

TEST_F(SlurmHealthTest, ARestartedSlurmctldHoldsPreemptionsBackUntilItHasRunTheSettlingTime) {
  EXPECT_TRUE(health_.Settled());
  EXPECT_EQ(health_.ctld_boot_s(), boot0_);
  // slurmctld restarts at boot0 + 3600 + 5, too quickly for a poll to fail.
  clock_.SleepS(5);
  boot_ = "2026-12-02T03:14:14";
  clock_.SleepS(1);
  EXPECT_FALSE(health_.Settled());
  EXPECT_EQ(health_.ctld_boot_s(), boot0_ + 3605);
  const int reads = config_reads_;
  clock_.SleepS(10);
  EXPECT_FALSE(health_.Settled());  // waits until boot + 20 without asking Slurm
  EXPECT_EQ(config_reads_, reads);
  clock_.SleepS(10);
  EXPECT_TRUE(health_.Settled());
}

}  // namespace
}  // namespace hetsched::slurm
