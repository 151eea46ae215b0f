#include "hetsched/slurm/slurm_health.h"

#include "hetsched/slurm/squeue_text.h"

namespace hetsched::slurm {

bool SlurmHealth::PollFailed(const Status& st) {
  if (st.code() == StatusCode::kParseError) {
    // Slurm answered, with something the agent does not understand: not an outage. Reported
    // (naming the command, line and field) each time the problem changes.
    if (st.message() != last_poll_error_) report_("Slurm's answer not understood (will retry): " + st.message());
    last_poll_error_ = st.message();
    return true;
  }
  if (!unreachable_) report_("Slurm unreachable (will retry): " + st.message());
  unreachable_ = true;
  return false;
}

void SlurmHealth::Answered() {
  if (!unreachable_) return;
  unreachable_ = false;
  settle_until_s_ = clock_.NowS() + settle_s_;
  settle_reported_ = false;
  report_("Slurm reachable again");
}

bool SlurmHealth::Settled() {
  const double now_s = clock_.NowS();
  if (now_s < settle_until_s_) return false;
  if (now_s - boot_checked_s_ >= 1.0) {
    boot_checked_s_ = now_s;
    auto r = slurm_({"scontrol", "show", "config"});
    if (!r.ok() || r->exit_code != 0) return false;  // slurmctld not answering: not now
    auto boot = ParseBootTime(r->out, "scontrol show config");
    if (boot.ok()) {
      ctld_boot_s_ = *boot;
      if (start_boot_s_ == 0) start_boot_s_ = *boot;
    } else if (!boot_error_reported_) {
      boot_error_reported_ = true;  // only outages the agent sees delay preemptions from now on
      report_("Slurm's answer not understood: " + boot.status().message() +
              ": a restart of slurmctld is seen only when a command fails during it");
    }
  }
  // The slurmctld the agent started with (a cluster that has just booted is not a restart), or one
  // that has run long enough since.
  if (ctld_boot_s_ == start_boot_s_ || now_s - ctld_boot_s_ >= settle_s_) return true;
  settle_until_s_ = ctld_boot_s_ + settle_s_;
  return false;
}

void SlurmHealth::ReportWaiting() {
  if (!settle_reported_) {
    report_("preemptions wait " + std::to_string(static_cast<int>(settle_until_s_ - clock_.NowS() + 0.5)) +
            " s after slurmctld's outage or restart (completions may still be on their way to it)");
  }
  settle_reported_ = true;
}

}  // namespace hetsched::slurm
