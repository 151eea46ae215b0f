// Run metrics (definitions and formulas in docs/metrics.md).
#pragma once

#include <string>
#include <vector>

#include "hetsched/metrics/run_record.h"

namespace hetsched {

struct Distribution {
  double mean = 0, median = 0, p95 = 0, p99 = 0, max = 0;
  long long count = 0;
};
// Percentiles by the nearest-rank method on the sorted values.
Distribution Describe(std::vector<double> values);

struct Summary {
  long long jobs_total = 0;
  long long jobs_finished = 0;
  long long jobs_dropped = 0;  // ended unfinished by the scheduler (JobRecord::dropped_s)
  Distribution jct_s;
  Distribution queueing_delay_s;
  Distribution slowdown;          // JCT / ideal runtime
  double makespan_s = 0;          // last finish - first submit
  double utilisation = 0;         // busy device-seconds / (devices x makespan)
  double cost_usd = 0;            // sum of per-job device-hours x price
  double energy_joules = 0;       // idle power x makespan + busy energy
  double jain_fairness = 0;       // Jain's index of ideal runtime / JCT over finished jobs
  double ftf_max = 0;             // finish-time fairness rho (Themis): worst job
  double ftf_mean = 0;
  double cross_node_bytes = 0;
  // Highest load any NIC / rack uplink carried (bytes/s, busier direction) and the highest
  // peak-to-capacity ratio over links with a known capacity; 0 when no traffic left a node.
  double peak_nic_load_Bps = 0;
  double peak_uplink_load_Bps = 0;
  double peak_link_utilisation = 0;
  long long deadline_misses = 0;
  long long preemptions = 0;
};

Summary Summarize(const RunRecord& run);

}  // namespace hetsched
