#include "hetsched/slurm/clock.h"

#include <chrono>
#include <thread>

namespace hetsched::slurm {

double SystemClock::NowS() const {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void SystemClock::SleepS(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace hetsched::slurm
