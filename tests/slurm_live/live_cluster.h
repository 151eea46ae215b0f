// A real Slurm cluster on localhost for the integration tests (label `slurm`, also `slow`): one
// slurmctld + one slurmd per emulated node, started by scripts/slurm/start-cluster.sh in a fresh
// temp dir and stopped (with the dir removed) when the object dies, also after a failed
// assertion. Tests skip with a clear message only when the Slurm binaries are absent.
#pragma once

#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hetsched/slurm/command_runner.h"
#include "hetsched/slurm/slurm_json.h"
#include "hetsched/util/file_io.h"

namespace hetsched::slurm::live {

inline bool SlurmInstalled() {
  for (const char* p : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/bin/scontrol",
                        "/usr/bin/squeue", "/usr/bin/sinfo"}) {
    if (access(p, X_OK) != 0) return false;
  }
  return true;
}

#define HETSCHED_SKIP_WITHOUT_SLURM()                                                                  \
  if (!::hetsched::slurm::live::SlurmInstalled()) {                                                    \
    GTEST_SKIP() << "Slurm binaries absent (/usr/sbin/slurmctld, slurmd, sbatch...): install them with " \
                    "scripts/setup.sh to run the real-cluster tests";                                  \
  }

inline std::string Scripts() { return std::string(HETSCHED_SOURCE_DIR) + "/scripts/slurm"; }

class LiveCluster {
 public:
  LiveCluster() = default;
  LiveCluster(const LiveCluster&) = delete;
  LiveCluster& operator=(const LiveCluster&) = delete;
  ~LiveCluster() { Stop(); }

  // Starts `a100` nodes of 4 A100 and `v100` nodes of 8 V100.
  void Start(int a100, int v100) {
    ReapOrphans();
    char tmpl[] = "/tmp/hetsched-slurm-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    std::ofstream(root_ + "/owner.pid") << getpid() << "\n";
    dir_ = root_ + "/cluster";
    work_ = root_ + "/work";
    std::filesystem::create_directories(work_);
    PosixCommandRunner plain({}, 120);
    auto r = plain.Run({Scripts() + "/start-cluster.sh", dir_, "--a100", std::to_string(a100), "--v100",
                        std::to_string(v100)});
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->exit_code, 0) << r->err;
    started_ = true;
    conf_ = dir_ + "/etc/slurm.conf";
    runner_ = std::make_unique<PosixCommandRunner>(std::map<std::string, std::string>{{"SLURM_CONF", conf_}}, 60);
  }

  // Clusters left by a test process that was killed (ctest timeout, SIGKILL: no destructor ran)
  // are stopped and removed before a new one starts, so that daemons never pile up.
  static void ReapOrphans() {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/tmp", ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("hetsched-slurm-test.", 0) != 0) continue;
      long owner = 0;
      std::ifstream(entry.path() / "owner.pid") >> owner;
      if (owner <= 0 || owner == getpid() || kill(static_cast<pid_t>(owner), 0) == 0) continue;
      PosixCommandRunner plain({}, 120);
      (void)plain.Run({Scripts() + "/stop-cluster.sh", (entry.path() / "cluster").string(), "--purge"});
      std::filesystem::remove_all(entry.path(), ec);
    }
  }

  void Stop() {
    if (started_) {
      // Its scan of /proc for stray job processes forks per process: minutes on a loaded machine.
      PosixCommandRunner plain({}, 300);
      auto r = plain.Run({Scripts() + "/stop-cluster.sh", dir_, "--purge"});
      EXPECT_TRUE(r.ok() && r->exit_code == 0) << (r.ok() ? r->err : r.status().message());
      started_ = false;
    }
    if (!root_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(root_, ec);
      root_.clear();
    }
  }

  // Runs a Slurm command with this cluster's SLURM_CONF; fails the test if it cannot run.
  CommandResult Slurm(const std::vector<std::string>& argv) {
    auto r = runner_->Run(argv);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : CommandResult{127, "", r.status().message()};
  }

  // sbatch --hold with `args` (e.g. {"--gpus=a100:2"}) and `script`; returns the job id or -1.
  long long SubmitHeld(const std::vector<std::string>& args, const std::string& script) {
    std::vector<std::string> argv = {"sbatch", "--parsable", "--hold", "-o", "/dev/null", "-D", work_};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back(script);
    CommandResult r = Slurm(argv);
    if (r.exit_code != 0) return -1;
    return std::stoll(r.out);
  }

  // Writes an executable job script that appends "<job id> <node list>" to `marker` when it ends,
  // after sleeping `sleep_s`, or `rerun_s` (when >= 0) on a job's second and later runs (after a
  // requeue: only the first run must outlast what the test does to it).
  std::string MarkerScript(const std::string& name, const std::string& marker, double sleep_s, double rerun_s = -1) {
    const std::string path = work_ + "/" + name;
    std::ofstream f(path);
    f << "#!/bin/bash\n" << SleepSeconds(sleep_s, rerun_s) << "sleep $d\necho \"$SLURM_JOB_ID $SLURM_JOB_NODELIST\" >> " << marker
      << "\n";
    f.close();
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
  }

  // Shell lines that set $d to `sleep_s` on a job's first run and to `rerun_s` on later ones (when
  // rerun_s >= 0; each run leaves a file named for the job in the work folder).
  std::string SleepSeconds(double sleep_s, double rerun_s) const {
    std::ostringstream s;
    s << "d=" << sleep_s << "\n";
    if (rerun_s >= 0) {
      const std::string ran = work_ + "/ran.$SLURM_JOB_ID";
      s << "if [ -e " << ran << " ]; then d=" << rerun_s << "; fi\ntouch " << ran << "\n";
    }
    return s.str();
  }

  std::vector<SlurmJob> Jobs() {
    CommandResult r = Slurm({"squeue", "--json"});
    auto jobs = ParseSqueueJson(r.out, "squeue --json");
    EXPECT_TRUE(jobs.ok()) << jobs.status().message();
    return jobs.ok() ? *jobs : std::vector<SlurmJob>{};
  }

  const std::string& dir() const { return dir_; }
  const std::string& work() const { return work_; }
  const std::string& conf() const { return conf_; }
  PosixCommandRunner& runner() { return *runner_; }

 private:
  std::string root_, dir_, work_, conf_;
  bool started_ = false;
  std::unique_ptr<PosixCommandRunner> runner_;
};

