#include "hetsched/sim/runner.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace hetsched {

namespace {

// Runs `runs` simulations on up to `threads` threads; `run(i, options)` makes run i. One progress
// report for all of them: jobs finished over every run's jobs.
std::vector<Result<RunRecord>> RunEach(size_t runs, long long per_run, const SimOptions& options, int threads,
                                       const std::function<Result<RunRecord>(size_t, const SimOptions&)>& run) {
  std::vector<std::optional<Result<RunRecord>>> slots(runs);
  std::atomic<size_t> next{0};
  const long long all_jobs = per_run * static_cast<long long>(runs);
  std::vector<std::atomic<long long>> finished(runs);
  std::mutex report;
  auto worker = [&]() {
    for (size_t i = next++; i < runs; i = next++) {
      SimOptions opts = options;
      if (options.progress) {
        opts.progress = [&, i](long long done, long long /*total*/) {
          finished[i] = done;
          long long sum = 0;
          for (const auto& f : finished) sum += f;
          const std::lock_guard<std::mutex> lock(report);
          options.progress(sum, all_jobs);
        };
      }
      slots[i].emplace(run(i, opts));
      if (options.progress) opts.progress(per_run, per_run);  // a run that ended early counts as done
    }
  };
  const int n = std::max(1, std::min<int>(threads, static_cast<int>(runs)));
  std::vector<std::thread> pool;
  for (int i = 1; i < n; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  std::vector<Result<RunRecord>> out;
  out.reserve(runs);
  for (auto& s : slots) out.push_back(std::move(*s));
  return out;
}

}  // namespace

Result<RunRecord> RunSimulation(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                                const MethodChoice& choice, const SimOptions& options) {
  auto methods = CreateMethods(choice, options.seed);
  if (!methods.ok()) return methods.status();
  return Simulate(cluster, zoo, workload, std::move(methods).value(), options);
}

std::vector<Result<RunRecord>> RunMany(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                                       const std::vector<MethodChoice>& choices, const SimOptions& options,
                                       int threads) {
  // Each run builds its methods on its own thread, when it starts.
  return RunEach(choices.size(), static_cast<long long>(workload.jobs.size()), options, threads,
                 [&](size_t i, const SimOptions& opts) { return RunSimulation(cluster, zoo, workload, choices[i], opts); });
}

std::vector<Result<RunRecord>> RunMany(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                                       std::vector<Methods> methods, const SimOptions& options, int threads) {
  return RunEach(methods.size(), static_cast<long long>(workload.jobs.size()), options, threads,
                 [&](size_t i, const SimOptions& opts) { return Simulate(cluster, zoo, workload, std::move(methods[i]), opts); });
}

}  // namespace hetsched
