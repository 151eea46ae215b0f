// The pool's windows and their offered loads, for RLPTO's trainer and experiment
// (rlpto_training.h).
#include "hetsched/experiments/rlpto_training.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace hetsched {

std::vector<double> DiscountedReturns(const std::vector<double>& decision_time_s,
                                      const std::vector<std::pair<double, double>>& rewards, double gamma,
                                      double round_s) {
  // tail[k] = sum over k' >= k of gamma^((t_k' - t_k) / round) r_k'.
  std::vector<double> tail(rewards.size() + 1, 0.0);
  for (size_t k = rewards.size(); k-- > 0;) {
    const double next = k + 1 < rewards.size()
                            ? std::pow(gamma, (rewards[k + 1].first - rewards[k].first) / round_s) * tail[k + 1]
                            : 0.0;
    tail[k] = rewards[k].second + next;
  }
  std::vector<double> out(decision_time_s.size(), 0.0);
  size_t k = rewards.size();
  for (size_t i = decision_time_s.size(); i-- > 0;) {
    // First reward strictly after the decision (k only moves left as decisions go back in time).
    while (k > 0 && rewards[k - 1].first > decision_time_s[i]) --k;
    if (k < rewards.size()) out[i] = std::pow(gamma, (rewards[k].first - decision_time_s[i]) / round_s) * tail[k];
  }
  return out;
}

Workload TraceWindow(const Workload& all, size_t begin, size_t end) {
  Workload w;
  w.source = fmt::format("{} jobs {}..{}", all.source, begin, end - 1);
  w.runtime_device = all.runtime_device;  // the jobs keep their trace run times (JobTruth::runtime_s)
  const double t0 = all.jobs[begin].spec.submit_time_s;
  for (size_t i = begin; i < end; ++i) {
    Job j = all.jobs[i];
    j.spec.id = static_cast<JobId>(i - begin);
    j.spec.submit_time_s -= t0;
    if (j.spec.deadline_s != kNoDeadline) j.spec.deadline_s -= t0;
    w.jobs.push_back(std::move(j));
  }
  return w;
}

double OfferedLoad(const Workload& w, const Cluster& cluster, const MeasuredThroughputs* table) {
  if (w.jobs.empty()) return 0;
  double demand_gpu_s = 0, first = w.jobs.front().spec.submit_time_s, last = first;
  for (const Job& j : w.jobs) {
    const JobSpec& spec = j.spec;
    first = std::min(first, spec.submit_time_s);
    last = std::max(last, spec.submit_time_s);
    double fastest = 0;  // steps/s on its fastest allowed type present, consolidated
    const int index = table != nullptr ? table->JobTypeIndex(j.truth.measured_job_type) : -1;
    if (index >= 0) {
      for (DeviceTypeId t : cluster.present_types()) {
        if (spec.AllowsType(t, cluster.device_catalog())) fastest = std::max(fastest, table->StepsPerSecond(index, t, spec.num_gpus, true));
      }
    }
    double ideal_s = 0;
    if (fastest > 0 && j.truth.total_iterations > 0) {
      ideal_s = j.truth.total_iterations / fastest;
    } else if (j.truth.runtime_s > 0) {
      ideal_s = j.truth.runtime_s;
    } else if (spec.estimated_runtime_s > 0) {
      ideal_s = spec.estimated_runtime_s;
    }
    demand_gpu_s += spec.num_gpus * ideal_s;
  }
  const double gpus = std::max(1, cluster.num_devices());
  return demand_gpu_s / (std::max(1.0, last - first) * gpus);
}

std::vector<PoolWindowLoad> PoolWindowLoads(const Workload& pool, size_t jobs, size_t stride, const Cluster& cluster,
                                            const MeasuredThroughputs* table) {
  std::vector<PoolWindowLoad> out;
  const size_t last = pool.jobs.size() - jobs;
  for (size_t start = 0;; start = std::min(last, start + stride)) {
    out.push_back({start, OfferedLoad(TraceWindow(pool, start, start + jobs), cluster, table)});
    if (start == last) break;
  }
  return out;
}

std::vector<size_t> WindowsByLoadQuantile(std::vector<PoolWindowLoad> loads, int k) {
  std::sort(loads.begin(), loads.end(), [](const PoolWindowLoad& a, const PoolWindowLoad& b) {
    return a.load != b.load ? a.load < b.load : a.start < b.start;
  });
  std::vector<size_t> out;
  const size_t n = loads.size();
  for (int q = 0; q < k; ++q) {
    // Quantile q / (k - 1) (k = 1: the median); the next unused window if taken.
    size_t i = k > 1 ? static_cast<size_t>(std::lround(static_cast<double>(q) * static_cast<double>(n - 1) / (k - 1))) : (n - 1) / 2;
    while (std::find(out.begin(), out.end(), loads[i].start) != out.end()) i = (i + 1) % n;
    out.push_back(loads[i].start);
  }
  return out;
}

std::pair<double, double> LoadRange(const std::vector<PoolWindowLoad>& loads) {
  double lo = loads.front().load, hi = lo;
  for (const PoolWindowLoad& l : loads) {
    lo = std::min(lo, l.load);
    hi = std::max(hi, l.load);
  }
  const double widen = std::sqrt(hi / lo);
  return {lo / widen, hi * widen};
}

}  // namespace hetsched
