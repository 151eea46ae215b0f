// Downsampling of the cluster timeline for timeline.csv and the plots. A run of 1M jobs has ~2M
// samples; files and plots want a few thousand rows that still integrate to the same
// device-seconds.
#pragma once

#include <vector>

#include "hetsched/metrics/run_record.h"

namespace hetsched {

// One row of a (possibly resampled) timeline: the values hold from time_s to the next row.
struct TimelineRow {
  double time_s = 0;
  double busy_devices = 0;
  double running_jobs = 0;
  double pending_jobs = 0;
  std::vector<double> busy_by_type;  // indexed like RunRecord::device_types
};

// At most max(2, max_rows) rows. A timeline that already fits is copied as it is. A longer one
// over [t_first, t_last] becomes (max_rows - 1) equal-width buckets, each holding the
// time-weighted average of every quantity over its bucket, plus a final row at t_last with the
// last sample's values (the state the run ended in). The integral of every quantity over
// [t_first, t_last] is preserved (up to float rounding); so is the value after t_last.
std::vector<TimelineRow> ResampleTimeline(const RunRecord& run, int max_rows);

}  // namespace hetsched