// Marker file lines "<job id> <node list>" -> job id -> node lists (one per completed run).
inline std::map<long long, std::vector<std::string>> ReadMarkers(const std::string& path) {
  std::map<long long, std::vector<std::string>> out;
  std::ifstream f(path);
  long long id;
  std::string nodes;
  while (f >> id >> nodes) out[id].push_back(nodes);
  return out;
}

// A child process (the CLI agent) that can be SIGKILLed; reaped when the object dies.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env, const std::string& log) {
    std::vector<std::string> args = argv, envs;
    for (char** e = environ; *e != nullptr; ++e) envs.emplace_back(*e);
    for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
    std::vector<char*> a, e;
    for (auto& s : args) a.push_back(s.data());
    a.push_back(nullptr);
    for (auto& s : envs) e.push_back(s.data());
    e.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    EXPECT_EQ(posix_spawn(&pid_, a[0], &fa, nullptr, a.data(), e.data()), 0);
    posix_spawn_file_actions_destroy(&fa);
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      Wait(10);
    }
  }
  void Kill9() {
    kill(pid_, SIGKILL);
    Wait(10);
  }
  // Waits up to `timeout_s` for the child to exit; returns its exit status or -1.
  int Wait(double timeout_s) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (pid_ > 0) {
      int status = 0;
      const pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      if (std::chrono::steady_clock::now() > end) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
};

inline int CountLines(const std::string& path, const std::string& needle) {
  std::ifstream f(path);
  std::string line;
  int n = 0;
  while (std::getline(f, line)) n += line.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

}  // namespace hetsched::slurm::live

#include "hetsched/model/model_zoo.h"
#include "hetsched/slurm/agent.h"
#include "hetsched/slurm/clock.h"

namespace hetsched::slurm::live {

inline std::string Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

// An in-process agent on `cluster` (fifo + pack, journal in its work dir, 0.1 s polls), with the
// operator messages collected in `reports`.
struct LiveAgent {
  SystemClock clock;
  AgentOptions options;
  MethodChoice methods{.policy = "fifo", .placer = "pack"};
  std::vector<std::string> reports;
  std::unique_ptr<Agent> agent;

  void Start(LiveCluster& cluster) {
    options.journal_path = cluster.work() + "/journal.jsonl";
    options.poll_interval_s = 0.1;
    options.report = [this](const std::string& m) { reports.push_back(m); };
    auto created = CreateMethods(methods);
    ASSERT_TRUE(created.ok()) << created.status().message();
    auto started = Agent::Start(cluster.runner(), clock, ModelZoo::BuiltIn(), std::move(created).value(), options);
    ASSERT_TRUE(started.ok()) << started.status().message();
    agent = std::move(started).value();
  }
  // Runs until `done()` or `timeout_s` passed.
  void RunUntil(const std::function<bool()>& done, double timeout_s) {
    const double deadline = clock.NowS() + timeout_s;
    Status st = agent->Run([&] { return done() || clock.NowS() > deadline; });
    ASSERT_TRUE(st.ok()) << st.message();
  }
  // Runs until `done()`, as long as the run makes progress: it gives up only when the agent's
  // counts did not change for `stall_s` (or after `cap_s` in all), so that a machine loaded by
  // other work slows the test down instead of failing it. A give-up is a failure that says where
  // the run stood.
  void RunWhileProgressing(const std::function<bool()>& done, double stall_s = 120, double cap_s = 900) {
    const double start = clock.NowS();
    double last_change = start;
    AgentCounts last = agent->counts();
    bool gave_up = false;
    Status st = agent->Run([&] {
      if (done()) return true;
      const AgentCounts c = agent->counts();
      if (c.admitted != last.admitted || c.released != last.released || c.running != last.running ||
          c.finished != last.finished || c.rejected != last.rejected) {
        last = c;
        last_change = clock.NowS();
      }
      gave_up = clock.NowS() - last_change > stall_s || clock.NowS() - start > cap_s;
      return gave_up;
    });
    ASSERT_TRUE(st.ok()) << st.message();
    if (gave_up) {
      const AgentCounts c = agent->counts();
      ADD_FAILURE() << "no progress for " << stall_s << " s (or over " << cap_s << " s): admitted " << c.admitted
                    << ", pending " << c.pending << ", released " << c.released << ", running " << c.running
                    << ", finished " << c.finished << ", rejected " << c.rejected << "; last report: "
                    << (reports.empty() ? "none" : reports.back());
    }
  }
  // Operator messages the agent legitimately prints on a loaded machine: Slurm answering late
  // (a command timed out: retried), and Slurm's own per-node split of an uneven GPU count.
  static bool Transient(const std::string& m) {
    return m.rfind("note: ", 0) == 0 || m.rfind("Slurm unreachable (will retry)", 0) == 0 ||
           m == "Slurm reachable again";
  }
  std::vector<std::string> Unexpected() const {
    std::vector<std::string> out;
    for (const auto& m : reports) {
      if (!Transient(m)) out.push_back(m);
    }
    return out;
  }
  Agent* operator->() { return agent.get(); }
};

}  // namespace hetsched::slurm::live
