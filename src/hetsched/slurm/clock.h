// The agent's notion of time, injected so that tests run on a fake clock. Seconds since the Unix
// epoch (Slurm reports submit/start/end times that way).
#pragma once

namespace hetsched::slurm {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double NowS() const = 0;
  virtual void SleepS(double seconds) = 0;
};

// Wall-clock time (system_clock) and real sleeps.
class SystemClock : public Clock {
 public:
  double NowS() const override;
  void SleepS(double seconds) override;
};

// For tests: time moves only when slept on or advanced.
class FakeClock : public Clock {
 public:
  explicit FakeClock(double start_s = 0) : now_s_(start_s) {}
  double NowS() const override { return now_s_; }
  void SleepS(double seconds) override { now_s_ += seconds; }

 private:
  double now_s_;
};

}  // namespace hetsched::slurm
