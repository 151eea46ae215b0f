#include "hetsched/sim/runner.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/planner.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/text.h"

namespace hetsched {

Result<SimMethods> CreateMethods(const MethodChoice& choice, unsigned long long seed) {
  SimMethods methods;
  auto seeded = [seed](Options o) {
    o.SetDefault("seed", std::to_string(seed));
    return o;
  };
  auto scheduler = Registry<JobScheduler>::Instance().Create(choice.policy, seeded(choice.policy_options));
  if (!scheduler.ok()) return scheduler.status();
  auto placer = Registry<Placer>::Instance().Create(choice.placer, seeded(choice.placer_options));
  if (!placer.ok()) return placer.status();
  auto planner = Registry<Planner>::Instance().Create(choice.planner, seeded(choice.planner_options));
  if (!planner.ok()) return planner.status();
  methods.scheduler = std::move(scheduler).value();
  methods.placer = std::move(placer).value();
  methods.planner = std::move(planner).value();
  return methods;
}

Result<std::pair<std::string, Options>> ParseMethodSpec(const std::string& spec) {
  auto parts = Split(spec, ':');
  const std::string name(Trim(parts[0]));
  if (name.empty()) return Status::InvalidArgument("method '" + spec + "': empty name");
  std::vector<std::string> items;
  for (size_t i = 1; i < parts.size(); ++i) items.emplace_back(parts[i]);
  auto options = Options::Parse(items);
  if (!options.ok()) return options.status().WithContext("method '" + spec + "'");
  return std::make_pair(name, std::move(options).value());
}

Result<RunRecord> RunSimulation(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                                const MethodChoice& choice, const SimOptions& options) {
  auto methods = CreateMethods(choice, options.seed);
  if (!methods.ok()) return methods.status();
  return Simulate(cluster, zoo, workload, std::move(methods).value(), options);
}

std::vector<Result<RunRecord>> RunMany(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                                       const std::vector<MethodChoice>& choices, const SimOptions& options,
                                       int threads) {
  std::vector<std::optional<Result<RunRecord>>> slots(choices.size());
  std::atomic<size_t> next{0};
  // One progress report for all the runs: jobs finished over every run's jobs.
  const long long per_run = static_cast<long long>(workload.jobs.size());
  const long long all_jobs = per_run * static_cast<long long>(choices.size());
  std::vector<std::atomic<long long>> finished(choices.size());
  std::mutex report;
  auto worker = [&]() {
    for (size_t i = next++; i < choices.size(); i = next++) {
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
      slots[i].emplace(RunSimulation(cluster, zoo, workload, choices[i], opts));
      if (options.progress) opts.progress(per_run, per_run);  // a run that ended early counts as done
    }
  };
  const int n = std::max(1, std::min<int>(threads, static_cast<int>(choices.size())));
  std::vector<std::thread> pool;
  for (int i = 1; i < n; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  std::vector<Result<RunRecord>> out;
  out.reserve(choices.size());
  for (auto& s : slots) out.push_back(std::move(*s));
  return out;
}

}  // namespace hetsched
