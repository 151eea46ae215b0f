// RoundGrid: the rounds of the simulators that call their policy after each `interval`-second
// step, on the grid interval, 2 interval, ... (Pollux's simulator.py:402-416; Sia's
// multi_simulator.py:64-100), and only while some job is active. Calls between them change
// nothing; after a time with no job the grid resumes at its next point; a back end that calls
// late (the Slurm agent's polls) gets the round that is due.
#pragma once

#include <cmath>

#include "hetsched/sched/context.h"

namespace hetsched {

class RoundGrid {
 public:
  explicit RoundGrid(double interval_s) : interval_s_(interval_s), next_s_(interval_s) {}

  // True when a round is due now (it is then taken); otherwise a wake-up is asked for the next
  // one while `active` (jobs are known or arriving).
  bool Due(SchedContext& ctx, bool active) {
    const double now = ctx.now();
    if (!armed_ && now > next_s_) next_s_ = std::ceil(now / interval_s_) * interval_s_;
    if (now < next_s_) {
      if (active) Arm(ctx);
      return false;
    }
    next_s_ = (std::floor(now / interval_s_) + 1) * interval_s_;
    armed_ = false;
    return true;
  }
  // After a round: the next one, while jobs remain.
  void Next(SchedContext& ctx, bool active) {
    if (active) Arm(ctx);
  }
  double interval_s() const { return interval_s_; }

 private:
  void Arm(SchedContext& ctx) {
    ctx.WakeUpAt(next_s_);
    armed_ = true;
  }

  double interval_s_;
  double next_s_;
  bool armed_ = false;
};

}  // namespace hetsched
