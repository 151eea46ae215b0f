#include "hetsched/metrics/step_integral.h"

#include <algorithm>

namespace hetsched {

double IntegrateTimeline(const std::vector<TimelineSample>& timeline, const TimelineValueAt& value,
                         double begin_s, double end_s) {
  if (!(end_s > begin_s)) return 0;
  double total = 0;
  for (size_t i = 0; i < timeline.size(); ++i) {
    const double seg_begin = std::max(timeline[i].time_s, begin_s);
    const double seg_end = std::min(i + 1 < timeline.size() ? timeline[i + 1].time_s : end_s, end_s);
    if (seg_end > seg_begin) total += value(i) * (seg_end - seg_begin);
    if (timeline[i].time_s >= end_s) break;
  }
  return total;
}

double IntegrateTimeline(const std::vector<TimelineSample>& timeline, const TimelineValue& value,
                         double begin_s, double end_s) {
  return IntegrateTimeline(timeline, TimelineValueAt([&](size_t i) { return value(timeline[i]); }), begin_s, end_s);
}

StepIntegral::StepIntegral(const std::vector<TimelineSample>& timeline, const TimelineValue& value) {
  times_s_.reserve(timeline.size());
  values_.reserve(timeline.size());
  prefix_.reserve(timeline.size());
  double acc = 0;
  for (size_t i = 0; i < timeline.size(); ++i) {
    if (i > 0) acc += values_.back() * (timeline[i].time_s - times_s_.back());
    times_s_.push_back(timeline[i].time_s);
    values_.push_back(value(timeline[i]));
    prefix_.push_back(acc);
  }
}

long long StepIntegral::SampleAt(double t) const {
  // upper_bound: the first sample strictly after t; the one before it is in force (with several
  // samples at the same time, the last of them wins, as in the simulator's event order).
  auto it = std::upper_bound(times_s_.begin(), times_s_.end(), t);
  return static_cast<long long>(it - times_s_.begin()) - 1;
}

double StepIntegral::Cumulative(double t) const {
  const long long i = SampleAt(t);
  if (i < 0) return 0;
  const auto k = static_cast<size_t>(i);
  return prefix_[k] + values_[k] * (t - times_s_[k]);
}

double StepIntegral::Integral(double begin_s, double end_s) const {
  if (!(end_s > begin_s)) return 0;
  return Cumulative(end_s) - Cumulative(begin_s);
}

double StepIntegral::ValueAt(double t) const {
  const long long i = SampleAt(t);
  return i < 0 ? 0 : values_[static_cast<size_t>(i)];
}

}  // namespace hetsched
