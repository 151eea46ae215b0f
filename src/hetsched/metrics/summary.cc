// Summarize: one pass over the jobs plus two timeline integrals. Definitions and formulas are in
// docs/metrics.md; this file follows them line by line.
#include "hetsched/metrics/summary.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hetsched/metrics/step_integral.h"

namespace hetsched {
namespace {

// Nearest-rank percentile (the smallest value with at least p% of the values at or below it):
// rank = ceil(p * n / 100), 1-based. Integer arithmetic keeps ceil exact (0.95 * 20 in floating
// point is not quite 19).
double NearestRank(const std::vector<double>& sorted, long long percent) {
  const auto n = static_cast<long long>(sorted.size());
  long long rank = (percent * n + 99) / 100;
  rank = std::clamp(rank, 1LL, n);
  return sorted[static_cast<size_t>(rank - 1)];
}

// No NaN or infinity ever leaves this file: an undefined aggregate reads 0.
double FiniteOrZero(double x) { return std::isfinite(x) ? x : 0; }

double ActiveJobs(const TimelineSample& s) { return s.running_jobs + s.pending_jobs; }
double BusyDevices(const TimelineSample& s) { return s.busy_devices; }

// Finish-time fairness of one finished job (Themis, Mahajan et al., NSDI 2020):
// rho = JCT / T_ind, where T_ind is the job's runtime on a 1/N_avg share of the cluster:
// ideal x max(1, num_gpus x N_avg / total_devices).
double FinishTimeFairness(const JobRecord& job, const StepIntegral& active, int total_devices) {
  const double window_s = job.finish_s - job.submit_s;
  const double n_avg =
      window_s > 0 ? active.Integral(job.submit_s, job.finish_s) / window_s : active.ValueAt(job.submit_s);
  double share_factor = 1;
  if (total_devices > 0) share_factor = std::max(1.0, job.num_gpus * n_avg / total_devices);
  const double t_ind_s = job.ideal_runtime_s * share_factor;
  return job.jct_s() / t_ind_s;
}

}  // namespace

Distribution Describe(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  Distribution d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  d.count = static_cast<long long>(values.size());
  d.mean = sum / static_cast<double>(values.size());
  d.median = NearestRank(values, 50);
  d.p95 = NearestRank(values, 95);
  d.p99 = NearestRank(values, 99);
  d.max = values.back();
  return d;
}

Summary Summarize(const RunRecord& run) {
  Summary s;
  s.jobs_total = static_cast<long long>(run.jobs.size());

  std::vector<double> jct, queueing, slowdown;
  double first_submit_s = std::numeric_limits<double>::infinity();
  double last_finish_s = -std::numeric_limits<double>::infinity();
  double busy_energy_joules = 0;
  for (const JobRecord& job : run.jobs) {
    first_submit_s = std::min(first_submit_s, job.submit_s);
    s.cost_usd += job.cost_usd;
    busy_energy_joules += job.busy_energy_joules;
    s.cross_node_bytes += job.cross_node_bytes;
    s.preemptions += job.preemptions;
    const bool has_deadline = std::isfinite(job.deadline_s);
    if (job.dropped_s >= 0) {
      // Not finished, and left out of the JCT figures (as Gavel leaves its failed jobs out of
      // its average); its end still ends the run (makespan: Gavel's last log line).
      ++s.jobs_dropped;
      last_finish_s = std::max(last_finish_s, job.dropped_s);
    }
    if (!job.finished()) {
      if (has_deadline) ++s.deadline_misses;  // a cut-off job cannot have met its deadline
      continue;
    }
    ++s.jobs_finished;
    if (has_deadline && job.finish_s > job.deadline_s) ++s.deadline_misses;
    last_finish_s = std::max(last_finish_s, job.finish_s);
    jct.push_back(job.jct_s());
    if (job.first_start_s >= 0) queueing.push_back(job.queueing_delay_s());
    if (job.ideal_runtime_s > 0) slowdown.push_back(job.jct_s() / job.ideal_runtime_s);
  }
  s.jct_s = Describe(jct);
  s.queueing_delay_s = Describe(std::move(queueing));
  s.slowdown = Describe(slowdown);

  // Makespan: first submit to last finish; 0 when nothing finished.
  if (s.jobs_finished > 0) s.makespan_s = FiniteOrZero(std::max(0.0, last_finish_s - first_submit_s));

  if (s.makespan_s > 0 && run.total_devices > 0) {
    const double busy_device_s = IntegrateTimeline(run.timeline, BusyDevices, first_submit_s, last_finish_s);
    s.utilisation = FiniteOrZero(busy_device_s / (run.total_devices * s.makespan_s));
  }
  s.energy_joules = FiniteOrZero(run.idle_power_watts * s.makespan_s + busy_energy_joules);

  // Jain et al. 1984: J = (sum x)^2 / (n * sum x^2), x_j = ideal / JCT (1 = ran at ideal speed).
  // Finish-time fairness over the same jobs. Jobs with no ideal runtime or a zero JCT are left
  // out: their ratio is undefined.
  const StepIntegral active(run.timeline, ActiveJobs);
  double sum_x = 0, sum_x2 = 0, sum_rho = 0;
  long long n = 0;
  for (const JobRecord& job : run.jobs) {
    if (!job.finished() || job.ideal_runtime_s <= 0 || job.jct_s() <= 0) continue;
    const double x = job.ideal_runtime_s / job.jct_s();
    const double rho = FinishTimeFairness(job, active, run.total_devices);
    if (!std::isfinite(x) || !std::isfinite(rho)) continue;
    sum_x += x;
    sum_x2 += x * x;
    sum_rho += rho;
    s.ftf_max = std::max(s.ftf_max, rho);
    ++n;
  }
  if (n > 0) {
    s.jain_fairness = FiniteOrZero(sum_x * sum_x / (static_cast<double>(n) * sum_x2));
    s.ftf_mean = sum_rho / static_cast<double>(n);
  }
  s.cost_usd = FiniteOrZero(s.cost_usd);
  s.cross_node_bytes = FiniteOrZero(s.cross_node_bytes);
  for (const LinkPeak& link : run.link_peaks) {
    double& peak = link.link.rfind("uplink:", 0) == 0 ? s.peak_uplink_load_Bps : s.peak_nic_load_Bps;
    peak = std::max(peak, link.peak_Bps);
    if (link.capacity_Bps > 0) s.peak_link_utilisation = std::max(s.peak_link_utilisation, link.peak_Bps / link.capacity_Bps);
  }
  return s;
}

}  // namespace hetsched
