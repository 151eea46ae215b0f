// RLPTO benchmark (docs/PERFORMANCE.md, "RLPTO"). Prints figures; asserts nothing.
//   rlpto_bench [jobs] [arrivals per second]
// 1. One allocation decision (a Schedule() call of the rlpto scheduler) with at least 1,000 jobs
//    waiting on a 10,000-GPU cluster (3,336 V100 + 3,332 P100 + 3,332 K80, 4 per server): a
//    synthetic burst of 8,000 jobs at 40 jobs/s, so that the queue grows past 1,000,
//    simulated to the end; p50/p99/max over the calls made with >= 1,000 jobs pending
//    (target: p99 < 5 ms). With the allocation agent (an untrained agent of the same size as a
//    trained one: the forward pass does not depend on the weights; its arbitrary actions resize
//    or move up to `moves` running jobs per round, the most a trained one may), with the
//    heuristic and with the rule allocation.
// 2. ARIMA order selection (p, q <= 2, d <= 1) on 48..500 windows, as the scheduler refits its
//    demand forecast (once per 24 windows, outside Schedule()).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <filesystem>
#include <string>
#include <vector>

#include "hetsched/forecast/arima.h"
#include "hetsched/learn/allocation_agent.h"
#include "hetsched/model/cluster.h"
#include "hetsched/policies/rlpto/rlpto.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sim/runner.h"
#include "hetsched/sim/simulator.h"
#include "hetsched/trace/trace.h"
#include "hetsched/util/rng.h"

using namespace hetsched;

namespace {

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

// Forwards every call to the scheduler and measures the CPU time of this thread in each
// Schedule() (CLOCK_THREAD_CPUTIME_ID: the time the decision computed, without the time the
// thread waited for a core; on the shared machine the wall time of a call also holds other
// processes' time slices).
class CpuTimed : public JobScheduler {
 public:
  CpuTimed(std::unique_ptr<JobScheduler> inner, std::vector<double>* cpu_s) : inner_(std::move(inner)), cpu_s_(cpu_s) {}
  std::string_view name() const override { return inner_->name(); }
  double round_period_s() const override { return inner_->round_period_s(); }
  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override { inner_->OnJobSubmitted(job, ctx); }
  void OnJobFinished(const JobStatus& job, SchedContext& ctx) override { inner_->OnJobFinished(job, ctx); }
  void OnJobRequeued(const JobStatus& job, SchedContext& ctx) override { inner_->OnJobRequeued(job, ctx); }
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { inner_->OnJobRunning(job, ctx); }
  void Schedule(SchedContext& ctx) override {
    const double t0 = ThreadCpuS();
    inner_->Schedule(ctx);
    cpu_s_->push_back(ThreadCpuS() - t0);
  }

 private:
  static double ThreadCpuS() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  std::unique_ptr<JobScheduler> inner_;
  std::vector<double>* cpu_s_;
};

int DecisionBench(const Cluster& cluster, const Workload& workload, const std::string& model, const char* label,
                  bool heuristic = false) {
  MethodChoice choice;
  choice.policy = "rlpto";
  if (!model.empty()) choice.policy_options.Set("model", model);
  if (heuristic) choice.policy_options.Set("allocation", "heuristic");
  SimOptions opt;
  opt.seed = 7;
  opt.skip_unfit_jobs = true;
  opt.check_invariants = false;
  std::vector<std::pair<double, long long>> timings;
  std::vector<double> cpu_s;
  opt.decision_timing = [&timings](double s, long long pending) { timings.emplace_back(s, pending); };
  auto methods = CreateMethods(choice, opt.seed);
  if (!methods.ok()) {
    std::fprintf(stderr, "%s\n", methods.status().ToString().c_str());
    return 1;
  }
  methods->scheduler = std::make_unique<CpuTimed>(std::move(methods->scheduler), &cpu_s);
  const auto t0 = std::chrono::steady_clock::now();
  auto run = Simulate(cluster, ModelZoo::BuiltIn(), workload, std::move(methods).value(), opt);
  const double sim_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!run.ok() || cpu_s.size() != timings.size()) {
    std::fprintf(stderr, "%s\n", run.ok() ? "timings do not pair up" : run.status().ToString().c_str());
    return 1;
  }
  std::vector<double> wall, cpu;
  long long max_pending = 0;
  for (size_t i = 0; i < timings.size(); ++i) {
    max_pending = std::max(max_pending, timings[i].second);
    if (timings[i].second >= 1000) {
      wall.push_back(timings[i].first * 1e3);
      cpu.push_back(cpu_s[i] * 1e3);
    }
  }
  const auto max_of = [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); };
  std::printf("rlpto (%s), %d GPUs, %zu jobs: %zu decisions, %zu with >= 1,000 pending (max %lld): wall p50 %.3f ms, "
              "p99 %.3f ms, max %.3f ms; thread CPU p50 %.3f ms, p99 %.3f ms, max %.3f ms; whole simulation %.1f s\n",
              label, cluster.num_devices(), workload.jobs.size(), timings.size(), wall.size(), max_pending, Percentile(wall, 0.5),
              Percentile(wall, 0.99), max_of(wall), Percentile(cpu, 0.5), Percentile(cpu, 0.99), max_of(cpu), sim_s);
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
  auto agent = learn::AllocationAgent::Create(config);
  if (!agent.ok()) {
    std::fprintf(stderr, "%s\n", agent.status().ToString().c_str());
    return 1;
  }
  const std::string model = (std::filesystem::temp_directory_path() / "hetsched_rlpto_bench_agent.bin").string();
  if (!agent->Save(model).ok()) return 1;
  if (DecisionBench(*cluster, *workload, model, "agent") != 0) return 1;
  if (DecisionBench(*cluster, *workload, "", "heuristic", true) != 0) return 1;
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
