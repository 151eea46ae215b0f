// The Slurm agent on a real local cluster (scripts/slurm/start-cluster.sh): (1) decision-to-release
// latency with 100 jobs pending: the time from the agent's StartJob (placement decided) to Slurm
// accepting `scontrol update` + `scontrol release`, per job; (2) whether the agent keeps up with
// a steady stream of submissions (default 20/s for 15 s): the lag from `sbatch --hold` returning
// to the job's release, early vs late in the stream. Prints figures; asserts nothing. Run from
// the repository root (it needs scripts/slurm/). Figures in docs/PERFORMANCE.md.
#include <fmt/core.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "hetsched/model/model_zoo.h"
#include "hetsched/sched/registry.h"
#include "hetsched/slurm/agent.h"
#include "hetsched/util/file_io.h"

using namespace hetsched;
using namespace hetsched::slurm;

namespace {

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

void PrintDistribution(const std::string& what, const std::vector<double>& ms) {
  double sum = 0;
  for (double x : ms) sum += x;
  fmt::print("  {:<44} n={:<4} mean {:7.1f}  median {:7.1f}  p95 {:7.1f}  max {:7.1f} ms\n", what, ms.size(),
             ms.empty() ? 0 : sum / static_cast<double>(ms.size()), Percentile(ms, 0.5), Percentile(ms, 0.95),
             ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end()));
}

AgentMethods Methods() {
  AgentMethods m;
  m.scheduler = std::move(Registry<JobScheduler>::Instance().Create("fifo", Options{})).value();
  m.placer = std::move(Registry<Placer>::Instance().Create("pack", Options{})).value();
  m.planner = std::move(Registry<Planner>::Instance().Create("data-parallel", Options{})).value();
  return m;
}

