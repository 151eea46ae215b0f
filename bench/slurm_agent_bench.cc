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
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "hetsched/model/model_zoo.h"
#include "hetsched/slurm/agent.h"
#include "hetsched/slurm/squeue_text.h"
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

Methods Fifo() { return std::move(CreateMethods(MethodChoice{})).value(); }

long long Submit(CommandRunner& runner, const std::string& work, const std::string& script) {
  auto r = runner.Run({"sbatch", "--parsable", "--hold", "--gpus=1", "-o", "/dev/null", "-D", work,
                       "--comment=hetsched model=resnet50 iterations=100", script});
  return r.ok() && r->exit_code == 0 ? std::atoll(r->out.c_str()) : -1;
}

// Where a poll's time goes, with the jobs Slurm lists now: the squeue command (process start +
// slurmctld's answer + the client's formatting) and the agent's parsing, for the JSON listing the
// agent used before and the filtered text poll it uses now; and the bare cost of starting a
// process. Means over `n` calls; wall (steady clock) and this process's CPU (parsing only: the
// commands' own CPU is in their processes).
void Breakdown(PosixCommandRunner& runner, int n) {
  auto time_command = [&](const std::vector<std::string>& argv, std::string* out) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
      auto r = runner.Run(argv);
      if (r.ok() && out != nullptr) *out = r->out;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n * 1e3;
  };
  auto time_parse = [&](const std::function<size_t()>& parse, size_t* jobs) {
    const double cpu0 = CpuSeconds();
    for (int i = 0; i < n; ++i) *jobs = parse();
    return (CpuSeconds() - cpu0) / n * 1e3;
  };
  std::string json, text;
  const double json_ms = time_command({"squeue", "--json"}, &json);
  const double text_ms = time_command(SqueuePollCommand("all"), &text);
  const double true_ms = time_command({"true"}, nullptr);
  const double ping_ms = time_command({"scontrol", "ping"}, nullptr);
  size_t json_jobs = 0, text_jobs = 0;
  const double json_parse = time_parse([&] { return ParseSqueueJson(json, "bench").value().size(); }, &json_jobs);
  const double text_parse = time_parse([&] { return ParseSqueuePoll(text, "bench").value().size(); }, &text_jobs);
  fmt::print("  squeue --json       : {:6.1f} ms wall per call, {:7.0f} KB, parse {:5.2f} ms CPU ({} jobs)\n", json_ms,
             static_cast<double>(json.size()) / 1e3, json_parse, json_jobs);
  fmt::print("  squeue -h -O (poll) : {:6.1f} ms wall per call, {:7.1f} KB, parse {:5.2f} ms CPU ({} jobs)\n", text_ms,
             static_cast<double>(text.size()) / 1e3, text_parse, text_jobs);
  fmt::print("  process start (true): {:6.1f} ms wall;  scontrol ping: {:6.1f} ms wall\n", true_ms, ping_ms);
}

}  // namespace

int main(int argc, char** argv) {
  int pending = 100;
  double rate = 20, seconds = 15;
  int min_job_age = 300;
  int release_batch = AgentOptions{}.release_batch;  // start-cluster.sh's MinJobAge; --min-job-age changes it (scontrol reconfigure)
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--pending") pending = std::atoi(argv[i + 1]);
    if (k == "--rate") rate = std::atof(argv[i + 1]);
    if (k == "--seconds") seconds = std::atof(argv[i + 1]);
    if (k == "--min-job-age") min_job_age = std::atoi(argv[i + 1]);
    if (k == "--release-batch") release_batch = std::atoi(argv[i + 1]);
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
             "MinJobAge={} s, release_batch={}\n",
             min_job_age, release_batch);

  // 1. Decision to release at `pending` pending jobs.
  for (int i = 0; i < pending; ++i) Submit(runner, work, script);
  {
    AgentOptions o;
    o.journal_path = work + "/journal1.jsonl";
    o.release_batch = release_batch;
    auto agent = Agent::Start(runner, clock, ModelZoo::BuiltIn(), Fifo(), o);
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
  fmt::print("\n   cost of one poll with {} jobs listed (20 calls each):\n", pending);
  Breakdown(runner, 20);

  // 2. A steady stream of submissions while the agent runs.
  {
    AgentOptions o;
    o.journal_path = work + "/journal2.jsonl";
    o.poll_interval_s = 0.1;
    o.release_batch = release_batch;
    auto agent = Agent::Start(runner, clock, ModelZoo::BuiltIn(), Fifo(), o);
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
    fmt::print("\n   cost of one poll with {} more jobs listed (20 calls each):\n", submitted_at.size());
    Breakdown(runner, 20);
  }
  (void)plain.Run({"scripts/slurm/stop-cluster.sh", dir, "--purge"});
  std::filesystem::remove_all(root);
  return 0;
}
