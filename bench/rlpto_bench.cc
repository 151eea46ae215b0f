// RLPTO benchmark (docs/PERFORMANCE.md, "RLPTO"). Prints figures; asserts nothing.
//   rlpto_bench [jobs] [arrivals per second]
// 1. One allocation decision (a Schedule() call of the rlpto scheduler) with at least 1,000 jobs
//    waiting on a 10,000-GPU cluster (3,336 V100 + 3,332 P100 + 3,332 K80, 4 per server): a
//    synthetic burst of 8,000 jobs at 40 jobs/s, so that the queue grows past 1,000,
//    simulated to the end; p50/p99/max over the calls made with >= 1,000 jobs pending
//    (target: p99 < 5 ms). With the allocation agent (an untrained agent of the same size as a
//    trained one: the cost does not depend on the weights) and with the rule allocation.
// 2. ARIMA order selection (p, q <= 2, d <= 1) on 48..500 windows, as the scheduler refits its
//    demand forecast (once per 24 windows, outside Schedule()).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "hetsched/forecast/arima.h"
#include "hetsched/learn/allocation_agent.h"
#include "hetsched/model/cluster.h"
#include "hetsched/policies/rlpto.h"
#include "hetsched/sim/runner.h"
#include "hetsched/trace/trace.h"
#include "hetsched/util/rng.h"

using namespace hetsched;

namespace {

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

int DecisionBench(const Cluster& cluster, const Workload& workload, const std::string& model, const char* label) {
  MethodChoice choice;
  choice.policy = "rlpto";
  if (!model.empty()) choice.policy_options.Set("model", model);
  SimOptions opt;
  opt.seed = 7;
  opt.skip_unfit_jobs = true;
  opt.check_invariants = false;
  std::vector<std::pair<double, long long>> timings;
  opt.decision_timings = &timings;
  const auto t0 = std::chrono::steady_clock::now();
  auto run = RunSimulation(cluster, ModelZoo::BuiltIn(), workload, choice, opt);
  const double sim_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!run.ok()) {
    std::fprintf(stderr, "%s\n", run.status().ToString().c_str());
    return 1;
  }
  std::vector<double> loaded;
  long long max_pending = 0;
  for (const auto& [dt, pending] : timings) {
    max_pending = std::max(max_pending, pending);
    if (pending >= 1000) loaded.push_back(dt * 1e3);
  }
  std::printf("rlpto (%s), %d GPUs, %zu jobs: %zu decisions, %zu with >= 1,000 pending (max %lld): p50 %.3f ms, "
              "p99 %.3f ms, max %.3f ms; whole simulation %.1f s\n",
              label, cluster.num_devices(), workload.jobs.size(), timings.size(), loaded.size(), max_pending,
              Percentile(loaded, 0.5), Percentile(loaded, 0.99), loaded.empty() ? 0.0 : *std::max_element(loaded.begin(), loaded.end()),
              sim_s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const long long jobs = argc > 1 ? std::atoll(argv[1]) : 8000;
  const double per_second = argc > 2 ? std::atof(argv[2]) : 40;
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  auto cluster = MakeShorthandCluster({{"v100", 3336}, {"p100", 3332}, {"k80", 3332}}, 4, devices, LinkCatalog::BuiltIn());
  if (!cluster.ok()) {
    std::fprintf(stderr, "%s\n", cluster.status().ToString().c_str());
    return 1;
  }
  SyntheticOptions so;
  so.num_jobs = jobs;
  so.seed = 7;
  // A burst: 40 jobs/s of ~2.3 GPUs each fill the 10,000 GPUs in about two minutes, and the queue
  // then passes 1,000 jobs.
  so.arrival_rate_per_hour = per_second * 3600;
  auto workload = GenerateSynthetic(so, devices, ModelZoo::BuiltIn());
  if (!workload.ok()) {
    std::fprintf(stderr, "%s\n", workload.status().ToString().c_str());
    return 1;
  }
  learn::AllocationAgentConfig config;
  config.state_dim = kRlptoStateDim;
  config.actions = kRlptoActions;
  learn::AllocationAgent agent(config);
  const std::string model = (std::filesystem::temp_directory_path() / "hetsched_rlpto_bench_agent.bin").string();
  if (!agent.Save(model).ok()) return 1;
  if (DecisionBench(*cluster, *workload, model, "agent") != 0) return 1;
  if (DecisionBench(*cluster, *workload, "", "rule") != 0) return 1;
  std::filesystem::remove(model);

  Rng rng(3);
  for (int n : {48, 200, 500}) {
    std::vector<double> y;
    double prev = 0;
    for (int t = 0; t < n; ++t) y.push_back(prev = 20 + 0.6 * (prev - 20) + 5 * rng.Normal());
    std::vector<double> ms;
    for (int r = 0; r < 20; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      auto fit = forecast::SelectArima(y, {.max_p = 2, .max_d = 1, .max_q = 1});
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      if (!fit.ok()) return 1;
    }
    std::printf("ARIMA order selection (p<=2, d<=1, q<=1) on %d windows: p50 %.3f ms, max %.3f ms\n", n,
                Percentile(ms, 0.5), *std::max_element(ms.begin(), ms.end()));
  }
  return 0;
}
