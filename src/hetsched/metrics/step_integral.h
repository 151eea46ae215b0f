// Integrals of the cluster timeline. A RunRecord's timeline is a step function: sample i's value
// holds on [t_i, t_{i+1}); the last value holds from its time on; before the first sample the
// value is 0 (an empty cluster). These helpers turn the samples into device-seconds or
// job-seconds over any window.
#pragma once

#include <functional>
#include <vector>

#include "hetsched/metrics/run_record.h"

namespace hetsched {

// Reads one quantity out of a sample (busy devices, active jobs...).
using TimelineValue = std::function<double(const TimelineSample&)>;
// The same by the sample's index, for quantities kept beside the samples (busy devices of one
// type: RunRecord::BusyByType).
using TimelineValueAt = std::function<double(size_t sample)>;

// Integral of the step function over [begin_s, end_s] in one linear pass; 0 when end <= begin.
// Use it for one window over the whole run (utilisation). REQUIRES: timeline in time order.
double IntegrateTimeline(const std::vector<TimelineSample>& timeline, const TimelineValueAt& value,
                         double begin_s, double end_s);
double IntegrateTimeline(const std::vector<TimelineSample>& timeline, const TimelineValue& value,
                         double begin_s, double end_s);

// Prefix integral of a step function for many window queries: O(T) to build, O(log T) per
// query (binary search for the sample in force, then the stored integral up to it plus the
// partial step). Finish-time fairness asks one window per job, on runs with ~1M jobs and ~2M
// samples, so a linear scan per job is out of the question.
class StepIntegral {
 public:
  // REQUIRES: timeline in time order.
  StepIntegral(const std::vector<TimelineSample>& timeline, const TimelineValue& value);

  // Integral over (-inf, t].
  double Cumulative(double t) const;
  // Integral over [begin_s, end_s]; 0 when end <= begin.
  double Integral(double begin_s, double end_s) const;
  // The value in force at time t (0 before the first sample).
  double ValueAt(double t) const;

 private:
  // Index of the last sample with time <= t, or -1 when t precedes every sample.
  long long SampleAt(double t) const;

  std::vector<double> times_s_;
  std::vector<double> values_;
  std::vector<double> prefix_;  // prefix_[i] = integral from times_s_[0] to times_s_[i]
};

}  // namespace hetsched
