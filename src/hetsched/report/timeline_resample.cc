#include "hetsched/report/timeline_resample.h"

#include <algorithm>

namespace hetsched {
namespace {

TimelineRow RowOf(const RunRecord& run, size_t i) {
  const TimelineSample& s = run.timeline[i];
  const std::span<const int> by_type = run.BusyByType(i);
  TimelineRow r;
  r.time_s = s.time_s;
  r.busy_devices = s.busy_devices;
  r.running_jobs = s.running_jobs;
  r.pending_jobs = s.pending_jobs;
  r.busy_by_type.assign(run.device_types.size(), 0.0);
  for (size_t k = 0; k < r.busy_by_type.size() && k < by_type.size(); ++k) r.busy_by_type[k] = by_type[k];
  return r;
}

// acc += weight * row(sample i)
void Accumulate(const RunRecord& run, size_t i, double weight, TimelineRow* acc) {
  const TimelineSample& s = run.timeline[i];
  const std::span<const int> by_type = run.BusyByType(i);
  acc->busy_devices += weight * s.busy_devices;
  acc->running_jobs += weight * s.running_jobs;
  acc->pending_jobs += weight * s.pending_jobs;
  for (size_t k = 0; k < acc->busy_by_type.size() && k < by_type.size(); ++k) {
    acc->busy_by_type[k] += weight * by_type[k];
  }
}

void Scale(double factor, TimelineRow* row) {
  row->busy_devices *= factor;
  row->running_jobs *= factor;
  row->pending_jobs *= factor;
  for (double& v : row->busy_by_type) v *= factor;
}

}  // namespace

std::vector<TimelineRow> ResampleTimeline(const RunRecord& run, int max_rows) {
  const std::vector<TimelineSample>& tl = run.timeline;
  const size_t num_types = run.device_types.size();
  const size_t n = tl.size();
  const auto rows_cap = static_cast<size_t>(std::max(2, max_rows));
  std::vector<TimelineRow> out;
  if (n <= rows_cap) {
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) out.push_back(RowOf(run, i));
    return out;
  }
  const double t0 = tl.front().time_s;
  const double t_last = tl.back().time_s;
  if (!(t_last > t0)) {  // every sample at one instant: only the last one is ever in force
    out.push_back(RowOf(run, n - 1));
    return out;
  }

  const size_t buckets = rows_cap - 1;
  const auto edge = [&](size_t k) {
    return k == buckets ? t_last : t0 + (t_last - t0) * static_cast<double>(k) / static_cast<double>(buckets);
  };
  out.reserve(rows_cap);
  size_t i = 0;  // segment i is [t_i, t_{i+1}) carrying sample i's values
  for (size_t k = 0; k < buckets; ++k) {
    const double lo = edge(k);
    const double hi = edge(k + 1);
    while (i + 1 < n && tl[i + 1].time_s <= lo) ++i;
    TimelineRow row;
    row.time_s = lo;
    row.busy_by_type.assign(num_types, 0.0);
    if (!(hi > lo)) {  // degenerate bucket (float spacing): take the value in force
      Accumulate(run, i, 1.0, &row);
      out.push_back(std::move(row));
      continue;
    }
    size_t j = i;
    while (j + 1 < n && tl[j].time_s < hi) {
      const double a = std::max(lo, tl[j].time_s);
      const double b = std::min(hi, tl[j + 1].time_s);
      if (b > a) Accumulate(run, j, b - a, &row);
      if (tl[j + 1].time_s >= hi) break;
      ++j;
    }
    i = j;
    Scale(1.0 / (hi - lo), &row);
    out.push_back(std::move(row));
  }
  out.push_back(RowOf(run, n - 1));
  return out;
}

}  // namespace hetsched
