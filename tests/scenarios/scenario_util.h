// Shared by the scenario tests: the real traces and clusters they run on (loaded once per test
// binary; every run only reads them), and the checks that must hold after any complete run,
// whatever the policy or placer.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/trace/trace.h"

namespace hetsched::scenario_util {

inline std::string SourcePath(const std::string& relative) {
  return std::string(HETSCHED_SOURCE_DIR) + "/" + relative;
}

// Reads a real trace from data/real/. A failure is a test failure (and an empty workload).
inline Workload MustReadTrace(const std::string& relative, const std::string& format, long long max_jobs) {
  TraceReadOptions options;
  options.max_jobs = max_jobs;
  auto workload = ReadTrace(SourcePath(relative), format, options, DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
  EXPECT_TRUE(workload.ok()) << workload.status().ToString();
  return workload.ok() ? std::move(workload).value() : Workload{};
}

// The demo's heterogeneous cluster: 32 v100 + 16 p100 + 16 k80 + 32 a100 GPUs and 2 CPU nodes.
inline const Cluster& DefaultTestCluster() {
  static const Cluster cluster = [] {
    auto c = DefaultCluster(DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn());
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : Cluster();
  }();
  return cluster;
}

// Gavel's simulated heterogeneous cluster (Narayanan et al., OSDI 2020, section 7: 36 V100,
// 36 P100 and 36 K80 GPUs), 4 GPUs per server.
inline const Cluster& GavelShorthandCluster() {
  static const Cluster cluster = [] {
    auto c = MakeShorthandCluster({{"v100", 36}, {"p100", 36}, {"k80", 36}}, 4, DeviceCatalog::BuiltIn(),
                                  LinkCatalog::BuiltIn());
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : Cluster();
  }();
  return cluster;
}

struct InvariantOptions {
  bool preemptive = true;  // false: the policy must never preempt
  // The policy may run a job on another device count than it requested (rlpto's shrinking): the
  // per-job bounds of 3 and 4 below do not apply. Not even the runtime bound: the ideal is on the
  // requested count, and fewer devices can be faster (Gavel's measured throughputs: a job spread
  // over two servers can be slower than on the four GPUs of one).
  bool elastic = false;
};

// Checks what must hold after a complete run (every job finished, nothing cut off by max_time):
//  1. Every job of the workload is recorded exactly once, in id order, and finished.
//  2. submit <= first start <= finish for every job.
//  3. A job never runs faster than its ideal (alone, packed, fastest allowed type, no
//     contention): gpu_seconds >= num_gpus x ideal_runtime and finish - first_start >= ideal.
//  4. Work conserved: the sum of per-job gpu_seconds equals the integral of busy devices over
//     the timeline (1e-6 relative). Non-preemptive runs also hold each job's devices without a
//     break, so gpu_seconds == num_gpus x (finish - first_start), and (the job never changes
//     type) the per-type integral equals the gpu_seconds of the jobs that ran on that type.
//     Preemptive runs hold at most that: gpu_seconds <= num_gpus x (finish - first_start).
//  5. The timeline is a step function in strictly increasing time; in no sample does the busy
//     count exceed the cluster, nor a type's busy count exceed that type's device count; the
//     per-type counts add up to the total; the run ends empty at the last job's finish.
//  6. Preemptions only where the policy may preempt.
inline void CheckRunInvariants(const RunRecord& run, const Workload& workload, const InvariantOptions& opt) {
  // 1.
  ASSERT_EQ(run.jobs_rejected, 0);
  ASSERT_EQ(run.jobs.size(), workload.jobs.size());
  double sum_gpu_seconds = 0;
  double last_finish_s = 0;
  long long preemptions = 0;
  std::map<std::string, double> gpu_seconds_by_type;
  for (size_t i = 0; i < run.jobs.size(); ++i) {
    const JobRecord& job = run.jobs[i];
    SCOPED_TRACE("job " + std::to_string(job.id) + " '" + job.name + "'");
    ASSERT_EQ(job.id, static_cast<JobId>(i));
    ASSERT_EQ(job.num_gpus, workload.jobs[i].spec.num_gpus);
    ASSERT_TRUE(job.finished());
    // 2.
    EXPECT_GE(job.first_start_s, job.submit_s);
    EXPECT_GE(job.finish_s, job.first_start_s);
    EXPECT_DOUBLE_EQ(job.submit_s, workload.jobs[i].spec.submit_time_s);
    // 3.
    const double tol = 1e-6;
    EXPECT_GT(job.ideal_runtime_s, 0);
    if (!opt.elastic) {
      EXPECT_GE(job.finish_s - job.first_start_s, job.ideal_runtime_s * (1 - tol));
      EXPECT_GE(job.gpu_seconds, job.num_gpus * job.ideal_runtime_s * (1 - tol));
    }
    // 4. (per job)
    const double held_bound = job.num_gpus * (job.finish_s - job.first_start_s);
    if (opt.elastic) {
      EXPECT_GT(job.gpu_seconds, 0);
    } else if (opt.preemptive) {
      EXPECT_LE(job.gpu_seconds, held_bound * (1 + tol) + tol);
      // Each restart after a preemption costs up to restart_cost_s before progress resumes, but
      // a job preempted again inside that window pays less, so only the ideal bound holds.
    } else {
      EXPECT_NEAR(job.gpu_seconds, held_bound, held_bound * tol + tol);
    }
    EXPECT_FALSE(job.device_type_name.empty());
    // 6.
    if (!opt.preemptive) {
      EXPECT_EQ(job.preemptions, 0);
    }
    preemptions += job.preemptions;
    sum_gpu_seconds += job.gpu_seconds;
    gpu_seconds_by_type[job.device_type_name] += job.gpu_seconds;
    last_finish_s = std::max(last_finish_s, job.finish_s);
  }
  if (!opt.preemptive) {
    EXPECT_EQ(preemptions, 0);
  }

  // 5.
  ASSERT_FALSE(run.timeline.empty());
  ASSERT_EQ(run.device_types.size(), run.devices_per_type.size());
  int cluster_devices = 0;
  for (int n : run.devices_per_type) cluster_devices += n;
  EXPECT_EQ(cluster_devices, run.total_devices);
  double busy_integral = 0;
  std::vector<double> busy_integral_by_type(run.device_types.size(), 0.0);
  int peak_busy = 0;
  ASSERT_EQ(run.timeline_busy_by_type.size(), run.timeline.size() * run.device_types.size());
  for (size_t k = 0; k < run.timeline.size(); ++k) {
    const TimelineSample& s = run.timeline[k];
    const std::span<const int> busy_by_type = run.BusyByType(k);
    SCOPED_TRACE("timeline sample " + std::to_string(k) + " at t=" + std::to_string(s.time_s));
    ASSERT_EQ(busy_by_type.size(), run.device_types.size());
    EXPECT_GE(s.busy_devices, 0);
    EXPECT_LE(s.busy_devices, run.total_devices);
    EXPECT_GE(s.running_jobs, 0);
    EXPECT_GE(s.pending_jobs, 0);
    EXPECT_LE(s.running_jobs, s.busy_devices);  // every running job holds at least one device
    int by_type_total = 0;
    for (size_t t = 0; t < busy_by_type.size(); ++t) {
      EXPECT_GE(busy_by_type[t], 0);
      EXPECT_LE(busy_by_type[t], run.devices_per_type[t]) << run.device_types[t];
      by_type_total += busy_by_type[t];
    }
    EXPECT_EQ(by_type_total, s.busy_devices);
    peak_busy = std::max(peak_busy, s.busy_devices);
    if (k + 1 < run.timeline.size()) {
      const double dt = run.timeline[k + 1].time_s - s.time_s;
      ASSERT_GT(dt, 0);
      busy_integral += s.busy_devices * dt;
      for (size_t t = 0; t < busy_by_type.size(); ++t) busy_integral_by_type[t] += busy_by_type[t] * dt;
    }
  }
  const TimelineSample& last = run.timeline.back();
  EXPECT_EQ(last.busy_devices, 0);
  EXPECT_EQ(last.running_jobs, 0);
  EXPECT_EQ(last.pending_jobs, 0);
  EXPECT_DOUBLE_EQ(last.time_s, last_finish_s);
  EXPECT_GT(peak_busy, 0);

  // 4. (whole run)
  EXPECT_NEAR(busy_integral, sum_gpu_seconds, 1e-6 * sum_gpu_seconds);
  if (!opt.preemptive) {
    for (size_t t = 0; t < run.device_types.size(); ++t) {
      const auto it = gpu_seconds_by_type.find(run.device_types[t]);
      const double expected = it == gpu_seconds_by_type.end() ? 0.0 : it->second;
      EXPECT_NEAR(busy_integral_by_type[t], expected, 1e-6 * sum_gpu_seconds) << run.device_types[t];
    }
  }
}

}  // namespace hetsched::scenario_util
