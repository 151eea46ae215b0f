// Gavel policy benchmark (docs/perf-gavel.md). Prints figures; asserts nothing.
//   gavel_bench [TRACE] [THROUGHPUTS]
// 1. A whole 2,000-job simulation of msr_seed0_6214e9 (rate scaled to 3 jobs/h) on 36 V100 +
//    36 P100 + 36 K80 (4 per server) with gavel-las, every LP re-solve included, one core.
// 2. One gavel-las re-solve (two warm-started LPs) at 100 and 2,000 active jobs drawn from the
//    trace's jobs (T from the measured table), with one job replaced between re-solves (the
//    active set changes): p50/p99 over 200 re-solves; with class aggregation (the policy's
//    default) and without it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fmt/core.h>
#include <string>
#include <vector>

#include "hetsched/metrics/summary.h"
#include "hetsched/model/cluster.h"
#include "hetsched/perf/validation.h"
#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/sim/runner.h"
#include "hetsched/trace/trace.h"
#include "hetsched/util/memory.h"

using namespace hetsched;

namespace {

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

void ResolveBench(const Workload& w, const MeasuredThroughputs& table, const std::vector<DeviceTypeId>& types,
                  size_t active, bool aggregate) {
  gavel::AllocationProblem p;
  p.capacity = {36, 36, 36};
  auto job = [&](size_t i) {
    const JobSpec& s = w.jobs[i % w.jobs.size()].spec;
    gavel::AllocationJob j;
    j.id = static_cast<JobId>(i);
    j.num_gpus = s.num_gpus;
    for (DeviceTypeId t : types) {
      j.throughput.push_back(table.StepsPerSecond(table.JobTypeIndex(s.name), t, s.num_gpus, true));
    }
    return j;
  };
  for (size_t i = 0; i < active; ++i) p.jobs.push_back(job(i));
  lp::WarmStartLpSolver solver;
  gavel::MaxMinOptions o;
  o.aggregate = aggregate;
  std::vector<double> ms;
  size_t next = active;
  for (int r = 0; r < 220; ++r) {
    p.jobs[static_cast<size_t>(r) % active] = job(next++);  // one job leaves, one arrives
    const auto t0 = std::chrono::steady_clock::now();
    auto a = gavel::SolveMaxMinFairness(p, o, solver);
    const double dt = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!a.ok() || a->status != lp::SolveStatus::kOptimal) {
      fmt::print("re-solve failed\n");
      return;
    }
    if (r >= 20) ms.push_back(dt);  // first re-solves are cold
  }
  fmt::print("re-solve  active={:5d} aggregate={:<5}  p50 {:8.3f} ms  p99 {:8.3f} ms  ({} warm starts)\n", active,
             aggregate, Percentile(ms, 0.5), Percentile(ms, 0.99), solver.warm_starts());
}

}  // namespace

int main(int argc, char** argv) {
  hetsched::KeepFreedHeapMemory();  // as the CLI's process does
  const std::string trace = argc > 1 ? argv[1] : "data/real/gavel/traces/msr_seed0_6214e9.trace";
  const std::string csv = argc > 2 ? argv[2] : "data/real/gavel/throughputs.csv";
  const auto& devices = DeviceCatalog::BuiltIn();
  auto cluster = MakeShorthandCluster({{"v100", 36}, {"p100", 36}, {"k80", 36}}, 4, devices, LinkCatalog::BuiltIn());
  auto w = ReadTrace(trace, "gavel", TraceReadOptions{}, devices, ModelZoo::BuiltIn());
  auto table = MeasuredThroughputs::Load(csv, devices);
  if (!cluster.ok() || !w.ok() || !table.ok()) {
    fmt::print(stderr, "gavel_bench: {}\n", !cluster.ok() ? cluster.status().message()
                                            : !w.ok()     ? w.status().message()
                                                          : table.status().message());
    return 1;
  }
  Workload scaled = *w;
  const double span_h = (scaled.jobs.back().spec.submit_time_s - scaled.jobs.front().spec.submit_time_s) / 3600;
  const double scale = (static_cast<double>(scaled.jobs.size() - 1) / span_h) / 3.0;
  for (Job& j : scaled.jobs) j.spec.submit_time_s *= scale;
  for (const std::string policy : {"gavel-las", "gavel-las-agnostic"}) {
    MethodChoice c;
    c.policy = policy;
    c.policy_options.Set("profile", csv);
    SimOptions o;
    o.measured_throughputs = &*table;
    const auto t0 = std::chrono::steady_clock::now();
    auto run = RunSimulation(*cluster, ModelZoo::BuiltIn(), scaled, c, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!run.ok()) {
      fmt::print(stderr, "gavel_bench: {}\n", run.status().message());
      return 1;
    }
    fmt::print("whole run {:<20} {} jobs  {:7.3f} s wall (incl. every LP re-solve)  {} events  {} Schedule calls\n",
               policy, run->jobs.size(), s, run->events, run->scheduler_calls);
  }
  std::vector<DeviceTypeId> types = cluster->present_types();
  for (size_t active : {size_t{100}, size_t{2000}}) {
    for (bool agg : {true, false}) ResolveBench(*w, *table, types, active, agg);
  }
  return 0;
}
