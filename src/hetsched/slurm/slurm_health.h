// The Slurm agent's view of slurmctld's health: whether it answers the agent's polls, and whether
// a preemption may be sent now. Just after an outage, or after slurmctld restarted, a job Slurm
// shows running may have ended meanwhile (slurmstepd's completion message, retried every 15 s,
// has not reached slurmctld yet), and requeuing it would run it again: preemptions wait
// settle_s after the outage's end or slurmctld's start (its BOOT_TIME in `scontrol show
// config`). docs/slurm.md has the measurements.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "hetsched/slurm/clock.h"
#include "hetsched/slurm/command_runner.h"
#include "hetsched/util/status.h"

namespace hetsched::slurm {

class SlurmHealth {
 public:
  using Command = std::function<Result<CommandResult>(const std::vector<std::string>&)>;
  using Reporter = std::function<void(const std::string&)>;
  // `slurm` runs a Slurm command (the agent's, which counts failed ones); `report` tells the
  // operator.
  SlurmHealth(Clock& clock, double settle_s, Command slurm, Reporter report)
      : clock_(clock), settle_s_(settle_s), slurm_(std::move(slurm)), report_(std::move(report)) {}

  // A poll failed: Slurm unreachable (reported once per outage), or its answer not understood
  // (kParseError: not an outage; reported each time the problem changes). True for the latter,
  // which the agent counts as a Slurm error.
  bool PollFailed(const Status& st);
  // Slurm answered: an outage is over (reported; preemptions wait settle_s from now).
  void Answered();
  // A poll's answer was understood: a later answer not understood is reported again.
  void Understood() { last_poll_error_.clear(); }
  // The agent starts after waiting for Slurm: its first answer starts the settling time.
  void StartUnreachable() { unreachable_ = true; }
  bool reachable() const { return !unreachable_; }

  // Whether a preemption may be sent now: not within settle_s of an outage the agent saw, nor of a
  // start of slurmctld during the agent's life (BOOT_TIME, read at most once a second; the
  // slurmctld the agent started with is not a restart).
  bool Settled();
  // Tells the operator, once per wait, how long preemptions wait (after Settled() said no).
  void ReportWaiting();
  // slurmctld's BOOT_TIME as last read (epoch seconds; 0: not read).
  double ctld_boot_s() const { return ctld_boot_s_; }

 private:
  Clock& clock_;
  const double settle_s_;
  Command slurm_;
  Reporter report_;
  bool unreachable_ = false;
  std::string last_poll_error_;   // the last poll answer not understood (reported once)
  double settle_until_s_ = -1;    // clock: preemptions wait until then
  bool settle_reported_ = false;
  double ctld_boot_s_ = 0;        // slurmctld's BOOT_TIME, as last read
  double start_boot_s_ = 0;       // ... as first read in this life (0: not yet)
  double boot_checked_s_ = -1e9;  // clock of that reading
  bool boot_error_reported_ = false;
};

}  // namespace hetsched::slurm