long long Submit(CommandRunner& runner, const std::string& work, const std::string& script) {
  auto r = runner.Run({"sbatch", "--parsable", "--hold", "--gpus=1", "-o", "/dev/null", "-D", work,
                       "--comment=hetsched model=resnet50 iterations=100", script});
  return r.ok() && r->exit_code == 0 ? std::atoll(r->out.c_str()) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  int pending = 100;
  double rate = 20, seconds = 15;
  int min_job_age = 300;  // start-cluster.sh's MinJobAge; --min-job-age changes it (scontrol reconfigure)
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--pending") pending = std::atoi(argv[i + 1]);
    if (k == "--rate") rate = std::atof(argv[i + 1]);
    if (k == "--seconds") seconds = std::atof(argv[i + 1]);
    if (k == "--min-job-age") min_job_age = std::atoi(argv[i + 1]);
  }
  char tmpl[] = "/tmp/hetsched-slurm-bench.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  const std::string root = tmpl, dir = root + "/cluster", work = root + "/work";
  std::filesystem::create_directories(work);
  PosixCommandRunner plain({}, 120);
  auto started = plain.Run({"scripts/slurm/start-cluster.sh", dir, "--a100", "4", "--v100", "4"});
  if (!started.ok() || started->exit_code != 0) {
    fmt::print(stderr, "cannot start the cluster (run from the repository root): {}\n",
               started.ok() ? started->err : started.status().message());
    return 1;
  }
  PosixCommandRunner runner({{"SLURM_CONF", dir + "/etc/slurm.conf"}}, 60);
  if (min_job_age != 300) {
    // squeue --json (22.05) ignores filters and lists every job kept for MinJobAge after it ends:
    // its cost, and so the agent's poll, grows with that.
    auto conf = ReadFile(dir + "/etc/slurm.conf");
    const std::string key = "MinJobAge=300";
    if (!conf.ok() || conf->find(key) == std::string::npos) return 1;
    conf->replace(conf->find(key), key.size(), "MinJobAge=" + std::to_string(min_job_age));
    (void)WriteFileAtomic(dir + "/etc/slurm.conf", *conf);
    (void)runner.Run({"scontrol", "reconfigure"});
  }
  const std::string script = work + "/job.sh";
  (void)WriteFileAtomic(script, "#!/bin/sh\nsleep 0.3\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  SystemClock clock;
  fmt::print("Slurm agent bench: 4 nodes x 4 A100 + 4 nodes x 8 V100 (48 GPUs), fifo + pack, 1-GPU jobs, "
             "MinJobAge={} s\n",
             min_job_age);

  // 1. Decision to release at `pending` pending jobs.
  for (int i = 0; i < pending; ++i) Submit(runner, work, script);
  {
    AgentOptions o;
    o.journal_path = work + "/journal1.jsonl";
    auto agent = Agent::Start(runner, clock, ModelZoo::BuiltIn(), Methods(), o);
    if (!agent.ok()) {
      fmt::print(stderr, "{}\n", agent.status().message());
      return 1;
    }
    const double cpu0 = CpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    (void)(*agent)->Step();  // admits all, places as many as fit
    const double step_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = CpuSeconds() - cpu0;
    std::vector<double> ms;
    for (double s : (*agent)->release_latencies_s()) ms.push_back(s * 1e3);
    fmt::print("\n1. {} jobs pending, one agent step (admit all, place what fits):\n", pending);
    PrintDistribution("decision -> release accepted, per job", ms);
    fmt::print("  step: {} released, wall {:.3f} s, agent CPU {:.3f} s (user+sys of this process; Slurm's own CPU not "
               "included)\n",
               ms.size(), step_s, cpu);
    const double deadline = clock.NowS() + 120;
    (void)(*agent)->Run([&] { return (*agent)->counts().finished >= pending || clock.NowS() > deadline; });
    fmt::print("  all {} finished: {}\n", pending, (*agent)->counts().finished >= pending ? "yes" : "NO");
  }

  // 2. A steady stream of submissions while the agent runs.
  {
    AgentOptions o;
    o.journal_path = work + "/journal2.jsonl";
    o.poll_interval_s = 0.1;
    auto agent = Agent::Start(runner, clock, ModelZoo::BuiltIn(), Methods(), o);
    if (!agent.ok()) return 1;
    std::mutex mu;
    std::map<long long, double> submitted_at;
    std::atomic<bool> done{false};
    std::thread submitter([&] {
      PosixCommandRunner own({{"SLURM_CONF", dir + "/etc/slurm.conf"}}, 60);
      const double start = clock.NowS();
      for (int k = 0; clock.NowS() - start < seconds; ++k) {
        const double due = start + k / rate;
        clock.SleepS(due - clock.NowS());
        const long long id = Submit(own, work, script);
        std::lock_guard<std::mutex> lock(mu);
        if (id > 0) submitted_at[id] = clock.NowS();
      }
      done = true;
    });
    const double cpu0 = CpuSeconds();
    const double t0 = clock.NowS();
    (void)(*agent)->Run([&] {
      std::lock_guard<std::mutex> lock(mu);
      return done && (*agent)->counts().finished >= static_cast<long long>(submitted_at.size());
    });
    const double wall = clock.NowS() - t0;
    const double cpu = CpuSeconds() - cpu0;
    submitter.join();
    // Lag from submission to release, from the journal's release records.
    auto journal = Journal::Open(o.journal_path, nullptr);
    // Admission (the agent saw the job and gave it to the policy) measures whether the agent keeps
    // up; release also waits for free GPUs, i.e. for the cluster's capacity.
    std::vector<double> early, late, admit_early, admit_late;
    const double half = static_cast<double>(submitted_at.size()) / 2;
    for (const JournalRecord& r : journal->replayed()) {
      if ((r.event != "release" && r.event != "admit") || submitted_at.count(r.job) == 0) continue;
      const double lag_ms = (r.time_s - submitted_at[r.job]) * 1e3;
      const bool first_half =
          static_cast<double>(std::distance(submitted_at.begin(), submitted_at.find(r.job))) < half;
      if (r.event == "admit") {
        (first_half ? admit_early : admit_late).push_back(std::max(0.0, lag_ms));
      } else {
        (first_half ? early : late).push_back(lag_ms);
      }
    }
    fmt::print("\n2. {:.0f} submissions/s for {:.0f} s ({} jobs, each 0.3 s of sleep):\n", rate, seconds,
               submitted_at.size());
    PrintDistribution("submit -> admitted, first half of the stream", admit_early);
    PrintDistribution("submit -> admitted, second half", admit_late);
    PrintDistribution("submit -> release, first half of the stream", early);
    PrintDistribution("submit -> release, second half", late);
    fmt::print("  all finished {:.1f} s after the first submission; agent CPU {:.2f} s ({:.0f}% of one core)\n",
               wall, cpu, 100 * cpu / wall);
  }
  (void)plain.Run({"scripts/slurm/stop-cluster.sh", dir, "--purge"});
  std::filesystem::remove_all(root);
  return 0;
}
