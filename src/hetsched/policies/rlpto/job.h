// What the `rlpto` scheduler keeps of each job it has admitted (internal to policies/rlpto/): its
// weight, minimum, ranked types and convergence tracking. The scheduler owns these; the reward
// recorder (reward_recorder.h) reads them.
#pragma once

#include <array>

#include "hetsched/policies/rlpto/rlpto.h"
#include "hetsched/sched/job_status.h"
#include "hetsched/util/units.h"

namespace hetsched::rlpto_internal {

struct RlptoJob {
  int omega = 2;  // weight by user priority: 3, 2, 1 for high, normal, low
  int min = 1;
  bool running = false;
  bool converging = false;  // stays set once the job reached its converging fraction
  double converge_s = kInf;
  int gpus = 0;   // GPUs held while tracked as running
  int slots = 0;  // usable types ranked (<= kRlptoTypeSlots)
  std::array<DeviceTypeId, kRlptoTypeSlots> type{};
  std::array<double, kRlptoTypeSlots> speed{};  // relative to the fastest
  double fastest_iteration_s = kInf;            // the visible model's, on its request
};

// Speed of `type` relative to the job's fastest; 0 if not among its ranked types.
inline double SpeedOf(const RlptoJob& info, DeviceTypeId type) {
  for (int k = 0; k < info.slots; ++k) {
    if (info.type[static_cast<size_t>(k)] == type) return info.speed[static_cast<size_t>(k)];
  }
  return 0;
}

// Progress as a fraction of the stated iterations, from what the job reports.
inline double Fraction(const JobStatus& s, double now) {
  const double done =
      s.iterations_done + (s.state == JobState::kRunning ? s.iteration_rate * (now - s.last_start_s) : 0.0);
  return s.spec->iterations > 0 ? done / static_cast<double>(s.spec->iterations) : 0.0;
}

}  // namespace hetsched::rlpto_internal
